//! Shared helpers of the end-to-end tests: build real guest components once per test
//! binary, run the real `bench` binary, read what it wrote.

#![allow(dead_code)] // each test binary uses a different subset

use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// Where guest components are built (shared by every test binary).
fn guest_target_dir() -> PathBuf {
    root().join("target").join("guests")
}

static BUILT: OnceLock<Mutex<HashMap<PathBuf, ()>>> = OnceLock::new();

/// Builds a guest project (once per test binary) in release mode for wasm32-wasip2.
fn build_guest_project(project: &Path) {
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if built.contains_key(project) {
        return;
    }
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--target", "wasm32-wasip2", "--quiet"])
        .current_dir(project)
        .env("CARGO_TARGET_DIR", guest_target_dir())
        .status()
        .expect("cargo runs");
    assert!(
        status.success(),
        "building guest project {} failed",
        project.display()
    );
    built.insert(project.to_owned(), ());
}

fn artifact(crate_name: &str) -> PathBuf {
    guest_target_dir()
        .join("wasm32-wasip2")
        .join("release")
        .join(format!("{}.wasm", crate_name.replace('-', "_")))
}

/// The component of `examples/<name>`, built from source.
pub fn example(name: &str) -> PathBuf {
    build_guest_project(&root().join("examples").join(name));
    artifact(name)
}

/// The component of `tests/guests/<name>`, built from source.
pub fn test_guest(name: &str) -> PathBuf {
    build_guest_project(&root().join("tests").join("guests"));
    artifact(name)
}

/// The `bench` binary with a shared compiled-component cache and a clean environment.
pub fn bench(cwd: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bench"));
    command
        .current_dir(cwd)
        .env("BENCH_CACHE_DIR", root().join("target").join("bench-cache"))
        .env("CARGO_TARGET_DIR", guest_target_dir())
        .env_remove("BENCHSDK_NO_INGEST")
        .stdin(Stdio::null());
    command
}

/// What a `bench` invocation printed.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }
}

/// Runs `bench` with these arguments in `cwd`.
pub fn run_bench(cwd: &Path, args: &[&str]) -> Run {
    let output: Output = bench(cwd).args(args).output().expect("bench runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The records of a results directory, as JSON.
pub fn records(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("records.ndjson"))
        .expect("records.ndjson exists")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

/// The records of one participant, sorted by task index.
pub fn records_of(dir: &Path, participant: &str) -> Vec<Value> {
    let mut records: Vec<Value> = records(dir)
        .into_iter()
        .filter(|record| record["participant"] == participant)
        .collect();
    records.sort_by_key(|record| record["taskIndex"].as_u64());
    records
}

/// Step names of a record, in order.
pub fn step_names(record: &Value) -> Vec<&str> {
    record["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .map(|step| step["name"].as_str().expect("step name"))
        .collect()
}

/// The step called `name` in a record.
pub fn step<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["steps"]
        .as_array()
        .expect("steps array")
        .iter()
        .find(|step| step["name"] == name)
        .unwrap_or_else(|| panic!("no step {name} in {record}"))
}
