//! The bodies the API exchanges (spec §6.2, §6.3): requests, which the client sends and the
//! server reads, and answers, which the server writes and the client reads. Field order is
//! the wire's key order. Open-ended JSON (a run's config, task records, summary rows,
//! artifact metadata) stays a [`Value`]. Answers the client reads are read leniently
//! (`#[serde(default)]`): the hosted platform may leave out fields this crate's server
//! writes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

/// `upsertBenchmark`: `{ name, config? }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpsertBenchmark {
    /// Display name.
    pub name: String,
    /// What the dashboard needs of the configuration; absent when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<BenchmarkConfig>,
}

/// The configuration a benchmark keeps on the platform: `{ scoring?, display? }`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchmarkConfig {
    /// The scoring section of the benchmark's config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<Value>,
    /// The display section of the benchmark's config.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<Value>,
}

impl BenchmarkConfig {
    /// Whether it has neither section.
    pub fn is_empty(&self) -> bool {
        self.scoring.is_none() && self.display.is_none()
    }
}

/// `createRun`: `{ totalTasks, workerCount, participants, config }` for a run of its own,
/// `{ runKey, config }` for a run shared by the invocations that name the same key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateRun {
    /// The key of a shared run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_key: Option<String>,
    /// Tasks per participant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tasks: Option<u64>,
    /// Workers per participant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_count: Option<u64>,
    /// Participant names, registered with the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participants: Option<Vec<String>>,
    /// The run's configuration (upstream's `runConfig`).
    #[serde(default)]
    pub config: Value,
}

impl CreateRun {
    /// A run of its own: one worker per participant, each with `total_tasks` tasks.
    pub fn own(total_tasks: u64, participants: Vec<String>, config: Value) -> Self {
        Self {
            run_key: None,
            total_tasks: Some(total_tasks),
            worker_count: Some(1),
            participants: Some(participants),
            config,
        }
    }

    /// The run shared by every invocation that names `run_key`.
    pub fn shared(run_key: &str, config: Value) -> Self {
        Self {
            run_key: Some(run_key.to_owned()),
            total_tasks: None,
            worker_count: None,
            participants: None,
            config,
        }
    }
}

/// `upsertParticipant` (shared runs): `{ totalTasks }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct UpsertParticipant {
    /// The participant's schedule length.
    pub total_tasks: u64,
}

/// `planWorkers`: `{}` in participant mode, `{ workerCount: 1, targetConcurrency }` in
/// round mode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PlanWorkers {
    /// How many workers split the participant's tasks (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_count: Option<u64>,
    /// How many tasks a worker runs at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_concurrency: Option<u64>,
}

/// `claimWorker`: `{}` in participant mode, `{ processKind, processKey }` in round mode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClaimWorker {
    /// What kind of process claims (`process`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_kind: Option<String>,
    /// Which process claims (its host name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_key: Option<String>,
}

/// `heartbeat`: `{ attemptId, progressDone, progressInFlight, progressErrors, progressTotal }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Heartbeat {
    /// The worker's current attempt.
    pub attempt_id: String,
    /// How far it got.
    #[serde(flatten)]
    pub progress: Progress,
}

/// A worker's progress counters, as a heartbeat sends them and a worker shows them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Progress {
    /// Tasks done.
    pub progress_done: u64,
    /// Tasks running.
    pub progress_in_flight: u64,
    /// Tasks done that did not succeed.
    pub progress_errors: u64,
    /// Tasks in the worker's range.
    pub progress_total: u64,
}

/// `sendTaskResults`: `{ type: "task_results", attemptId, sequenceNumber, isFinal, records }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskResults {
    /// What the batch holds.
    #[serde(rename = "type")]
    pub kind: EventKind,
    /// The worker's current attempt.
    pub attempt_id: String,
    /// The batch's number within the attempt, from 0; a repeat is acknowledged, not stored.
    pub sequence_number: u64,
    /// Whether it is the attempt's last batch.
    pub is_final: bool,
    /// Task records (spec §2.6), `taskIndex` in the worker's global range.
    pub records: Vec<Value>,
}

impl TaskResults {
    /// The wire text of this batch with `records_json` (records as JSON, separated by
    /// commas) as its records, in the key order serializing it gives; its own `records` are
    /// left out.
    pub(crate) fn encode_with(&self, records_json: &[u8]) -> Vec<u8> {
        let header = TaskResults {
            records: Vec::new(),
            ..self.clone()
        };
        let mut text = serde_json::to_vec(&header).expect("a batch header serializes");
        debug_assert!(text.ends_with(b"[]}"));
        text.truncate(text.len() - 2);
        text.extend_from_slice(records_json);
        text.extend_from_slice(b"]}");
        text
    }
}

/// What a batch of worker events holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum EventKind {
    /// Task records.
    #[default]
    #[serde(rename = "task_results")]
    TaskResults,
}

/// `createWorkerArtifact`: `{ attemptId, kind, contentType?, name?, metadata? }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateArtifact {
    /// The worker's current attempt.
    pub attempt_id: String,
    /// `coordinator.log`, `system-metrics`…
    pub kind: String,
    /// The body's media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// A file name for the body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free-form labels; the client adds `sizeBytes` last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// How a worker ends: the last segment of its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorkerOutcome {
    /// `complete`: every task ran and succeeded.
    Complete,
    /// `fail`: a task failed or the worker gave up.
    Fail,
    /// `release`: the worker gives its range back to be claimed again.
    Release,
}

impl WorkerOutcome {
    /// The path template of this outcome.
    pub(crate) fn path(self) -> &'static str {
        match self {
            WorkerOutcome::Complete => super::paths::WORKER_COMPLETE,
            WorkerOutcome::Fail => super::paths::WORKER_FAIL,
            WorkerOutcome::Release => super::paths::WORKER_RELEASE,
        }
    }
}

/// The body of `complete`, `fail` and `release`: `{ attemptId, errorCode?, errorMessage? }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FinishWorker {
    /// The worker's current attempt.
    pub attempt_id: String,
    /// Why it failed, as a code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    /// Why it failed, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

/// `submitRunSummary`: `{ run, results, scoring? }`, from the run's `summary.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    /// Where and how the run ran (git, trigger, host).
    #[serde(default)]
    pub run: Value,
    /// One scored row per participant.
    pub results: Vec<Value>,
    /// The scoring that produced the rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scoring: Option<Value>,
    /// bench's load section (runs with an `executor`): started, intended and dropped tasks,
    /// achieved and intended rate per participant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<Value>,
}

/// The query of a paged list: `?limit&offset`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Page {
    /// Most items to answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Items to skip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
}

/// The query of a run's iterations: `?type=tasks|steps&participant=&cursor=&limit=`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct IterationsQuery {
    /// Which records (default `tasks`).
    #[serde(rename = "type", default)]
    pub kind: IterationKind,
    /// Only this participant's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participant: Option<String>,
    /// Where the page starts: the `nextCursor` of the page before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Items per page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// What a run's iterations are listed as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum IterationKind {
    /// One item per task record.
    #[default]
    Tasks,
    /// One item per step of a task record.
    Steps,
}

// ---------------------------------------------------------------------------------------
// Answers
// ---------------------------------------------------------------------------------------

/// Every refusal: `{ error: { code, message } }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ErrorAnswer {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// The `error` of an [`ErrorAnswer`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ErrorDetail {
    /// Machine-readable: `not_found`, `unauthorized`, `bad_request`, `conflict`, `internal`.
    pub code: String,
    /// For people.
    pub message: String,
}

/// A page of a long list: `{ items, nextCursor }`, without `nextCursor` on the last page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CursorPage<T> {
    /// The items, in the list's order.
    pub items: Vec<T>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A list: `{ items }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Items<T> {
    /// The items, in the list's order.
    pub items: Vec<T>,
}

/// `{ ok: true }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Acknowledged {
    /// Always true.
    pub ok: bool,
}

/// `GET /me`; the client reads the user and organizations as they came (`Me<Value, Value>`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Me<U = User, O = Organization> {
    /// Who calls.
    pub user: U,
    /// The organization calls act on.
    pub active_organization: O,
    /// Every organization the caller may act on.
    pub organizations: Vec<O>,
}

/// A caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct User {
    /// Id.
    pub id: String,
    /// Display name.
    pub name: String,
}

/// An organization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Organization {
    /// Id.
    pub id: String,
    /// Slug, used in dashboard URLs.
    pub slug: String,
    /// Display name.
    pub name: String,
}

/// `{ benchmark }`; the client reads the benchmark as it came (`BenchmarkAnswer<Value>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct BenchmarkAnswer<B = Benchmark> {
    /// The benchmark.
    pub benchmark: B,
}

/// A benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Benchmark {
    /// Slug.
    pub slug: String,
    /// Display name.
    pub name: String,
    /// Its [`BenchmarkConfig`], or null.
    pub config: Value,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When it was last upserted (ISO 8601).
    pub updated_at: String,
}

/// `{ run }`; the client reads the run as it came (`RunAnswer<Value>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunAnswer<R = Run> {
    /// The run.
    pub run: R,
}

/// A run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Run {
    /// Id.
    pub id: String,
    /// Its benchmark.
    pub benchmark_slug: String,
    /// Display name (`<benchmark name> #<n>`).
    pub name: Option<String>,
    /// The key of a shared run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_key: Option<String>,
    /// Tasks per participant, when the run was created with them.
    pub total_tasks: Option<u64>,
    /// Workers per participant, when the run was created with them.
    pub worker_count: Option<u64>,
    /// The configuration it was created with.
    pub config: Value,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// Derived from its workers.
    pub status: RunStatus,
    /// Tasks its participants planned in all.
    pub planned_tasks: u64,
    /// Task records the platform holds for it.
    pub recorded_tasks: u64,
}

/// Where a run stands, derived from its workers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RunStatus {
    /// No worker was claimed yet.
    #[default]
    Pending,
    /// A worker is claimed or still pending.
    Running,
    /// Every worker completed.
    Completed,
    /// Every worker ended, and one failed.
    Failed,
    /// Every worker ended, tasks are missing, and a worker says its run was interrupted.
    Interrupted,
    /// Every worker ended and tasks are missing.
    Partial,
    /// A status this crate's server does not give (the hosted platform has more).
    #[serde(other)]
    Other,
}

/// `createRun`'s answer: `{ run, participants, organizationSlug }`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct CreateRunAnswer {
    /// The run (the existing one, for a known `runKey`).
    pub run: Run,
    /// Its participants.
    pub participants: Vec<Participant>,
    /// The organization, for the dashboard URL.
    pub organization_slug: Option<String>,
}

/// A participant of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Participant {
    /// Name.
    pub name: String,
    /// Its schedule length.
    pub total_tasks: u64,
    /// When it was registered (ISO 8601).
    pub created_at: String,
}

/// `upsertParticipant`'s answer: `{ participant }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ParticipantAnswer {
    /// The participant as stored.
    pub participant: Participant,
}

/// A worker: one participant's range of tasks, claimed by one attempt at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Worker {
    /// Id.
    pub id: String,
    /// Its run.
    pub run_id: String,
    /// Its participant.
    pub participant: String,
    /// Its tasks.
    pub task_range: TaskRange,
    /// How many tasks it runs at once, when planned with it.
    pub target_concurrency: Option<u64>,
    /// Where it stands.
    pub status: WorkerStatus,
    /// The current attempt, while claimed.
    pub attempt_id: Option<String>,
    /// The last heartbeat's counters, or null.
    pub progress: Option<Progress>,
    /// Why it failed, as a code.
    pub error_code: Option<String>,
    /// Why it failed, in words.
    pub error_message: Option<String>,
    /// When it last changed (ISO 8601).
    pub updated_at: String,
}

/// Where a worker stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum WorkerStatus {
    /// Waiting for a claim.
    Pending,
    /// Claimed by an attempt.
    Running,
    /// Its attempt completed.
    Completed,
    /// Its attempt failed.
    Failed,
}

/// Platform task indexes `start..end`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct TaskRange {
    /// First index.
    pub start: u64,
    /// One past the last index.
    pub end: u64,
    /// `end - start`.
    pub count: u64,
}

/// `claimWorker`'s answer: `{ assignment }`, null when every worker is taken.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ClaimAnswer {
    /// The claimed worker.
    pub assignment: Option<WorkerAssignment>,
}

/// A claimed worker. This crate's server names the worker and attempt with `workerId` and
/// `attemptId`; the hosted platform nests them (`worker.id`, `attempt.id`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct WorkerAssignment {
    /// The claimed worker.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_id: Option<String>,
    /// The claim's attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt_id: Option<String>,
    /// The claimed worker, nested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<Reference>,
    /// The claim's attempt, nested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempt: Option<Reference>,
    /// The worker's participant.
    pub participant: String,
    /// The worker's tasks.
    pub task_range: TaskRange,
    /// How many tasks it runs at once, when planned with it.
    pub target_concurrency: Option<u64>,
}

impl WorkerAssignment {
    /// The worker's id, however the platform named it.
    pub(crate) fn worker_id(&self) -> Option<&str> {
        self.worker_id
            .as_deref()
            .or(self.worker.as_ref().map(|worker| worker.id.as_str()))
    }

    /// The attempt's id, however the platform named it.
    pub(crate) fn attempt_id(&self) -> Option<&str> {
        self.attempt_id
            .as_deref()
            .or(self.attempt.as_ref().map(|attempt| attempt.id.as_str()))
    }
}

/// `{ id }` of a nested object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Reference {
    /// Id.
    pub id: String,
}

/// `{ worker }`, the answer of a heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct WorkerAnswer {
    /// The worker as stored.
    pub worker: Worker,
}

/// The answer of `complete`, `fail` and `release`: `{ worker, attempt }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FinishWorkerAnswer {
    /// The worker as stored.
    pub worker: Worker,
    /// The attempt that ended.
    pub attempt: Attempt,
}

/// An attempt and where it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Attempt {
    /// Id.
    pub id: String,
    /// The worker's status it left.
    pub status: WorkerStatus,
}

/// `sendTaskResults`' answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct TaskResultsAnswer {
    /// Records stored (0 for a repeat).
    pub accepted: usize,
    /// The stored batch.
    pub event_batch_id: String,
    /// Whether storing was deferred.
    pub queued: bool,
    /// Whether the batch was a repeat.
    pub duplicate: bool,
}

/// An artifact of a worker.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct Artifact {
    /// Id.
    pub id: String,
    /// Its worker.
    pub worker_id: String,
    /// `coordinator.log`, `system-metrics`…
    pub kind: String,
    /// Its file name.
    pub name: Option<String>,
    /// Its body's media type.
    pub content_type: Option<String>,
    /// Its labels, or null.
    pub metadata: Value,
    /// Its body's size, once uploaded.
    pub size_bytes: Option<u64>,
    /// When it was created (ISO 8601).
    pub created_at: String,
    /// When its body was uploaded (ISO 8601).
    pub uploaded_at: Option<String>,
    /// Where to upload its body (the hosted platform answers it here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_url: Option<String>,
}

/// `createWorkerArtifact`'s answer: `{ artifactId, uploadUrl, artifact }`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct CreateArtifactAnswer {
    /// The artifact's id.
    pub artifact_id: Option<String>,
    /// Where to `PUT` its body.
    pub upload_url: Option<String>,
    /// The artifact.
    pub artifact: Artifact,
}

impl CreateArtifactAnswer {
    /// Where to `PUT` the body, wherever the platform put it.
    pub(crate) fn upload_url(&self) -> Option<&str> {
        self.upload_url
            .as_deref()
            .or(self.artifact.upload_url.as_deref())
    }
}

/// An artifact and where to download its body: `{ artifact, downloadUrl }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ArtifactAnswer {
    /// The artifact.
    pub artifact: Artifact,
    /// Where to `GET` its body.
    pub download_url: String,
}

/// A run's results: `{ run, summary, results, scoring, tasks }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunResults {
    /// The run.
    pub run: Run,
    /// The `run` of its submitted summary, or null.
    pub summary: Value,
    /// The scored rows of its submitted summary (empty without one).
    pub results: Vec<Value>,
    /// The scoring of its submitted summary, or null.
    pub scoring: Value,
    /// Task counts per participant.
    pub tasks: Vec<TaskCounts>,
}

/// How many tasks of a participant the platform holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TaskCounts {
    /// The participant.
    pub participant: String,
    /// Records stored.
    pub tasks: u64,
    /// Of which succeeded.
    pub succeeded: u64,
}

/// A scored run among a benchmark's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BenchmarkResult {
    /// The run.
    pub run_id: String,
    /// Its name.
    pub run_name: String,
    /// Its summary's scored rows.
    pub results: Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(body: &impl Serialize) -> String {
        serde_json::to_string(body).unwrap()
    }

    #[test]
    fn requests_keep_the_upstream_key_order() {
        assert_eq!(
            wire(&CreateRun::own(3, vec!["a".into()], json!({"x": 1}))),
            r#"{"totalTasks":3,"workerCount":1,"participants":["a"],"config":{"x":1}}"#
        );
        assert_eq!(
            wire(&CreateRun::shared("ci-1", json!({}))),
            r#"{"runKey":"ci-1","config":{}}"#
        );
        assert_eq!(wire(&PlanWorkers::default()), "{}");
        assert_eq!(wire(&ClaimWorker::default()), "{}");
        let heartbeat = Heartbeat {
            attempt_id: "a".into(),
            progress: Progress {
                progress_done: 1,
                progress_in_flight: 0,
                progress_errors: 0,
                progress_total: 2,
            },
        };
        assert_eq!(
            wire(&heartbeat),
            r#"{"attemptId":"a","progressDone":1,"progressInFlight":0,"progressErrors":0,"progressTotal":2}"#
        );
        let batch = TaskResults {
            kind: EventKind::TaskResults,
            attempt_id: "a".into(),
            sequence_number: 0,
            is_final: true,
            records: vec![json!({"taskIndex": 0})],
        };
        assert_eq!(
            wire(&batch),
            r#"{"type":"task_results","attemptId":"a","sequenceNumber":0,"isFinal":true,"records":[{"taskIndex":0}]}"#
        );
        let finish = FinishWorker {
            attempt_id: "a".into(),
            error_code: None,
            error_message: None,
        };
        assert_eq!(wire(&finish), r#"{"attemptId":"a"}"#);
    }

    #[test]
    fn a_batch_encoded_with_records_text_is_the_serialized_batch() {
        let records = vec![
            json!({"taskIndex": 0, "status": "success"}),
            json!({"taskIndex": 1}),
        ];
        let batch = TaskResults {
            kind: EventKind::TaskResults,
            attempt_id: "a\"1".into(),
            sequence_number: 3,
            is_final: false,
            records: records.clone(),
        };
        let records_json = format!("{},{}", records[0], records[1]);
        assert_eq!(
            String::from_utf8(batch.encode_with(records_json.as_bytes())).unwrap(),
            wire(&batch)
        );
    }

    #[test]
    fn a_batch_of_another_type_is_not_task_results() {
        let batch = |kind: &str| {
            let text = format!(
                r#"{{{kind}"attemptId":"a","sequenceNumber":0,"isFinal":true,"records":[]}}"#
            );
            serde_json::from_str::<TaskResults>(&text).map(|batch| batch.kind)
        };
        assert_eq!(
            batch(r#""type":"task_results","#).unwrap(),
            EventKind::TaskResults
        );
        assert!(batch(r#""type":"logs","#).is_err());
        assert!(batch("").is_err());
    }

    #[test]
    fn answers_of_the_hosted_platform_are_read_leniently() {
        let claim: ClaimAnswer = serde_json::from_value(json!({"assignment": {
            "worker": {"id": "w1", "status": "running"},
            "attempt": {"id": "a1"},
            "taskRange": {"start": 4}
        }}))
        .unwrap();
        let assignment = claim.assignment.unwrap();
        assert_eq!(assignment.worker_id(), Some("w1"));
        assert_eq!(assignment.attempt_id(), Some("a1"));
        assert_eq!(assignment.task_range.start, 4);
        let none: ClaimAnswer = serde_json::from_value(json!({"assignment": null})).unwrap();
        assert_eq!(none.assignment, None);

        let created: CreateRunAnswer =
            serde_json::from_value(json!({"run": {"id": "r", "status": "queued"}})).unwrap();
        assert_eq!(created.run.id, "r");
        assert_eq!(created.run.status, RunStatus::Other);
        assert_eq!(created.organization_slug, None);

        let artifact: CreateArtifactAnswer =
            serde_json::from_value(json!({"artifact": {"uploadUrl": "https://u"}})).unwrap();
        assert_eq!(artifact.upload_url(), Some("https://u"));
    }
}
