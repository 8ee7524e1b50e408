//! End-to-end: one task file (`hello.bench.js`, `hello.bench.ts`, `task.py`) runs without a
//! project; bench builds it in a project of its own in the cache and rebuilds only when the
//! file (or, for JavaScript, a module or package it imports) changed. A file of another kind is refused before anything is built.

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

/// The component bench built for the JavaScript/TypeScript `file`: the one project in the
/// cache whose `main` it is.
fn built_component(file: &Path) -> PathBuf {
    let file = std::fs::canonicalize(file).unwrap();
    let tasks = root().join("target/bench-cache/tasks");
    let projects: Vec<PathBuf> = std::fs::read_dir(tasks)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|project| {
            std::fs::read_to_string(project.join("package.json"))
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .is_some_and(|package| package["main"] == file.to_str().unwrap())
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
    let component = built_component(&file);
    let built = modified(&component);

    run_file(&file, "second");
    assert_eq!(modified(&component), built, "rebuilt without a change");
    // `bench build` takes the file as `bench run` does and names the same component.
    let build = run_bench(dir.path(), &["build", "hello.bench.js"]);
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    assert_eq!(
        build.lines().last().map(PathBuf::from),
        Some(component.clone())
    );
    assert_eq!(modified(&component), built, "rebuilt by bench build");

    let edited = source.replace(&name, &format!("{name} edited"));
    std::fs::write(&file, &edited).unwrap();
    let run = run_file(&file, "edited");
    assert_eq!(run.lines()[0], format!("{name} edited (self-contained)"));
    assert_ne!(modified(&component), built, "not rebuilt after a change");
}

#[test]
fn a_ts_file_written_for_upstream_runs_unchanged() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("hello.bench.ts");
    let name = unique_name(&dir);
    let source = task_source("ts/task.bench.ts", &name)
        .replace(
            "import { defineBenchmarkConfig, defineTask } from '@bench/task';",
            "import { defineBenchmarkConfig, defineTask, BENCHSDK_RUNNER_VERSION } \
             from '@benchsdk/runner';",
        )
        .replace(
            "participant: ctx.participant.name",
            "participant: ctx.participant.name, agent: `benchsdk-runner/${BENCHSDK_RUNNER_VERSION}`",
        );
    assert!(source.contains("from '@benchsdk/runner'"), "{source}");
    assert!(source.contains("agent: "), "{source}");
    std::fs::write(&file, source).unwrap();
    let run = run_file(&file, "results");
    assert_eq!(run.lines()[0], format!("{name} (self-contained)"));
    let records = records(&dir.path().join("results"));
    assert_eq!(records[0]["data"]["agent"], "benchsdk-runner/0.3.0");
}

/// A task file that imports a module beside it and a package installed next to it.
const TASK_WITH_IMPORTS: &str = r#"import { defineBenchmarkConfig, defineTask } from '@bench/task';
import { label } from './label';
import { double } from 'tiny-math';

export const config = defineBenchmarkConfig({
  benchmarkSlug: 'imports',
  benchmarkName: 'Imports',
  participants: [{ name: 'local', requiredEnvVars: [] }],
  iterations: 2,
});

export const task = defineTask(async (ctx) => {
  await ctx.step('work', () => ctx.measure({ value: double(21) }));
  return { data: { label } };
});
"#;

#[test]
fn a_ts_file_imports_modules_beside_it_and_packages_above_it_and_is_rebuilt_when_they_change() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("imports.bench.ts");
    std::fs::write(&file, TASK_WITH_IMPORTS).unwrap();
    let label = dir.path().join("label.ts");
    std::fs::write(&label, "export const label: string = 'first';\n").unwrap();
    let package = dir.path().join("node_modules/tiny-math");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "tiny-math", "version": "1.0.0", "main": "index.js"}"#,
    )
    .unwrap();
    std::fs::write(package.join("index.js"), "exports.double = (n) => n * 2;\n").unwrap();
    let run_into = |out: &str| {
        let run = run_bench(dir.path(), &["run", file.to_str().unwrap(), "--out", out]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let records = records(&dir.path().join(out));
        assert_eq!(records.len(), 2);
        (
            records[0]["data"]["label"].as_str().unwrap().to_owned(),
            step(&records[0], "work")["data"]["value"].clone(),
        )
    };
    assert_eq!(run_into("first"), ("first".to_owned(), json!(42)));
    let component = built_component(&file);
    let built = modified(&component);

    assert_eq!(run_into("again"), ("first".to_owned(), json!(42)));
    assert_eq!(modified(&component), built, "rebuilt without a change");

    std::fs::write(&label, "export const label: string = 'second';\n").unwrap();
    assert_eq!(run_into("label"), ("second".to_owned(), json!(42)));
    let relabelled = modified(&component);
    assert_ne!(
        relabelled, built,
        "not rebuilt after the module beside it changed"
    );

    std::fs::write(package.join("index.js"), "exports.double = (n) => n * 3;\n").unwrap();
    assert_eq!(run_into("package"), ("second".to_owned(), json!(63)));
    assert_ne!(
        modified(&component),
        relabelled,
        "not rebuilt after the package changed"
    );
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
