//! Guest components built from source, each project once per test binary.
//!
//! Tests run in parallel: a test asking for a project that another test is building waits
//! for that build instead of starting its own, and builds of different projects do not wait
//! for each other (cargo's own lock on the shared target directory orders the Rust ones).

use super::bench::run_bench;
use super::root;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Where guest components are built (shared with the `bench` invocations of the tests).
pub(crate) fn target_dir() -> PathBuf {
    root().join("target").join("guests")
}

/// The outcome of one build per project.
struct Builds<T> {
    projects: Mutex<BTreeMap<PathBuf, Arc<OnceLock<T>>>>,
}

impl<T: Clone> Builds<T> {
    const fn new() -> Self {
        Builds {
            projects: Mutex::new(BTreeMap::new()),
        }
    }

    /// The outcome of building `project`: `build` runs unless an earlier call finished it,
    /// and a concurrent call for the same project waits for the running one. A build that
    /// panics is not remembered, so the next caller tries again and reports its own failure.
    fn get_or_build(&self, project: &Path, build: impl FnOnce() -> T) -> T {
        let cell = self
            .projects
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(project.to_owned())
            .or_default()
            .clone();
        cell.get_or_init(build).clone()
    }
}

static CARGO_BUILDS: Builds<()> = Builds::new();
static BENCH_BUILDS: Builds<PathBuf> = Builds::new();

/// Builds a Rust guest project (once) in release mode for wasm32-wasip2.
fn build_rust_project(project: &Path) {
    CARGO_BUILDS.get_or_build(project, || {
        let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--target", "wasm32-wasip2", "--quiet"])
            .current_dir(project)
            .env("CARGO_TARGET_DIR", target_dir())
            .status()
            .expect("cargo runs");
        assert!(
            status.success(),
            "building guest project {} failed",
            project.display()
        );
    });
}

fn artifact(crate_name: &str) -> PathBuf {
    target_dir()
        .join("wasm32-wasip2")
        .join("release")
        .join(format!("{}.wasm", crate_name.replace('-', "_")))
}

/// The component of `examples/<name>`, built from source.
pub(crate) fn example(name: &str) -> PathBuf {
    build_rust_project(&root().join("examples").join(name));
    artifact(name)
}

/// The component of `tests/guests/<name>`, built from source.
pub(crate) fn test_guest(name: &str) -> PathBuf {
    build_rust_project(&root().join("tests").join("guests"));
    artifact(name)
}

/// Installs the repository's JavaScript toolchain (`npm ci` at the root: esbuild,
/// componentize-js and the `@bench/task` workspace) once, unless it is already there.
pub(crate) fn ensure_js_toolchain() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let bin = root().join("node_modules").join(".bin");
        if bin.join("componentize-js").is_file() && bin.join("esbuild").is_file() {
            return;
        }
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(root())
            .stdin(Stdio::null())
            .status()
            .expect("npm runs (install Node.js and npm)");
        assert!(status.success(), "npm ci failed at the repository root");
    });
}

/// Panics with the install command unless componentize-py is on PATH.
pub(crate) fn ensure_python_toolchain() {
    let found = Command::new("componentize-py")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    assert!(
        found,
        "componentize-py is missing: pip install componentize-py==0.25.1 (see .ci/run)"
    );
}

/// Builds the task project at `relative` (from the repository root) with `bench build`,
/// once, and returns the component's path.
pub(crate) fn built_project(relative: &str) -> PathBuf {
    let project = root().join(relative);
    BENCH_BUILDS.get_or_build(&project, || {
        if project.join("package.json").is_file() {
            ensure_js_toolchain();
        } else if project.join("app.py").is_file() {
            ensure_python_toolchain();
        }
        let run = run_bench(&root(), &["build", project.to_str().unwrap()]);
        assert_eq!(run.code, Some(0), "bench build {relative}: {}", run.stderr);
        let component = PathBuf::from(run.lines().last().expect("bench build prints the path"));
        assert!(component.is_file(), "{} is not a file", component.display());
        component
    })
}
