//! End-to-end: the failure gates. A run whose every task failed exits 2 with one line giving
//! the first reason (`--allow-all-failed` keeps upstream's 0); `--max-failure-rate` fails a
//! run with more failed tasks than it allows.

use crate::support::{
    bench::{run_bench, Run},
    guests::test_guest,
    results::records,
};
use std::path::Path;
use tempfile::TempDir;

fn run_guest(guest: &str, dir: &Path, args: &[&str]) -> Run {
    let wasm = test_guest(guest);
    let mut full = vec!["run", wasm.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    run_bench(dir, &full)
}

#[test]
fn a_run_whose_every_task_failed_exits_2_with_the_reason() {
    let dir = TempDir::new().unwrap();
    let args = [
        "--iterations",
        "3",
        "--sleep-ms",
        "1",
        "--max-memory",
        "1KiB",
    ];
    let run = run_guest("sleeper", dir.path(), &args);
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    let verdict = run.stderr.lines().last().unwrap_or_default();
    assert!(
        verdict.starts_with(
            "All 3 tasks failed (first: [local] task 1: instantiation_failed \u{2014} could not \
             instantiate the task: "
        ) && verdict.ends_with("); --allow-all-failed exits 0 all the same"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("  Done: 0/3 succeeded."));
    assert!(run.lines().last().unwrap().starts_with("Results: "));
    assert_eq!(records(&dir.path().join("results")).len(), 3);

    let mut allowed = args.to_vec();
    allowed.push("--allow-all-failed");
    let again = TempDir::new().unwrap();
    let run = run_guest("sleeper", again.path(), &allowed);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stderr.contains("tasks failed"), "{}", run.stderr);
}

#[test]
fn max_failure_rate_fails_a_run_with_more_failed_tasks() {
    let dir = TempDir::new().unwrap();
    let one_of_three = ["--panic-at", "1"];
    let run = run_guest("faulty", dir.path(), &one_of_three);
    assert_eq!(run.code, Some(0), "some failures pass: {}", run.stderr);

    let mut gated = one_of_three.to_vec();
    gated.extend(["--max-failure-rate", "0.3"]);
    let again = TempDir::new().unwrap();
    let run = run_guest("faulty", again.path(), &gated);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let verdict = run.stderr.lines().last().unwrap_or_default();
    assert!(
        verdict.starts_with(
            "1 of 3 tasks failed (33.3%), more than --max-failure-rate 0.3 allows (first: [p] \
             task 2: trap \u{2014} task trapped: "
        ),
        "{}",
        run.stderr
    );

    let mut within = one_of_three.to_vec();
    within.extend(["--max-failure-rate", "0.34"]);
    let third = TempDir::new().unwrap();
    assert_eq!(run_guest("faulty", third.path(), &within).code, Some(0));
}
