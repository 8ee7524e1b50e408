//! End-to-end: a platform that hangs or answers slowly does not hold a run up. A 1 000-task
//! run (about 5 s locally) behind a proxy that never answers, or that takes 3 s per
//! request, ends within 10 s of the same run without a platform, keeps what was not
//! acknowledged, and `bench upload` then delivers every record exactly once.

use crate::support::{
    bench::{run_command, Run},
    guests::example,
    platform::{platform_bench, Server},
    proxy::Proxy,
    results::{read_json, records},
};
use std::path::Path;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// What a platform may add to the run.
const MOST_ADDED: Duration = Duration::from_secs(10);

/// `bench run` of the 1 000-task no-op example with a 5 ms ramp (about 5 s), timed.
fn noop_run(cwd: &Path, url: &str, key: &str, extra: &[&str]) -> (Run, Duration) {
    let noop = example("rust-noop");
    let mut command = platform_bench(cwd, url, key);
    command.args(["run", noop.to_str().unwrap(), "--stagger-delay-ms", "5"]);
    command.args(extra);
    let started = Instant::now();
    let run = run_command(&mut command);
    (run, started.elapsed())
}

/// Runs the example through `proxy`, checks the time it added to a local run, then heals
/// the proxy, uploads the results and checks that every record arrived once
/// and the run is complete.
fn assert_not_held_up(dir: &Path, server: &Server, proxy: &Proxy) {
    let (local, local_time) = noop_run(dir, "", "", &["--out", "local", "--no-ingest"]);
    assert_eq!(local.code, Some(0), "{}", local.stderr);

    let (run, time) = noop_run(dir, &proxy.url(), &server.key, &["--out", "results"]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(
        time <= local_time + MOST_ADDED,
        "the platform added {:?} to a {local_time:?} run:\n{}",
        time - local_time,
        run.stderr
    );
    assert!(
        run.stderr
            .contains("deliver it with `bench upload results`"),
        "{}",
        run.stderr
    );
    let results = dir.join("results");
    let local = records(&results);
    assert_eq!(local.len(), 1000);

    proxy.heal();
    let upload =
        run_command(platform_bench(dir, &proxy.url(), &server.key).args(["upload", "results"]));
    assert_eq!(upload.code, Some(0), "{}\n{}", upload.stdout, upload.stderr);
    let ledger = read_json(&results.join("platform.json"));
    let id = ledger["run"]["id"].as_str().expect("the run was created");
    assert_eq!(server.records("rust-noop", id), local);
    let (_, stored) = server.get(&format!("/benchmarks/rust-noop/runs/{id}"));
    assert_eq!(stored["run"]["status"], "completed", "{stored}");
}

#[test]
fn a_platform_that_never_answers_adds_seconds_and_bench_upload_delivers_everything() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let proxy = Proxy::start(server.port);
    proxy.set_blackhole();
    assert_not_held_up(dir.path(), &server, &proxy);
}

#[test]
fn a_platform_taking_3_s_per_request_adds_seconds_and_bench_upload_delivers_everything() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let proxy = Proxy::start(server.port);
    proxy.set_delay(Duration::from_secs(3));
    assert_not_held_up(dir.path(), &server, &proxy);
}
