//! End-to-end: `bench report` over 200 000 records writes `summary.json` (and prints the
//! table) byte for byte as the summary that kept every record in memory did. The records are
//! generated here from a fixed formula; `fixtures/summary-parity/<case>/` holds each case's
//! `run.json` and the `summary.json` and console output that `bench report` of the
//! in-memory summary (the code before the summary streamed) produced for those records.

use crate::support::{bench::run_bench_pinned, root};
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Records per participant; two participants make 200 000.
const TASKS_PER_PARTICIPANT: u32 = 100_000;

/// A deterministic stream of pseudo-random numbers (xorshift64*).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..bound`.
    fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }
}

/// The fields of a record after `startedAt` and before `completedAt`: `errorCode` and `data`.
type Middle = fn(&mut Numbers, u32) -> (Option<&'static str>, String);

/// A no-op task's record: varying latency, a failure every 50th task, and a measure that
/// first appears at task 5 (in the data) and one on a step from task 3 on.
fn no_op(numbers: &mut Numbers, index: u32) -> (Option<&'static str>, String) {
    let error = index.is_multiple_of(50).then_some("timeout");
    let data = if index % 7 == 5 {
        format!(",\"data\":{{\"bytes\":{}}}", numbers.below(1 << 20))
    } else {
        String::new()
    };
    (error, data)
}

/// A scored task's record (`fixtures/summary-parity/scored/run.json`): upload time,
/// two throughput samples, a size group and the `verified` flag the spec requires.
fn scored(numbers: &mut Numbers, index: u32) -> (Option<&'static str>, String) {
    let error = index.is_multiple_of(101).then_some("boom");
    let upload = numbers.below(200_000) as f64 / 100.0;
    let throughput = [numbers.below(6_000), numbers.below(6_000)];
    let size = ["1MB", "4MB", "16MB"][index as usize % 3];
    let verified = !index.is_multiple_of(97);
    let data = format!(
        ",\"data\":{{\"uploadMs\":{upload},\"throughputMbps\":[{},{}],\"size\":\"{size}\",\"verified\":{verified}}}",
        throughput[0] as f64 / 10.0,
        throughput[1] as f64 / 10.0,
    );
    (error, data)
}

/// Writes `records.ndjson`: each participant's tasks, interleaved as a run finishes them.
fn write_records(path: &Path, participants: [&str; 2], middle: Middle) {
    let mut out = BufWriter::new(File::create(path).unwrap());
    let mut numbers = Numbers(0x9E37_79B9_7F4A_7C15);
    let mut line = String::new();
    for index in 0..TASKS_PER_PARTICIPANT {
        for participant in participants {
            let latency = numbers.below(250_000) as f64 / 1000.0;
            let (error, data) = middle(&mut numbers, index);
            let status = if error.is_some() { "error" } else { "success" };
            let seconds = index / 1000;
            let started = format!("2026-11-30T17:{:02}:{:02}.000Z", seconds / 60, seconds % 60);
            line.clear();
            write!(
                line,
                "{{\"participant\":\"{participant}\",\"taskIndex\":{index},\"status\":\"{status}\",\"startedAt\":\"{started}\""
            )
            .unwrap();
            if let Some(code) = error {
                write!(line, ",\"errorCode\":\"{code}\"").unwrap();
            }
            line.push_str(&data);
            write!(
                line,
                ",\"completedAt\":\"{started}\",\"latencyMs\":{latency},\"steps\":[{{\"name\":\"exec\",\"status\":\"{status}\",\"startedAt\":\"{started}\",\"completedAt\":\"{started}\",\"latencyMs\":{latency}"
            )
            .unwrap();
            if index >= 3 {
                write!(line, ",\"data\":{{\"ops\":{}}}", numbers.below(1000)).unwrap();
            }
            if let Some(code) = error {
                write!(line, ",\"errorCode\":\"{code}\"").unwrap();
            }
            line.push_str("}]}\n");
            out.write_all(line.as_bytes()).unwrap();
        }
    }
    out.flush().unwrap();
}

fn fixture(case: &str) -> PathBuf {
    root().join("tests/e2e/fixtures/summary-parity").join(case)
}

/// Generates the case's records next to its `run.json`, runs `bench report` and compares
/// `summary.json` and the console output with the fixture's.
fn report_matches_in_memory_summary(case: &str, participants: [&str; 2], middle: Middle) {
    let dir = TempDir::new().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    std::fs::copy(fixture(case).join("run.json"), results.join("run.json")).unwrap();
    write_records(&results.join("records.ndjson"), participants, middle);

    let report = run_bench_pinned(dir.path(), &["report", "results"], &[]);
    assert_eq!(report.code, Some(0), "stderr: {}", report.stderr);
    let summary = std::fs::read_to_string(results.join("summary.json")).unwrap();
    let expected = std::fs::read_to_string(fixture(case).join("summary.json")).unwrap();
    assert!(
        summary == expected,
        "{case}: summary.json differs:\n{summary}"
    );
    // The timing lines under the table are new; everything else is as it was.
    let timing = |line: &&str| line.starts_with("Elapsed: ") || line.contains(": latency ");
    let (timing_lines, output): (Vec<&str>, Vec<&str>) = report.stdout.lines().partition(timing);
    assert!(
        timing_lines[0].starts_with("Elapsed: "),
        "{}",
        report.stdout
    );
    let console = std::fs::read_to_string(fixture(case).join("console.txt")).unwrap();
    assert_eq!(
        output,
        console.lines().collect::<Vec<_>>(),
        "{case}: console output differs"
    );
}

#[test]
fn unscored_summary_of_200_000_records_is_unchanged() {
    report_matches_in_memory_summary("no-op", ["alpha", "beta"], no_op);
}

#[test]
fn scored_summary_of_200_000_records_is_unchanged() {
    report_matches_in_memory_summary("scored", ["fast", "slow"], scored);
}
