//! `bench new`: create a task project (with its README) that builds and runs as it is.

use super::fail;
use crate::scaffold::{self, Lang};
use std::path::Path;
use std::process::ExitCode;

/// Creates the project at `dir` and lists what it wrote.
pub(super) fn new(dir: &Path, lang: Lang) -> ExitCode {
    match scaffold::create(dir, lang) {
        Ok(files) => {
            for file in files {
                println!("created {}", dir.join(file).display());
            }
            println!("Next: bench run {}", dir.display());
            ExitCode::SUCCESS
        }
        Err(error) => fail(&error),
    }
}
