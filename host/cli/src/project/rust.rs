//! Rust task projects: `cargo build --release --target wasm32-wasip2` makes a component.

use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The target Rust tasks are built for.
pub(super) const RUST_TARGET: &str = "wasm32-wasip2";

/// Builds a Rust task crate with cargo and returns the `.wasm` cargo reports; cargo
/// itself skips the work when nothing changed.
pub(super) fn build(dir: &Path) -> Result<PathBuf> {
    let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--release",
            "--target",
            RUST_TARGET,
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo (is the Rust toolchain installed?)")?;
    if !output.status.success() {
        bail!(
            "building {} failed (if the target is missing: `rustup target add {RUST_TARGET}`)",
            dir.display()
        );
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter(|message| {
            message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|kind| kind == "cdylib"))
        })
        .filter_map(|message| message["filenames"].as_array().cloned())
        .flatten()
        .filter_map(|file| file.as_str().map(PathBuf::from))
        .rfind(|file| file.extension().is_some_and(|ext| ext == "wasm"))
        .with_context(|| {
            format!(
                "building {} produced no component: the package needs `crate-type = [\"cdylib\"]`",
                dir.display()
            )
        })
}
