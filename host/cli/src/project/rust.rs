//! Rust task projects: `cargo build --release --target wasm32-wasip2` makes a component.

use super::progress::BuildProgress;
use super::sdk;
use super::tool;
use anyhow::{bail, Context as _, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The target Rust tasks are built for.
pub(super) const RUST_TARGET: &str = "wasm32-wasip2";
/// The build step's name.
const CARGO_BUILD: &str = "cargo build";

/// Builds a Rust task crate with cargo and returns the `.wasm` cargo reports; cargo
/// itself skips the work when nothing changed.
pub(super) fn build(dir: &Path, progress: BuildProgress) -> Result<PathBuf> {
    sdk::restore_for(&dir.join("Cargo.toml"))?;
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args([
            "build",
            "--release",
            "--target",
            RUST_TARGET,
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(if progress.holds_tool_output() {
            Stdio::piped()
        } else {
            Stdio::inherit()
        });
    let shown = progress.step(CARGO_BUILD);
    let output = cargo
        .output()
        .context("cannot run cargo (is the Rust toolchain installed?)")?;
    drop(shown);
    if !output.status.success() {
        tool::show_held_output(&output.stderr);
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
