//! End-to-end: with a weval binary, a JavaScript task is compiled ahead of time — its own
//! build step, a build key of its own (turning AOT off rebuilds) — and the component records
//! steps, measurements, logs and thrown errors as the task wrote them.
//!
//! The AOT build runs where weval is installed (`cargo install weval --version 0.5.0
//! --locked`, a one-time build of tens of minutes on two cores): on `PATH`, or named by
//! `BENCH_WEVAL` for the test run. Without it that test says so on stderr and checks nothing,
//! as the interpreter build every other JavaScript test uses is then all bench makes. A
//! `BENCH_WEVAL` that names no file is refused everywhere.

use crate::support::{
    bench::{bench, run_command, Run},
    guests::ensure_js_toolchain,
    results::{log_lines, records_of, step, step_names},
    root,
};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

const PROJECT: &str = "tests/guests-js/aot";

/// The weval binary the test run has: `BENCH_WEVAL`, else `weval` on `PATH`.
fn weval() -> Option<PathBuf> {
    let named = std::env::var_os("BENCH_WEVAL")
        .filter(|value| !value.is_empty() && value != "off")
        .map(PathBuf::from);
    let found = named.or_else(|| {
        let output = Command::new("sh")
            .args(["-c", "command -v weval"])
            .output()
            .ok()?;
        let path = String::from_utf8(output.stdout).ok()?;
        Some(PathBuf::from(path.trim())).filter(|path| path.is_file())
    });
    found
}

/// `bench` with this `BENCH_WEVAL` (a binary, or `off`).
fn bench_with_weval(cwd: &Path, weval: &Path, args: &[&str]) -> Run {
    run_command(bench(cwd).env("BENCH_WEVAL", weval).args(args))
}

/// The `[build]` lines of stderr (bench's one-time toolchain install left out).
fn build_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("[build] "))
        // Once per cache, whichever test builds JavaScript first.
        .filter(|line| *line != "[build] installing the JavaScript toolchain (once)")
        .collect()
}

/// Runs the AOT project (built with `weval`) with these task flags; its records and log.
fn run_task(weval: &Path, flags: &[&str]) -> (Vec<Value>, Vec<String>) {
    let dir = TempDir::new().unwrap();
    let project = root().join(PROJECT);
    let mut args = vec!["run", project.to_str().unwrap(), "--out", "results"];
    args.extend(flags);
    let run = bench_with_weval(dir.path(), weval, &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        build_lines(&run.stderr).is_empty(),
        "the AOT build was redone: {}",
        run.stderr
    );
    let results = dir.path().join("results");
    (records_of(&results, "p"), log_lines(&results, "p"))
}

#[test]
fn a_bench_weval_that_is_not_a_file_is_refused_before_any_build() {
    let missing = root().join("target/no-such-weval");
    let project = root().join(PROJECT);
    let build = bench_with_weval(&root(), &missing, &["build", project.to_str().unwrap()]);
    assert_ne!(build.code, Some(0), "{}", build.stdout);
    assert!(
        build.stderr.contains(&format!(
            "BENCH_WEVAL={} is not a file: set it to a weval binary",
            missing.display()
        )),
        "{}",
        build.stderr
    );
    assert!(
        build.stderr.contains("cargo install weval"),
        "{}",
        build.stderr
    );
    assert!(build_lines(&build.stderr).is_empty(), "{}", build.stderr);
}

#[test]
fn an_aot_built_js_task_records_steps_measurements_logs_and_failures() {
    let Some(weval) = weval() else {
        eprintln!(
            "skipped: weval is not installed (cargo install weval --version 0.5.0 --locked, \
             or set BENCH_WEVAL to a weval binary)"
        );
        return;
    };
    ensure_js_toolchain();
    let project = root().join(PROJECT);
    let project = project.to_str().unwrap();

    // The build key holds the choice: the interpreter build and the AOT build replace each
    // other, each under its own build step.
    let interpreted = bench_with_weval(&root(), Path::new("off"), &["build", project]);
    assert_eq!(interpreted.code, Some(0), "{}", interpreted.stderr);
    let aot = bench_with_weval(&root(), &weval, &["build", project]);
    assert_eq!(aot.code, Some(0), "{}", aot.stderr);
    assert_eq!(
        build_lines(&aot.stderr),
        ["[build] esbuild", "[build] componentize-js --aot (weval)"],
        "{}",
        aot.stderr
    );
    assert_eq!(
        build_lines(&interpreted.stderr),
        ["[build] esbuild", "[build] componentize-js"],
        "the interpreter build is redone after an AOT build: {}",
        interpreted.stderr
    );

    let (records, log) = run_task(&weval, &["--throw", "task-error"]);
    assert_eq!(records.len(), 3);
    for record in [&records[0], &records[2]] {
        assert_eq!(record["status"], "success", "{record}");
        // Steps are recorded as they end: the nested one first.
        assert_eq!(step_names(record), ["inner", "sum"], "{record}");
        assert_eq!(step(record, "sum")["data"], json!({"total": 500500}));
        assert_eq!(
            step(record, "inner")["data"],
            json!({"label": "inner", "parts": [1, 2.5]})
        );
        assert_eq!(record["data"]["sum"], 500500, "{record}");
        assert_eq!(record["data"]["big"], 1_099_511_627_776_u64, "{record}");
    }
    let failed = &records[1];
    assert_eq!(failed["status"], "error", "{failed}");
    assert_eq!(failed["errorCode"], "planned_failure", "{failed}");
    assert_eq!(failed["data"]["at"], 1, "{failed}");
    assert_eq!(step_names(failed), ["inner", "sum", "fail"], "{failed}");
    assert_eq!(step(failed, "fail")["status"], "error");
    assert_eq!(step(failed, "fail")["errorCode"], "planned_failure");
    for index in 0..3 {
        let line = format!("[task {index}] [warn] task {index} summed 500500 {{\"sum\":500500}}");
        assert!(log.contains(&line), "{line} not in {log:#?}");
    }

    let (records, _) = run_task(&weval, &["--throw", "type"]);
    let thrown = &records[1];
    assert_eq!(thrown["status"], "error", "{thrown}");
    assert_eq!(thrown["errorCode"], "TypeError", "{thrown}");
    assert_eq!(step(thrown, "fail")["errorCode"], "TypeError");
    assert_eq!(records[2]["status"], "success");
}
