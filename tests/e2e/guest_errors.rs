//! End-to-end: what JavaScript and Python tasks throw becomes the errorCode and data of
//! spec §2.6–2.7, and their SDKs reach the participant's environment, log levels, parallel
//! steps and pre-measured steps. The test tasks are built from source.

use crate::support::{
    bench::{bench, run_command},
    guests::built_project,
    results::{log_lines, records, step, step_names},
    root,
};
use serde_json::{json, Value};
use tempfile::TempDir;

const JS: &str = "tests/guests-js/errors";
const PYTHON: &str = "tests/guests-python/errors";

/// Runs a test task once with `args` and returns its record and participant log.
fn run_guest(project: &str, args: &[&str]) -> (Value, Vec<String>) {
    built_project(project);
    let dir = TempDir::new().unwrap();
    let path = root().join(project);
    // The one task fails on purpose: upstream's exit 0 for a run whose every task failed.
    let mut full = vec![
        "run",
        path.to_str().unwrap(),
        "--out",
        "results",
        "--allow-all-failed",
    ];
    full.extend_from_slice(args);
    let run = run_command(bench(dir.path()).args(&full).env("GUEST_SECRET", "s3cret"));
    assert_eq!(run.code, Some(0), "{project} {args:?}: {}", run.stderr);
    let results = dir.path().join("results");
    let mut records = records(&results);
    assert_eq!(records.len(), 1);
    (records.remove(0), log_lines(&results, "p"))
}

/// Asserts a thrown failure: errorCode, `data.errorMessage`, and the implicit `task` step.
fn assert_thrown(record: &Value, code: &str, message: &str) {
    assert_eq!(record["status"], "error", "{record}");
    assert_eq!(record["errorCode"], code, "{record}");
    assert_eq!(
        record["data"],
        json!({ "errorMessage": message }),
        "{record}"
    );
    assert_eq!(step_names(record), ["task"]);
    assert_eq!(record["steps"][0]["errorCode"], code);
}

/// Asserts the TaskError case: its code and data, no errorMessage, its steps appended.
fn assert_task_error(record: &Value, steps: &[&str]) {
    assert_eq!(record["status"], "error", "{record}");
    assert_eq!(record["errorCode"], "quota_exceeded");
    assert_eq!(record["data"], json!({"remaining": 0, "region": "eu"}));
    assert_eq!(step_names(record), steps);
    let remote = step(record, "remote");
    assert_eq!(remote["status"], "error");
    assert_eq!(remote["errorCode"], "remote_failed");
    assert_eq!(remote["latencyMs"], 5);
}

#[test]
fn js_thrown_values_become_error_codes() {
    let cases = [
        ("plain", "Error", "plain failure"),
        ("code", "ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:9"),
        (
            "type",
            "TypeError",
            "can't access property \"missing\" of null",
        ),
        ("value", "ERROR", "just a string"),
        ("object", "ERROR", "[object Object]"),
    ];
    for (kind, code, message) in cases {
        let (record, _) = run_guest(JS, &["--throw", kind]);
        assert_thrown(&record, code, message);
    }
}

#[test]
fn js_task_errors_keep_their_code_data_and_steps() {
    let (record, _) = run_guest(JS, &["--throw", "task-error"]);
    assert_task_error(&record, &["remote"]);

    let (record, _) = run_guest(JS, &["--throw", "task-error-no-code"]);
    assert_eq!(record["errorCode"], "TaskError");
    assert!(record.get("data").is_none(), "{record}");

    // Failed steps record the TaskError's code, innermost first.
    let (record, log) = run_guest(JS, &["--throw", "in-step"]);
    assert_task_error(&record, &["inner", "outer", "remote"]);
    assert_eq!(step(&record, "inner")["errorCode"], "quota_exceeded");
    assert_eq!(step(&record, "outer")["status"], "error");
    assert_eq!(
        log,
        [
            "[task 0] inner",
            "  error: quota exceeded",
            "[task 0] outer",
            "  error: quota exceeded"
        ]
    );
}

#[test]
fn js_invalid_step_options_fail_the_step_with_upstream_messages() {
    let (record, _) = run_guest(JS, &["--throw", "bad-concurrency"]);
    assert_eq!(record["errorCode"], "Error");
    assert_eq!(
        record["data"]["errorMessage"],
        "step \"bad\" concurrency must be an integer >= 1 (got 0)"
    );
    assert_eq!(step(&record, "bad")["errorCode"], "Error");
}

#[test]
fn js_tasks_see_their_secrets_and_hide_bigints() {
    let (record, log) = run_guest(JS, &[]);
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(
        record["data"],
        json!({
            "secret": "s3cret",
            "viaProcess": "s3cret",
            "path": null,
            "big": 1099511627776u64,
            "results": [7, 7, 7],
            "outcomeExit": 0,
            "bytes": 16777216,
            "count": 1,
        })
    );
    assert_eq!(step_names(&record), ["parallel", "command", "bytes"]);
    assert_eq!(step(&record, "parallel")["concurrency"], 3);
    assert_eq!(
        log,
        [
            "[task 0] [warn] as options",
            r#"[task 0] [info] as meta {"level":"warn","extra":1}"#,
            "[task 0] parallel",
            "[task 0] command",
            "  line one",
            "  line two",
            "[task 0] bytes",
        ]
    );
}

#[test]
fn python_exceptions_become_error_codes() {
    let cases = [
        ("plain", "Exception", "plain failure"),
        ("value-error", "ValueError", "bad value"),
        ("code", "rate_limited", "quota hit"),
        ("oserror", "ECONNREFUSED", "[Errno 14] Connection refused"),
        ("exit", "SystemExit", "3"),
    ];
    for (kind, code, message) in cases {
        let (record, _) = run_guest(PYTHON, &["--raise", kind]);
        assert_thrown(&record, code, message);
    }
}

#[test]
fn python_task_errors_keep_their_code_data_and_steps() {
    let (record, _) = run_guest(PYTHON, &["--raise", "task-error"]);
    assert_task_error(&record, &["remote"]);

    let (record, _) = run_guest(PYTHON, &["--raise", "task-error-no-code"]);
    assert_eq!(record["errorCode"], "TaskError");
    assert!(record.get("data").is_none(), "{record}");

    let (record, _) = run_guest(PYTHON, &["--raise", "in-step"]);
    assert_task_error(&record, &["inner", "outer", "remote"]);
    assert_eq!(step(&record, "outer")["errorCode"], "quota_exceeded");
}

#[test]
fn python_tasks_see_their_secrets_log_and_return_steps() {
    let (record, log) = run_guest(PYTHON, &[]);
    assert_eq!(record["status"], "success", "{record}");
    assert_eq!(
        record["data"],
        json!({"secret": "s3cret", "via_os": "s3cret", "path": null, "answer": 42, "count": 1})
    );
    assert_eq!(step_names(&record), ["compute", "command", "remote"]);
    assert_eq!(step(&record, "remote")["latencyMs"], 12);
    assert_eq!(
        log,
        [
            r#"[task 0] [warn] careful {"attempt":1}"#,
            "[task 0] compute",
            "[task 0] command",
            "  line one",
            "  line two",
        ]
    );
}

#[test]
fn js_step_timeouts_stop_a_waiting_or_a_spinning_step() {
    for (kind, name) in [("slow", "wait"), ("spin", "spin")] {
        let (record, _) = run_guest(JS, &["--throw", kind]);
        assert_eq!(record["errorCode"], "step_timeout", "{record}");
        assert_eq!(
            record["data"]["errorMessage"],
            format!("Step \"{name}\" timed out after 100ms")
        );
        let step = step(&record, name);
        assert_eq!(step["timeoutMs"], 100);
        assert!(record["latencyMs"].as_u64().unwrap() < 4000, "{record}");
    }
}
