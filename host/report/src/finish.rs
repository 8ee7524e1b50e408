//! How every run with results ends, and `bench report` too: summarize the tally of the
//! records, print the summary table and the timing lines, write `summary.json`, the export
//! files and the GitHub step summary, then apply the `--fail-under` gate.

use super::console::Console;
use super::export::{markdown, ExportManager};
use super::gate::{self, BELOW_BAR_EXIT};
use super::load::LoadSummary;
use super::results::RECORDS_NDJSON;
use super::step_summary;
use super::summary::Summary;
use super::table::SummaryTable;
use super::tally::RunTally;
use super::timing::timing_report;
use anyhow::Result;
use bench_model::plan::RunManifest;
use std::path::Path;
use std::process::ExitCode;

/// What the end of a run works from.
pub struct RunResults<'a> {
    /// The run's manifest (`run.json`).
    pub manifest: &'a RunManifest,
    /// What the summary needs of every record.
    pub tally: RunTally,
    /// The results directory (its `records.ndjson` is read again by exports that list
    /// every task; `summary.json` goes there).
    pub dir: &'a Path,
    /// The export files, already created.
    pub exports: &'a ExportManager,
    /// `--fail-under`.
    pub fail_under: Option<f64>,
}

/// Summarizes, prints, writes and gates; returns the exit code (0, or 99 below the bar).
/// A scoring spec whose weights do not sum to 1 is an error, as upstream's
/// `ScoringSpecError` fails the run (the records are on disk by then).
pub fn finish(console: &mut Console, mut results: RunResults<'_>) -> Result<ExitCode> {
    let timing = timing_report(results.manifest, &mut results.tally);
    let unopened = results.tally.unopened_warnings();
    let summary = Summary::new(results.manifest, results.tally)?;
    console.line("");
    console.line(&SummaryTable::of(&summary).render(console.colors()));
    for line in &timing.lines {
        console.line(line);
    }
    for line in summary.load.iter().flat_map(LoadSummary::lines) {
        console.line(&line);
    }
    for warning in timing.warnings.iter().chain(&unopened) {
        console.warning(warning);
    }
    for warning in summary.load.iter().flat_map(LoadSummary::warnings) {
        console.warning(&warning);
    }
    if let Some(floor) = &results.manifest.instrument_floor {
        // The latency median at the records' resolution, not the summary's whole ms.
        let medians = summary.millisecond_medians().into_iter().map(
            |(participant, metric, median, task_level)| {
                let fine = timing.fine_median(participant, metric);
                (participant, metric, fine.unwrap_or(median), task_level)
            },
        );
        for warning in floor.warnings(medians) {
            console.warning(&warning);
        }
    }
    console.flush();
    super::files::write(
        &results.dir.join("summary.json"),
        summary.to_json_text().as_bytes(),
    )?;
    let records = results.dir.join(RECORDS_NDJSON);
    results.exports.write_all(&summary, &records)?;
    step_summary::append_to_job_summary(&markdown(&summary), "summary");
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
