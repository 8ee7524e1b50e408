//! Scoring (spec §4): pure functions over task records.
//!
//! A [`ScoringSpec`] (built from a config's `scoring` object by [`scoring_config_to_spec`])
//! is validated ([`validate_scoring_spec`]), then [`score`] turns each participant's records
//! into [`SummaryRow`]s: per metric, the samples of the passing records are trimmed and
//! summarized ([`compute_stats`]), each statistic is scored 0–100 ([`score_stat`]), and the
//! weighted scores are summed and scaled by the success rate.

mod dimensions;
mod group;
mod row;
mod score;
mod spec;
mod stats;
#[cfg(test)]
mod test_support;
mod units;
mod validate;

pub use row::{MetricSummary, SummaryRow};
pub use score::score;
pub(crate) use spec::scoring_config_to_spec;
pub use stats::Stats;
pub(crate) use stats::{compute_stats, samples_in, DEFAULT_TRIM};
pub(crate) use units::display_unit;
pub use validate::ScoringSpecError;
