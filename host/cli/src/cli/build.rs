//! `bench build`: build a task project (or one task file) into a component and print its
//! path.

use super::error_exit;
use crate::project::{self, progress::BuildProgress};
use std::path::Path;
use std::process::ExitCode;

/// Builds the project or task file at `task` as `bench run` would; the last stdout line is
/// the component's path.
pub(super) fn build(task: &Path) -> ExitCode {
    match project::resolve_task(task, BuildProgress::on_stderr(false)) {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => error_exit(&error),
    }
}
