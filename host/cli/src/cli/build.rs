//! `bench build`: build a task project (or one task file) into a component and print its
//! path.

use super::error_exit;
use crate::project::{self, progress::BuildProgress};
use crate::settings;
use std::path::Path;
use std::process::ExitCode;

/// Builds the project or task file at `task` as `bench run` would; the last stdout line is
/// the component's path. Install scripts run only when `allow_scripts` (or the operator's
/// settings) allow them.
pub(super) fn build(task: &Path, allow_scripts: bool) -> ExitCode {
    let built = settings::build_scripts(allow_scripts)
        .and_then(|scripts| project::resolve_task(task, BuildProgress::on_stderr(false), scripts));
    match built {
        Ok(path) => {
            println!("{}", path.display());
            ExitCode::SUCCESS
        }
        Err(error) => error_exit(&error),
    }
}
