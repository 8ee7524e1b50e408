//! End-to-end: Ctrl-C (SIGINT) sent to the real `bench` in the middle of a run keeps the
//! results: no new task starts, running tasks finish within the grace period or are recorded
//! as `interrupted`, and the records, `summary.json` and the `Results:` line are written
//! before bench exits 130.

use crate::support::{
    bench::{bench, run_bench, Run},
    guests::test_guest,
    results::{read_json, records},
};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Starts `bench run` of the sleeper guest into `dir/results`.
fn start_sleeper(dir: &Path, args: &[&str]) -> Child {
    let wasm = test_guest("sleeper");
    bench(dir)
        .args(["run", wasm.to_str().unwrap(), "--out", "results"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bench starts")
}

/// Waits until `ready` holds (checked every 50 ms), failing after a minute.
fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Lines in the run's `records.ndjson` so far.
fn record_lines(results: &Path) -> usize {
    std::fs::read_to_string(results.join("records.ndjson"))
        .map(|text| text.lines().count())
        .unwrap_or(0)
}

fn send_sigint(child: &Child) {
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
}

/// Waits for the child, failing when it outlives `limit`.
fn finish(mut child: Child, limit: Duration) -> Run {
    let start = Instant::now();
    while child.try_wait().expect("bench is waited for").is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("bench did not exit within {limit:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("bench output").into()
}

#[test]
fn ctrl_c_stops_scheduling_lets_running_tasks_finish_and_keeps_the_results() {
    let dir = TempDir::new().unwrap();
    let results = dir.path().join("results");
    let child = start_sleeper(
        dir.path(),
        &[
            "--iterations",
            "100000",
            "--concurrency",
            "2",
            "--sleep-ms",
            "100",
            "--stop-grace",
            "30s",
        ],
    );
    wait_until("some records are written", || record_lines(&results) >= 4);
    send_sigint(&child);
    let run = finish(child, Duration::from_secs(20));

    assert_eq!(run.code, Some(130), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "Stopping: no new task starts; running tasks have 30s to finish \
             (press Ctrl-C again to quit at once)"
        ),
        "{}",
        run.stderr
    );
    let records = records(&results);
    assert!(records.len() >= 4 && records.len() < 100_000);
    assert!(
        records.iter().all(|record| record["status"] == "success"),
        "the running tasks finished within the grace period"
    );
    let run_json = read_json(&results.join("run.json"));
    assert_eq!(run_json["interrupted"], true);
    assert_eq!(run_json["tasks"]["total"], records.len());
    let summary = read_json(&results.join("summary.json"));
    assert_eq!(summary["run"]["interrupted"], true);
    assert_eq!(summary["interrupted"], true);
    assert!(run
        .stdout
        .contains(&format!("  Done: {0}/{0} succeeded.", records.len())));
    let last = run.lines().last().copied().unwrap_or_default().to_owned();
    assert_eq!(last, "Results: results");

    let report = run_bench(dir.path(), &["report", "results"]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    assert_eq!(
        read_json(&results.join("summary.json"))["run"]["interrupted"],
        true,
        "the report of an interrupted run still says so"
    );
}

#[test]
fn tasks_still_running_after_the_grace_period_are_recorded_as_interrupted() {
    let dir = TempDir::new().unwrap();
    let results = dir.path().join("results");
    let child = start_sleeper(
        dir.path(),
        &[
            "--iterations",
            "10",
            "--concurrency",
            "2",
            "--sleep-ms",
            "600000",
            "--stop-grace",
            "300ms",
        ],
    );
    wait_until("the run starts", || results.join("run.json").exists());
    // The tasks start right after run.json is written; give them time to be running.
    std::thread::sleep(Duration::from_secs(1));
    send_sigint(&child);
    let run = finish(child, Duration::from_secs(20));

    assert_eq!(run.code, Some(130), "{}\n{}", run.stdout, run.stderr);
    let records = records(&results);
    let codes: Vec<&str> = records
        .iter()
        .map(|record| record["errorCode"].as_str().unwrap_or("none"))
        .collect();
    assert_eq!(codes, ["interrupted", "interrupted"], "{records:?}");
    assert_eq!(
        read_json(&results.join("summary.json"))["run"]["interrupted"],
        true
    );
    assert!(run.stdout.contains("Results: results"), "{}", run.stdout);
}
