//! End-to-end: the hello example written in Rust, JavaScript, TypeScript and Python, each
//! built from source and run with `bench run <dir>`, records the same task: same steps,
//! measurements, phases, statuses, error codes, console lines and participant-log lines.

use crate::support::{
    bench::{run_bench, Run},
    guests::{built_project, example},
    results::{log_lines, records},
    root,
};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use tempfile::TempDir;

const HELLOS: [&str; 4] = [
    "examples/rust-hello",
    "examples/js-hello",
    "examples/ts-hello",
    "examples/python-hello",
];

/// Builds a hello example and runs it with `--fail-at 1`.
fn run_hello(project: &str) -> (TempDir, Run) {
    if project.starts_with("examples/rust-") {
        example(project.trim_start_matches("examples/"));
    } else {
        built_project(project);
    }
    let dir = TempDir::new().unwrap();
    let path = root().join(project);
    let run = run_bench(
        dir.path(),
        &[
            "run",
            path.to_str().unwrap(),
            "--out",
            "results",
            "--fail-at",
            "1",
        ],
    );
    assert_eq!(run.code, Some(0), "{project}: {}", run.stderr);
    (dir, run)
}

/// What a run recorded, without times and latencies.
fn recorded(results: &Path) -> Value {
    let mut records = records(results);
    records.sort_by_key(|r| (r["participant"].to_string(), r["taskIndex"].as_u64()));
    let records: Vec<Value> = records
        .iter()
        .map(|record| {
            let steps: Vec<Value> = record["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|step| {
                    json!({
                        "name": step["name"],
                        "status": step["status"],
                        "errorCode": step.get("errorCode"),
                        "data": step.get("data"),
                    })
                })
                .collect();
            json!({
                "participant": record["participant"],
                "taskIndex": record["taskIndex"],
                "status": record["status"],
                "errorCode": record.get("errorCode"),
                "data": record.get("data"),
                "keys": record.as_object().unwrap().keys().collect::<Vec<_>>(),
                "steps": steps,
            })
        })
        .collect();
    Value::Array(records)
}

fn task_lines(run: &Run) -> Vec<&str> {
    run.lines()
        .into_iter()
        .filter(|line| line.contains("] Task ") || line.starts_with("  Done:"))
        .collect()
}

#[test]
fn hello_examples_record_the_same_task_in_every_language() {
    let (rust_dir, rust_run) = run_hello(HELLOS[0]);
    let rust_results = rust_dir.path().join("results");
    let expected = recorded(&rust_results);
    // The reference itself: 6 records, the failure at task index 1 of each participant.
    assert_eq!(expected.as_array().unwrap().len(), 6);
    assert_eq!(expected[1]["errorCode"], "planned_failure");
    assert_eq!(
        expected[1]["data"],
        json!({"sandbox": "alpha-1", "phase": "warm"})
    );
    assert_eq!(
        expected[0]["steps"],
        json!([
            {"name": "create", "status": "success", "errorCode": null, "data": {"sandboxes": 1}},
            {"name": "connect", "status": "success", "errorCode": null, "data": {"handshakes": 1}},
            {"name": "exec", "status": "success", "errorCode": null, "data": {"checksum": 500500}},
        ])
    );
    for project in &HELLOS[1..] {
        let (dir, run) = run_hello(project);
        let results = dir.path().join("results");
        assert_eq!(recorded(&results), expected, "{project} records");
        assert_eq!(task_lines(&run), task_lines(&rust_run), "{project} console");
        for participant in ["alpha", "beta"] {
            assert_eq!(
                log_lines(&results, participant),
                log_lines(&rust_results, participant),
                "{project} log of {participant}"
            );
        }
    }
}

#[test]
fn a_built_js_project_is_not_rebuilt_and_starts_from_the_compile_cache() {
    let component = built_project("examples/js-hello");
    let built_at = std::fs::metadata(&component).unwrap().modified().unwrap();
    let project = root().join("examples/js-hello");
    let dir = TempDir::new().unwrap();
    let args = |out| {
        [
            "run",
            project.to_str().unwrap(),
            "--out",
            out,
            "--provider",
            "alpha",
        ]
    };
    // The first run may compile the component into the shared cache; the second loads it.
    assert_eq!(run_bench(dir.path(), &args("first")).code, Some(0));
    let started = Instant::now();
    let run = run_bench(dir.path(), &args("second"));
    let elapsed = started.elapsed();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        std::fs::metadata(&component).unwrap().modified().unwrap(),
        built_at,
        "the component was rebuilt although no source changed"
    );
    // A rebuild takes tens of seconds and a recompilation seconds; a cached start ~0.1 s.
    assert!(
        elapsed < Duration::from_secs(3),
        "second run took {elapsed:?}"
    );
}
