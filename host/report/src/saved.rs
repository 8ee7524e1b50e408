//! `bench report <results-dir>`: re-reads a saved run's `run.json` and `records.ndjson`,
//! then ends it again (each task of the run's plan counted once: a repeated or unplanned
//! record is left out with a warning) — summary table, `summary.json` (the same bytes as the run wrote),
//! exports and the `--fail-under` gate — without running anything.

use super::console::Console;
use super::export::{ExportManager, ExportPaths};
use super::finish::{finish, RunResults};
use super::gate;
use super::results::{read_manifest, RecordsFile, RECORDS_NDJSON};
use super::tally::RunTally;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Re-reports the run saved in `dir` on `console`, reading its records one at a time.
pub fn report(
    dir: &Path,
    exports: &ExportPaths,
    fail_under: Option<f64>,
    console: &mut Console,
) -> Result<ExitCode> {
    let manifest = read_manifest(dir)?;
    gate::ensure_scored(manifest.run_config.scoring.is_some(), fail_under)?;
    let exports = ExportManager::create(exports)?;
    let mut tally = RunTally::new(&manifest);
    let mut records = RecordsFile::planned(&dir.join(RECORDS_NDJSON), &manifest)?;
    while let Some((_, line)) = records.next_record()? {
        tally.add(&line.participant, &line.record);
    }
    if let Some(warning) = records.left_out() {
        eprintln!("[bench] warning: {warning}");
    }
    let results = RunResults {
        manifest: &manifest,
        tally,
        dir,
        exports: &exports,
        fail_under,
    };
    finish(console, results)
}
