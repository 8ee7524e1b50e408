//! How every run with results ends, and `bench report` too: summarize the records, print
//! the summary table and the timing lines, write `summary.json`, the export files and the GitHub step summary,
//! then apply the `--fail-under` gate.

use super::console::Console;
use super::export::{markdown, ExportManager};
use super::gate::{self, BELOW_BAR_EXIT};
use super::step_summary;
use super::summary::Summary;
use super::table::SummaryTable;
use super::timing::timing_lines;
use crate::plan::RunManifest;
use crate::record::TaskRecord;
use anyhow::{Context as _, Result};
use std::path::Path;
use std::process::ExitCode;

/// What the end of a run works from.
pub struct RunResults<'a> {
    /// The run's manifest (`run.json`).
    pub manifest: &'a RunManifest,
    /// Every participant's records, in config order, each by task index.
    pub records: &'a [(String, Vec<TaskRecord>)],
    /// The results directory (`summary.json` goes there).
    pub dir: &'a Path,
    /// The export files, already created.
    pub exports: &'a ExportManager,
    /// `--fail-under`.
    pub fail_under: Option<f64>,
}

/// Summarizes, prints, writes and gates; returns the exit code (0, or 99 below the bar).
/// A scoring spec whose weights do not sum to 1 is an error, as upstream's
/// `ScoringSpecError` fails the run (the records are on disk by then).
pub fn finish(console: &mut Console, results: &RunResults<'_>) -> Result<ExitCode> {
    let summary = Summary::new(results.manifest, results.records)?;
    console.line("");
    console.line(&SummaryTable::of(&summary).render());
    for line in timing_lines(results.manifest, results.records) {
        console.line(&line);
    }
    console.flush();
    let path = results.dir.join("summary.json");
    std::fs::write(&path, summary.to_json_text())
        .with_context(|| format!("cannot write {}", path.display()))?;
    results.exports.write_all(&summary, results.records)?;
    if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|path| !path.is_empty()) {
        match step_summary::append(Path::new(&path), &markdown(&summary)) {
            Ok(true) => {}
            Ok(false) => {
                eprintln!("[bench] GITHUB_STEP_SUMMARY is full (1 MiB): the summary was not added")
            }
            Err(error) => {
                eprintln!("[bench] cannot add the summary to GITHUB_STEP_SUMMARY: {error:#}")
            }
        }
    }
    if let Some(bar) = results.fail_under {
        let failures = gate::below_bar(&summary, bar);
        if !failures.is_empty() {
            for failure in failures {
                eprintln!("{failure}");
            }
            return Ok(ExitCode::from(BELOW_BAR_EXIT));
        }
    }
    Ok(ExitCode::SUCCESS)
}
