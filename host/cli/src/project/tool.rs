//! Running a build tool: its output goes to stderr (stdout of `bench build` is the path of
//! the component) or is kept back and shown only when it fails (under a spinner or `-q`),
//! and a failure says what to install or fix.

use super::progress::BuildProgress;
use anyhow::{bail, Context as _, Result};
use std::io::Write as _;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `command` in `dir` as the build step `step` (which also names it in errors); `hint`
/// says how to fix a tool that cannot start.
pub(super) fn run(
    mut command: Command,
    dir: &Path,
    step: &str,
    hint: &str,
    progress: BuildProgress,
) -> Result<()> {
    let program = command.get_program().to_string_lossy().into_owned();
    command.current_dir(dir).stdin(Stdio::null());
    let shown = progress.step(step);
    let (status, held_output) = if progress.holds_tool_output() {
        let output = command
            .output()
            .with_context(|| format!("cannot run {program} ({hint})"))?;
        (output.status, [output.stdout, output.stderr].concat())
    } else {
        let stdout = std::io::stderr().as_fd().try_clone_to_owned()?;
        let status = command
            .stdout(Stdio::from(stdout))
            .stderr(Stdio::inherit())
            .status()
            .with_context(|| format!("cannot run {program} ({hint})"))?;
        (status, Vec::new())
    };
    drop(shown);
    if !status.success() {
        show_held_output(&held_output);
        bail!("{step} failed in {} ({status})", dir.display());
    }
    Ok(())
}

/// Writes a failed tool's kept-back output to stderr.
pub(super) fn show_held_output(output: &[u8]) {
    let _ = std::io::stderr().write_all(output);
}

/// A package installed by npm, resolved like node does (nearest `node_modules` first),
/// with symlinks (workspace and `file:` packages) followed.
pub(super) fn node_package(dir: &Path, name: &str) -> Option<PathBuf> {
    let package = node_modules_with(dir, name)?.join(name);
    Some(std::fs::canonicalize(&package).unwrap_or(package))
}

/// The `node_modules` folder node would load package `name` from for a module in `dir`.
pub(super) fn node_modules_with(dir: &Path, name: &str) -> Option<PathBuf> {
    dir.ancestors()
        .map(|ancestor| ancestor.join("node_modules"))
        .find(|modules| modules.join(name).join("package.json").is_file())
}
