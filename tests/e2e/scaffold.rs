//! End-to-end: `bench new` creates a project in each language that `bench run` builds and
//! runs as it is (JavaScript and TypeScript projects install their npm dependencies on the
//! first build), and a project is rebuilt only when a source changed. A copy of the binary
//! away from the checkout writes projects that do not name the checkout and that still build
//! after bench's cache is cleared.

use crate::support::{
    bench::{bench, run_bench, run_command, Run},
    guests::ensure_python_toolchain,
    results::{records, step, step_names},
    root,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tempfile::TempDir;

/// Runs `bench new <tmp>/my-task --lang <lang>` and returns the project directory.
fn new_project(lang: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let project = dir.path().join("my-task");
    let run = run_bench(
        dir.path(),
        &["new", project.to_str().unwrap(), "--lang", lang],
    );
    assert_eq!(run.code, Some(0), "bench new --lang {lang}: {}", run.stderr);
    assert!(project.join("README.md").is_file());
    assert_eq!(
        *run.lines().last().unwrap(),
        format!("Next: bench run {}", project.display())
    );
    (dir, project)
}

/// Runs the project into `out` (next to it) and checks what the template's task records.
fn run_project(project: &Path, out: &str) -> Run {
    let parent = project.parent().unwrap();
    let run = run_bench(parent, &["run", project.to_str().unwrap(), "--out", out]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("  [local] Task 3/3: success {\"participant\":\"local\"}\n"),
        "{}",
        run.stdout
    );
    let records = records(&parent.join(out));
    assert_eq!(records.len(), 3);
    assert_eq!(step_names(&records[0]), ["prepare", "work"]);
    assert_eq!(
        step(&records[0], "work")["data"],
        json!({"items": 100, "sum": 5050})
    );
    run
}

fn modified(path: &Path) -> SystemTime {
    std::fs::metadata(path).unwrap().modified().unwrap()
}

#[test]
fn a_new_rust_project_builds_and_runs() {
    let (_dir, project) = new_project("rust");
    let run = run_project(&project, "results");
    assert_eq!(run.lines()[0], "my-task (self-contained)");
}

#[test]
fn a_new_js_project_builds_runs_and_is_rebuilt_only_when_a_source_changes() {
    let (_dir, project) = new_project("js");
    run_project(&project, "first");
    let component = project.join("target/bench/task.wasm");
    let built = modified(&component);

    run_project(&project, "second");
    assert_eq!(modified(&component), built, "rebuilt without a change");

    let source = project.join("task.bench.js");
    let text = std::fs::read_to_string(&source).unwrap();
    std::fs::write(&source, text.replace("'my-task'", "'My edited task'")).unwrap();
    let run = run_project(&project, "edited");
    assert_ne!(modified(&component), built, "not rebuilt after a change");
    assert_eq!(run.lines()[0], "My edited task (self-contained)");
}

#[test]
fn a_new_ts_project_builds_and_runs() {
    let (_dir, project) = new_project("ts");
    run_project(&project, "results");
}

#[test]
fn a_new_python_project_builds_and_runs() {
    ensure_python_toolchain();
    let (_dir, project) = new_project("python");
    run_project(&project, "results");
}

/// Every file under `dir` (outside `target/` and `node_modules/`) that mentions `needle`.
fn files_mentioning(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if path.is_dir() {
            if name != "target" && name != "node_modules" {
                found.extend(files_mentioning(&path, needle));
            }
        } else if std::fs::read_to_string(&path).is_ok_and(|text| text.contains(needle)) {
            found.push(path);
        }
    }
    found
}

#[test]
fn an_installed_binary_writes_projects_that_do_not_name_the_checkout() {
    let dir = TempDir::new().unwrap();
    let installed = dir.path().join("bin").join("bench");
    std::fs::create_dir_all(installed.parent().unwrap()).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_bench"), &installed).unwrap();
    let cache = dir.path().join("cache");
    let installed_bench = |args: &[&str]| {
        let mut command = bench(dir.path());
        let command = command
            .env("BENCH_CACHE_DIR", &cache)
            .env_remove("BENCH_SDK_DIR")
            .args(args);
        let mut installed_command = std::process::Command::new(&installed);
        installed_command
            .current_dir(dir.path())
            .args(command.get_args());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => installed_command.env(key, value),
                None => installed_command.env_remove(key),
            };
        }
        run_command(&mut installed_command)
    };
    let checkout = root();
    let checkout_names = [
        checkout.display().to_string(),
        std::fs::canonicalize(&checkout)
            .unwrap()
            .display()
            .to_string(),
    ];
    for lang in ["rust", "js", "ts", "python"] {
        let created = installed_bench(&["new", lang, "--lang", lang]);
        assert_eq!(created.code, Some(0), "{lang}: {}", created.stderr);
        for name in &checkout_names {
            let found = files_mentioning(&dir.path().join(lang), name);
            assert!(found.is_empty(), "{lang}: {found:?} name {name}");
        }
    }
    let manifest = std::fs::read_to_string(dir.path().join("rust/Cargo.toml")).unwrap();
    let sdk_cache = std::fs::canonicalize(cache.join("sdk")).unwrap();
    assert!(
        manifest.contains(&format!(
            "bench-guest = {{ path = \"{}/",
            sdk_cache.display()
        )),
        "{manifest}"
    );
    let run_in = |lang: &str, out: &str| {
        let run = installed_bench(&["run", lang, "--out", out]);
        assert_eq!(run.code, Some(0), "{lang}: {}", run.stderr);
        assert_eq!(records(&dir.path().join(out)).len(), 3);
    };
    run_in("rust", "results");
    run_in("js", "js-results");

    // Clearing bench's cache does not break the projects: the SDKs they name come back.
    for lang in ["js", "rust"] {
        std::fs::remove_dir_all(&sdk_cache).unwrap();
        run_in(lang, &format!("{lang}-after-clear"));
    }
}
