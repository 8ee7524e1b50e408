//! End-to-end: a results directory is input someone else may have written. `bench report`
//! (and its HTML), `bench compare` and `bench merge` read only files inside it, lines of
//! bounded length in bounded memory, and each task of the run's plan once.

use crate::support::{
    bench::{self, run_bench, watched, Run},
    guests::example,
    results::read_json,
};
use serde_json::{json, Value};
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;
use tempfile::TempDir;

/// What the secret file outside the results directories holds.
const SECRET: &str = "SECRET-OUTSIDE-THE-RESULTS";

/// Runs `examples/<name>` locally into `<cwd>/<out>` with `args`.
fn run_into(cwd: &Path, name: &str, out: &str, args: &[&str]) {
    let run = bench::run_into(cwd, &example(name), out, None, args);
    assert_eq!(run.code, Some(0), "{out}: {}", run.stderr);
}

/// A copy of the results directory `from` (files and `logs/`) as `to`.
fn copy_results(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.join("logs")).unwrap();
    for sub in ["", "logs"] {
        for entry in std::fs::read_dir(from.join(sub)).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                std::fs::copy(entry.path(), to.join(sub).join(entry.file_name())).unwrap();
            }
        }
    }
}

/// Rewrites `<dir>/run.json` with `change` applied.
fn edit_manifest(dir: &Path, change: impl FnOnce(&mut Value)) {
    let path = dir.join("run.json");
    let mut manifest = read_json(&path);
    change(&mut manifest);
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
}

fn assert_refused(run: &Run, says: &str) {
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(says),
        "{says:?} not in:\n{}",
        run.stderr
    );
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
}

#[test]
fn a_log_outside_the_results_directory_is_never_read_or_carried_forward() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    let secret = cwd.join("secret.txt");
    std::fs::write(&secret, format!("{SECRET}\n")).unwrap();
    run_into(cwd, "rust-hello", "results", &[]);
    let results = cwd.join("results");

    let absolute = cwd.join("absolute");
    copy_results(&results, &absolute);
    edit_manifest(&absolute, |manifest| {
        manifest["logFiles"] = json!({"alpha": secret.to_str().unwrap()})
    });
    let dotdot = cwd.join("dotdot");
    copy_results(&results, &dotdot);
    edit_manifest(&dotdot, |manifest| {
        manifest["logFiles"] = json!({"beta": "logs/../../secret.txt"})
    });
    let linked = cwd.join("linked");
    copy_results(&results, &linked);
    std::fs::remove_file(linked.join("logs/alpha.log")).unwrap();
    std::os::unix::fs::symlink(&secret, linked.join("logs/alpha.log")).unwrap();

    for (dir, says) in [
        ("absolute", "is not a path inside the results directory"),
        ("dotdot", "is not a path inside the results directory"),
        ("linked", "leads outside the results directory"),
    ] {
        let html = format!("{dir}.html");
        let report = run_bench(cwd, &["report", dir, "--html", &html]);
        assert_refused(&report, says);
        let page = std::fs::read_to_string(cwd.join(&html)).unwrap_or_default();
        assert!(!page.contains(SECRET), "{dir}: the page embeds the secret");
    }
    assert!(
        run_bench(cwd, &["report", "absolute", "--html", "x.html"])
            .stderr
            .contains("run.json's logFiles names"),
        "the entry is named"
    );

    // Shards whose run.json names a log outside: the merged run.json does not carry it,
    // and a shard whose log is a link out is refused.
    run_into(cwd, "rust-hello", "s0", &["--shard", "0/2"]);
    run_into(cwd, "rust-hello", "s1", &["--shard", "1/2"]);
    edit_manifest(&cwd.join("s0"), |manifest| {
        manifest["logFiles"] = json!({"alpha": secret.to_str().unwrap()})
    });
    let merged = run_bench(cwd, &["merge", "s0", "s1", "--out", "merged"]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    assert_eq!(
        read_json(&cwd.join("merged/run.json")).get("logFiles"),
        None
    );
    let report = run_bench(cwd, &["report", "merged", "--html", "merged.html"]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    let page = std::fs::read_to_string(cwd.join("merged.html")).unwrap();
    assert!(!page.contains(SECRET));
    let _ = std::fs::remove_file(cwd.join("s1/logs/alpha.log"));
    std::os::unix::fs::symlink(&secret, cwd.join("s1/logs/alpha.log")).unwrap();
    let refused = run_bench(cwd, &["merge", "s0", "s1", "--out", "merged-again"]);
    assert_refused(&refused, "leads outside the results directory");
}

/// Peak resident memory a command reading a results directory may take.
const RSS_BOUND_KIB: u64 = 200 << 10;

/// Appends a line of `bytes` NUL bytes and its newline to `path`, without writing them (the
/// file is sparse, and the test's directory takes it away when it ends); the line's number.
fn append_sparse_line(path: &Path, bytes: u64) -> usize {
    let lines = std::fs::read_to_string(path).unwrap().lines().count();
    let mut file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let end = file.seek(SeekFrom::End(0)).unwrap();
    file.seek(SeekFrom::Start(end + bytes)).unwrap();
    file.write_all(b"\n").unwrap();
    lines + 1
}

#[test]
fn a_gibibyte_line_is_an_error_in_bounded_memory() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    run_into(cwd, "rust-noop", "results", &["--iterations", "3"]);
    run_into(
        cwd,
        "rust-noop",
        "s0",
        &["--iterations", "4", "--shard", "0/2"],
    );
    run_into(
        cwd,
        "rust-noop",
        "s1",
        &["--iterations", "4", "--shard", "1/2"],
    );
    let too_long = |dir: &str| {
        let line = append_sparse_line(&cwd.join(dir).join("records.ndjson"), 1 << 30);
        format!(
            "{} line {line} is longer than 16 MiB",
            Path::new(dir).join("records.ndjson").display()
        )
    };
    let (results, shard) = (too_long("results"), too_long("s1"));
    for (args, says) in [
        (&["report", "results"][..], &results),
        (&["compare", "results", "results"][..], &results),
        (&["merge", "s0", "s1", "--out", "merged"][..], &shard),
    ] {
        let watched = watched(cwd, args);
        let run = &watched.run;
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(says.as_str()),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            watched.peak_rss_kib < RSS_BOUND_KIB,
            "{args:?}: peak RSS {} KiB",
            watched.peak_rss_kib
        );
    }
}

#[test]
fn repeated_and_unplanned_records_are_named_and_counted_once() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    run_into(cwd, "rust-noop", "results", &["--iterations", "10"]);
    let dir = cwd.join("results");
    let summary = read_json(&dir.join("summary.json"));
    let path = dir.join("records.ndjson");
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let mut past_the_plan = first.clone();
    past_the_plan["taskIndex"] = json!(10);
    let mut stranger = first.clone();
    stranger["participant"] = json!("stranger");
    let mut hostile = text.clone();
    for record in [&first, &past_the_plan, &stranger] {
        hostile.push_str(&format!("{record}\n"));
    }
    std::fs::write(&path, hostile).unwrap();

    let report = run_bench(cwd, &["report", "results"]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    let warning = format!(
        "[bench] warning: {}: 3 record(s) left out (1 repeating a task, 2 not in the run's plan), not counted: line 11 repeats task {} of \"local\"; line 12 holds task 10 of \"local\", which the run did not plan; line 13 holds task {} of \"stranger\", which the run did not plan",
        Path::new("results/records.ndjson").display(),
        first["taskIndex"],
        first["taskIndex"],
    );
    assert!(report.stderr.contains(&warning), "{}", report.stderr);
    assert_eq!(
        read_json(&dir.join("summary.json")),
        summary,
        "10 tasks, not 13"
    );
    let compare = run_bench(cwd, &["compare", "results", "results"]);
    assert_eq!(compare.code, Some(0), "{}", compare.stderr);
    assert!(
        compare.stderr.contains("3 record(s) left out"),
        "{}",
        compare.stderr
    );
}
