//! End-to-end: every task and host-timed step records `guestCpuUs`, the CPU its sandbox's
//! thread spent running the guest: close to the duration of a CPU-bound step, close to 0
//! for a step that sleeps or waits for an HTTP response, in Rust, JavaScript and Python.

use crate::guest_http::run_task;
use crate::support::{
    bench::{bench, run_bench, run_command},
    guests::{built_project, example, test_guest},
    http_server::serve,
    results::{records, step},
};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

/// A CPU-bound step keeps at least this share of its duration on the CPU. On a quiet
/// machine it is close to 1; the guest is not charged for the time the OS ran something
/// else, so on a machine loaded four times over (as a shared CI machine can be) it drops to
/// about 0.2.
const BUSY: f64 = 0.1;
/// A waiting step spends at most this share of its duration on the CPU.
const IDLE: f64 = 0.1;

/// guestCpuUs / durationUs of a task or step, checked to be at most 1 (plus a little).
fn cpu_share(timed: &Value) -> f64 {
    let cpu = timed["guestCpuUs"].as_f64().expect("guestCpuUs");
    let duration = timed["durationUs"].as_f64().expect("durationUs");
    let share = cpu / duration;
    assert!(share <= 1.05, "more guest CPU than time: {timed}");
    share
}

fn only_record(wasm: &Path, args: &[&str]) -> Value {
    let dir = TempDir::new().unwrap();
    let run = run_bench(
        dir.path(),
        &[&["run", wasm.to_str().unwrap(), "--out", "results"], args].concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    records(&dir.path().join("results")).remove(0)
}

#[test]
fn rust_a_cpu_bound_step_records_its_duration_as_guest_cpu_and_a_sleep_none() {
    let sieve = only_record(
        &example("rust-cpu"),
        &["--iterations", "1", "--limit", "20000000"],
    );
    let share = cpu_share(step(&sieve, "sieve"));
    assert!(share > BUSY, "{share}: {sieve}");
    cpu_share(&sieve);
    let sleep = only_record(&test_guest("sleeper"), &["--sleep-ms", "300"]);
    let share = cpu_share(step(&sleep, "task"));
    assert!(share < IDLE, "{share}: {sleep}");
}

#[test]
fn js_a_spinning_step_records_guest_cpu_and_a_timer_none() {
    let wasm = built_project("tests/guests-js/errors");
    let dir = TempDir::new().unwrap();
    let args = [
        "run",
        wasm.to_str().unwrap(),
        "--throw",
        "busy",
        "--out",
        "results",
    ];
    let run = run_command(bench(dir.path()).args(args).env("GUEST_SECRET", "s"));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let record = &records(&dir.path().join("results"))[0];
    let busy = cpu_share(step(record, "busy"));
    assert!(busy > BUSY, "{busy}: {record}");
    let nap = cpu_share(step(record, "nap"));
    assert!(nap < IDLE, "{nap}: {record}");
}

#[test]
fn python_a_spinning_step_records_guest_cpu_and_a_sleep_or_a_slow_response_none() {
    let url = format!("http://127.0.0.1:{}/slow", serve(1));
    let (_, records) = run_task("tests/guests-python/libraries", &url, &["--case", "cpu"]);
    let record = &records[0];
    assert_eq!(record["status"], "success", "{record}");
    let spin = cpu_share(step(record, "spin"));
    assert!(spin > BUSY, "{spin}: {record}");
    for waiting in ["sleep", "http"] {
        let share = cpu_share(step(record, waiting));
        assert!(share < IDLE, "{waiting} {share}: {record}");
    }
    cpu_share(record);
}
