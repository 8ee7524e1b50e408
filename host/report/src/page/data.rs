//! The data a run page's script (`page.js`) draws, as types: what [`RunPage::finish`]
//! gives, key for key in the order the page receives them.
//!
//! [`RunPage::finish`]: super::RunPage::finish

use super::{LogTail, RunHeader};
use serde::Serialize;
use serde_json::Value;

/// Everything a run page shows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PageData<'a> {
    /// Who ran, when, at which commit, with which knobs.
    pub header: &'a RunHeader,
    /// What `summary.json` holds (`{}` for a stored run without a summary).
    pub summary: &'a Value,
    /// The participants, in the order they were first named.
    pub participants: Vec<String>,
    /// Records, and the successful ones among them.
    pub tasks: TaskCounts,
    /// One entry per metric that has samples, latency first.
    pub distributions: Vec<MetricDistribution>,
    /// The mean latency of each step name, per participant.
    pub steps: StepMeans,
    /// Metric and step names beyond the page's caps, counted.
    pub names_left_out: u64,
    /// When each task ran (an even sample of them beyond the cap).
    pub timeline: Timeline,
    /// The failures grouped by `errorCode`.
    pub failures: FailureGroups,
    /// The system metrics' points, when the run sampled any.
    pub system: Option<Value>,
    /// The end of each participant log.
    pub logs: &'a [LogTail],
}

/// Records, and the successful ones among them.
#[derive(Debug, Serialize)]
pub struct TaskCounts {
    /// Records.
    pub total: u64,
    /// Successful records.
    pub succeeded: u64,
}

/// One metric's distribution for every participant.
#[derive(Debug, Serialize)]
pub struct MetricDistribution {
    /// The metric's name.
    pub metric: String,
    /// One entry per participant, in page order.
    pub participants: Vec<Distribution>,
}

/// One participant's samples of a metric.
#[derive(Debug, Serialize)]
pub struct Distribution {
    /// The participant.
    pub participant: String,
    /// Samples seen.
    pub count: u64,
    /// Whether the five numbers are of an even sample of them.
    pub sampled: bool,
    /// Minimum, quartiles and maximum (3 decimals), without samples `null`.
    #[serde(rename = "box")]
    pub five_numbers: Option<[f64; 5]>,
}

/// The per-step breakdown.
#[derive(Debug, Serialize)]
pub struct StepMeans {
    /// The step names, in order of first appearance.
    pub names: Vec<String>,
    /// One entry per participant.
    pub participants: Vec<ParticipantSteps>,
}

/// One participant's step means.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantSteps {
    /// The participant.
    pub participant: String,
    /// Per step name, the mean latency in milliseconds (3 decimals), `null` without steps.
    pub mean_ms: Vec<Option<f64>>,
    /// Per step name, how many steps had a latency.
    pub counts: Vec<u64>,
}

/// The tasks on the timeline.
#[derive(Debug, Serialize)]
pub struct Timeline {
    /// Tasks with a start and an end.
    pub total: u64,
    /// Whether `tasks` is an even sample of them.
    pub sampled: bool,
    /// Per participant, how many lanes its tasks took (how many ran at once).
    pub lanes: Vec<usize>,
    /// `[participant, lane, taskIndex, startMs, endMs, ok]`, times from the first start.
    pub tasks: Vec<(usize, usize, u32, f64, f64, bool)>,
}

/// The failures grouped by `errorCode`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureGroups {
    /// The most frequent codes first.
    pub groups: Vec<FailureCode>,
    /// Failures whose code came after the page's cap of codes.
    pub other_codes: u64,
}

/// The failures of one `errorCode`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureCode {
    /// The code.
    pub error_code: String,
    /// How many records failed with it.
    pub count: u64,
    /// A few different messages.
    pub examples: Vec<String>,
}
