//! The numbers of a run without `scoring`: per participant, its tasks, its success rate and
//! the median/p95/p99 of task latency and of every numeric measure, over its successful
//! records, with the same statistics as scoring (trimmed, nearest rank). They are gathered
//! one record at a time ([`StatsCollector`]), so no record is kept.

use crate::scoring::{compute_stats, push_samples, RecordOrder, Stats, DEFAULT_TRIM};
use crate::summary_document::{MetricNumbers, ParticipantNumbers};
use bench_model::config::DisplaySection;
use bench_model::metric::{LATENCY, RESPONSE_TIME, SERVICE_TIME};
use bench_model::record::TaskRecord;
use serde_json::Value;
use std::collections::HashMap;

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

    /// The participant's entry in `summary.json`.
    pub(crate) fn to_numbers(&self) -> ParticipantNumbers {
        let metrics = self
            .metrics
            .iter()
            .map(|metric| MetricNumbers {
                name: metric.name.clone(),
                unit: metric.unit.clone(),
                samples: metric.samples,
                median: metric.stats.median,
                p95: metric.stats.p95,
                p99: metric.stats.p99,
            })
            .collect();
        ParticipantNumbers {
            participant: self.participant.clone(),
            tasks: self.tasks,
            succeeded: self.succeeded,
            success_rate: self.success_rate(),
            metrics,
        }
    }
}

/// Gathers one participant's plain numbers record by record (in any order): counts, the
/// latency of its successful records, and one column of samples per measure name.
#[derive(Debug, Default)]
pub(crate) struct StatsCollector {
    tasks: usize,
    succeeded: usize,
    latency: Vec<f64>,
    /// Response and service times of tasks that ran on an arrival schedule.
    response: Vec<f64>,
    service: Vec<f64>,
    measures: HashMap<String, Column>,
    /// Reused to build `<step>.<key>` names.
    step_key: String,
}

/// The samples of one measure name, and where the name first appeared.
#[derive(Debug)]
struct Column {
    first: NamePosition,
    samples: Vec<f64>,
}

/// Where a name appears: task-level measures (in record order, then key order) come before
/// step measures (in record order, then step order, then key order), as if the successful
/// records were read in task order, task data first, then every step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum NamePosition {
    Task(RecordOrder, usize),
    Step(RecordOrder, usize, usize),
}

impl StatsCollector {
    /// Counts one record; a successful one gives its latency and measures.
    pub(crate) fn add(&mut self, record: &TaskRecord) {
        let order = RecordOrder {
            task_index: record.task_index,
            arrival: self.tasks as u64,
        };
        self.tasks += 1;
        if !record.is_success() {
            return;
        }
        self.succeeded += 1;
        self.latency.push(record.latency_ms);
        if let Some(arrival) = &record.arrival {
            self.response.push(arrival.response_time_ms);
            self.service.push(arrival.service_time_ms);
        }
        for (position, (key, value)) in record.data.iter().flatten().enumerate() {
            add_samples(
                &mut self.measures,
                key,
                NamePosition::Task(order, position),
                value,
            );
        }
        for (step_position, step) in record.steps.iter().enumerate() {
            for (position, (key, value)) in step.data.iter().flatten().enumerate() {
                self.step_key.clear();
                self.step_key.push_str(&step.name);
                self.step_key.push('.');
                self.step_key.push_str(key);
                let at = NamePosition::Step(order, step_position, position);
                add_samples(&mut self.measures, &self.step_key, at, value);
            }
        }
    }

    /// The participant's numbers: response and service time first when its tasks ran on an
    /// arrival schedule, latency next, then every measure name in order of first
    /// appearance. `display` is the config's display manifest, consulted for units.
    pub(crate) fn finish(
        self,
        participant: String,
        display: Option<&DisplaySection>,
    ) -> ParticipantStats {
        let mut measures = self.measures;
        let mut columns: Vec<(String, Vec<f64>)> = Vec::new();
        if !self.response.is_empty() {
            columns.push((RESPONSE_TIME.to_owned(), self.response));
            columns.push((SERVICE_TIME.to_owned(), self.service));
        }
        if !self.latency.is_empty() {
            // A measure called `latencyMs` joins the latency samples.
            let mut latency = self.latency;
            if let Some(column) = measures.remove(LATENCY) {
                latency.extend(column.samples);
            }
            columns.push((LATENCY.to_owned(), latency));
        }
        let mut named: Vec<(String, Column)> = measures.into_iter().collect();
        named.sort_by_key(|(_, column)| column.first);
        columns.extend(
            named
                .into_iter()
                .map(|(name, column)| (name, column.samples)),
        );
        let metrics = columns
            .into_iter()
            .map(|(name, mut samples)| MetricStats {
                unit: unit_of(&name, display),
                samples: samples.len(),
                stats: compute_stats(&mut samples, DEFAULT_TRIM),
                name,
            })
            .collect();
        ParticipantStats {
            participant,
            tasks: self.tasks,
            succeeded: self.succeeded,
            metrics,
        }
    }
}

/// Adds the samples of `value` to the column `name`; a name gets a column with its first
/// sample and keeps the earliest position it was seen at.
fn add_samples(
    measures: &mut HashMap<String, Column>,
    name: &str,
    at: NamePosition,
    value: &Value,
) {
    match measures.get_mut(name) {
        Some(column) => {
            let before = column.samples.len();
            push_samples(value, &mut column.samples);
            if column.samples.len() > before {
                column.first = column.first.min(at);
            }
        }
        None => {
            let mut samples = Vec::new();
            push_samples(value, &mut samples);
            if !samples.is_empty() {
                measures.insert(name.to_owned(), Column { first: at, samples });
            }
        }
    }
}

fn unit_of(name: &str, display: Option<&DisplaySection>) -> String {
    if [LATENCY, RESPONSE_TIME, SERVICE_TIME].contains(&name) {
        return "ms".into();
    }
    display
        .and_then(|display| display.unit(name))
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::config::Section;
    use bench_model::record::{Status, StepRecord};
    use serde_json::json;

    fn stats_of(name: &str, records: &[TaskRecord], display: Option<&Value>) -> ParticipantStats {
        let mut collector = StatsCollector::default();
        for record in records {
            collector.add(record);
        }
        let display = display.map(DisplaySection::read);
        collector.finish(name.into(), display.as_ref())
    }

    fn record(status: Status, latency_ms: f64, data: Value, step_data: Value) -> TaskRecord {
        TaskRecord {
            task_index: 0,
            status,
            started_at: String::new(),
            error_code: None,
            data: data.as_object().cloned(),
            completed_at: String::new(),
            latency_ms,
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![StepRecord {
                name: "create".into(),
                status,
                started_at: None,
                completed_at: None,
                latency_ms: None,
                duration_us: None,
                guest_cpu_us: None,
                concurrency: None,
                timeout_ms: None,
                data: step_data.as_object().cloned(),
                error_code: None,
                implicit: false,
            }],
            arrival: None,
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
        let display = json!({"metrics": [{"key": "bytes", "label": "Bytes", "unit": "B"}]});
        let alpha = &stats_of("alpha", &records, Some(&display));
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
            serde_json::to_string(&alpha.to_numbers().metrics[0]).unwrap(),
            r#"{"name":"latencyMs","unit":"ms","samples":2,"median":20,"p95":30,"p99":30}"#
        );
        assert_eq!(
            serde_json::to_value(alpha.to_numbers()).unwrap()["successRate"].to_string(),
            "0.6666666666666666"
        );
    }

    #[test]
    fn a_participant_without_successes_has_no_metrics() {
        let beta = stats_of("beta", &[], None);
        assert_eq!(beta.success_rate(), 0.0);
        assert!(beta.metrics.is_empty());
        assert_eq!(
            serde_json::to_string(&beta.to_numbers()).unwrap(),
            r#"{"participant":"beta","tasks":0,"succeeded":0,"successRate":0,"metrics":[]}"#
        );
    }

    #[test]
    fn names_are_ordered_by_task_index_whatever_order_records_arrive_in() {
        let at = |task_index, data: Value, step_data: Value| TaskRecord {
            task_index,
            ..record(Status::Success, task_index as f64, data, step_data)
        };
        let records = [
            at(2, json!({"late": 1, "early": 5}), json!({"b": 1})),
            at(
                0,
                json!({"early": 2, "latencyMs": 100}),
                json!({"a": 1, "b": "no"}),
            ),
            at(1, json!({"late": "no", "mid": [3]}), json!({})),
        ];
        let stats = stats_of("p", &records, None);
        let names: Vec<(&str, usize)> = stats
            .metrics
            .iter()
            .map(|metric| (metric.name.as_str(), metric.samples))
            .collect();
        assert_eq!(
            names,
            [
                (LATENCY, 4),
                ("early", 2),
                ("mid", 1),
                ("late", 1),
                ("create.a", 1),
                ("create.b", 1)
            ]
        );
        assert_eq!(stats.metrics[0].stats.p99, 100.0);
    }
}
