//! `summary.json` as a type: what [`Summary`](crate::summary::Summary) writes and what a
//! reader (the dashboard, a saved run) reads back, key for key. Field order is the file's
//! key order; numbers are written as JavaScript prints them (`75`, not `75.0`; `null` for
//! a non-finite value, read back as NaN). Parts a file may lack (older runs, unscored or
//! closed-model runs) are optional, so every summary bench has written still reads.

use crate::scoring::SummaryRow;
use bench_model::js;
use bench_model::plan::Origin;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `summary.json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryDocument {
    /// Where and how the run ran: git, trigger, host.
    pub run: SummaryRun,
    /// Upstream's summary rows, when the config declares `scoring`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<Vec<SummaryRow>>,
    /// The config's `scoring` object as declared, beside its rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<Value>,
    /// Each participant's plain numbers, when the config declares no `scoring`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participants: Option<Vec<ParticipantNumbers>>,
    /// How percentiles were computed (`nearest-rank`).
    #[serde(default)]
    pub percentile_method: String,
    /// How the load went, when the run had a load model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<LoadSection>,
    /// True when the run was stopped before its schedule ended (absent otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// The `run` object: the run's origin, then the host in Node.js's spelling.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryRun {
    /// Git commit and ref, and what triggered the run.
    #[serde(flatten)]
    pub origin: Origin,
    /// The bench that ran it.
    #[serde(default)]
    pub bench_version: String,
    /// The wasmtime inside that bench.
    #[serde(default)]
    pub wasmtime_version: String,
    /// Node.js's `process.platform` of the host (`linux`, `darwin`…).
    #[serde(default)]
    pub platform: String,
    /// Node.js's `process.arch` of the host (`x64`, `arm64`…).
    #[serde(default)]
    pub arch: String,
    /// Present (true) only when the run was stopped before its schedule ended.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// One participant's plain numbers in an unscored summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantNumbers {
    /// Participant name.
    pub participant: String,
    /// Records.
    pub tasks: usize,
    /// Successful records.
    pub succeeded: usize,
    /// Successful records / records (0 without records).
    #[serde(with = "js::number_serde")]
    pub success_rate: f64,
    /// Task latency first, then task-level measures, then step measures.
    pub metrics: Vec<MetricNumbers>,
}

/// The statistics of one metric's samples in an unscored summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricNumbers {
    /// `latencyMs`, a record data key, or `<step>.<key>`.
    pub name: String,
    /// `ms` for latency, else the declared unit (or `""`).
    pub unit: String,
    /// How many samples there were.
    pub samples: usize,
    /// Median of the (trimmed) samples.
    #[serde(with = "js::number_serde")]
    pub median: f64,
    /// Nearest-rank 95th percentile.
    #[serde(with = "js::number_serde")]
    pub p95: f64,
    /// Nearest-rank 99th percentile.
    #[serde(with = "js::number_serde")]
    pub p99: f64,
}

/// The `load` section: the executor and each participant's tasks and rates.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadSection {
    /// The executor's config name.
    pub executor: String,
    /// The planned duration of each participant's load, in milliseconds.
    #[serde(with = "js::number_serde")]
    pub duration_ms: f64,
    /// The metric that times a task: `responseTimeMs` (open models) or `latencyMs`.
    pub latency_metric: String,
    /// One entry per participant, in summary order.
    pub participants: Vec<ParticipantLoadNumbers>,
}

/// One participant's load figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantLoadNumbers {
    /// The participant.
    pub participant: String,
    /// Tasks that started.
    pub started: u64,
    /// Tasks per second started, over the planned duration (2 decimals).
    #[serde(with = "js::number_serde")]
    pub achieved_rate: f64,
    /// Tasks due on the arrival schedule (open models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intended: Option<u64>,
    /// Arrivals dropped for want of a free sandbox (open models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<u64>,
    /// Tasks per second due (open models).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_number"
    )]
    pub intended_rate: Option<f64>,
    /// How late the started tasks started, in milliseconds (open models with records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_lag_ms: Option<StartLagNumbers>,
    /// Tasks that started more than 10 ms late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_starts: Option<u64>,
}

/// Start lag percentiles, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StartLagNumbers {
    /// The median start lag.
    #[serde(with = "js::number_serde")]
    pub p50: f64,
    /// The 99th percentile (nearest rank).
    #[serde(with = "js::number_serde")]
    pub p99: f64,
    /// The largest start lag.
    #[serde(with = "js::number_serde")]
    pub max: f64,
}

/// [`js::number_serde`] for an optional number.
mod optional_number {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<S: Serializer>(
        x: &Option<f64>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        x.map(bench_model::js::number).serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<f64>, D::Error> {
        Option::<f64>::deserialize(deserializer)
    }
}

impl SummaryRun {
    /// The `run` object of a summary stored by another client: the parts bench knows, each
    /// absent one left empty (`manual` for the trigger); an object whose known parts have the
    /// wrong types reads as a manual run of unknown origin.
    pub fn from_stored(run: &Value) -> Self {
        Self::deserialize(run).unwrap_or_default()
    }
}

impl SummaryDocument {
    /// Reads a `summary.json` text.
    pub fn from_json_text(text: &str) -> serde_json::Result<Self> {
        serde_json::from_str(text)
    }

    /// The text of `summary.json`: pretty-printed with a final newline.
    pub fn to_json_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a summary serializes");
        text.push('\n');
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_summary_without_the_optional_parts_reads() {
        let text = r#"{"run": {"triggeredBy": "push", "gitSha": "abc"}, "participants": []}"#;
        let document = SummaryDocument::from_json_text(text).unwrap();
        assert_eq!(document.run.origin.git_sha.as_deref(), Some("abc"));
        assert_eq!(document.run.bench_version, "");
        assert_eq!(document.participants, Some(vec![]));
        assert_eq!((document.results, document.load), (None, None));
        assert!(!document.interrupted);
    }

    #[test]
    fn a_number_that_was_not_finite_is_written_null_and_read_as_nan() {
        let metric = MetricNumbers {
            name: "uploadMs".into(),
            unit: "ms".into(),
            samples: 0,
            median: f64::NAN,
            p95: 2.0,
            p99: 2.5,
        };
        let text = serde_json::to_string(&metric).unwrap();
        assert_eq!(
            text,
            r#"{"name":"uploadMs","unit":"ms","samples":0,"median":null,"p95":2,"p99":2.5}"#
        );
        let read: MetricNumbers = serde_json::from_str(&text).unwrap();
        assert!(read.median.is_nan());
        assert_eq!((read.p95, read.p99), (2.0, 2.5));
    }

    #[test]
    fn a_stored_run_object_reads_what_it_has_and_defaults_the_rest() {
        let run = SummaryRun::from_stored(&json!({
            "gitRef": "main", "platform": "linux", "nodeVersion": "v20.0.0"
        }));
        assert_eq!(run.origin.git_ref.as_deref(), Some("main"));
        assert_eq!(run.origin.triggered_by, "manual");
        assert_eq!(run.platform, "linux");
        let wrong = SummaryRun::from_stored(&json!({"gitSha": 7, "platform": "linux"}));
        assert_eq!(wrong, SummaryRun::default());
        assert_eq!(SummaryRun::from_stored(&Value::Null), SummaryRun::default());
    }
}
