//! End-to-end: hostile guest components, built from source, each contained. Every run has a
//! well-behaved participant (`holder`) after the attacker, so each test also shows that a
//! normal task in the same process still succeeds afterwards.

use crate::support::{
    bench::{bench, run_command, Run},
    guests::test_guest,
    results::records_of,
};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use tempfile::TempDir;

/// A run of one attack of the `hostile` guest, its well-behaved `holder` checked.
pub(crate) struct Attack {
    _dir: TempDir,
    pub(crate) run: Run,
    pub(crate) attacker: Vec<Value>,
    holder: Vec<Value>,
    results: std::path::PathBuf,
}

/// Runs the attack `name` of the `hostile` guest (with `extra` flags) and checks that the
/// run ends with exit 0 and the well-behaved participant after the attacker succeeds.
pub(crate) fn attack(name: &str, extra: &[&str]) -> Attack {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let mut args = vec![
        "run",
        hostile.to_str().unwrap(),
        "--out",
        "results",
        "--attack",
        name,
    ];
    args.extend_from_slice(extra);
    let run = run_command(
        bench(dir.path())
            .args(&args)
            .env("BENCH_TEST_SECRET", "s3cret"),
    );
    let results = dir.path().join("results");
    let attacker = records_of(&results, "attacker");
    let holder = records_of(&results, "holder");
    assert_eq!(
        run.code,
        Some(0),
        "stdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    assert_eq!(
        holder.len(),
        2,
        "the well-behaved participant ran after the attack"
    );
    for record in &holder {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(record["data"]["secretVisible"], true);
    }
    Attack {
        _dir: dir,
        run,
        attacker,
        holder,
        results,
    }
}

fn error_codes(records: &[Value]) -> Vec<&str> {
    records
        .iter()
        .map(|r| r["errorCode"].as_str().unwrap_or("none"))
        .collect()
}

#[test]
fn an_infinite_loop_hits_the_task_timeout() {
    let outcome = attack("loop", &["--task-timeout", "300ms"]);
    assert_eq!(
        error_codes(&outcome.attacker),
        ["task_timeout", "task_timeout"]
    );
    assert_eq!(
        outcome.attacker[0]["data"]["errorMessage"],
        "Task timed out after 300ms"
    );
}

#[test]
fn a_memory_bomb_hits_the_memory_limit() {
    let outcome = attack("memory", &["--max-memory", "64MiB"]);
    assert_eq!(
        error_codes(&outcome.attacker),
        ["memory_limit", "memory_limit"]
    );
    let message = outcome.attacker[0]["data"]["errorMessage"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("task exceeded its memory limit"),
        "{message}"
    );
}

#[test]
fn unbounded_recursion_is_a_trap() {
    let outcome = attack("recursion", &[]);
    assert_eq!(error_codes(&outcome.attacker), ["trap", "trap"]);
    let message = outcome.attacker[0]["data"]["errorMessage"]
        .as_str()
        .unwrap();
    assert!(message.contains("call stack exhausted"), "{message}");
}

#[test]
fn a_panic_is_a_trap_quoting_the_panic() {
    let outcome = attack("panic", &[]);
    assert_eq!(error_codes(&outcome.attacker), ["trap", "trap"]);
    let message = outcome.attacker[0]["data"]["errorMessage"]
        .as_str()
        .unwrap();
    assert!(message.contains("hostile panic"), "{message}");
}

#[test]
fn the_host_filesystem_is_not_visible() {
    let outcome = attack("passwd", &[]);
    for record in &outcome.attacker {
        assert_eq!(record["status"], "success");
        assert_eq!(record["data"]["passwdReadable"], false, "{record}");
    }
}

#[test]
fn another_participants_secret_is_absent() {
    let outcome = attack("none", &[]);
    for record in &outcome.attacker {
        assert_eq!(record["data"]["secretVisible"], false);
        assert_eq!(
            record["data"]["envCount"], 0,
            "no host environment leaks in"
        );
    }
    assert_eq!(
        outcome.holder[0]["data"]["envCount"], 1,
        "only its own secret"
    );
}

#[test]
fn oversized_measurements_fail_with_data_too_large() {
    let outcome = attack("big-measure", &[]);
    assert_eq!(
        error_codes(&outcome.attacker),
        ["data_too_large", "data_too_large"]
    );
    let line = std::fs::read_to_string(outcome.results.join("records.ndjson")).unwrap();
    assert!(line.len() < 100_000, "the oversized data was not written");
}

#[test]
fn a_log_flood_is_capped() {
    let outcome = attack("log-flood", &["--task-timeout", "60s"]);
    assert_eq!(error_codes(&outcome.attacker), ["none", "none"]);
    let log = std::fs::read_to_string(outcome.results.join("logs").join("attacker.log")).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 100_001);
    assert_eq!(*lines.last().unwrap(), "... (worker log truncated)");
}

#[test]
fn guest_stdio_goes_to_the_participant_log_not_the_console() {
    let outcome = attack("stdio", &[]);
    assert!(!outcome.run.stdout.contains("to stdout"));
    assert!(!outcome.run.stderr.contains("to stderr"));
    let log = std::fs::read_to_string(outcome.results.join("logs").join("attacker.log")).unwrap();
    assert!(log.contains("[task 0] [stdout] to stdout"), "{log}");
    assert!(log.contains("[task 0] [stderr] to stderr"), "{log}");
}

/// A loopback HTTP server answering `ok` to a bounded number of requests and remembering the
/// Host header of each.
fn serve(requests: usize) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hosts = Arc::new(Mutex::new(Vec::new()));
    let seen = hosts.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line != "\r\n" {
                if let Some(host) = line.to_ascii_lowercase().strip_prefix("host:") {
                    seen.lock().unwrap().push(host.trim().to_owned());
                }
                line.clear();
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    (port, hosts)
}

#[test]
fn http_is_denied_unless_allowed_and_allowed_loopback_works() {
    let (port, _) = serve(2);
    let url = format!("http://127.0.0.1:{port}/");
    let denied = attack("http", &["--url", &url]);
    assert_eq!(
        error_codes(&denied.attacker),
        ["http_request_denied", "http_request_denied"]
    );
    let notice = format!("denied request to http://127.0.0.1:{port} (allow it with --allow-host http://127.0.0.1:{port})");
    assert_eq!(
        denied.run.stderr.matches(&notice).count(),
        1,
        "said once: {}",
        denied.run.stderr
    );

    let allowed = attack(
        "http",
        &["--url", &url, "--allow-host", "http://127.0.0.1:*"],
    );
    for record in &allowed.attacker {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(record["data"]["status"], 200);
    }
}

#[test]
fn requests_are_judged_by_their_real_destination_not_the_host_header() {
    let (port, hosts) = serve(2);
    let allowed = format!("http://127.0.0.1:{port}");
    // Allowed destination, Host header naming another host: it goes through.
    let outcome = attack(
        "http",
        &[
            "--url",
            &format!("{allowed}/"),
            "--host-header",
            "evil.example",
            "--allow-host",
            &allowed,
        ],
    );
    assert_eq!(
        outcome.attacker[0]["data"]["status"], 200,
        "{}",
        outcome.attacker[0]
    );
    assert!(!hosts.lock().unwrap().is_empty());
    // Denied destination, Host header naming the allowed one: still denied.
    let outcome = attack(
        "http",
        &[
            "--url",
            &format!("http://localhost:{port}/"),
            "--host-header",
            &format!("127.0.0.1:{port}"),
            "--allow-host",
            &allowed,
        ],
    );
    assert_eq!(
        error_codes(&outcome.attacker),
        ["http_request_denied", "http_request_denied"]
    );
}

#[test]
fn a_granted_directory_is_read_only_unless_rw() {
    let shared = TempDir::new().unwrap();
    std::fs::write(shared.path().join("hello.txt"), "hello").unwrap();
    let grant = format!("{}:/data", shared.path().display());
    let outcome = attack("granted-dir", &["--allow-dir", &grant]);
    assert_eq!(outcome.attacker[0]["data"]["read"], "hello");
    assert_eq!(outcome.attacker[0]["data"]["writable"], false);
    assert!(!shared.path().join("written.txt").exists());
    let outcome = attack("granted-dir", &["--allow-dir", &format!("{grant}:rw")]);
    assert_eq!(outcome.attacker[0]["data"]["writable"], true);
    assert!(shared.path().join("written.txt").exists());
}

#[test]
fn inspect_shows_each_participants_grants_without_secret_values() {
    let hostile = test_guest("hostile");
    let dir = TempDir::new().unwrap();
    let run = run_command(
        bench(dir.path())
            .args([
                "inspect",
                hostile.to_str().unwrap(),
                "--allow-host",
                "http://127.0.0.1:*",
                "--task-timeout",
                "2s",
                "--max-memory",
                "64MiB",
            ])
            .env("BENCH_TEST_SECRET", "s3cret-value"),
    );
    let stdout = &run.stdout;
    assert_eq!(run.code, Some(0), "{stdout}");
    assert!(stdout.contains("  exports: config, run\n"), "{stdout}");
    assert!(
        stdout.contains("    bench:task/context@0.1.4\n"),
        "{stdout}"
    );
    assert!(stdout.contains("Benchmark: Hostile (hostile)\n"));
    assert!(
        stdout.contains("  attacker\n    env: none\n    allowed hosts: http://127.0.0.1:*\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  holder\n    env: BENCH_TEST_SECRET\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("limits: memory 64 MiB, task timeout 2000ms"),
        "{stdout}"
    );
    assert!(!stdout.contains("s3cret-value"), "never a secret's value");
}
