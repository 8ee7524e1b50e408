//! End-to-end: runs that scale — 10 000 sandboxes alive at once, the limit on live
//! sandboxes checked before a run starts, and the process's metrics sampler with 1 000
//! participants.

use crate::support::{
    bench::{run_bench, Run},
    guests::test_guest,
    results::records,
};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

fn run_guest(guest: &str, dir: &Path, args: &[&str]) -> Run {
    let wasm = test_guest(guest);
    let mut full = vec!["run", wasm.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    run_bench(dir, &full)
}

/// The most tasks in flight at one moment, from the records' start and end times (a task
/// ending in the millisecond another starts is counted as over first).
fn most_in_flight(records: &[Value]) -> usize {
    let mut events: Vec<(&str, i32)> = records
        .iter()
        .flat_map(|record| {
            [
                (record["startedAt"].as_str().unwrap(), 1),
                (record["completedAt"].as_str().unwrap(), -1),
            ]
        })
        .collect();
    events.sort();
    let mut in_flight = 0i32;
    let mut most = 0i32;
    for (_, change) in events {
        in_flight += change;
        most = most.max(in_flight);
    }
    most as usize
}

#[test]
fn ten_thousand_sandboxes_alive_at_once_all_succeed() {
    let dir = TempDir::new().unwrap();
    // Each task holds its sandbox while it sleeps; the sleep outlasts starting them all
    // (about a second on an idle machine with the test build, four on a busy one).
    let run = run_guest(
        "sleeper",
        dir.path(),
        &[
            "--iterations",
            "10000",
            "--concurrency",
            "10000",
            "--sleep-ms",
            "10000",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = records(&dir.path().join("results"));
    assert_eq!(records.len(), 10_000);
    let failed: Vec<&Value> = records
        .iter()
        .filter(|r| r["status"] != "success")
        .collect();
    assert!(
        failed.is_empty(),
        "{} failed, first: {}",
        failed.len(),
        failed[0]
    );
    assert_eq!(
        most_in_flight(&records),
        10_000,
        "all sandboxes were alive at once"
    );
    assert!(run.stdout.contains("  Done: 10000/10000 succeeded."));
}

#[test]
fn a_run_needing_more_sandboxes_than_the_limit_stops_before_it_starts() {
    let dir = TempDir::new().unwrap();
    let run = run_guest(
        "sleeper",
        dir.path(),
        &["--iterations", "20000", "--concurrency", "20000"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_eq!(
        run.stderr.trim_end(),
        "Benchmark failed: this run would hold 20000 sandboxes at once (--concurrency 20000), \
         more than the 10000 allowed; lower concurrency, or raise the cap with \
         --max-sandboxes 20000 (every sandbox reserves 4 GiB of address space and keeps its \
         memory while it lives)"
    );
    assert!(run.stdout.is_empty(), "nothing ran: {}", run.stdout);
    assert!(!dir.path().join("results").exists(), "no results directory");

    let within = run_guest(
        "sleeper",
        dir.path(),
        &[
            "--iterations",
            "4",
            "--concurrency",
            "4",
            "--sleep-ms",
            "1",
            "--max-sandboxes",
            "4",
        ],
    );
    assert_eq!(within.code, Some(0), "{}", within.stderr);
    let beyond = run_guest(
        "sleeper",
        dir.path(),
        &[
            "--iterations",
            "5",
            "--concurrency",
            "5",
            "--max-sandboxes",
            "4",
        ],
    );
    assert_eq!(beyond.code, Some(1));
    assert!(
        beyond.stderr.contains(
            "this run would hold 5 sandboxes at once (--concurrency 5), more than the 4 \
             allowed; lower concurrency, or raise the cap with --max-sandboxes 5"
        ),
        "{}",
        beyond.stderr
    );
}

#[test]
fn round_mode_needs_a_sandbox_per_participant() {
    let dir = TempDir::new().unwrap();
    let run = run_guest(
        "crowd",
        dir.path(),
        &["--group-by", "round", "--max-sandboxes", "999"],
    );
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "this run would hold 1000 sandboxes at once (one per participant in round mode), \
             more than the 999 allowed; run fewer participants (--provider), or raise the cap \
             with --max-sandboxes 1000"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_thousand_participants_share_the_process_sampler() {
    let dir = TempDir::new().unwrap();
    let run = run_guest("crowd", dir.path(), &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let results = dir.path().join("results");
    assert_eq!(records(&results).len(), 1000);
    let metrics = std::fs::read_to_string(results.join("metrics.jsonl")).unwrap();
    let samples = metrics.lines().count();
    // A sample per participant start and end would be 2 002 lines; the participants' samples
    // are at least 100 ms apart, so the run's length bounds them instead.
    let run_ms = serde_json::from_str::<Value>(metrics.lines().last().unwrap()).unwrap()
        ["uptimeMs"]
        .as_u64()
        .unwrap();
    assert!(samples >= 2, "a baseline and a final sample");
    assert!(
        samples as u64 <= 2 + run_ms / 100 + 1,
        "{samples} samples in {run_ms} ms"
    );
}
