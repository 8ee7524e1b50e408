//! Running a build tool: its output goes to stderr (stdout of `bench build` is the path of
//! the component), and a failure says what to install or fix.

use anyhow::{bail, Context as _, Result};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `command` in `dir`; `what` names the step in errors, `hint` says how to fix a tool
/// that cannot start.
pub(super) fn run(mut command: Command, dir: &Path, what: &str, hint: &str) -> Result<()> {
    let stdout = std::io::stderr().as_fd().try_clone_to_owned()?;
    let program = command.get_program().to_string_lossy().into_owned();
    let status = command
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(stdout))
        .stderr(Stdio::inherit())
        .status()
        .with_context(|| format!("cannot run {program} ({hint})"))?;
    if !status.success() {
        bail!("{what} failed in {} ({status})", dir.display());
    }
    Ok(())
}

/// An executable installed by npm: `node_modules/.bin/<name>` in `dir` or its nearest
/// ancestor that has one (node's own resolution order).
pub(super) fn node_bin(dir: &Path, name: &str) -> Option<PathBuf> {
    dir.ancestors()
        .map(|ancestor| ancestor.join("node_modules").join(".bin").join(name))
        .find(|bin| bin.is_file())
}

/// A package installed by npm, resolved like node does (nearest `node_modules` first),
/// with symlinks (workspace and `file:` packages) followed.
pub(super) fn node_package(dir: &Path, name: &str) -> Option<PathBuf> {
    dir.ancestors()
        .map(|ancestor| ancestor.join("node_modules").join(name))
        .find(|package| package.join("package.json").is_file())
        .map(|package| std::fs::canonicalize(&package).unwrap_or(package))
}
