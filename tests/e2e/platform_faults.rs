//! End-to-end: `bench run` against a platform that fails, is slow, disappears mid-run or
//! refuses the credentials — nothing recorded locally is lost, nothing is stored twice, and
//! the upstream messages reach the user.

use crate::support::{
    bench::{run_command, Run},
    guests::example,
    platform::{platform_bench, run_id, Server},
    proxy::{Exchange, Proxy},
    results::records,
};
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tempfile::TempDir;

fn hello_run(cwd: &Path, url: &str, key: &str, args: &[&str]) -> std::process::Command {
    let hello = example("rust-hello");
    let mut command = platform_bench(cwd, url, key);
    command.args(["run", hello.to_str().unwrap(), "--out", "results"]);
    command.args(args);
    command
}

/// Every stored record appears once: no duplicate (participant, taskIndex).
fn assert_exactly_once(records: &[Value]) {
    let keys: HashSet<(String, u64)> = records
        .iter()
        .map(|r| {
            (
                r["participant"].as_str().unwrap().to_owned(),
                r["taskIndex"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(keys.len(), records.len(), "duplicates in {records:?}");
}

#[test]
fn server_errors_are_retried_and_batches_stay_idempotent() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let proxy = Proxy::start(server.port);
    proxy.fail_next("/runs", 2);
    proxy.fail_next("/events", 3);
    proxy.fail_next("/complete", 1);
    let run = run_command(&mut hello_run(dir.path(), &proxy.url(), &server.key, &[]));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let id = run_id(&run);
    let stored = server.records("rust-hello", &id);
    assert_eq!(stored, records(&dir.path().join("results")));
    assert_exactly_once(&stored);
    let events = proxy.requests("POST", "/events");
    assert_eq!(events.iter().filter(|e| e.status == 500).count(), 3);
    // A refused batch is sent again with the same sequence number and records.
    let refused = events.iter().find(|e| e.status == 500).unwrap().json();
    let retried = events
        .iter()
        .filter(|e| e.status == 200)
        .map(Exchange::json)
        .find(|b| {
            b["attemptId"] == refused["attemptId"]
                && b["sequenceNumber"] == refused["sequenceNumber"]
        })
        .expect("the refused batch was retried");
    assert_eq!(retried, refused);
    assert!(
        !dir.path().join("results/.platform.json.tmp").exists(),
        "the ledger is written atomically"
    );
}

#[test]
fn a_slow_server_delays_delivery_but_loses_nothing() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let proxy = Proxy::start(server.port);
    proxy.set_delay(Duration::from_millis(150));
    let run = run_command(&mut hello_run(
        dir.path(),
        &proxy.url(),
        &server.key,
        &["--group-by", "round"],
    ));
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    let id = run_id(&run);
    let mut stored = server.records("rust-hello", &id);
    let mut local = records(&dir.path().join("results"));
    let key = |r: &Value| {
        (
            r["participant"].as_str().unwrap().to_owned(),
            r["taskIndex"].as_u64(),
        )
    };
    stored.sort_by_key(key);
    local.sort_by_key(key);
    assert_eq!(stored, local);
}

#[test]
fn a_server_killed_mid_run_gets_the_rest_from_bench_upload_exactly_once() {
    let dir = TempDir::new().unwrap();
    let mut server = Server::start(dir.path());
    let proxy = Proxy::start(server.port);
    // One task per second per participant: the run takes about 5 s.
    let child = hello_run(
        dir.path(),
        &proxy.url(),
        &server.key,
        &["--stagger-delay-ms", "1000"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while proxy.requests("POST", "/events").is_empty() {
        assert!(Instant::now() < deadline, "no batch was sent");
        std::thread::sleep(Duration::from_millis(50));
    }
    server.kill();
    let run = Run::from(child.wait_with_output().unwrap());
    assert_eq!(
        run.code,
        Some(0),
        "an outage does not fail the run:\n{}",
        run.stderr
    );
    let id = run_id(&run);
    let results = dir.path().join("results");
    assert!(
        run.stderr
            .contains(&format!("bench upload {}", results.display()))
            || run.stderr.contains("bench upload results"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("not delivered"), "{}", run.stderr);
    let local = records(&results);
    assert_eq!(local.len(), 6);

    server.restart();
    let upload = run_command(
        platform_bench(dir.path(), &proxy.url(), &server.key).args(["upload", "results"]),
    );
    assert_eq!(upload.code, Some(0), "{}\n{}", upload.stdout, upload.stderr);
    assert!(
        upload
            .stdout
            .contains(&format!("Run: Rust hello #1 ({id})")),
        "{}",
        upload.stdout
    );
    let stored = server.records("rust-hello", &id);
    assert_exactly_once(&stored);
    assert_eq!(
        serde_json::to_string(&stored).unwrap(),
        serde_json::to_string(&local).unwrap()
    );
    let (_, run_answer) = server.get(&format!("/benchmarks/rust-hello/runs/{id}"));
    assert_eq!(run_answer["run"]["status"], "completed");

    let again = run_command(
        platform_bench(dir.path(), &proxy.url(), &server.key).args(["upload", "results"]),
    );
    assert_eq!(again.code, Some(0), "{}", again.stderr);
    assert!(again
        .stdout
        .contains("Delivered 0 record(s); 6 were already on the platform."));
    assert_eq!(server.records("rust-hello", &id).len(), 6);
}

#[test]
fn an_unreachable_platform_fails_only_with_require_upload() {
    let dir = TempDir::new().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let run = run_command(&mut hello_run(dir.path(), &url, "bp_x", &[]));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("All done. No platform run created."));
    assert!(run.stderr.contains("not delivered"), "{}", run.stderr);
    assert_eq!(records(&dir.path().join("results")).len(), 6);

    let again = TempDir::new().unwrap();
    let required = run_command(&mut hello_run(
        again.path(),
        &url,
        "bp_x",
        &["--require-upload"],
    ));
    assert_eq!(required.code, Some(1), "{}", required.stderr);
    assert!(
        required
            .stderr
            .contains("Benchmark failed: the platform did not acknowledge"),
        "{}",
        required.stderr
    );
}

#[test]
fn auth_failures_and_api_errors_print_upstream_messages() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let run = run_command(&mut hello_run(dir.path(), &server.url(), "bp_wrong", &[]));
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim_end(),
        "Benchmark failed: Benchmark API request failed: 401 Unauthorized: Invalid or missing API key. Create one with `bench serve keys create`. (unauthorized)"
    );

    let mut no_key = hello_run(dir.path(), &server.url(), "", &[]);
    no_key.env_remove("BENCHMARKS_PLATFORM_API_KEY");
    let run = run_command(&mut no_key);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim_end(),
        "Benchmark failed: No credentials found. Set BENCHMARKS_PLATFORM_API_KEY or BENCHMARKS_PLATFORM_TOKEN (a run can also stay local with --no-ingest). Create an API key at https://platform.computesdk.com in your organization settings (Settings → API keys)."
    );

    let listed = run_command(platform_bench(dir.path(), &server.url(), "bp_wrong").args([
        "runs",
        "list",
        "rust-hello",
    ]));
    assert_eq!(listed.code, Some(1));
    let mut lines = listed.stderr.lines();
    assert_eq!(
        lines.next(),
        Some("API error: Benchmark API request failed: 401 Unauthorized: Invalid or missing API key. Create one with `bench serve keys create`. (unauthorized)")
    );
    let body: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(body["error"]["code"], "unauthorized");

    let mut status = platform_bench(dir.path(), &server.url(), "");
    status
        .env_remove("BENCHMARKS_PLATFORM_API_KEY")
        .args(["auth", "status"]);
    let status = run_command(&mut status);
    assert_eq!(status.code, Some(2));
    assert!(status.stderr.starts_with("No credentials found."));

    let missing = run_command(
        platform_bench(dir.path(), &server.url(), &server.key).args([
            "runs",
            "show",
            "rust-hello",
            "run_missing",
        ]),
    );
    assert_eq!(missing.code, Some(1));
    assert!(missing.stderr.starts_with(
        "API error: Benchmark API request failed: 404 Not Found: Benchmark not found. (not_found)\n"
    ));

    let me = run_command(
        platform_bench(dir.path(), &server.url(), &server.key).args(["auth", "status", "--json"]),
    );
    assert_eq!(me.code, Some(0), "{}", me.stderr);
    let me: Value = serde_json::from_str(&me.stdout).unwrap();
    assert_eq!(me["activeOrganization"]["slug"], "local");
}

#[test]
fn a_benchmark_that_is_not_ours_must_exist_on_the_platform() {
    let dir = TempDir::new().unwrap();
    let server = Server::start(dir.path());
    let run = run_command(&mut hello_run(
        dir.path(),
        &server.url(),
        &server.key,
        &["--benchmark", "someone-elses"],
    ));
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_eq!(
        run.stderr.trim_end(),
        "Benchmark failed: Benchmark API request failed: 404 Not Found: Benchmark not found. (not_found)"
    );
}
