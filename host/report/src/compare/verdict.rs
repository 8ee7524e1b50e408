//! The verdict on one metric: a change counts only when the whole confidence interval of
//! the ratio B/A lies outside the noise band `[1 − t, 1 + t]`.

use serde::Serialize;
use std::fmt;

/// Whether the candidate got better, worse, or stayed within the noise band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Better beyond the threshold: a lower value (a higher one for a higher-is-better
    /// metric).
    Faster,
    /// Worse beyond the threshold.
    Slower,
    /// The interval reaches into the noise band.
    NoChange,
}

/// Which way a metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// Durations and most measures.
    LowerIsBetter,
    /// Throughput and the like.
    HigherIsBetter,
}

impl Verdict {
    /// The verdict on the interval `[low, high]` of the ratio B/A against the noise band
    /// `[1 − threshold, 1 + threshold]`: entirely above it, B is larger; entirely below it,
    /// B is smaller; otherwise no change. `direction` says which of the two is slower.
    pub(crate) fn of(low: f64, high: f64, threshold: f64, direction: Direction) -> Self {
        let larger = low > 1.0 + threshold;
        let smaller = high < 1.0 - threshold;
        match (larger, smaller, direction) {
            (true, _, Direction::LowerIsBetter) | (_, true, Direction::HigherIsBetter) => {
                Verdict::Slower
            }
            (true, _, Direction::HigherIsBetter) | (_, true, Direction::LowerIsBetter) => {
                Verdict::Faster
            }
            _ => Verdict::NoChange,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoChange => "no change",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_counts_only_when_the_whole_interval_leaves_the_band() {
        let lower = Direction::LowerIsBetter;
        let cases = [
            ((1.03, 1.20), Verdict::Slower),
            ((1.02, 1.20), Verdict::NoChange),
            ((0.99, 1.01), Verdict::NoChange),
            ((0.90, 1.30), Verdict::NoChange),
            ((0.80, 0.97), Verdict::Faster),
            ((0.80, 0.98), Verdict::NoChange),
        ];
        for ((low, high), verdict) in cases {
            assert_eq!(
                Verdict::of(low, high, 0.02, lower),
                verdict,
                "[{low}, {high}]"
            );
        }
    }

    #[test]
    fn a_higher_is_better_metric_is_slower_when_it_drops() {
        let higher = Direction::HigherIsBetter;
        assert_eq!(Verdict::of(0.7, 0.9, 0.02, higher), Verdict::Slower);
        assert_eq!(Verdict::of(1.1, 1.3, 0.02, higher), Verdict::Faster);
        assert_eq!(Verdict::of(0.97, 1.05, 0.02, higher), Verdict::NoChange);
    }

    #[test]
    fn the_verdicts_print_as_criterion_and_hyperfine_name_them() {
        let names: Vec<String> = [Verdict::Faster, Verdict::Slower, Verdict::NoChange]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(names, ["faster", "slower", "no change"]);
        assert_eq!(
            serde_json::to_string(&Verdict::NoChange).unwrap(),
            r#""no-change""#
        );
    }
}
