//! Builders shared by the scoring tests.

use super::row::SummaryRow;
use super::samples::ParticipantSampleCollector;
use super::spec::{MetricScoring, ScoringSpec};
use super::validate::ScoringSpecError;
use bench_model::config::{DisplaySection, Weights};
use bench_model::record::{Status, TaskRecord};
use serde_json::Value;

/// [`score`](super::score) over every participant's records, each gathered by a
/// [`ParticipantSampleCollector`] in the order given.
pub(super) fn score_records(
    participants: &[(String, Vec<TaskRecord>)],
    spec: &ScoringSpec,
    display: Option<&DisplaySection>,
) -> Result<Vec<SummaryRow>, ScoringSpecError> {
    let samples = participants
        .iter()
        .map(|(provider, records)| {
            let mut collector = ParticipantSampleCollector::new(spec);
            for record in records {
                collector.add(spec, record);
            }
            collector.finish(provider.clone())
        })
        .collect();
    super::score(samples, spec, display)
}

/// A task record with the given status and data (`data` that is not an object: no data).
pub(super) fn record(status: Status, data: Value) -> TaskRecord {
    TaskRecord {
        task_index: 0,
        status,
        started_at: String::new(),
        error_code: None,
        data: data.as_object().cloned(),
        completed_at: String::new(),
        latency_ms: 0.0,
        duration_us: None,
        guest_cpu_us: None,
        steps: Vec::new(),
        arrival: None,
    }
}

/// A lower-is-better metric reading the field `name`, like upstream's `lowerIsBetter`;
/// `weights` are the median, p95 and p99 weights.
pub(crate) fn lower_is_better(name: &str, ceiling: f64, weights: [f64; 3]) -> MetricScoring {
    let [median, p95, p99] = weights;
    MetricScoring {
        name: name.to_owned(),
        value_key: None,
        unit: None,
        ceiling,
        floor: None,
        higher_is_better: false,
        weights: Weights { median, p95, p99 },
        trim: None,
    }
}

/// A higher-is-better metric reading the field `name`, like upstream's `higherIsBetter`.
pub(crate) fn higher_is_better(
    name: &str,
    floor: Option<f64>,
    ceiling: f64,
    weights: [f64; 3],
) -> MetricScoring {
    MetricScoring {
        floor,
        higher_is_better: true,
        ..lower_is_better(name, ceiling, weights)
    }
}
