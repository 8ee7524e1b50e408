//! End-to-end: JavaScript `fetch` (examples/js-http) and the Python SDK's HTTP helper reach
//! a local server through wasi:http when the config allows the host, and fail with a
//! clear error code when it does not.

use crate::support::{
    bench::{run_bench, Run},
    guests::built_project,
    http_server::serve,
    results::{records, step, step_names},
    root,
};
use serde_json::{json, Value};
use tempfile::TempDir;

pub(crate) fn run_task(project: &str, url: &str, args: &[&str]) -> (Run, Vec<Value>) {
    built_project(project);
    let dir = TempDir::new().unwrap();
    let path = root().join(project);
    let mut full = vec![
        "run",
        path.to_str().unwrap(),
        "--out",
        "results",
        "--url",
        url,
        // Some of these tasks fail on purpose: upstream's exit 0 when every task failed.
        "--allow-all-failed",
    ];
    full.extend_from_slice(args);
    let run = run_bench(dir.path(), &full);
    assert_eq!(run.code, Some(0), "{project}: {}", run.stderr);
    let records = records(&dir.path().join("results"));
    (run, records)
}

#[test]
fn js_http_example_fetches_the_participant_url_with_parallel_invocations() {
    let port = serve(2 * 5);
    let url = format!("http://127.0.0.1:{port}/");
    let (_, records) = run_task("examples/js-http", &url, &["--iterations", "2"]);
    assert_eq!(records.len(), 2);
    for record in &records {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(record["data"]["url"], url.as_str());
        assert_eq!(record["data"]["bytes"], 5);
        assert_eq!(record["data"]["burstTtfbMs"].as_array().unwrap().len(), 4);
        assert_eq!(step_names(record), ["request", "burst"]);
        let request = step(record, "request");
        assert_eq!(request["data"]["status"], 200);
        assert_eq!(request["timeoutMs"], 10000);
        assert_eq!(step(record, "burst")["concurrency"], 4);
    }
}

#[test]
fn js_fetch_to_a_host_the_config_does_not_allow_fails_the_task() {
    let (run, records) = run_task(
        "examples/js-http",
        "http://127.0.0.2:9/",
        &["--iterations", "1"],
    );
    assert!(
        run.stderr.contains("denied request to http://127.0.0.2:9"),
        "{}",
        run.stderr
    );
    assert_eq!(records[0]["errorCode"], "TypeError");
    let message = records[0]["data"]["errorMessage"].as_str().unwrap();
    assert!(
        message.starts_with("fetch http://127.0.0.2:9/ failed: ")
            && message.contains("(bench: the request was denied or its connection failed;"),
        "{message}"
    );
    assert_eq!(step(&records[0], "request")["status"], "error");
}

#[test]
fn python_http_helper_gets_and_posts_through_wasi_http() {
    let port = serve(2);
    let url = format!("http://127.0.0.1:{port}/echo");
    let (_, records) = run_task("tests/guests-python/http", &url, &[]);
    let record = &records[0];
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(record["data"], json!({"text": "hello", "server": "test"}));
    assert_eq!(
        step(record, "get")["data"],
        json!({"status": 200, "bytes": 5})
    );
    assert_eq!(
        step(record, "post")["data"],
        json!({"status": 200, "echoed": 8000})
    );
}

#[test]
fn python_http_helper_reports_a_denied_host_as_its_error_code() {
    let (_, records) = run_task("tests/guests-python/http", "http://127.0.0.2:9/", &[]);
    assert_eq!(records[0]["errorCode"], "http_request_denied");
    let message = records[0]["data"]["errorMessage"].as_str().unwrap();
    assert!(
        message.starts_with(
            "HTTP request failed: http_request_denied (bench denied the request to \
             http://127.0.0.2:9: it is not allowed by the benchmark config's allowedHosts or \
             --allow-host"
        ),
        "{message}"
    );
}
