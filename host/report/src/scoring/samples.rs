//! What scoring keeps of a participant's records (spec §4.2, §4.6), gathered one record at
//! a time so that no record is kept: for all its records and for each group of them, how
//! many there were, how many passed, and one column of samples per scored metric.

use super::group::{Groups, RecordOrder};
use super::spec::ScoringSpec;
use super::stats::push_samples;
use bench_model::record::TaskRecord;
use serde_json::Value;

/// The counts and samples of one group of records.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GroupSamples {
    /// Records in the group.
    pub records: usize,
    /// Records that passed the spec's success rule.
    pub passing: usize,
    /// One column per metric of the spec, in spec order: the samples of the passing records.
    pub columns: Vec<Vec<f64>>,
}

impl GroupSamples {
    fn new(metrics: usize) -> Self {
        Self {
            records: 0,
            passing: 0,
            columns: vec![Vec::new(); metrics],
        }
    }

    fn add(&mut self, spec: &ScoringSpec, record: &TaskRecord, passes: bool) {
        self.records += 1;
        if !passes {
            return;
        }
        self.passing += 1;
        for (metric, column) in spec.metrics.iter().zip(&mut self.columns) {
            let key = metric.data_key();
            match record.data.as_ref().and_then(|data| data.get(key)) {
                Some(value) => push_samples(value, column),
                None => column.extend(record.arrival_metric(key)),
            }
        }
    }
}

/// One participant's samples: over all its records, then per value of the grouping field.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticipantSamples {
    /// The participant's name.
    pub provider: String,
    /// Every record of the participant.
    pub all: GroupSamples,
    /// When the spec groups records: per distinct value of the grouping field (`None` for
    /// records lacking it), in order of first appearance.
    pub groups: Vec<(Option<Value>, GroupSamples)>,
}

/// Gathers one participant's samples record by record.
#[derive(Debug)]
pub(crate) struct ParticipantSampleCollector {
    all: GroupSamples,
    groups: Groups<GroupSamples>,
    arrivals: u64,
}

impl ParticipantSampleCollector {
    /// An empty collector for the metrics of `spec`.
    pub(crate) fn new(spec: &ScoringSpec) -> Self {
        Self {
            all: GroupSamples::new(spec.metrics.len()),
            groups: Groups::default(),
            arrivals: 0,
        }
    }

    /// Counts one record and keeps its samples (records may come in any order).
    pub(crate) fn add(&mut self, spec: &ScoringSpec, record: &TaskRecord) {
        let order = RecordOrder {
            task_index: record.task_index,
            arrival: self.arrivals,
        };
        self.arrivals += 1;
        let passes = spec.passes(record);
        self.all.add(spec, record, passes);
        if let Some(key) = spec.group_key() {
            let value = record.data.as_ref().and_then(|data| data.get(key));
            let metrics = spec.metrics.len();
            self.groups
                .entry(value, order, || GroupSamples::new(metrics))
                .add(spec, record, passes);
        }
    }

    /// The participant's samples.
    pub(crate) fn finish(self, provider: String) -> ParticipantSamples {
        ParticipantSamples {
            provider,
            all: self.all,
            groups: self.groups.into_ordered(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::test_support::{lower_is_better, record};
    use bench_model::record::Status;
    use serde_json::json;

    fn spec() -> ScoringSpec {
        ScoringSpec {
            group_by: Some("size".into()),
            require_data: json!({"ok": true}).as_object().cloned(),
            metrics: vec![
                lower_is_better("ms", 1000.0, [1.0, 0.0, 0.0]),
                lower_is_better("bytes", 1000.0, [0.0, 0.0, 0.0]),
            ],
            ..ScoringSpec::default()
        }
    }

    fn at(task_index: u32, status: Status, data: Value) -> TaskRecord {
        TaskRecord {
            task_index,
            ..record(status, data)
        }
    }

    #[test]
    fn counts_and_columns_per_group_in_task_order() {
        let spec = spec();
        let mut collector = ParticipantSampleCollector::new(&spec);
        // Finished out of order: task 2 first.
        for record in [
            at(
                2,
                Status::Success,
                json!({"size": 4.0, "ok": true, "ms": 3}),
            ),
            at(
                1,
                Status::Success,
                json!({"size": 1, "ok": true, "ms": [1, 2]}),
            ),
            at(0, Status::Success, json!({"size": 4, "ok": false, "ms": 9})),
            at(3, Status::Error, json!({"size": 1, "ok": true, "ms": 9})),
            at(4, Status::Success, json!({"ok": true, "bytes": 7})),
        ] {
            collector.add(&spec, &record);
        }
        let samples = collector.finish("p".into());
        assert_eq!(samples.provider, "p");
        assert_eq!(
            samples.all,
            GroupSamples {
                records: 5,
                passing: 3,
                columns: vec![vec![3.0, 1.0, 2.0], vec![7.0]],
            }
        );
        let groups: Vec<(String, usize, usize, Vec<Vec<f64>>)> = samples
            .groups
            .into_iter()
            .map(|(value, group)| {
                let value = value.map_or("none".into(), |value| value.to_string());
                (value, group.records, group.passing, group.columns)
            })
            .collect();
        assert_eq!(
            groups,
            [
                // Task 0 holds the first 4: its value (an integer) names the group.
                ("4".into(), 2, 1, vec![vec![3.0], vec![]]),
                ("1".into(), 2, 1, vec![vec![1.0, 2.0], vec![]]),
                ("none".into(), 1, 1, vec![vec![], vec![7.0]]),
            ]
        );
    }

    #[test]
    fn without_a_group_key_only_the_all_row_is_kept() {
        let spec = ScoringSpec {
            group_by: None,
            ..spec()
        };
        let mut collector = ParticipantSampleCollector::new(&spec);
        collector.add(
            &spec,
            &at(0, Status::Success, json!({"size": 1, "ok": true})),
        );
        let samples = collector.finish("p".into());
        assert_eq!(samples.all.records, 1);
        assert!(samples.groups.is_empty());
    }
}
