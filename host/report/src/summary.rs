//! The summary of a run, built from its manifest (`run.json`) and the tally of its records
//! alone ([`RunTally`]), so a saved run summarizes to the same bytes as the live one.
//!
//! With `scoring` it is upstream's run summary `{ run, results, scoring }` (spec §4.8) plus
//! `percentileMethod`; without, `{ run, participants, percentileMethod }` with each
//! participant's plain numbers. A run with a load model adds `load`, a stopped run
//! `"interrupted": true`.

use super::load::LoadSummary;
use super::origin;
use super::participants::ParticipantStats;
use super::tally::{RunTally, Tallied};
use crate::scoring::{score, ScoringSpecError, SummaryRow};
use crate::summary_document::{SummaryDocument, SummaryRun};
use bench_model::metric::{LATENCY, RESPONSE_TIME, SERVICE_TIME};
use bench_model::plan::RunManifest;
use serde_json::Value;

/// How percentiles are computed: nearest rank on the sorted samples, after trimming
/// `floor(n × trim)` samples from each end (spec §4.3).
pub(crate) const PERCENTILE_METHOD: &str = "nearest-rank";

/// What a run's numbers are.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The config declares `scoring`: upstream's summary rows.
    Scored {
        /// One row per participant over all its records, then one per group.
        results: Vec<SummaryRow>,
        /// The config's `scoring` object, as declared.
        scoring: Value,
    },
    /// No `scoring`: each participant's plain numbers.
    Unscored(Vec<ParticipantStats>),
}

/// A run's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The benchmark's slug.
    pub benchmark_slug: String,
    /// The benchmark's name.
    pub benchmark_name: String,
    /// The `run` object: git commit and ref, trigger, host.
    pub run: SummaryRun,
    /// The scores, or the plain numbers.
    pub verdict: Verdict,
    /// How the load went, when the run had a load model (bench's `executor`).
    pub load: Option<LoadSummary>,
}

impl Summary {
    /// Summarizes the tally of a run's records (made for this manifest) with the scoring,
    /// dimensions and display of its manifest. A scoring spec whose weights do not sum to 1
    /// is the only error.
    pub fn new(manifest: &RunManifest, tally: RunTally) -> Result<Self, ScoringSpecError> {
        let run_config = &manifest.run_config;
        let display = manifest.display.as_deref();
        let load = LoadSummary::of(manifest.load.as_ref(), &tally);
        let verdict = match tally.into_tallied(display) {
            Tallied::Scored(spec, samples) => Verdict::Scored {
                results: score(samples, &spec, display)?,
                scoring: run_config
                    .scoring
                    .as_ref()
                    .map(|scoring| scoring.declared().clone())
                    .unwrap_or_default(),
            },
            Tallied::Unscored(participants) => Verdict::Unscored(participants),
        };
        Ok(Self {
            benchmark_slug: run_config.benchmark_slug.clone(),
            benchmark_name: run_config.benchmark_name.clone(),
            run: origin::summary_run(manifest),
            verdict,
            load,
        })
    }

    /// Each participant's row over all its records (the first of its rows), when scored.
    pub(crate) fn overall_rows(&self) -> Vec<&SummaryRow> {
        let Verdict::Scored { results, .. } = &self.verdict else {
            return Vec::new();
        };
        let mut rows: Vec<&SummaryRow> = Vec::new();
        for row in results {
            if rows.last().is_none_or(|last| last.provider != row.provider) {
                rows.push(row);
            }
        }
        rows
    }

    /// Every participant's medians in milliseconds (over all its records): participant,
    /// metric, median, and whether the metric times the whole task.
    pub(crate) fn millisecond_medians(&self) -> Vec<(&str, &str, f64, bool)> {
        let task_level = |name: &str| [LATENCY, RESPONSE_TIME, SERVICE_TIME].contains(&name);
        match &self.verdict {
            Verdict::Scored { .. } => self
                .overall_rows()
                .into_iter()
                .flat_map(|row| {
                    row.metrics
                        .iter()
                        .filter(|metric| metric.unit == "ms")
                        .map(|metric| {
                            let name = metric.name.as_str();
                            (row.provider.as_str(), name, metric.median, task_level(name))
                        })
                })
                .collect(),
            Verdict::Unscored(participants) => participants
                .iter()
                .flat_map(|participant| {
                    participant
                        .metrics
                        .iter()
                        .filter(|metric| metric.unit == "ms" && metric.samples > 0)
                        .map(|metric| {
                            let name = metric.name.as_str();
                            let at = participant.participant.as_str();
                            (at, name, metric.stats.median, task_level(name))
                        })
                })
                .collect(),
        }
    }

    /// The participants, in summary order.
    pub(crate) fn participant_names(&self) -> Vec<&str> {
        match &self.verdict {
            Verdict::Scored { .. } => self
                .overall_rows()
                .into_iter()
                .map(|row| row.provider.as_str())
                .collect(),
            Verdict::Unscored(participants) => participants
                .iter()
                .map(|participant| participant.participant.as_str())
                .collect(),
        }
    }

    /// The `summary.json` document.
    pub fn to_document(&self) -> SummaryDocument {
        let (results, scoring, participants) = match &self.verdict {
            Verdict::Scored { results, scoring } => {
                (Some(results.clone()), Some(scoring.clone()), None)
            }
            Verdict::Unscored(participants) => {
                let numbers = participants.iter().map(ParticipantStats::to_numbers);
                (None, None, Some(numbers.collect()))
            }
        };
        SummaryDocument {
            run: self.run.clone(),
            results,
            scoring,
            participants,
            percentile_method: PERCENTILE_METHOD.into(),
            load: self.load.as_ref().map(LoadSummary::to_section),
            // A stopped run says so at the top too, not only in the `run` object it sends.
            interrupted: self.run.interrupted,
        }
    }

    /// The `summary.json` object.
    pub(crate) fn to_json(&self) -> Value {
        serde_json::to_value(self.to_document()).expect("a summary serializes")
    }

    /// The text of `summary.json`: pretty-printed with a final newline.
    pub(crate) fn to_json_text(&self) -> String {
        self.to_document().to_json_text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::plan::test_manifest;
    use bench_model::record::{Status, TaskRecord};
    use serde_json::json;

    fn record(index: u32, status: Status, data: Value) -> TaskRecord {
        TaskRecord {
            task_index: index,
            status,
            started_at: String::new(),
            error_code: None,
            data: data.as_object().cloned(),
            completed_at: String::new(),
            latency_ms: 5.0,
            duration_us: None,
            guest_cpu_us: None,
            steps: vec![],
            arrival: None,
        }
    }

    fn manifest(scoring: Option<Value>) -> RunManifest {
        let mut run = json!({
            "benchmarkSlug": "s3",
            "benchmarkName": "S3 uploads",
            "dimensions": {"region": "eu"},
            "participants": ["aws-s3", "r2"],
            "origin": {"triggeredBy": "manual"},
            "host": {"benchVersion": "0.1.0", "wasmtimeVersion": "48.0.8", "os": "linux", "arch": "x86_64"},
        });
        if let Some(scoring) = scoring {
            run["scoring"] = scoring;
        }
        test_manifest(run)
    }

    /// The tally of a few records of `manifest`'s run, arriving out of task order.
    fn tally(manifest: &RunManifest) -> RunTally {
        let mut tally = RunTally::new(manifest);
        tally.add("r2", &record(0, Status::Error, json!({})));
        tally.add(
            "aws-s3",
            &record(1, Status::Success, json!({"size": "4MB", "uploadMs": 400})),
        );
        tally.add(
            "aws-s3",
            &record(0, Status::Success, json!({"size": "1MB", "uploadMs": 100})),
        );
        tally
    }

    #[test]
    fn scored_summary_is_the_upstream_shape_plus_the_percentile_method() {
        let scoring = json!({"groupBy": "size", "metrics": [
            {"key": "uploadMs", "unit": "ms", "ceiling": 1000, "weights": {"median": 1, "p95": 0, "p99": 0}}
        ]});
        let manifest = manifest(Some(scoring.clone()));
        let summary = Summary::new(&manifest, tally(&manifest)).unwrap();
        let json = summary.to_json();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["run", "results", "scoring", "percentileMethod"]);
        assert_eq!(json["scoring"], scoring);
        assert_eq!(json["percentileMethod"], "nearest-rank");
        assert_eq!(json["run"]["platform"], "linux");
        assert_eq!(
            json["results"][0].to_string(),
            r#"{"provider":"aws-s3","dimensions":{"region":"eu"},"metrics":[{"name":"uploadMs","unit":"ms","median":250,"p95":400,"p99":400}],"compositeScore":75,"successRate":1,"skipped":false}"#
        );
        // aws-s3: all, 1MB, 4MB (task order); r2: all (its only record has no size: one more row).
        let rows: Vec<(&str, &Value)> = json["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| (row["provider"].as_str().unwrap(), &row["dimensions"]))
            .collect();
        let eu = json!({"region": "eu"});
        let sized = |size| json!({"region": "eu", "size": size});
        assert_eq!(
            rows,
            [
                ("aws-s3", &eu),
                ("aws-s3", &sized("1MB")),
                ("aws-s3", &sized("4MB")),
                ("r2", &eu),
                ("r2", &eu)
            ]
        );
        let overall: Vec<(&str, f64)> = summary
            .overall_rows()
            .iter()
            .map(|row| (row.provider.as_str(), row.composite_score))
            .collect();
        assert_eq!(overall, [("aws-s3", 75.0), ("r2", 0.0)]);
        assert!(summary.to_json_text().ends_with("}\n"));
    }

    #[test]
    fn unscored_summary_lists_participants() {
        let manifest = manifest(None);
        let summary = Summary::new(&manifest, tally(&manifest)).unwrap();
        let json = summary.to_json();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["run", "participants", "percentileMethod"]);
        assert_eq!(json["participants"][1]["participant"], "r2");
        assert_eq!(json["participants"][1]["successRate"], 0);
        assert!(summary.overall_rows().is_empty());
    }

    #[test]
    fn a_stopped_run_is_marked_at_the_top_and_in_its_run_object() {
        let mut manifest = manifest(None);
        manifest.interrupted = true;
        let json = Summary::new(&manifest, tally(&manifest)).unwrap().to_json();
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["run", "participants", "percentileMethod", "interrupted"]
        );
        assert_eq!(json["interrupted"], true);
        assert_eq!(json["run"]["interrupted"], true);
    }

    #[test]
    fn a_spec_whose_weights_do_not_sum_to_one_is_an_error() {
        let scoring = json!({"metrics": [
            {"key": "ttiMs", "ceiling": 1000, "weights": {"median": 0.5, "p95": 0.2, "p99": 0.1}}
        ]});
        let manifest = manifest(Some(scoring));
        let error = Summary::new(&manifest, tally(&manifest)).unwrap_err();
        assert!(error
            .to_string()
            .starts_with("Scoring spec weights sum to 0.800, expected 1.0 (±0.01)."));
    }

    #[test]
    fn a_written_summary_reads_back_as_the_same_document_and_bytes() {
        let scoring = json!({"metrics": [
            {"key": "uploadMs", "unit": "ms", "ceiling": 1000, "weights": {"median": 1, "p95": 0, "p99": 0}}
        ]});
        let mut stopped = manifest(None);
        stopped.interrupted = true;
        for manifest in [manifest(Some(scoring)), manifest(None), stopped] {
            let summary = Summary::new(&manifest, tally(&manifest)).unwrap();
            let text = summary.to_json_text();
            let document = SummaryDocument::from_json_text(&text).unwrap();
            assert_eq!(document, summary.to_document());
            assert_eq!(document.to_json_text(), text);
        }
    }
}
