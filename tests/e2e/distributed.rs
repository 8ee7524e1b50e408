//! End-to-end: distributed runs (`bench run --dispatch` + `bench worker`) on a nats-server
//! started here: every task recorded exactly once (also when a worker is SIGKILLed mid-run
//! and its units run again with records of other sizes), the same summary as a local run,
//! the secrets rule and a tampered component refused.

use crate::support::{
    bench::{bench, run_bench_pinned, run_into as run, Run},
    guests::{example, test_guest},
    nats::{resume_to_every_task_once, spawn_dispatched, wait_for_records, NatsServer, Worker},
    results::{records, task_tally as tally},
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tempfile::TempDir;

fn three_workers(cwd: &Path, url: &str) -> Vec<Worker> {
    ["w1", "w2", "w3"]
        .iter()
        .map(|name| Worker::start(cwd, url, name, 4, &[]))
        .collect()
}

#[test]
fn three_workers_run_every_task_exactly_once() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let _workers = three_workers(cwd, &nats.url());

    let hello = example("rust-hello");
    let local = run(cwd, &hello, "local", None, &["--concurrency", "2"]);
    assert_eq!(local.code, Some(0), "{}", local.stderr);
    let dispatched = run(
        cwd,
        &hello,
        "hello",
        Some(&nats.url()),
        &["--concurrency", "2"],
    );
    assert_eq!(dispatched.code, Some(0), "{}", dispatched.stderr);
    assert!(
        dispatched.stdout.contains("Workers: w"),
        "{}",
        dispatched.stdout
    );
    let (tasks, workers) = tally(&cwd.join("hello"));
    assert_eq!(
        tasks.keys().collect::<BTreeSet<_>>(),
        tally(&cwd.join("local")).0.keys().collect()
    );
    assert!(tasks.values().all(|count| *count == 1), "{tasks:?}");
    assert!(
        workers
            .keys()
            .all(|w| ["w1", "w2", "w3"].contains(&w.as_str())),
        "{workers:?}"
    );

    let noop = example("rust-noop");
    let many = ["--iterations", "20000", "--concurrency", "6", "-q"];
    let dispatched = run(cwd, &noop, "noop", Some(&nats.url()), &many);
    assert_eq!(dispatched.code, Some(0), "{}", dispatched.stderr);
    let (tasks, workers) = tally(&cwd.join("noop"));
    assert_eq!(tasks.len(), 20_000);
    assert!(tasks.values().all(|count| *count == 1));
    let participant = tasks.keys().next().unwrap().0.clone();
    assert_eq!(
        tasks.keys().map(|(_, index)| *index).collect::<Vec<_>>(),
        (0..20_000).collect::<Vec<u64>>()
    );
    assert!(tasks.keys().all(|(name, _)| *name == participant));
    assert!(
        workers.len() >= 2,
        "the units spread over the workers: {workers:?}"
    );
}

#[test]
fn a_distributed_scored_run_writes_the_local_summary() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let _workers = three_workers(cwd, &nats.url());
    let scored = example("rust-scored");
    for group_by in ["participant", "round"] {
        let knobs = ["--concurrency", "2", "--group-by", group_by];
        let local = run(cwd, &scored, &format!("local-{group_by}"), None, &knobs);
        assert_eq!(local.code, Some(0), "{}", local.stderr);
        let out = format!("dispatched-{group_by}");
        let dispatched = run(cwd, &scored, &out, Some(&nats.url()), &knobs);
        assert_eq!(dispatched.code, Some(0), "{}", dispatched.stderr);
        let summary =
            |dir: &str| std::fs::read_to_string(cwd.join(dir).join("summary.json")).unwrap();
        assert_eq!(
            summary(&out),
            summary(&format!("local-{group_by}")),
            "{group_by}"
        );
    }
}

/// The units a killed worker left run again elsewhere, and their records are of other sizes
/// than the first attempt's (a blob of a size drawn anew), so their batches are cut at
/// other tasks.
#[test]
fn a_worker_killed_mid_run_loses_no_task_and_records_none_twice() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let mut first = Worker::start(cwd, &nats.url(), "w1", 4, &[]);
    let sleeper = test_guest("sleeper");
    let args = [
        "--ack-wait",
        "2s",
        "--iterations",
        "400",
        "--concurrency",
        "2",
    ];
    let sizes = ["--sleep-ms", "5", "-q", "--blob-max-bytes", "60000"];
    let coordinator = spawn_dispatched(
        cwd,
        &sleeper,
        "results",
        &nats.url(),
        &[&args[..], &sizes].concat(),
    );
    // Once w1's first batches are recorded, it dies without a word.
    wait_for_records(&cwd.join("results"));
    first.kill();
    let _others = [
        Worker::start(cwd, &nats.url(), "w2", 4, &[]),
        Worker::start(cwd, &nats.url(), "w3", 4, &[]),
    ];
    let output = coordinator.wait_with_output().unwrap();
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let (tasks, workers) = tally(&cwd.join("results"));
    assert_eq!(tasks.len(), 400, "none lost");
    assert!(tasks.values().all(|count| *count == 1), "none twice");
    let by_w1 = workers.get("w1").copied().unwrap_or_default();
    assert!(by_w1 > 0 && by_w1 < 400, "w1 recorded part: {workers:?}");
    let by_others: usize = ["w2", "w3"].iter().filter_map(|w| workers.get(*w)).sum();
    assert_eq!(by_w1 + by_others, 400, "{workers:?}");
    let log = |name: &str| std::fs::read_to_string(cwd.join(format!("{name}.log"))).unwrap();
    assert!(
        (log("w2") + &log("w3")).contains("delivered again"),
        "w1's unfinished units ran elsewhere"
    );
}

#[test]
fn a_killed_coordinator_resumed_completes_the_run_exactly_once() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let _workers = three_workers(cwd, &nats.url());
    let sleeper = test_guest("sleeper");
    let args = [
        "--iterations",
        "300",
        "--concurrency",
        "3",
        "--sleep-ms",
        "5",
        "-q",
    ];
    let mut coordinator = spawn_dispatched(cwd, &sleeper, "results", &nats.url(), &args);
    let records_file = cwd.join("results").join("records.ndjson");
    wait_for_records(&cwd.join("results"));
    coordinator.kill().unwrap();
    coordinator.wait().unwrap();
    // Whole lines only: the kill may cut the last one (resume removes it).
    let before = std::fs::read_to_string(&records_file)
        .unwrap()
        .matches('\n')
        .count();
    assert!(before < 300, "killed mid-run: {before}");

    resume_to_every_task_once(cwd, 300);

    let again = run_bench_pinned(cwd, &["run", "--resume", "results"], &[]);
    assert_eq!(again.code, Some(1));
    assert!(
        again.stderr.contains("is complete: nothing to resume"),
        "{}",
        again.stderr
    );
}

#[test]
fn a_worker_without_a_participant_s_secret_never_runs_it() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let hostile = test_guest("hostile");
    let knobs = [
        "--iterations",
        "20",
        "--concurrency",
        "3",
        "--worker-wait",
        "2s",
    ];

    // No worker has the secret: `holder` waits 2 s, then the run fails clearly.
    let _plain = [
        Worker::start(cwd, &nats.url(), "w2", 2, &[]),
        Worker::start(cwd, &nats.url(), "w3", 2, &[]),
    ];
    let alone = run(cwd, &hostile, "alone", Some(&nats.url()), &knobs);
    assert_eq!(alone.code, Some(1), "{}", alone.stdout);
    assert!(
        alone
            .stderr
            .contains("no worker can run participant \"holder\": none joined within 2s"),
        "{}",
        alone.stderr
    );

    let _holder = Worker::start(
        cwd,
        &nats.url(),
        "w1",
        2,
        &[("BENCH_TEST_SECRET", "s3cret")],
    );
    let dispatched = run(cwd, &hostile, "results", Some(&nats.url()), &knobs);
    assert_eq!(dispatched.code, Some(0), "{}", dispatched.stderr);
    let records = records(&cwd.join("results"));
    assert_eq!(records.len(), 40);
    for record in &records {
        if record["participant"] == "holder" {
            assert_eq!(record["worker"], "w1", "{record}");
            assert_eq!(record["data"]["secretVisible"], Value::Bool(true));
        } else {
            assert_eq!(record["data"]["secretVisible"], Value::Bool(false));
        }
    }
}

#[test]
fn a_tampered_component_in_the_object_store_is_refused() {
    let nats = NatsServer::start();
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let hello = example("rust-hello");
    let sha = hex_sha256(&std::fs::read(&hello).unwrap());
    let child = bench(cwd)
        .args([
            "run",
            hello.to_str().unwrap(),
            "--out",
            "results",
            "--no-ingest",
        ])
        .args(["--dispatch", &nats.url(), "--worker-wait", "3s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the coordinator uploaded the component, other bytes replace it under its name.
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let client = async_nats::connect(nats.url()).await.unwrap();
        let js = async_nats::jetstream::new(client);
        let deadline = Instant::now() + Duration::from_secs(30);
        let store = loop {
            if let Ok(store) = js.get_object_store("bench-components").await {
                if store.info(&sha).await.is_ok() {
                    break store;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the component was never uploaded"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let mut tampered: &[u8] = b"\0asm not the task";
        store.put(sha.as_str(), &mut tampered).await.unwrap();
    });
    let _worker = Worker::start(cwd, &nats.url(), "w1", 2, &[]);
    let run = Run::from(child.wait_with_output().unwrap());
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(
        run.stderr.contains("worker w1 refused the run: the component in the object store does not match its sha256"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("no worker can run participant"),
        "{}",
        run.stderr
    );
    assert!(records(&cwd.join("results")).is_empty());
}

fn hex_sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}
