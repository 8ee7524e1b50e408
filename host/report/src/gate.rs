//! The CI gate `--fail-under SCORE`: a run fails (exit 99, distinct from errors) when any
//! participant's composite score over all its records is below the bar.

use super::summary::Summary;
use anyhow::{bail, Result};
use bench_model::text::escape_control;

/// The exit code of a run whose score is below the bar.
pub(crate) const BELOW_BAR_EXIT: u8 = 99;

/// Refuses `--fail-under` for a benchmark without `scoring`, before anything runs.
pub fn ensure_scored(has_scoring: bool, fail_under: Option<f64>) -> Result<()> {
    if fail_under.is_some() && !has_scoring {
        bail!("--fail-under needs a benchmark config with scoring (this one declares none)");
    }
    Ok(())
}

/// One line per participant whose overall composite score is below `bar` (a score that
/// is not a number fails too), e.g. `slow scored 46.5, below --fail-under 50`.
pub(crate) fn below_bar(summary: &Summary, bar: f64) -> Vec<String> {
    summary
        .overall_rows()
        .into_iter()
        .filter(|row| row.composite_score.is_nan() || row.composite_score < bar)
        .map(|row| {
            format!(
                "{} scored {}, below --fail-under {}",
                escape_control(&row.provider),
                bench_model::js::number_to_string(row.composite_score),
                bench_model::js::number_to_string(bar)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::SummaryRow;
    use crate::summary::Verdict;
    use serde_json::json;

    fn row(provider: &str, score: f64) -> SummaryRow {
        SummaryRow {
            provider: provider.into(),
            dimensions: Default::default(),
            metrics: vec![],
            composite_score: score,
            success_rate: 1.0,
            skipped: false,
        }
    }

    fn summary(rows: Vec<SummaryRow>) -> Summary {
        Summary {
            benchmark_slug: "s".into(),
            benchmark_name: "S".into(),
            run: Default::default(),
            verdict: Verdict::Scored {
                results: rows,
                scoring: json!({}),
            },
            load: None,
        }
    }

    #[test]
    fn only_overall_rows_below_the_bar_fail() {
        // Each participant's first row is over all its records; group rows do not count.
        let summary = summary(vec![
            row("fast", 63.67),
            row("fast", 12.0),
            row("slow", 46.5),
            row("slow", 90.0),
            row("broken", f64::NAN),
        ]);
        assert_eq!(
            below_bar(&summary, 50.0),
            [
                "slow scored 46.5, below --fail-under 50",
                "broken scored NaN, below --fail-under 50"
            ]
        );
        assert_eq!(below_bar(&summary, 46.5).len(), 1);
    }

    #[test]
    fn fail_under_needs_scoring() {
        assert!(ensure_scored(true, Some(50.0)).is_ok());
        assert!(ensure_scored(false, None).is_ok());
        assert_eq!(
            ensure_scored(false, Some(50.0)).unwrap_err().to_string(),
            "--fail-under needs a benchmark config with scoring (this one declares none)"
        );
    }
}
