//! `bench compare`: runs side by side. Each results directory is read back (its records
//! streamed, as `bench report` does), every run after the first is compared to the first
//! per participant and metric — medians, the ratio B/A with a bootstrap confidence interval
//! of the ratio of medians, a Mann–Whitney U p-value and a verdict against a noise band —
//! and the [`Comparison`] is rendered as a terminal table, JSON or Markdown.
//! `docs/compare.md` describes the statistics.

mod bootstrap;
mod comparison;
mod export;
mod mann_whitney;
mod sample;
mod table;
#[cfg(test)]
mod test_support;
mod verdict;

pub use bootstrap::BootstrapSettings;
pub use comparison::{
    compare_runs, CandidateComparison, CompareSettings, Comparison, MetricComparison,
    ParticipantComparison, SampleSummary, ScorePair,
};
pub use export::{json, markdown};
pub use sample::{MetricKind, RunInfo, RunSampleCollector, RunSamples};
pub use table::render;
pub use verdict::{Direction, Verdict};

use anyhow::{bail, Result};
use std::path::PathBuf;

/// The exit code of `--fail-on-regression` when a metric got slower.
pub const REGRESSION_EXIT: u8 = 99;

/// The most runs one comparison takes (they are labelled A to Z).
pub const MAX_RUNS: usize = 26;

/// Reads the runs in `dirs` and compares each after the first to the first.
pub fn compare_dirs(dirs: &[PathBuf], settings: &CompareSettings) -> Result<Comparison> {
    if dirs.len() < 2 {
        bail!("a comparison needs at least two results directories");
    }
    if dirs.len() > MAX_RUNS {
        bail!(
            "a comparison takes at most {MAX_RUNS} results directories, not {}",
            dirs.len()
        );
    }
    let runs = dirs
        .iter()
        .map(|dir| RunSamples::load(dir))
        .collect::<Result<Vec<_>>>()?;
    compare_runs(&runs, settings)
}

/// Appends the Markdown comparison to the GitHub job summary when `GITHUB_STEP_SUMMARY`
/// names a file (a warning on stderr if it cannot).
pub fn add_to_job_summary(comparison: &Comparison) {
    crate::step_summary::append_to_job_summary(&markdown(comparison), "comparison");
}

/// The letter of the run at `index` (`A` is the baseline).
pub(crate) fn run_letter(index: usize) -> char {
    char::from(b'A' + (index % MAX_RUNS) as u8)
}
