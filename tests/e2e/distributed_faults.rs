//! End-to-end: a distributed run's faults, every task still recorded exactly once. Workers
//! started before a nats-server restart serve the runs announced after it (and exit
//! non-zero when the server comes back without JetStream); a run stopped by Ctrl-C or
//! SIGTERM is completed by `bench run --resume`.

use crate::support::{
    bench::{run_into, Run},
    guests::{example, test_guest},
    nats::{
        resume_to_every_task_once, spawn_dispatched, wait_for_log, wait_for_records, worker_log,
        NatsServer, Worker,
    },
    results::{read_json, task_tally},
};
use std::process::Command;
use std::time::Duration;
use tempfile::TempDir;

#[test]
fn workers_outlive_a_nats_server_restart_and_exit_when_jetstream_is_gone() {
    let mut nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let args = ["--trust-any", "--reconnect-wait", "2s"];
    let mut worker = Worker::spawn(cwd, &nats.url(), "w1", &args, &[]);
    wait_for_log(cwd, "w1", "serving");
    nats.restart(true);
    wait_for_log(cwd, "w1", "connected to NATS again");

    let hello = example("rust-hello");
    let after = run_into(
        cwd,
        &hello,
        "after",
        Some(&nats.url()),
        &["--worker-wait", "20s"],
    );
    assert_eq!(
        after.code,
        Some(0),
        "{}\n{}",
        after.stderr,
        worker_log(cwd, "w1")
    );
    let (tasks, workers) = task_tally(&cwd.join("after"));
    assert_eq!(tasks.len(), 6);
    assert!(tasks.values().all(|count| *count == 1), "{tasks:?}");
    assert_eq!(workers.keys().collect::<Vec<_>>(), ["w1"]);

    // Back without JetStream: the worker cannot follow the runs, and says so by exiting.
    nats.restart(false);
    assert_eq!(
        worker.exit_code(Duration::from_secs(60)),
        Some(1),
        "{}",
        worker_log(cwd, "w1")
    );
    assert!(
        worker_log(cwd, "w1")
            .contains("cannot follow the runs again within 2s of losing the NATS server"),
        "{}",
        worker_log(cwd, "w1")
    );
}

#[test]
fn a_run_stopped_by_ctrl_c_resumes_to_every_task_exactly_once() {
    stopped_by_signal_then_resumed("-INT");
}

#[test]
fn a_run_stopped_by_sigterm_resumes_to_every_task_exactly_once() {
    stopped_by_signal_then_resumed("-TERM");
}

/// A dispatched run stopped mid-way by `signal` (`kill`'s spelling) ends as interrupted
/// with exit 130, and `--resume` then completes it with every task recorded once.
fn stopped_by_signal_then_resumed(signal: &str) {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let _workers: Vec<Worker> = ["w1", "w2"]
        .iter()
        .map(|name| Worker::start(cwd, &nats.url(), name, 3, &[]))
        .collect();
    let sleeper = test_guest("sleeper");
    let args = [
        "--iterations",
        "300",
        "--concurrency",
        "3",
        "--sleep-ms",
        "5",
    ];
    let quick = ["-q", "--stop-grace", "200ms"];
    let coordinator = spawn_dispatched(
        cwd,
        &sleeper,
        "results",
        &nats.url(),
        &[&args[..], &quick].concat(),
    );
    wait_for_records(&cwd.join("results"));
    let sent = Command::new("kill")
        .args([signal, &coordinator.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let stopped = Run::from(coordinator.wait_with_output().unwrap());
    assert_eq!(stopped.code, Some(130), "{}", stopped.stderr);
    let manifest = read_json(&cwd.join("results").join("run.json"));
    assert_eq!(manifest["interrupted"], true);
    let before = task_tally(&cwd.join("results")).0.len();
    assert!(before < 300, "stopped mid-run: {before}");

    resume_to_every_task_once(cwd, 300);
    let manifest = read_json(&cwd.join("results").join("run.json"));
    assert_ne!(manifest["interrupted"], true);
}
