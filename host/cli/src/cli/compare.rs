//! `bench compare`: saved runs side by side, each later run against the first (A), with a
//! bootstrap interval, a p-value and a verdict per participant and metric.

use super::error_exit;
use anyhow::{Context as _, Result};
use bench_report::compare::{self, BootstrapSettings, CompareSettings, REGRESSION_EXIT};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The seed of the bootstrap when none is given: the same runs compare to the same numbers.
const DEFAULT_SEED: u64 = 1;

/// The confidence level of every interval.
const CONFIDENCE: f64 = 0.95;

#[derive(Debug, Args)]
pub(super) struct CompareArgs {
    /// Results directories (what `bench run --out` wrote), at most 26; the first is the
    /// baseline (A) the others are compared to.
    #[arg(value_name = "RESULTS_DIR", num_args = 2..=compare::MAX_RUNS, required = true)]
    dirs: Vec<PathBuf>,
    /// The noise band around a ratio of 1, in percent: a change counts only when the whole
    /// confidence interval lies outside [1 − t, 1 + t].
    #[arg(long, value_name = "PERCENT", default_value = "2%", value_parser = threshold)]
    threshold: f64,
    /// Bootstrap resamples per metric (1000 to 1000000).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u32).range(1_000..=1_000_000)
    )]
    resamples: u32,
    /// The seed of the bootstrap's random stream (printed with the results).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Write the comparison as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    export_json: Option<PathBuf>,
    /// Write the comparison as Markdown tables to FILE (for a pull-request comment).
    #[arg(long, value_name = "FILE")]
    export_markdown: Option<PathBuf>,
    /// Exit 99 when any metric of any run is `slower` than in A.
    #[arg(long)]
    fail_on_regression: bool,
}

impl CompareArgs {
    /// Compares, prints, exports; returns the exit code.
    pub(super) fn execute(self) -> ExitCode {
        self.compare().unwrap_or_else(|error| error_exit(&error))
    }

    fn compare(self) -> Result<ExitCode> {
        let settings = CompareSettings {
            bootstrap: BootstrapSettings {
                resamples: self.resamples as usize,
                confidence: CONFIDENCE,
                seed: self.seed,
            },
            threshold: self.threshold,
        };
        let comparison = compare::compare_dirs(&self.dirs, &settings)?;
        print!("{}", compare::render(&comparison));
        if let Some(path) = &self.export_json {
            write(path, &compare::json(&comparison))?;
        }
        if let Some(path) = &self.export_markdown {
            write(path, &compare::markdown(&comparison))?;
        }
        compare::add_to_job_summary(&comparison);
        if self.fail_on_regression && comparison.regressed() {
            eprintln!(
                "[bench] a metric is slower than in A beyond the noise band (--fail-on-regression)"
            );
            return Ok(ExitCode::from(REGRESSION_EXIT));
        }
        Ok(ExitCode::SUCCESS)
    }
}

fn write(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// `--threshold`: a percentage from 0 to below 100, with or without `%` (`2%`, `0.5`), as a
/// share (`0.02`).
fn threshold(value: &str) -> Result<f64, String> {
    let number = value.trim().strip_suffix('%').unwrap_or(value.trim());
    match number.trim().parse::<f64>() {
        Ok(percent) if (0.0..100.0).contains(&percent) => Ok(percent / 100.0),
        _ => Err(format!(
            "expects a percentage from 0 to below 100, like 2% (got \"{value}\")"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_a_percentage_with_or_without_its_sign() {
        assert_eq!(threshold("2%"), Ok(0.02));
        assert_eq!(threshold("0.5"), Ok(0.005));
        assert_eq!(threshold("0%"), Ok(0.0));
        for bad in ["100%", "-1%", "two", "", "NaN", "inf%"] {
            assert!(threshold(bad).is_err(), "{bad}");
        }
    }
}
