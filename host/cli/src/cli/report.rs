//! `bench report`: re-read a saved run, print its summary, rewrite `summary.json` and export
//! it again.

use super::error_exit;
use crate::{color, flags};
use bench_report::console::Console;
use bench_report::export::ExportPaths;
use bench_report::saved;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub(super) struct ReportArgs {
    /// The run's results directory (holds run.json and records.ndjson).
    pub dir: PathBuf,
    /// Write the summary as JSON (what summary.json holds) to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write the summary as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write the summary table as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Write JUnit XML (a test suite per participant, a test case per task) to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_junit: Option<PathBuf>,
    /// Write the run page (scores, distributions, steps, timeline, failures, system
    /// metrics, logs) as one self-contained HTML file to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Exit 99 when any participant's overall composite score is below SCORE.
    #[arg(long, value_name = "SCORE", value_parser = flags::fail_under)]
    pub fail_under: Option<f64>,
}

impl ReportArgs {
    /// Summarizes and exports the saved run; returns the exit code.
    pub(super) fn execute(self) -> ExitCode {
        let exports = ExportPaths {
            json: self.export_json,
            csv: self.export_csv,
            markdown: self.export_markdown,
            junit: self.export_junit,
            html: self.html,
        };
        let mut console = Console::default().with_color(color::choice().stdout());
        saved::report(&self.dir, &exports, self.fail_under, &mut console)
            .unwrap_or_else(|e| error_exit(&e))
    }
}
