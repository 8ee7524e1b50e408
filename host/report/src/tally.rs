//! What the summary keeps of a run's records, taken from each record as it finishes (or as
//! `bench report` reads it back), so that no record stays in memory: per participant, its
//! counts and one column of `f64` samples per metric — the spec's metrics (and per group)
//! when the run is scored, task latency and every numeric measure when it is not.

use super::guest_cpu::GuestCpuSamples;
use super::latency::LatencySamples;
use super::participants::{ParticipantStats, StatsCollector};
use super::unopened::Unopened;
use crate::scoring::{
    scoring_config_to_spec, ParticipantSampleCollector, ParticipantSamples, ScoringSpec,
};
use anyhow::Result;
use bench_model::config::DisplaySection;
use bench_model::events::{RunEvent, RunObserver};
use bench_model::plan::{RunManifest, TaskCounts};
use bench_model::record::TaskRecord;
use std::collections::{BTreeMap, HashMap};

/// A run's records, reduced to what its summary needs.
#[derive(Debug)]
pub struct RunTally {
    /// Participant names, in summary order.
    names: Vec<String>,
    index_by_name: HashMap<String, usize>,
    /// One collector per name.
    collectors: Collectors,
    /// Each name's latency of successful tasks, for the timing lines.
    latencies: Vec<LatencySamples>,
    /// Each name's guest CPU, for the timing lines and their warnings.
    guest_cpu: Vec<GuestCpuSamples>,
    /// The data keys of the scored metrics (none in a run without `scoring`).
    metric_keys: Vec<String>,
    /// Each name's records.
    tasks: Vec<u64>,
    /// Each name's dropped arrivals (arrival-rate runs).
    dropped: Vec<u64>,
    /// Each name's start lags, in milliseconds (records with an arrival timing).
    start_lags: Vec<Vec<f64>>,
    /// Each name's tasks that found no sandbox.
    unopened: Vec<Unopened>,
    counts: TaskCounts,
    /// Whether the run warmed up (`--warmup`): its warm-up records are left out.
    warmed_up: bool,
}

#[derive(Debug)]
enum Collectors {
    Scored(ScoringSpec, Vec<ParticipantSampleCollector>),
    Unscored(Vec<StatsCollector>),
}

/// What a tally turns into: the samples to score, or each participant's plain numbers.
pub(crate) enum Tallied {
    /// The run declares `scoring`: the spec and every participant's samples.
    Scored(ScoringSpec, Vec<ParticipantSamples>),
    /// No `scoring`.
    Unscored(Vec<ParticipantStats>),
}

impl RunTally {
    /// An empty tally for the run of `manifest`: its participants (in its order) have no
    /// records yet; with `scoring`, only the spec's metrics are kept.
    pub fn new(manifest: &RunManifest) -> Self {
        let run_config = &manifest.run_config;
        let collectors = match &run_config.scoring {
            Some(scoring) => {
                let dimensions = run_config.dimensions.as_ref();
                let display = manifest.display.as_deref();
                let spec = scoring_config_to_spec(scoring, dimensions, display);
                Collectors::Scored(spec, Vec::new())
            }
            None => Collectors::Unscored(Vec::new()),
        };
        let metric_keys = match &collectors {
            Collectors::Scored(spec, _) => spec
                .metrics
                .iter()
                .map(|metric| metric.data_key().to_owned())
                .collect(),
            Collectors::Unscored(_) => Vec::new(),
        };
        let mut tally = Self {
            names: Vec::new(),
            index_by_name: HashMap::new(),
            collectors,
            latencies: Vec::new(),
            guest_cpu: Vec::new(),
            metric_keys,
            tasks: Vec::new(),
            dropped: Vec::new(),
            start_lags: Vec::new(),
            unopened: Vec::new(),
            counts: TaskCounts::default(),
            warmed_up: manifest.warmup.is_some(),
        };
        for name in &run_config.participants {
            tally.participant(name);
        }
        tally
    }

    /// Takes what the summary needs from one record of `participant` (a name the manifest
    /// does not list joins after the others); a warm-up record of a run that warmed up
    /// counts for nothing. Records may come in any order.
    pub fn add(&mut self, participant: &str, record: &TaskRecord) {
        if self.warmed_up && record.is_warmup() {
            return;
        }
        self.counts.add(record);
        let index = self.participant(participant);
        self.tasks[index] += 1;
        self.latencies[index].add(record);
        if let Some(arrival) = &record.arrival {
            self.start_lags[index].push(arrival.start_lag_ms);
        }
        self.guest_cpu[index].add(record, &self.metric_keys);
        self.unopened[index].add(record);
        match &mut self.collectors {
            Collectors::Scored(spec, collectors) => collectors[index].add(spec, record),
            Collectors::Unscored(collectors) => collectors[index].add(record),
        }
    }

    /// The warnings of participants some of whose tasks found no sandbox, in summary order.
    pub(crate) fn unopened_warnings(&self) -> Vec<String> {
        let participants = self.names.iter().zip(&self.tasks);
        participants
            .zip(&self.unopened)
            .filter_map(|((name, tasks), unopened)| unopened.warning(name, *tasks))
            .collect()
    }

    /// Takes each participant's guest CPU, in summary order, with the scored metrics' data
    /// keys (the tally keeps none afterwards).
    pub(crate) fn take_guest_cpu(&mut self) -> (Vec<GuestCpuSamples>, &[String]) {
        (std::mem::take(&mut self.guest_cpu), &self.metric_keys)
    }

    /// Takes each participant's latency of successful tasks, in summary order (the
    /// tally keeps none afterwards).
    pub(crate) fn take_latencies(&mut self) -> impl Iterator<Item = (&str, LatencySamples)> {
        let latencies = std::mem::take(&mut self.latencies);
        self.names.iter().map(String::as_str).zip(latencies)
    }

    /// Each participant's records, in summary order.
    pub(crate) fn tasks(&self) -> impl Iterator<Item = (&str, u64)> {
        self.names
            .iter()
            .map(String::as_str)
            .zip(self.tasks.iter().copied())
    }

    /// Each participant's start lags (open models), in summary order.
    pub(crate) fn start_lags(&self) -> impl Iterator<Item = &[f64]> {
        self.start_lags.iter().map(Vec::as_slice)
    }

    /// Counts an arrival of `participant` that found no free sandbox.
    pub fn add_dropped(&mut self, participant: &str) {
        let index = self.participant(participant);
        self.dropped[index] += 1;
    }

    /// Each participant's dropped arrivals (0 for those that dropped none), for `run.json`.
    pub fn dropped(&self) -> BTreeMap<String, u64> {
        self.names
            .iter()
            .cloned()
            .zip(self.dropped.iter().copied())
            .collect()
    }

    /// How many records there were, and how many failed.
    pub fn task_counts(&self) -> TaskCounts {
        self.counts
    }

    /// The samples or plain numbers of every participant, in order; `display` is the
    /// config's display manifest, consulted for units.
    pub(crate) fn into_tallied(self, display: Option<&DisplaySection>) -> Tallied {
        let names = self.names.into_iter();
        match self.collectors {
            Collectors::Scored(spec, collectors) => {
                let samples = names
                    .zip(collectors)
                    .map(|(name, collector)| collector.finish(name))
                    .collect();
                Tallied::Scored(spec, samples)
            }
            Collectors::Unscored(collectors) => Tallied::Unscored(
                names
                    .zip(collectors)
                    .map(|(name, collector)| collector.finish(name, display))
                    .collect(),
            ),
        }
    }

    /// The index of `name`, added at the end when it is new.
    fn participant(&mut self, name: &str) -> usize {
        if let Some(&index) = self.index_by_name.get(name) {
            return index;
        }
        match &mut self.collectors {
            Collectors::Scored(spec, collectors) => {
                collectors.push(ParticipantSampleCollector::new(spec))
            }
            Collectors::Unscored(collectors) => collectors.push(StatsCollector::default()),
        }
        self.latencies.push(LatencySamples::default());
        self.guest_cpu.push(GuestCpuSamples::default());
        self.tasks.push(0);
        self.dropped.push(0);
        self.start_lags.push(Vec::new());
        self.unopened.push(Unopened::default());
        self.names.push(name.to_owned());
        self.index_by_name
            .insert(name.to_owned(), self.names.len() - 1);
        self.names.len() - 1
    }
}

impl RunObserver for RunTally {
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        match event {
            RunEvent::TaskFinished {
                participant,
                finished,
                ..
            } => self.add(participant, &finished.record),
            RunEvent::TaskDropped { participant, .. } => self.add_dropped(participant),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::plan::test_manifest;
    use bench_model::record::Status;
    use serde_json::json;

    fn record(task_index: u32, status: Status) -> TaskRecord {
        TaskRecord::bare(task_index, status, f64::from(task_index))
    }

    #[test]
    fn participants_keep_the_manifest_order_then_the_order_they_appear_in() {
        let manifest = test_manifest(json!({"participants": ["b", "a", "idle"]}));
        let mut tally = RunTally::new(&manifest);
        tally.add("a", &record(1, Status::Success));
        tally.add("x", &record(0, Status::Error));
        tally.add("b", &record(0, Status::Success));
        tally.add("a", &record(0, Status::Error));
        assert_eq!(
            tally.task_counts(),
            TaskCounts {
                total: 4,
                failed: 2
            }
        );
        let Tallied::Unscored(stats) = tally.into_tallied(None) else {
            panic!("a run without scoring is not scored");
        };
        let counts: Vec<(&str, usize, usize)> = stats
            .iter()
            .map(|p| (p.participant.as_str(), p.tasks, p.succeeded))
            .collect();
        assert_eq!(
            counts,
            [("b", 1, 1), ("a", 2, 1), ("idle", 0, 0), ("x", 1, 0)]
        );
    }

    #[test]
    fn warm_up_records_count_only_in_a_run_that_did_not_warm_up() {
        let mut warm = TaskRecord::bare(0, Status::Success, 1.0);
        warm.data = json!({"phase": "warmup"}).as_object().cloned();
        for (manifest, counted) in [
            (test_manifest(json!({"warmup": 2})), 1),
            (test_manifest(json!({})), 2),
        ] {
            let mut tally = RunTally::new(&manifest);
            tally.add("a", &warm);
            tally.add("a", &record(0, Status::Success));
            assert_eq!(tally.task_counts().total, counted);
        }
    }

    #[test]
    fn a_scored_run_keeps_the_spec_metrics_only() {
        let manifest = test_manifest(json!({
            "participants": ["p"],
            "scoring": {"metrics": [{"key": "ms", "ceiling": 10, "weights": {"median": 1, "p95": 0, "p99": 0}}]},
        }));
        let mut tally = RunTally::new(&manifest);
        let mut measured = record(0, Status::Success);
        measured.data = json!({"ms": 4, "other": 9}).as_object().cloned();
        tally.add("p", &measured);
        let Tallied::Scored(spec, samples) = tally.into_tallied(None) else {
            panic!("a run with scoring is scored");
        };
        assert_eq!(spec.metrics.len(), 1);
        assert_eq!(samples[0].all.columns, [vec![4.0]]);
    }
}
