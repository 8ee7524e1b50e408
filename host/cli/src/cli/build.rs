//! `bench build`: build a task project into a component and print its path.

use super::error_exit;
use crate::project::{self, progress::BuildProgress};
use std::path::Path;
use std::process::ExitCode;

/// Builds the project at `dir`; the last stdout line is the component's path.
pub(super) fn build(dir: &Path) -> ExitCode {
    match project::build(dir, BuildProgress::on_stderr(false)) {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => error_exit(&error),
    }
}
