//! End-to-end: under the summary table a run prints its elapsed time and tasks/s and each
//! participant's latency (mean ± σ, min, median, p95, p99, max); `bench report` prints the
//! same lines. Records carry a monotonic `durationUs` beside `latencyMs`, per task and per
//! host-timed step, and the latency line uses it, so a fast task shows microseconds; so
//! does the warning that a median is within reach of bench's own measured floor.

use crate::support::{
    bench::run_bench,
    guests::{example, test_guest},
    results::records,
};
use serde_json::Value;
use tempfile::TempDir;

fn timing_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|line| line.starts_with("Elapsed: ") || line.starts_with("  local: latency "))
        .collect()
}

#[test]
fn the_summary_shows_elapsed_time_throughput_and_latency_spread() {
    let dir = TempDir::new().unwrap();
    let wasm = test_guest("sleeper");
    let args = [
        "run",
        wasm.to_str().unwrap(),
        "--iterations",
        "10",
        "--sleep-ms",
        "20",
    ];
    let run = run_bench(dir.path(), &[&args[..], &["--out", "results"]].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines = timing_lines(&run.stdout);
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert!(lines[0].ends_with(" for 10 tasks") || lines[0].contains(" for 10 tasks ("));
    assert!(lines[0].contains(" tasks/s)"), "{}", lines[0]);
    let latency = lines[1];
    assert!(latency.contains(" ms \u{b1} "), "{latency}");
    for order in [" (min ", ", median ", ", p95 ", ", p99 ", ", max "] {
        assert!(latency.contains(order), "{order}: {latency}");
    }
    assert!(latency.ends_with(", 10 successful tasks)"), "{latency}");
    let next = run
        .lines()
        .iter()
        .position(|line| *line == lines[1])
        .unwrap()
        + 1;
    assert!(
        run.lines()[next].starts_with("  local: guest CPU ")
            && run.lines()[next].ends_with("% of the latency median"),
        "the guest CPU under the latency: {}",
        run.stdout
    );
    assert!(
        run.lines()[next + 1].starts_with("Results: "),
        "under the table"
    );

    let report = run_bench(dir.path(), &["report", "results"]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    assert_eq!(timing_lines(&report.stdout), lines);

    for record in records(&dir.path().join("results")) {
        let us = duration_beside_latency(&record);
        assert!(us >= 20_000.0, "slept 20 ms: {record}");
    }
}

/// The `durationUs` of a record or step, checked: right after `latencyMs`, at most three
/// decimals, and the same duration as `latencyMs` to within its millisecond (a little
/// slack for the two clocks).
fn duration_beside_latency(timed: &Value) -> f64 {
    let keys: Vec<&String> = timed.as_object().unwrap().keys().collect();
    let at = keys.iter().position(|key| *key == "latencyMs").unwrap();
    assert_eq!(keys[at + 1], "durationUs", "{timed}");
    let us = timed["durationUs"].as_f64().unwrap();
    let text = timed["durationUs"].to_string();
    let decimals = text
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len());
    assert!(decimals <= 3, "{text}");
    let ms = timed["latencyMs"].as_f64().unwrap();
    assert!((us / 1000.0 - ms).abs() <= 1.05, "{timed}");
    us
}

#[test]
fn records_time_each_task_and_host_timed_step_in_microseconds() {
    let dir = TempDir::new().unwrap();
    let hello = example("rust-hello");
    let args = ["run", hello.to_str().unwrap(), "--out", "results"];
    let run = run_bench(dir.path(), &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = records(&dir.path().join("results"));
    assert_eq!(records.len(), 6);
    for record in &records {
        let task = duration_beside_latency(record);
        let steps = record["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3, "{record}");
        for step in steps {
            let step = duration_beside_latency(step);
            assert!(step > 0.0 && step <= task, "{record}");
        }
    }
}

#[test]
fn a_no_op_task_shows_its_latency_in_microseconds() {
    let dir = TempDir::new().unwrap();
    let noop = example("rust-noop");
    let args = ["run", noop.to_str().unwrap(), "--iterations", "200"];
    let run = run_bench(dir.path(), &[&args[..], &["--out", "results"]].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let line = timing_lines(&run.stdout)
        .into_iter()
        .find(|line| line.contains(": latency "))
        .unwrap_or_else(|| panic!("a latency line: {}", run.stdout))
        .to_owned();
    let median = line.split(", median ").nth(1).unwrap();
    assert!(
        median.split(',').next().unwrap().ends_with(" \u{b5}s"),
        "{line}"
    );
    assert!(!line.contains(" 0 ms"), "{line}");
    let records = records(&dir.path().join("results"));
    assert_eq!(records.len(), 200);
    for record in &records {
        duration_beside_latency(record);
    }

    // A no-op task is bench's own floor: the warning says so with the median at the
    // records' resolution (not upstream's whole-millisecond 0), and run.json keeps the floor.
    let warning = run
        .stderr
        .lines()
        .find(|line| line.contains("of bench's own floor"))
        .unwrap_or_else(|| panic!("a floor warning: {}", run.stderr));
    let median: f64 = warning
        .split("latencyMs median ")
        .nth(1)
        .and_then(|rest| rest.split(" ms").next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("a median in ms: {warning}"));
    assert!(median > 0.0 && median < 1.0, "{warning}");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("results/run.json")).unwrap())
            .unwrap();
    assert!(
        manifest["instrumentFloor"].is_object(),
        "{}",
        manifest["instrumentFloor"]
    );
    let quiet = run_bench(dir.path(), &[&args[..], &["--out", "quiet", "-q"]].concat());
    assert_eq!(quiet.code, Some(0), "{}", quiet.stderr);
    assert!(!quiet.stderr.contains("own floor"), "{}", quiet.stderr);
}
