//! The weight-sum check every spec passes before scoring (spec §4.7, `validateScoringSpec`).

use super::spec::ScoringSpec;
use bench_model::js;

/// How far the weight total may stray from 1.
const WEIGHT_SUM_TOLERANCE: f64 = 0.01;

/// A scoring spec whose weights do not sum to 1 (±0.01): an authoring error that fails the
/// run, unlike a failure to submit the scores.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ScoringSpecError {
    message: String,
}

/// Checks that the weights of every declared metric sum to 1 (±0.01). The total adds each
/// weight in turn, `((total + median) + p95) + p99`, and the message prints it and each
/// metric's own total with JavaScript's `toFixed(3)`. A NaN total passes, as upstream's
/// comparison is false for NaN.
pub(crate) fn validate_scoring_spec(spec: &ScoringSpec) -> Result<(), ScoringSpecError> {
    let total = spec.metrics.iter().fold(0.0, |total, metric| {
        total + metric.weights.median + metric.weights.p95 + metric.weights.p99
    });
    if (total - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
        let breakdown = if spec.metrics.is_empty() {
            "(no metrics declared)".to_owned()
        } else {
            spec.metrics
                .iter()
                .map(|metric| {
                    format!(
                        "{}={}",
                        metric.name,
                        js::to_fixed(metric.weights.total(), 3)
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(ScoringSpecError {
            message: format!(
                "Scoring spec weights sum to {}, expected 1.0 (±0.01). Each metric's \
                 weights.median + weights.p95 + weights.p99, summed across every declared \
                 metric, must total 1.0 for compositeScore to stay a meaningful 0-100 scale. \
                 Per-metric totals: {breakdown}",
                js::to_fixed(total, 3)
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::test_support::{higher_is_better, lower_is_better};

    fn spec(metrics: &[(&str, [f64; 3])]) -> ScoringSpec {
        ScoringSpec {
            metrics: metrics
                .iter()
                .map(|(name, weights)| lower_is_better(name, 1000.0, *weights))
                .collect(),
            ..ScoringSpec::default()
        }
    }

    fn message(result: Result<(), ScoringSpecError>) -> String {
        result.expect_err("the weights do not sum to 1").to_string()
    }

    #[test]
    fn vs1_three_metrics_summing_to_one() {
        let spec = ScoringSpec {
            metrics: vec![
                lower_is_better("uploadMs", 1000.0, [0.25, 0.10, 0.05]),
                lower_is_better("downloadMs", 1000.0, [0.35, 0.15, 0.05]),
                higher_is_better("throughputMbps", Some(1.0), 1000.0, [0.05, 0.0, 0.0]),
            ],
            ..ScoringSpec::default()
        };
        assert_eq!(validate_scoring_spec(&spec), Ok(()));
    }

    #[test]
    fn vs2_one_metric_summing_to_one() {
        assert_eq!(
            validate_scoring_spec(&spec(&[("ttiMs", [0.60, 0.25, 0.15])])),
            Ok(())
        );
    }

    #[test]
    fn vs3_full_message() {
        assert_eq!(
            message(validate_scoring_spec(&spec(&[("ttiMs", [0.5, 0.2, 0.1])]))),
            "Scoring spec weights sum to 0.800, expected 1.0 (±0.01). Each metric's \
             weights.median + weights.p95 + weights.p99, summed across every declared metric, \
             must total 1.0 for compositeScore to stay a meaningful 0-100 scale. Per-metric \
             totals: ttiMs=0.800"
        );
    }

    #[test]
    fn vs4_total_and_breakdown_over_two_metrics() {
        let message = message(validate_scoring_spec(&spec(&[
            ("a", [0.6, 0.3, 0.2]),
            ("b", [0.3, 0.0, 0.0]),
        ])));
        assert!(message.starts_with("Scoring spec weights sum to 1.400, expected 1.0"));
        assert!(message.ends_with("Per-metric totals: a=1.100, b=0.300"));
    }

    #[test]
    fn vs5_vs6_vs10_tolerance() {
        assert_eq!(
            validate_scoring_spec(&spec(&[("a", [1.009, 0.0, 0.0])])),
            Ok(())
        );
        assert!(validate_scoring_spec(&spec(&[("a", [1.011, 0.0, 0.0])])).is_err());
        assert_eq!(
            validate_scoring_spec(&spec(&[("a", [0.991, 0.0, 0.0])])),
            Ok(())
        );
    }

    #[test]
    fn exact_boundaries_fail_in_binary() {
        assert!(validate_scoring_spec(&spec(&[("a", [1.01, 0.0, 0.0])])).is_err());
        assert!(validate_scoring_spec(&spec(&[("a", [0.99, 0.0, 0.0])])).is_err());
    }

    #[test]
    fn vs7_no_metrics() {
        let message = message(validate_scoring_spec(&ScoringSpec::default()));
        assert!(message.starts_with("Scoring spec weights sum to 0.000, expected 1.0"));
        assert!(message.ends_with("Per-metric totals: (no metrics declared)"));
    }

    #[test]
    fn vs11_vs12_sums_that_round_to_one() {
        assert_eq!(
            validate_scoring_spec(&spec(&[("a", [0.4, 0.25, 0.15]), ("b", [0.2, 0.0, 0.0])])),
            Ok(())
        );
        assert_eq!(
            validate_scoring_spec(&spec(&[
                ("a", [0.30, 0.15, 0.0]),
                ("b", [0.30, 0.15, 0.0]),
                ("c", [0.10, 0.0, 0.0]),
            ])),
            Ok(())
        );
    }

    #[test]
    fn totals_print_with_javascript_to_fixed() {
        let message = message(validate_scoring_spec(&spec(&[("a", [0.0625, 0.0, 0.0])])));
        assert!(message.starts_with("Scoring spec weights sum to 0.063,"));
        assert!(message.ends_with("a=0.063"));
    }

    #[test]
    fn the_total_adds_each_weight_in_turn() {
        // Adding each metric's own sum instead would give 1.01 (fail) for the first spec
        // and 1.0099999999999998 (pass) for the second.
        let passing = spec(&[("a", [0.365, 0.0, 0.0]), ("b", [0.091, 0.069, 0.485])]);
        assert_eq!(validate_scoring_spec(&passing), Ok(()));
        let failing = spec(&[("a", [0.128, 0.0, 0.0]), ("b", [0.426, 0.031, 0.425])]);
        let message = message(validate_scoring_spec(&failing));
        assert!(message.starts_with("Scoring spec weights sum to 1.010,"));
        assert!(message.ends_with("Per-metric totals: a=0.128, b=0.882"));
    }

    #[test]
    fn nan_weights_pass_as_upstream() {
        assert_eq!(
            validate_scoring_spec(&spec(&[("a", [f64::NAN, 0.0, 0.0])])),
            Ok(())
        );
    }
}
