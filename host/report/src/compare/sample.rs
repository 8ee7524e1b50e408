//! One run's samples, read from its results directory by streaming `records.ndjson` (no
//! record is kept): per participant, one column of `f64` samples per metric — task latency,
//! every numeric measure, every step's duration — and, when the run is scored, each
//! participant's composite score as its summary computes it.

use crate::results::{read_manifest, RecordsFile, RECORDS_NDJSON};
use crate::scoring::push_samples;
use crate::summary::Summary;
use crate::tally::RunTally;
use anyhow::{bail, Context as _, Result};
use bench_model::config::{DisplaySection, ScoredMetric, ScoringSection};
use bench_model::metric::{RESPONSE_TIME, SERVICE_TIME};
use bench_model::plan::RunManifest;
use bench_model::record::{Status, TaskRecord};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// What a metric measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricKind {
    /// The task's `latencyMs` (its `durationUs` when every record compared has one), or in
    /// an open-model run its response or service time.
    Latency,
    /// A numeric value of the task's data (`<key>`) or of a step's (`<step>.<key>`).
    Measure,
    /// The `latencyMs` (or `durationUs`, as for the latency) of a successful step, by step
    /// name.
    Step,
}

/// A metric: its kind and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct MetricId {
    pub kind: MetricKind,
    pub name: String,
}

impl MetricId {
    /// The metric as tables and notes name it: `latencyMs`, a measure's name, `step <name>`.
    pub(crate) fn label(&self) -> String {
        label(self.kind, &self.name)
    }
}

/// How tables and notes name a metric of this kind and name.
pub(crate) fn label(kind: MetricKind, name: &str) -> String {
    match kind {
        MetricKind::Step => format!("step {name}"),
        MetricKind::Latency | MetricKind::Measure => name.to_owned(),
    }
}

/// The samples of one metric.
#[derive(Debug)]
pub(crate) struct Column {
    pub metric: MetricId,
    pub samples: Vec<f64>,
    /// The same durations from `durationUs`, in milliseconds, as long as every sample had
    /// one; `None` once one did not (an older record, a latency the task gave itself).
    fine: Option<Vec<f64>>,
}

/// One participant's columns: latency first, then the others in order of first appearance.
#[derive(Debug, Default)]
pub(crate) struct ParticipantColumns {
    pub name: String,
    pub columns: Vec<Column>,
    index: HashMap<MetricId, usize>,
}

/// Who ran: what identifies a run in a comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunInfo {
    /// The results directory, as given.
    pub dir: String,
    /// The run's id.
    pub run_id: String,
    /// The benchmark's slug.
    pub benchmark_slug: String,
    /// When the run started (ISO).
    pub started_at: String,
    /// The commit, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_sha: Option<String>,
    /// The branch or ref, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
}

/// A run's samples.
#[derive(Debug)]
pub struct RunSamples {
    pub(crate) info: RunInfo,
    /// Participants in the manifest's order, then in order of appearance.
    pub(crate) participants: Vec<ParticipantColumns>,
    /// Each participant's overall composite score, when the run is scored.
    pub(crate) scores: Option<HashMap<String, f64>>,
    /// The config's display manifest, for units and directions.
    pub(crate) display: Option<DisplaySection>,
    /// The config's `scoring`, for units and directions.
    pub(crate) scoring: Option<ScoringSection>,
}

/// Gathers a run's samples record by record, from wherever the records are kept (a
/// results directory, the platform's store).
pub struct RunSampleCollector {
    manifest: RunManifest,
    /// How the run is named in the comparison (a directory, a run's name).
    label: String,
    /// The summary's tally, kept only for a scored run (for its composite scores).
    tally: Option<RunTally>,
    participants: Vec<ParticipantColumns>,
    by_name: HashMap<String, usize>,
    records: usize,
}

impl RunSampleCollector {
    /// A collector for the run `manifest` describes, named `label` in the comparison.
    pub fn new(manifest: RunManifest, label: String) -> Self {
        let tally = manifest
            .run_config
            .scoring
            .is_some()
            .then(|| RunTally::new(&manifest));
        let mut collector = Self {
            manifest,
            label,
            tally,
            participants: Vec::new(),
            by_name: HashMap::new(),
            records: 0,
        };
        for name in collector.manifest.run_config.participants.clone() {
            collector.participant(&name);
        }
        collector
    }

    /// Takes one task record of `participant`. Warm-up tasks are kept in the records but,
    /// as in the summary, compared by none.
    pub fn add(&mut self, participant: &str, record: &TaskRecord) {
        if self.manifest.warmup.is_some() && record.is_warmup() {
            return;
        }
        self.records += 1;
        if let Some(tally) = &mut self.tally {
            tally.add(participant, record);
        }
        self.participant(participant).add(record);
    }

    /// The run's samples; an error when no record was added or the run cannot be scored.
    pub fn finish(self) -> Result<RunSamples> {
        let manifest = self.manifest;
        if self.records == 0 {
            bail!("{} has no task records", self.label);
        }
        let scores = match self.tally {
            Some(tally) => {
                let summary = Summary::new(&manifest, tally)
                    .with_context(|| format!("cannot score the run {}", self.label))?;
                let rows = summary.overall_rows();
                Some(
                    rows.iter()
                        .map(|row| (row.provider.clone(), row.composite_score))
                        .collect(),
                )
            }
            None => None,
        };
        Ok(RunSamples {
            info: RunInfo {
                dir: self.label,
                run_id: manifest.run_id,
                benchmark_slug: manifest.run_config.benchmark_slug,
                started_at: manifest.started_at,
                git_sha: manifest.origin.git_sha,
                git_ref: manifest.origin.git_ref,
            },
            participants: self.participants,
            scores,
            display: manifest.display.as_deref().cloned(),
            scoring: manifest.run_config.scoring.as_deref().cloned(),
        })
    }

    /// The columns of participant `name`, added at the end when new.
    fn participant(&mut self, name: &str) -> &mut ParticipantColumns {
        let index = match self.by_name.get(name) {
            Some(&index) => index,
            None => {
                self.participants.push(ParticipantColumns {
                    name: name.to_owned(),
                    ..ParticipantColumns::default()
                });
                self.by_name
                    .insert(name.to_owned(), self.participants.len() - 1);
                self.participants.len() - 1
            }
        };
        &mut self.participants[index]
    }
}

impl RunSamples {
    /// Reads the run in `dir`: its `run.json`, then every record of its `records.ndjson`.
    pub(crate) fn load(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            bail!(
                "{} is not a results directory (it does not exist)",
                dir.display()
            );
        }
        let records_path = dir.join(RECORDS_NDJSON);
        if !records_path.is_file() {
            bail!(
                "{} holds no run: it has no {RECORDS_NDJSON} (give the directory `bench run --out` wrote)",
                dir.display()
            );
        }
        let manifest = read_manifest(dir)?;
        let mut records = RecordsFile::planned(&records_path, &manifest)?;
        let mut collector = RunSampleCollector::new(manifest, dir.display().to_string());
        while let Some((_, line)) = records.next_record()? {
            collector.add(&line.participant, &line.record);
        }
        if let Some(warning) = records.left_out() {
            eprintln!("[bench] warning: {warning}");
        }
        collector.finish()
    }

    /// The participant called `name`.
    pub(crate) fn participant(&self, name: &str) -> Option<&ParticipantColumns> {
        self.participants.iter().find(|p| p.name == name)
    }

    /// The unit of a metric: `ms` for durations, else what `display.metrics` declares for
    /// the measure, or else its `scoring` metric.
    pub(crate) fn unit(&self, metric: &MetricId) -> String {
        if metric.kind != MetricKind::Measure {
            return "ms".into();
        }
        let declared = self
            .display
            .as_ref()
            .and_then(|display| display.unit(&metric.name))
            .or_else(|| self.scoring_metric(&metric.name)?.unit.as_deref());
        declared.unwrap_or_default().to_owned()
    }

    /// Whether a higher value of the metric is better: a measure that `display.metrics`
    /// marks `higher-better` or that `scoring` declares `higherIsBetter`.
    pub(crate) fn higher_is_better(&self, metric: &MetricId) -> bool {
        if metric.kind != MetricKind::Measure {
            return false;
        }
        let displayed = self
            .display
            .as_ref()
            .and_then(|display| display.metric(&metric.name))
            .is_some_and(|entry| entry.higher_is_better);
        let scored = self
            .scoring_metric(&metric.name)
            .is_some_and(|entry| entry.higher_is_better);
        displayed || scored
    }

    /// The `scoring.metrics` entry of a key.
    fn scoring_metric(&self, key: &str) -> Option<&ScoredMetric> {
        self.scoring.as_ref()?.metric(key)
    }
}

impl ParticipantColumns {
    /// Takes the samples of a successful record: its latency, its measures and those of its
    /// steps, and the duration of each successful step. A failed record gives none.
    pub(crate) fn add(&mut self, record: &TaskRecord) {
        if !record.is_success() {
            return;
        }
        // An open-model task's response time (from when it was due) leads, then its service
        // time, as in the summary.
        if let Some(arrival) = &record.arrival {
            self.push(
                MetricKind::Latency,
                RESPONSE_TIME,
                arrival.response_time_ms,
                None,
            );
            self.push(
                MetricKind::Latency,
                SERVICE_TIME,
                arrival.service_time_ms,
                None,
            );
        }
        let fine = record.duration_ms();
        self.push(MetricKind::Latency, "latencyMs", record.latency_ms, fine);
        for (key, value) in record.data.iter().flatten() {
            self.measure(key, value);
        }
        // The implicit `task` step of a task that recorded none (its `errorCode` is an
        // explicit null) repeats the task's latency and measures: it is left out.
        let steps = record
            .steps
            .iter()
            .filter(|step| step.error_code != Some(None));
        for step in steps {
            if step.status == Status::Success {
                if let Some(ms) = step.latency_ms.filter(|ms| ms.is_finite()) {
                    self.push(MetricKind::Step, &step.name, ms, step.duration_ms());
                }
            }
            for (key, value) in step.data.iter().flatten() {
                self.measure(&format!("{}.{key}", step.name), value);
            }
        }
    }

    /// Adds the samples of a data value (a number or an array of numbers) to the measure
    /// `name`; a value without any (text, a flag) makes no column.
    fn measure(&mut self, name: &str, value: &Value) {
        let mut samples = Vec::new();
        push_samples(value, &mut samples);
        if !samples.is_empty() {
            let column = self.column(MetricKind::Measure, name);
            column.samples.extend(samples);
            column.fine = None;
        }
    }

    /// The samples of a metric, or none when the participant has no such column.
    pub(crate) fn samples(&self, metric: &MetricId) -> &[f64] {
        self.index
            .get(metric)
            .map_or(&[], |&i| &self.columns[i].samples)
    }

    /// The samples of a duration metric at `durationUs` resolution, when every sample of
    /// the participant's column had one.
    pub(crate) fn fine_samples(&self, metric: &MetricId) -> Option<&[f64]> {
        let column = &self.columns[*self.index.get(metric)?];
        column.fine.as_deref().filter(|fine| !fine.is_empty())
    }

    /// Adds one duration in milliseconds and, when the record has it, the same from
    /// `durationUs` (`fine`).
    fn push(&mut self, kind: MetricKind, name: &str, ms: f64, fine: Option<f64>) {
        let column = self.column(kind, name);
        column.samples.push(ms);
        match (&mut column.fine, fine) {
            (Some(column), Some(fine)) => column.push(fine),
            (kept, _) => *kept = None,
        }
    }

    /// The column of a metric, created empty when new.
    fn column(&mut self, kind: MetricKind, name: &str) -> &mut Column {
        let metric = MetricId {
            kind,
            name: name.to_owned(),
        };
        let index = match self.index.get(&metric) {
            Some(&index) => index,
            None => {
                self.columns.push(Column {
                    metric: metric.clone(),
                    samples: Vec::new(),
                    fine: Some(Vec::new()),
                });
                self.index.insert(metric, self.columns.len() - 1);
                self.columns.len() - 1
            }
        };
        &mut self.columns[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::test_support::results_dir;
    use serde_json::json;

    fn step(name: &str, status: &str, latency_ms: f64, data: Value) -> Value {
        json!({"name": name, "status": status, "latencyMs": latency_ms, "data": data})
    }

    #[test]
    fn successful_records_give_latency_measures_and_step_durations() {
        let dir = results_dir(
            json!({"participants": ["a", "b", "c"]}),
            &[
                json!({"latencyMs": 10, "data": {"phase": "cold", "bytes": [1, 2]},
                       "steps": [step("upload", "success", 4.0, json!({"retries": 1}))]}),
                json!({"latencyMs": 99, "status": "error", "data": {"bytes": 50}}),
                json!({"latencyMs": 12, "steps": [step("upload", "error", 9.0, json!({}))]}),
                json!({"participant": "c", "latencyMs": 7, "data": {"n": 1}, "steps": [
                    {"name": "task", "status": "success", "latencyMs": 7, "errorCode": null, "data": {"n": 1}}
                ]}),
            ],
        );
        let run = RunSamples::load(dir.path()).unwrap();
        let names: Vec<&str> = run.participants.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let columns: Vec<(MetricKind, &str, &[f64])> = run.participants[0]
            .columns
            .iter()
            .map(|c| (c.metric.kind, c.metric.name.as_str(), c.samples.as_slice()))
            .collect();
        assert_eq!(
            columns,
            [
                (MetricKind::Latency, "latencyMs", &[10.0, 12.0][..]),
                (MetricKind::Measure, "bytes", &[1.0, 2.0][..]),
                (MetricKind::Step, "upload", &[4.0][..]),
                (MetricKind::Measure, "upload.retries", &[1.0][..]),
            ]
        );
        assert!(run.participants[1].columns.is_empty());
        let implicit_step_left_out: Vec<&str> = run.participants[2]
            .columns
            .iter()
            .map(|c| c.metric.name.as_str())
            .collect();
        assert_eq!(implicit_step_left_out, ["latencyMs", "n"]);
        assert_eq!(run.scores, None);
    }

    #[test]
    fn warm_up_tasks_are_left_out_and_open_model_times_lead() {
        let arrival = |response: f64, service: f64| {
            json!({"intendedStartAt": "i", "startLagMs": response - service,
                   "serviceTimeMs": service, "responseTimeMs": response})
        };
        let dir = results_dir(
            json!({"warmup": 1}),
            &[
                json!({"latencyMs": 500, "data": {"phase": "warmup"}}),
                json!({"latencyMs": 3, "arrival": arrival(40.0, 3.0)}),
                json!({"latencyMs": 4, "arrival": arrival(5.0, 4.0)}),
            ],
        );
        let run = RunSamples::load(dir.path()).unwrap();
        let columns: Vec<(&str, &[f64])> = run.participants[0]
            .columns
            .iter()
            .map(|c| (c.metric.name.as_str(), c.samples.as_slice()))
            .collect();
        assert_eq!(
            columns,
            [
                ("responseTimeMs", &[40.0, 5.0][..]),
                ("serviceTimeMs", &[3.0, 4.0][..]),
                ("latencyMs", &[3.0, 4.0][..]),
            ]
        );
    }

    #[test]
    fn units_and_directions_come_from_display_and_scoring() {
        let dir = results_dir(
            json!({
                "display": {"metrics": [{"key": "mbps", "unit": "Mbps", "direction": "higher-better"}]},
                "scoring": {"metrics": [{"key": "ops", "ceiling": 9, "higherIsBetter": true, "unit": "op",
                                         "weights": {"median": 1, "p95": 0, "p99": 0}}]},
            }),
            &[json!({"data": {"ops": 3, "mbps": 5, "ms": 1}})],
        );
        let run = RunSamples::load(dir.path()).unwrap();
        let measure = |name: &str| MetricId {
            kind: MetricKind::Measure,
            name: name.into(),
        };
        assert_eq!(run.unit(&measure("mbps")), "Mbps");
        assert_eq!(run.unit(&measure("ops")), "op");
        assert_eq!(run.unit(&measure("ms")), "");
        assert!(run.higher_is_better(&measure("mbps")));
        assert!(run.higher_is_better(&measure("ops")));
        assert!(!run.higher_is_better(&measure("ms")));
        assert_eq!(run.scores.unwrap()["a"], 33.33);
    }

    #[test]
    fn a_missing_directory_a_directory_without_records_and_no_records_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nowhere");
        let error = RunSamples::load(&missing).unwrap_err().to_string();
        assert!(
            error.ends_with("nowhere is not a results directory (it does not exist)"),
            "{error}"
        );

        let error = RunSamples::load(dir.path()).unwrap_err().to_string();
        assert!(
            error.contains("holds no run: it has no records.ndjson"),
            "{error}"
        );

        let empty = results_dir(json!({}), &[]);
        let error = RunSamples::load(empty.path()).unwrap_err().to_string();
        assert!(
            error == format!("{} has no task records", empty.path().display()),
            "{error}"
        );
    }
}
