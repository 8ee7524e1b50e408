//! What the benches share: building an example task.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds `examples/<name>` for wasm32-wasip2 (release) and returns its component.
pub(crate) fn build_example(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let target = root.join("target").join("guests");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--target", "wasm32-wasip2", "--quiet"])
        .current_dir(root.join("examples").join(name))
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building {name} failed");
    target
        .join("wasm32-wasip2")
        .join("release")
        .join(format!("{}.wasm", name.replace('-', "_")))
}
