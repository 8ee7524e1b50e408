//! End-to-end: bad input gets a one-line error naming the problem and exit 1 (never a panic),
//! and a misbehaving task is a failed record while the run goes on.

use crate::support::{
    bench::{run_bench, Run},
    guests::{example, test_guest},
    results::{records_of, step},
};
use serde_json::{json, Value};
use tempfile::TempDir;

fn assert_one_line_failure(run: &Run, expected_fragments: &[&str]) {
    assert_eq!(
        run.code,
        Some(1),
        "stdout: {}\nstderr: {}",
        run.stdout,
        run.stderr
    );
    let stderr = run.stderr.trim_end();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("Benchmark failed: "), "{stderr}");
    for fragment in expected_fragments {
        assert!(
            stderr.contains(fragment),
            "{stderr:?} should contain {fragment:?}"
        );
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

fn run_file(bytes: &[u8]) -> Run {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("task.wasm");
    std::fs::write(&path, bytes).unwrap();
    run_bench(dir.path(), &["run", path.to_str().unwrap()])
}

#[test]
fn garbage_bytes_are_not_webassembly() {
    let run = run_file(b"this is not wasm at all");
    assert_one_line_failure(&run, &["task.wasm cannot be run", "not a WebAssembly file"]);
}

#[test]
fn a_core_module_explains_how_to_make_a_component() {
    let run = run_file(b"\0asm\x01\0\0\0");
    assert_one_line_failure(
        &run,
        &[
            "core WebAssembly module, not a component",
            "wasm32-wasip2",
            "wasm-tools component new",
        ],
    );
}

#[test]
fn a_truncated_component_is_invalid() {
    let hello = std::fs::read(example("rust-hello")).unwrap();
    let run = run_file(&hello[..hello.len() / 2]);
    assert_one_line_failure(&run, &["is not a valid WebAssembly component"]);
}

#[test]
fn a_component_without_run_names_the_world() {
    let dir = TempDir::new().unwrap();
    let run = run_bench(dir.path(), &["run", test_guest("no-run").to_str().unwrap()]);
    assert_one_line_failure(&run, &["does not export `run`", "bench:task/task@0.1.4"]);
}

#[test]
fn a_config_that_is_not_json_is_reported() {
    let dir = TempDir::new().unwrap();
    let run = run_bench(
        dir.path(),
        &["run", test_guest("invalid-json-config").to_str().unwrap()],
    );
    assert_one_line_failure(&run, &["not valid JSON"]);
}

#[test]
fn a_config_failing_validation_uses_the_upstream_message() {
    let dir = TempDir::new().unwrap();
    let run = run_bench(
        dir.path(),
        &["run", test_guest("invalid-config").to_str().unwrap()],
    );
    assert_one_line_failure(&run, &[]);
    assert_eq!(
        run.stderr.trim(),
        "Benchmark failed: iterations must be an integer >= 1 (got 0)"
    );
}

#[test]
fn a_missing_task_file_or_task_argument_is_reported() {
    let dir = TempDir::new().unwrap();
    let run = run_bench(dir.path(), &["run", "nowhere.wasm"]);
    assert_one_line_failure(&run, &["nowhere.wasm does not exist"]);
    let run = run_bench(dir.path(), &["run"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.starts_with("Benchmark failed: Usage:"),
        "{}",
        run.stderr
    );
    let run = run_bench(dir.path(), &["run", "--iterations", "3"]);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.starts_with("Benchmark failed: Usage:"),
        "{}",
        run.stderr
    );
}

fn faulty_run(args: &[&str]) -> (TempDir, Run, Vec<serde_json::Value>) {
    let faulty = test_guest("faulty");
    let dir = TempDir::new().unwrap();
    let mut full = vec!["run", faulty.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    let run = run_bench(dir.path(), &full);
    let records = records_of(&dir.path().join("results"), "p");
    (dir, run, records)
}

#[test]
fn instances_are_reused_across_iterations_unless_fresh_is_asked() {
    let (_dir, run, records) = faulty_run(&[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let runs: Vec<_> = records
        .iter()
        .map(|r| r["data"]["runsInInstance"].clone())
        .collect();
    assert_eq!(runs, [json!(1), json!(2), json!(3)]);
    let (_dir, _run, records) = faulty_run(&["--fresh-instance"]);
    let runs: Vec<_> = records
        .iter()
        .map(|r| r["data"]["runsInInstance"].clone())
        .collect();
    assert_eq!(runs, [json!(1), json!(1), json!(1)]);
}

#[test]
fn a_step_blocked_in_a_host_call_times_out_and_the_run_continues() {
    let started = std::time::Instant::now();
    let (_dir, run, records) = faulty_run(&["--hang-at", "1"]);
    assert!(
        started.elapsed().as_secs() < 20,
        "the 30 s sleep was cut short"
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(
        run.stdout
            .contains("  [p] Task 2/3: FAILED \u{2014} step_timeout\n"),
        "{}",
        run.stdout
    );
    let timed_out = &records[1];
    assert_eq!(timed_out["errorCode"], "step_timeout");
    assert_eq!(
        timed_out["data"]["errorMessage"],
        "Step \"hang\" timed out after 100ms"
    );
    let step = step(timed_out, "hang");
    assert_eq!(step["status"], "error");
    assert_eq!(step["errorCode"], "step_timeout");
    assert_eq!(step["timeoutMs"], 100);
    assert!(step["latencyMs"].as_u64().unwrap() >= 100);
    // The timed-out instance was discarded: the next task runs in a fresh one.
    assert_eq!(records[2]["status"], "success");
    assert_eq!(records[2]["data"]["runsInInstance"], 1);
}

#[test]
fn a_cpu_loop_inside_a_step_is_interrupted() {
    let (_dir, run, records) = faulty_run(&["--spin-at", "0"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(records[0]["errorCode"], "step_timeout");
    assert_eq!(
        records[0]["data"]["errorMessage"],
        "Step \"spin\" timed out after 100ms"
    );
    assert_eq!(records[1]["status"], "success");
    assert_eq!(records[1]["data"]["runsInInstance"], 1);
    assert_eq!(records[2]["data"]["runsInInstance"], 2);
}

#[test]
fn a_panic_is_a_trap_record_quoting_the_panic() {
    let (_dir, run, records) = faulty_run(&["--panic-at", "0"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(records[0]["errorCode"], "trap");
    let message = records[0]["data"]["errorMessage"].as_str().unwrap();
    assert!(message.contains("boom at task 0"), "{message}");
    assert_eq!(step(&records[0], "explode")["errorCode"], "trap");
    assert_eq!(records[1]["data"]["runsInInstance"], 1);
}

#[test]
fn imports_the_host_does_not_provide_are_listed() {
    let dir = TempDir::new().unwrap();
    let run = run_bench(
        dir.path(),
        &["run", test_guest("unknown-import").to_str().unwrap()],
    );
    assert_one_line_failure(
        &run,
        &["imports what bench does not provide: test:unknown/gpu"],
    );
}

#[test]
fn a_task_built_against_another_contract_version_says_so() {
    let dir = TempDir::new().unwrap();
    let run = run_bench(
        dir.path(),
        &["run", test_guest("future-contract").to_str().unwrap()],
    );
    assert_one_line_failure(
        &run,
        &["was built against bench:task@0.2.0, but this bench provides bench:task@0.1.4"],
    );
}

/// Runs `guest` (built against an earlier 0.1 contract): both its tasks succeed with `data`
/// and the `work` step that measured their index.
fn assert_runs_unchanged(guest: &str, data: &Value) {
    let dir = TempDir::new().unwrap();
    let guest = test_guest(guest);
    let run = run_bench(
        dir.path(),
        &["run", guest.to_str().unwrap(), "--out", "results"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = records_of(&dir.path().join("results"), "p");
    assert_eq!(records.len(), 2);
    for (index, record) in records.iter().enumerate() {
        assert_eq!(record["status"], "success", "{record}");
        assert_eq!(&record["data"], data);
        assert_eq!(step(record, "work")["data"], json!({"index": index}));
    }
}

#[test]
fn a_task_built_against_the_previous_contract_runs_unchanged() {
    assert_runs_unchanged("previous-contract", &json!({"contract": "0.1.0"}));
}

#[test]
fn a_task_built_against_the_0_1_1_contract_runs_unchanged_with_its_natives() {
    let sha256_of_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_runs_unchanged(
        "contract-0-1-1",
        &json!({"contract": "0.1.1", "sha256": sha256_of_abc}),
    );
}

#[test]
fn a_task_built_against_the_0_1_2_contract_runs_unchanged_with_its_natives() {
    let sha256_of_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_runs_unchanged(
        "contract-0-1-2",
        &json!({"contract": "0.1.2", "sha256": sha256_of_abc}),
    );
}

#[test]
fn a_task_built_against_the_0_1_3_contract_runs_unchanged_with_its_whole_reads() {
    assert_runs_unchanged("contract-0-1-3", &json!({"contract": "0.1.3", "stdin": 0}));
}

#[test]
fn a_config_export_that_panics_is_reported_with_the_panic() {
    let dir = TempDir::new().unwrap();
    let guest = test_guest("panicking-config");
    let run = run_bench(dir.path(), &["run", guest.to_str().unwrap()]);
    assert_eq!(run.code, Some(1));
    // The guest's own panic is quoted (the host did not panic: one line, our prefix).
    let stderr = run.stderr.trim_end();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("Benchmark failed: the task's `config` export failed: wasm trap"));
    assert!(
        stderr.contains("(panicked at panicking-config/src/lib.rs"),
        "{stderr}"
    );
    assert!(stderr.ends_with("the config is not ready)"), "{stderr}");
}
