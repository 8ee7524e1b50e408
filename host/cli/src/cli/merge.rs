//! `bench merge`: join the results directories of a run's static shards (`--shard i/N`)
//! into one, then end it as a single run ends (summary table, `summary.json`).

use super::error_exit;
use anyhow::Result;
use bench_report::console::Console;
use bench_report::export::{ExportManager, ExportPaths};
use bench_report::finish::{finish, RunResults};
use bench_report::merge;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct MergeArgs {
    /// The results directory of every shard of the run (any order).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// The new results directory of the whole run.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

impl MergeArgs {
    /// Merges the shards and summarizes the whole run; returns the exit code.
    pub(super) fn execute(self) -> ExitCode {
        self.merge().unwrap_or_else(|e| error_exit(&e))
    }

    fn merge(&self) -> Result<ExitCode> {
        let merged = merge::merge(&self.dirs, &self.out)?;
        let exports = ExportManager::create(&ExportPaths::default())?;
        let mut console = Console::default();
        let results = RunResults {
            manifest: &merged.manifest,
            tally: merged.tally,
            dir: &self.out,
            exports: &exports,
            fail_under: None,
        };
        let code = finish(&mut console, results)?;
        console.line(&format!("Results: {}", self.out.display()));
        Ok(code)
    }
}
