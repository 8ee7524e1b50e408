//! The numbers of a run without `scoring`: per participant, its tasks, its success rate and
//! the median/p95/p99 of task latency and of every numeric measure, over its successful
//! records, with the same statistics as scoring (trimmed, nearest rank).

use crate::js;
use crate::record::TaskRecord;
use crate::scoring::{compute_stats, display_unit, samples_in, Stats, DEFAULT_TRIM};
use serde_json::{json, Value};

/// Name of the task-latency metric.
pub(crate) const LATENCY: &str = "latencyMs";

/// One participant's plain numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipantStats {
    /// Participant name.
    pub participant: String,
    /// Records.
    pub tasks: usize,
    /// Successful records.
    pub succeeded: usize,
    /// Task latency first, then task-level measures, then step measures (`<step>.<key>`),
    /// each in order of first appearance.
    pub metrics: Vec<MetricStats>,
}

/// The statistics of one metric's samples.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricStats {
    /// `latencyMs`, a record data key, or `<step>.<key>` for a step's measure.
    pub name: String,
    /// `ms` for latency, else the unit `display.metrics` declares for the key (or `""`).
    pub unit: String,
    /// How many samples there were.
    pub samples: usize,
    /// Median, p95 and p99.
    pub stats: Stats,
}

impl ParticipantStats {
    /// Successful records / records (0 without records).
    pub(crate) fn success_rate(&self) -> f64 {
        if self.tasks == 0 {
            0.0
        } else {
            self.succeeded as f64 / self.tasks as f64
        }
    }

    /// The JSON object of `summary.json` (numbers as JavaScript prints them).
    pub(crate) fn to_json(&self) -> Value {
        let metrics: Vec<Value> = self
            .metrics
            .iter()
            .map(|metric| {
                json!({
                    "name": metric.name,
                    "unit": metric.unit,
                    "samples": metric.samples,
                    "median": js::number(metric.stats.median),
                    "p95": js::number(metric.stats.p95),
                    "p99": js::number(metric.stats.p99),
                })
            })
            .collect();
        json!({
            "participant": self.participant,
            "tasks": self.tasks,
            "succeeded": self.succeeded,
            "successRate": js::number(self.success_rate()),
            "metrics": metrics,
        })
    }
}

/// The plain numbers of every participant, in the given order. `display_metrics` is the
/// config's `display.metrics`, consulted for units.
pub(crate) fn participant_stats(
    participants: &[(String, Vec<TaskRecord>)],
    display_metrics: Option<&Value>,
) -> Vec<ParticipantStats> {
    participants
        .iter()
        .map(|(name, records)| {
            let succeeded: Vec<&TaskRecord> = records
                .iter()
                .filter(|record| record.is_success())
                .collect();
            let mut samples = Samples::default();
            for record in &succeeded {
                samples.add(LATENCY, &[record.latency_ms]);
            }
            for record in &succeeded {
                for (key, value) in record.data.iter().flatten() {
                    samples.add(key, &samples_in(value));
                }
            }
            for record in &succeeded {
                for step in &record.steps {
                    for (key, value) in step.data.iter().flatten() {
                        samples.add(&format!("{}.{key}", step.name), &samples_in(value));
                    }
                }
            }
            let metrics = samples
                .0
                .into_iter()
                .map(|(name, values)| MetricStats {
                    unit: unit_of(&name, display_metrics),
                    samples: values.len(),
                    stats: compute_stats(&values, DEFAULT_TRIM),
                    name,
                })
                .collect();
            ParticipantStats {
                participant: name.clone(),
                tasks: records.len(),
                succeeded: succeeded.len(),
                metrics,
            }
        })
        .collect()
}

fn unit_of(name: &str, display_metrics: Option<&Value>) -> String {
    if name == LATENCY {
        return "ms".into();
    }
    display_metrics
        .and_then(|metrics| display_unit(metrics, name))
        .unwrap_or_default()
        .to_owned()
}

/// Samples by metric name, in order of first appearance; names without samples are left
/// out.
#[derive(Default)]
struct Samples(Vec<(String, Vec<f64>)>);

impl Samples {
    fn add(&mut self, name: &str, values: &[f64]) {
        if values.is_empty() {
            return;
        }
        match self.0.iter_mut().find(|(known, _)| known == name) {
            Some((_, samples)) => samples.extend_from_slice(values),
            None => self.0.push((name.to_owned(), values.to_vec())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Status, StepRecord};

    fn record(status: Status, latency_ms: f64, data: Value, step_data: Value) -> TaskRecord {
        TaskRecord {
            task_index: 0,
            status,
            started_at: String::new(),
            error_code: None,
            data: data.as_object().cloned(),
            completed_at: String::new(),
            latency_ms,
            steps: vec![StepRecord {
                name: "create".into(),
                status,
                started_at: None,
                completed_at: None,
                latency_ms: None,
                concurrency: None,
                timeout_ms: None,
                data: step_data.as_object().cloned(),
                error_code: None,
                implicit: false,
            }],
        }
    }

    #[test]
    fn latency_then_task_measures_then_step_measures_over_successes() {
        let records = vec![
            record(
                Status::Success,
                10.0,
                json!({"phase": "cold", "bytes": 5, "ms": [1, 2]}),
                json!({"handshakes": 1}),
            ),
            record(Status::Error, 99.0, json!({"bytes": 500}), json!({})),
            record(
                Status::Success,
                30.0,
                json!({"bytes": 7, "extra": 3}),
                json!({"handshakes": 2}),
            ),
        ];
        let display = json!([{"key": "bytes", "label": "Bytes", "unit": "B"}]);
        let stats = participant_stats(&[("alpha".into(), records)], Some(&display));
        let alpha = &stats[0];
        assert_eq!((alpha.tasks, alpha.succeeded), (3, 2));
        let names: Vec<&str> = alpha.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(
            names,
            [LATENCY, "bytes", "ms", "extra", "create.handshakes"]
        );
        assert_eq!(alpha.metrics[0].unit, "ms");
        assert_eq!(alpha.metrics[0].stats.median, 20.0);
        assert_eq!(alpha.metrics[1].unit, "B");
        assert_eq!(alpha.metrics[1].stats.p95, 7.0);
        assert_eq!(alpha.metrics[2].samples, 2);
        assert_eq!(alpha.metrics[3].unit, "");
        assert_eq!(
            alpha.to_json()["metrics"][0].to_string(),
            r#"{"name":"latencyMs","unit":"ms","samples":2,"median":20,"p95":30,"p99":30}"#
        );
        assert_eq!(
            alpha.to_json()["successRate"].to_string(),
            "0.6666666666666666"
        );
    }

    #[test]
    fn a_participant_without_successes_has_no_metrics() {
        let stats = participant_stats(&[("beta".into(), vec![])], None);
        assert_eq!(stats[0].success_rate(), 0.0);
        assert!(stats[0].metrics.is_empty());
        assert_eq!(
            stats[0].to_json().to_string(),
            r#"{"participant":"beta","tasks":0,"succeeded":0,"successRate":0,"metrics":[]}"#
        );
    }
}
