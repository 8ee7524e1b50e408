//! End-to-end: `bench run` on the real `examples/rust-hello` component, in both groupBy
//! modes, with concurrency, failures, participant selection and the results directory.

use crate::support::{
    bench::{run_bench, Run},
    guests::example,
    results::{records, records_of, step, step_names},
    root,
};
use serde_json::{json, Value};
use tempfile::TempDir;

fn hello_run(args: &[&str]) -> (TempDir, Run) {
    let hello = example("rust-hello");
    let dir = TempDir::new().unwrap();
    let mut full = vec!["run", hello.to_str().unwrap(), "--out", "results"];
    full.extend_from_slice(args);
    let run = run_bench(dir.path(), &full);
    (dir, run)
}

#[test]
fn participant_mode_prints_upstream_lines_and_records_steps() {
    let (dir, run) = hello_run(&[]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let lines = run.lines();
    assert_eq!(lines[0], "Rust hello (self-contained)");
    assert!(
        lines[1].starts_with("Date: ") && lines[1].ends_with('Z'),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2],
        "Knobs: iterations=3, concurrency=1, staggerDelayMs=0, groupBy=participant"
    );
    assert_eq!(lines[3], "");
    let banner = "=".repeat(70);
    assert_eq!(lines[4], banner);
    assert_eq!(lines[5], "  Participant: alpha");
    assert_eq!(lines[6], banner);
    assert_eq!(
        lines[7],
        r#"  [alpha] Task 1/3: success {"answer":42,"sandbox":"alpha-0","phase":"cold"}"#
    );
    assert_eq!(
        lines[9],
        r#"  [alpha] Task 3/3: success {"answer":42,"sandbox":"alpha-2","phase":"warm"}"#
    );
    assert_eq!(lines[10], "  Done: 3/3 succeeded.");
    assert_eq!(lines[11], "");
    assert_eq!(lines[13], "  Participant: beta");
    assert!(run
        .stdout
        .contains("\nAll done. No platform run created.\n"));
    assert!(lines.last().unwrap().starts_with("Results: "));

    let results = dir.path().join("results");
    let alpha = records_of(&results, "alpha");
    assert_eq!(alpha.len(), 3);
    let phases: Vec<&Value> = alpha.iter().map(|r| &r["data"]["phase"]).collect();
    assert_eq!(phases, [&json!("cold"), &json!("warm"), &json!("warm")]);
    let first = &alpha[0];
    assert_eq!(first["status"], "success");
    assert_eq!(first["taskIndex"], 0);
    assert!(first.get("errorCode").is_none());
    // Steps are listed in completion order: the nested step ends before its parent.
    assert_eq!(step_names(first), ["create", "connect", "exec"]);
    assert_eq!(step(first, "create")["data"], json!({"sandboxes": 1}));
    assert_eq!(step(first, "connect")["data"], json!({"handshakes": 1}));
    assert_eq!(step(first, "exec")["data"], json!({"checksum": 500500}));
    for step in first["steps"].as_array().unwrap() {
        assert_eq!(step["status"], "success");
        assert!(
            step["latencyMs"].as_u64().is_some(),
            "integer latency: {step}"
        );
        assert!(step["startedAt"].as_str().unwrap().ends_with('Z'));
    }
    let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "participant",
            "taskIndex",
            "status",
            "startedAt",
            "data",
            "completedAt",
            "latencyMs",
            "durationUs",
            "guestCpuUs",
            "steps"
        ]
    );
    assert_eq!(records_of(&results, "beta").len(), 3);
}

#[test]
fn a_failing_task_is_a_failed_record_and_the_run_goes_on() {
    let (dir, run) = hello_run(&["--fail-at", "1", "--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run
        .stdout
        .contains("  [alpha] Task 2/3: FAILED \u{2014} planned_failure\n"));
    assert!(run.stdout.contains("  Done: 2/3 succeeded.\n"));
    assert!(!run.stdout.contains("Participant: beta"));
    let alpha = records_of(&dir.path().join("results"), "alpha");
    let failed = &alpha[1];
    assert_eq!(failed["status"], "error");
    assert_eq!(failed["errorCode"], "planned_failure");
    // A TaskError's data is merged (no errorMessage, upstream's runner-built record).
    assert_eq!(
        failed["data"],
        json!({"sandbox": "alpha-1", "phase": "warm"})
    );
    assert_eq!(alpha[2]["status"], "success");
}

#[test]
fn round_mode_interleaves_participants_with_concurrency_two() {
    let (dir, run) = hello_run(&["--group-by", "round", "--concurrency", "2"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let lines = run.lines();
    assert_eq!(
        lines[2],
        "Knobs: iterations=3, concurrency=2, staggerDelayMs=0, groupBy=round"
    );
    assert_eq!(lines[4], "Interleaving 2 participant(s), 3 round(s) each.");
    assert_eq!(lines[5], "");
    let task_lines: Vec<&&str> = lines.iter().filter(|l| l.contains("] Task ")).collect();
    assert_eq!(task_lines.len(), 6);
    // Round i finishes before round i+1 starts.
    assert!(task_lines[0].contains("Task 1/3") && task_lines[1].contains("Task 1/3"));
    assert!(task_lines[4].contains("Task 3/3") && task_lines[5].contains("Task 3/3"));
    assert!(lines.contains(&"  alpha: done."));
    assert!(lines.contains(&"  beta: done."));
    assert!(!run.stdout.contains("Participant:"));
    let results = dir.path().join("results");
    for name in ["alpha", "beta"] {
        let records = records_of(&results, name);
        let indexes: Vec<u64> = records
            .iter()
            .map(|r| r["taskIndex"].as_u64().unwrap())
            .collect();
        assert_eq!(indexes, [0, 1, 2]);
        assert_eq!(records[2]["data"]["phase"], "warm");
    }
}

#[test]
fn round_mode_marks_participants_with_errors() {
    let (_dir, run) = hello_run(&["--group-by", "round", "--fail-at", "0"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run.stdout.contains("  alpha: done (with errors).\n"));
    assert!(run.stdout.contains("  beta: done (with errors).\n"));
}

#[test]
fn participant_mode_with_concurrency_two_runs_every_slot_once() {
    let (dir, run) = hello_run(&["--concurrency", "2", "--provider", "beta"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run.stdout.contains("concurrency=2"));
    assert!(run.stdout.contains("  Done: 3/3 succeeded.\n"));
    let records = records_of(&dir.path().join("results"), "beta");
    let indexes: Vec<u64> = records
        .iter()
        .map(|r| r["taskIndex"].as_u64().unwrap())
        .collect();
    assert_eq!(indexes, [0, 1, 2]);
}

#[test]
fn uneven_phases_ignore_iterations_with_a_warning() {
    let (_dir, run) = hello_run(&["--iterations", "5", "--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run
        .stderr
        .contains("--iterations is ignored because this benchmark sizes its phases individually."));
    assert!(run.stdout.contains("iterations=3,"));
}

#[test]
fn results_directory_holds_run_config_and_participant_logs() {
    let (dir, run) = hello_run(&["--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let results = dir.path().join("results");
    let run_json: Value =
        serde_json::from_str(&std::fs::read_to_string(results.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["benchmarkSlug"], "rust-hello");
    assert_eq!(
        run_json["phases"],
        json!([{"name": "cold", "iterations": 1}, {"name": "warm", "iterations": 2}])
    );
    assert_eq!(run_json["participants"], json!(["alpha"]));
    assert_eq!(run_json["component"]["sha256"].as_str().unwrap().len(), 64);
    assert!(run_json["completedAt"].as_str().is_some());
    let log = std::fs::read_to_string(results.join("logs").join("alpha.log")).unwrap();
    let first: Vec<&str> = log.lines().take(4).collect();
    assert!(
        first[0].ends_with(r#" [task 0] [info] starting {"region":"eu"}"#),
        "{log}"
    );
    assert!(first[1].ends_with(" [task 0] create"), "{log}");
    assert!(first[2].ends_with(" [task 0] connect"), "{log}");
    assert!(first[3].ends_with(" [task 0] exec"), "{log}");
}

#[test]
fn a_results_directory_that_holds_a_run_is_refused_and_left_as_it_was() {
    let (dir, run) = hello_run(&["--provider", "alpha"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let results = dir.path().join("results");
    let files = [
        "records.ndjson",
        "run.json",
        "summary.json",
        "logs/alpha.log",
    ];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|file| std::fs::read(results.join(file)).unwrap())
        .collect();

    let hello = example("rust-hello");
    let again = run_bench(
        dir.path(),
        &[
            "run",
            hello.to_str().unwrap(),
            "--out",
            "results",
            "--export-json",
            "summary-export.json",
        ],
    );
    assert_eq!(again.code, Some(1), "stdout: {}", again.stdout);
    assert_eq!(
        again.stderr.trim_end(),
        "Benchmark failed: the results directory results already holds a run; \
         choose another --out directory or remove it"
    );
    for (file, bytes) in files.iter().zip(&before) {
        assert_eq!(&std::fs::read(results.join(file)).unwrap(), bytes, "{file}");
    }
    assert!(
        !dir.path().join("summary-export.json").exists(),
        "no export file is created for a refused run"
    );
    // An empty directory is fine.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let into_empty = run_bench(
        dir.path(),
        &[
            "run",
            hello.to_str().unwrap(),
            "--out",
            "empty",
            "--provider",
            "beta",
        ],
    );
    assert_eq!(into_empty.code, Some(0), "stderr: {}", into_empty.stderr);
    assert_eq!(records(&dir.path().join("empty")).len(), 3);
}

#[test]
fn default_results_directory_is_under_bench_results() {
    let hello = example("rust-hello");
    let dir = TempDir::new().unwrap();
    let run = run_bench(
        dir.path(),
        &["run", hello.to_str().unwrap(), "--provider", "beta"],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let shown = run
        .lines()
        .last()
        .unwrap()
        .trim_start_matches("Results: ")
        .to_owned();
    assert!(shown.starts_with("bench-results/rust-hello/"), "{shown}");
    assert_eq!(records(&dir.path().join(shown)).len(), 3);
}

#[test]
fn unknown_participant_and_bad_flags_fail_with_upstream_messages() {
    let (_dir, run) = hello_run(&["--provider", "nope"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        "Benchmark failed: Unknown participant(s): nope. Available: alpha, beta"
    );
    let (_dir, run) = hello_run(&["--iterations", "abc"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        r#"Benchmark failed: --iterations expects an integer >= 1 (got "abc")"#
    );
    let (_dir, run) = hello_run(&["--bogus", "1"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr.trim(),
        "Benchmark failed: Unknown flag(s): --bogus"
    );
}

#[test]
fn empty_provider_selection_is_a_clean_exit() {
    let (_dir, run) = hello_run(&["--provider="]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(
        run.stdout.trim(),
        "No participants have their required env vars set \u{2014} nothing to run."
    );
}

#[test]
fn run_and_build_accept_a_project_directory() {
    let project = root().join("examples").join("rust-hello");
    let dir = TempDir::new().unwrap();
    let build = run_bench(dir.path(), &["build", project.to_str().unwrap()]);
    assert_eq!(build.code, Some(0), "stderr: {}", build.stderr);
    let wasm = build.lines().last().unwrap().to_owned();
    assert!(
        wasm.ends_with("rust_hello.wasm") && std::path::Path::new(&wasm).is_file(),
        "{wasm}"
    );
    let run = run_bench(
        dir.path(),
        &[
            "run",
            project.to_str().unwrap(),
            "--out",
            "r",
            "--provider",
            "alpha",
        ],
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(records(&dir.path().join("r")).len(), 3);
}

#[test]
fn check_validates_without_running() {
    let hello = example("rust-hello");
    let dir = TempDir::new().unwrap();
    let run = run_bench(dir.path(), &["check", hello.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(run.stdout.contains("Benchmark: Rust hello (rust-hello)"));
    assert!(run.stdout.contains("Participant alpha: ready"));
    assert!(run.stdout.contains("Config OK."));
    assert!(!dir.path().join("bench-results").exists());
}

fn started_ms(record: &Value) -> i64 {
    let text = record["startedAt"].as_str().unwrap();
    chrono_like_ms(text)
}

/// Milliseconds of an ISO `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp within its day.
fn chrono_like_ms(text: &str) -> i64 {
    let time = &text[11..23];
    let hours: i64 = time[0..2].parse().unwrap();
    let minutes: i64 = time[3..5].parse().unwrap();
    let seconds: i64 = time[6..8].parse().unwrap();
    let millis: i64 = time[9..12].parse().unwrap();
    ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis
}

#[test]
fn stagger_is_anchored_to_the_first_start_in_participant_mode() {
    let (dir, run) = hello_run(&[
        "--stagger-delay-ms",
        "150",
        "--concurrency",
        "3",
        "--provider",
        "alpha",
    ]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let records = records_of(&dir.path().join("results"), "alpha");
    let first = started_ms(&records[0]);
    let offsets: Vec<i64> = records.iter().map(|r| started_ms(r) - first).collect();
    assert!(offsets[1] >= 145 && offsets[1] < 400, "{offsets:?}");
    assert!(offsets[2] >= 295 && offsets[2] < 550, "{offsets:?}");
}

#[test]
fn stagger_is_a_gap_between_rounds_in_round_mode() {
    let (dir, run) = hello_run(&["--group-by", "round", "--stagger-delay-ms", "150"]);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let results = dir.path().join("results");
    let alpha = records_of(&results, "alpha");
    let beta = records_of(&results, "beta");
    // Both participants start a round together; the next round starts a gap later.
    assert!((started_ms(&alpha[0]) - started_ms(&beta[0])).abs() < 100);
    let gap = started_ms(&alpha[1]) - started_ms(&alpha[0]);
    assert!((145..500).contains(&gap), "gap {gap}");
}
