//! End-to-end: one task file (`hello.bench.js`, `hello.bench.ts`, `task.py`) runs without a
//! project; bench builds it in a project of its own in the cache and rebuilds only when the
//! file changed. A file of another kind is refused before anything is built.

use crate::support::{
    bench::{run_bench, Run},
    guests::ensure_python_toolchain,
    results::{records, step},
    root,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tempfile::TempDir;

/// The `bench new` template of `template` (a path under the scaffold templates), with the
/// benchmark named `name`.
pub(crate) fn task_source(template: &str, name: &str) -> String {
    let path = root()
        .join("host/cli/src/scaffold/templates")
        .join(template);
    std::fs::read_to_string(path)
        .unwrap()
        .replace("{{slug}}", "one-file")
        .replace("{{title}}", name)
}

/// Runs the task file into `out` (next to it) and checks what the template's task records.
fn run_file(file: &Path, out: &str) -> Run {
    let dir = file.parent().unwrap();
    let run = run_bench(dir, &["run", file.to_str().unwrap(), "--out", out]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let records = records(&dir.join(out));
    assert_eq!(records.len(), 3);
    assert_eq!(
        step(&records[0], "work")["data"],
        json!({"items": 100, "sum": 5050})
    );
    run
}

/// The component bench built for the file whose text is `source`: the one project in the
/// cache holding a copy of it.
fn built_component(file_name: &str, source: &str) -> PathBuf {
    let tasks = root().join("target/bench-cache/tasks");
    let projects: Vec<PathBuf> = std::fs::read_dir(tasks)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|project| {
            std::fs::read_to_string(project.join(file_name)).is_ok_and(|text| text == source)
        })
        .collect();
    assert_eq!(projects.len(), 1, "{projects:?}");
    projects[0].join("target/bench/task.wasm")
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

/// A name no other test run uses, so each finds its own cached project.
pub(crate) fn unique_name(dir: &TempDir) -> String {
    let name = dir.path().file_name().unwrap().to_string_lossy();
    format!("One file {name}")
}

#[test]
fn a_js_file_runs_and_is_rebuilt_only_when_it_changes() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("hello.bench.js");
    let name = unique_name(&dir);
    let source = task_source("js/task.bench.js", &name);
    std::fs::write(&file, &source).unwrap();
    let run = run_file(&file, "first");
    assert_eq!(run.lines()[0], format!("{name} (self-contained)"));
    let component = built_component("hello.bench.js", &source);
    let built = modified(&component);

    run_file(&file, "second");
    assert_eq!(modified(&component), built, "rebuilt without a change");

    let edited = source.replace(&name, &format!("{name} edited"));
    std::fs::write(&file, &edited).unwrap();
    let run = run_file(&file, "edited");
    assert_eq!(run.lines()[0], format!("{name} edited (self-contained)"));
    assert_ne!(modified(&component), built, "not rebuilt after a change");
}

#[test]
fn a_ts_file_runs() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("hello.bench.ts");
    let name = unique_name(&dir);
    std::fs::write(&file, task_source("ts/task.bench.ts", &name)).unwrap();
    let run = run_file(&file, "results");
    assert_eq!(run.lines()[0], format!("{name} (self-contained)"));
}

#[test]
fn a_python_file_runs() {
    ensure_python_toolchain();
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("task.py");
    let name = unique_name(&dir);
    std::fs::write(&file, task_source("python/app.py", &name)).unwrap();
    let run = run_file(&file, "results");
    assert_eq!(run.lines()[0], format!("{name} (self-contained)"));
}

#[test]
fn a_file_of_an_unknown_kind_is_refused() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "hello").unwrap();
    let run = run_bench(dir.path(), &["run", "notes.txt"]);
    assert_eq!(run.code, Some(1));
    assert_eq!(
        run.stderr,
        "Benchmark failed: notes.txt is not a task bench can run: expected a .wasm component, \
         a task project directory or one task file (.js, .mjs, .ts, .mts or .py)\n"
    );
}
