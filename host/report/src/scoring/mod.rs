//! Scoring (spec §4): pure functions over the samples of task records.
//!
//! A [`ScoringSpec`] (built from a config's `scoring` object by [`scoring_config_to_spec`])
//! says what to keep of each record: a [`ParticipantSampleCollector`] per participant counts its
//! records and keeps, per metric, the samples of the passing ones (and the same per group),
//! as the records finish — no record is kept. The spec is validated
//! ([`validate_scoring_spec`]), then [`score`] turns each participant's samples into
//! [`SummaryRow`]s: per metric, the samples are trimmed and summarized ([`compute_stats`]),
//! each statistic is scored 0–100 ([`score_stat`]), and the weighted scores are summed and
//! scaled by the success rate.

mod dimensions;
mod group;
mod row;
mod samples;
mod score;
mod spec;
mod stats;
#[cfg(test)]
mod test_support;
mod validate;

pub(crate) use group::RecordOrder;
pub use row::{MetricSummary, SummaryRow};
pub(crate) use samples::ParticipantSampleCollector;
pub use samples::{GroupSamples, ParticipantSamples};
pub use score::score;
pub(crate) use spec::{scoring_config_to_spec, ScoringSpec};
pub use stats::Stats;
pub(crate) use stats::{
    compute_stats, median, nearest_rank_percentile, push_samples, DEFAULT_TRIM,
};
pub use validate::ScoringSpecError;
