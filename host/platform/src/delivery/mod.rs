//! Delivery of one run to the platform, step by step, recording each acknowledged step in
//! the ledger: upsert the benchmark, create the run, register and claim a worker per
//! participant, send its records in batches, upload its log and system metrics, complete or
//! fail it, submit the run summary. The live run and `bench upload` drive the same steps;
//! every step first looks at the ledger, so nothing is sent twice.

use super::api::bounds::{MAX_ARTIFACT_BYTES, MAX_BATCH_BYTES, MAX_BATCH_RECORDS};
use super::api::types::{
    ClaimWorker, CreateArtifact, EventKind, FinishWorker, Heartbeat, PlanWorkers, Progress,
    RunSummary, TaskResults, WorkerOutcome,
};
use super::client::{
    ApiError, Assignment, Client, CreatedRun, HttpPlatform, Platform, WorkerTarget,
};
use super::spool::{Batch, Ledger};
use super::tail::{read_batch, BatchRange, Checkpoint, RecordLine};
use bench_report::input::{self, Line, ResultsDir};
use bench_report::metrics::METRICS_FILE;
use bench_report::results::file_name;
use bytes::Bytes;
use serde_json::{json, Map, Value};
use std::future::Future;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Records per `task_results` batch (upstream's reporter size).
pub(crate) const BATCH_SIZE: usize = 500;

/// Most bytes of records in one batch (a batch holds at least one record, however large:
/// one line of `records.ndjson` at most, which a batch body of the server takes).
pub(crate) const BATCH_BYTES: usize = 8 << 20;

const _: () = assert!(BATCH_BYTES < MAX_BATCH_BYTES && BATCH_SIZE <= MAX_BATCH_RECORDS);

/// What is still not on the platform.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outstanding {
    /// Records not acknowledged.
    pub records: usize,
    /// Records of participants the platform gave a worker (or may still give one).
    pub deliverable: usize,
    /// Other things not delivered (run, logs, metrics, worker completions, summary).
    pub items: Vec<String>,
}

impl Outstanding {
    /// Whether everything was delivered.
    pub(crate) fn is_empty(&self) -> bool {
        self.records == 0 && self.items.is_empty()
    }
}

/// How many tasks a run planned and recorded: `(participant, recorded, planned)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Completeness {
    /// Per participant, in config order.
    pub participants: Vec<(String, u64, u64)>,
}

impl Completeness {
    /// Tasks planned but not recorded.
    pub(crate) fn missing(&self) -> u64 {
        self.participants
            .iter()
            .map(|(_, recorded, planned)| planned.saturating_sub(*recorded))
            .sum()
    }

    /// Tasks planned.
    pub(crate) fn planned(&self) -> u64 {
        self.participants
            .iter()
            .map(|(_, _, planned)| planned)
            .sum()
    }

    /// `alpha 1421/1500, beta 0/1500`.
    pub(crate) fn per_participant(&self) -> String {
        let parts: Vec<String> = self
            .participants
            .iter()
            .map(|(name, recorded, planned)| format!("{name} {recorded}/{planned}"))
            .collect();
        parts.join(", ")
    }
}

/// What the delivery knows of one participant's records without holding them: how many
/// `records.ndjson` has and how many of those failed, and where its first record not
/// acknowledged yet is looked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    received: usize,
    failed: usize,
    checkpoint: Checkpoint,
}

/// One run's delivery state: the ledger, a tally of each participant's records, and a
/// client of the platform `P`. Records are read from `records.ndjson` one batch at a time.
pub(crate) struct Delivery<P = HttpPlatform> {
    client: Arc<Client<P>>,
    ledger: Ledger,
    dir: PathBuf,
    tallies: Vec<Tally>,
    /// The run stopped before its end.
    interrupted: bool,
}

impl<P: Platform> Delivery<P> {
    /// Starts from a ledger; [`Delivery::count`] then tells it each record the results
    /// directory holds.
    pub(crate) fn new(client: Arc<Client<P>>, ledger: Ledger, dir: &Path) -> Self {
        let tallies = vec![Tally::default(); ledger.participants.len()];
        Self {
            client,
            ledger,
            dir: dir.to_owned(),
            tallies,
            interrupted: false,
        }
    }

    /// The ledger.
    pub(crate) fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The results directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The client.
    pub(crate) fn client(&self) -> &Arc<Client<P>> {
        &self.client
    }

    /// The ledger index of a participant.
    pub(crate) fn index(&self, participant: &str) -> Option<usize> {
        self.ledger
            .participants
            .iter()
            .position(|entry| entry.name == participant)
    }

    /// Counts the next line of `records.ndjson`; `false` when it is not of a participant of
    /// this run (or a warm-up record of a run that warmed up, which is not delivered).
    pub(crate) fn count(&mut self, line: &RecordLine) -> bool {
        if self.ledger.warmed_up && line.warmup {
            return false;
        }
        let Some(index) = self.index(&line.participant) else {
            return false;
        };
        let tally = &mut self.tallies[index];
        tally.received += 1;
        tally.failed += usize::from(!line.success);
        true
    }

    /// How many of a participant's records were counted.
    pub(crate) fn received(&self, participant: usize) -> usize {
        self.tallies[participant].received
    }

    /// Gives up on a participant's delivery (round mode, when its claim was refused).
    pub(crate) fn give_up(&mut self, participant: usize) {
        self.ledger.participants[participant].unassigned = true;
        self.save();
    }

    /// Records the run summary to submit.
    pub(crate) fn set_summary(&mut self, summary: RunSummary) {
        self.ledger.summary = Some(summary);
        self.save();
    }

    /// Records which `metrics.jsonl` lines belong to a participant (participant mode).
    /// Participant mode: a participant finished with `records` records, taken while these
    /// lines of `metrics.jsonl` were written; in a run with a load model its records are
    /// all its tasks.
    pub(crate) fn participant_done(
        &mut self,
        participant: usize,
        records: usize,
        lines: (usize, usize),
    ) {
        let entry = &mut self.ledger.participants[participant];
        entry.metrics_lines = Some(lines);
        if self.ledger.time_bounded {
            entry.total_tasks = records as u64;
        }
        self.save();
    }

    fn save(&self) {
        if let Err(error) = self.ledger.save(&self.dir) {
            eprintln!("[bench] {error:#}");
        }
    }

    /// The idempotency key of one create of this delivery.
    fn key(&self, what: &str) -> String {
        let ledger = &self.ledger;
        match ledger.delivery_id.as_str() {
            "" => format!("bench:{}:{what}", ledger.local_run_id),
            id => format!("bench:{}:{id}:{what}", ledger.local_run_id),
        }
    }

    /// Upserts the benchmark (when ours) and creates the run, once.
    pub(crate) async fn ensure_run(&mut self) -> Result<CreatedRun, ApiError> {
        if let Some(run) = &self.ledger.run {
            return Ok(run.clone());
        }
        let slug = self.ledger.benchmark_slug.clone();
        if let Some(body) = self.ledger.upsert.clone() {
            self.client.upsert_benchmark(&slug, &body).await?;
            self.ledger.upsert = None;
            self.save();
        }
        let key = self.key("run");
        let run = self
            .client
            .create_run(&slug, &self.ledger.create_run, &key)
            .await?;
        self.ledger.run = Some(run.clone());
        self.save();
        Ok(run)
    }

    /// Registers (shared runs), plans and claims a worker for a participant, once; `None`
    /// when the platform has no pending worker for it.
    pub(crate) async fn ensure_worker(&mut self, p: usize) -> Result<Option<Assignment>, ApiError> {
        let run = self.ensure_run().await?;
        let slug = self.ledger.benchmark_slug.clone();
        let entry = &self.ledger.participants[p];
        if entry.unassigned {
            return Ok(None);
        }
        if let Some(assignment) = &entry.assignment {
            return Ok(Some(assignment.clone()));
        }
        let name = entry.name.clone();
        let total = entry.total_tasks;
        if !entry.registered {
            self.client
                .upsert_participant(&slug, &run.id, &name, total)
                .await?;
            self.ledger.participants[p].registered = true;
            self.save();
        }
        let (plan, claim) = if self.ledger.is_round_mode() {
            let process_key = std::env::var("HOSTNAME")
                .ok()
                .filter(|host| !host.is_empty())
                .unwrap_or_else(|| "local".into());
            (
                PlanWorkers {
                    worker_count: Some(1),
                    target_concurrency: Some(total),
                },
                ClaimWorker {
                    process_kind: Some("process".into()),
                    process_key: Some(process_key),
                },
            )
        } else {
            (PlanWorkers::default(), ClaimWorker::default())
        };
        let plan_key = self.key(&format!("plan:{name}"));
        self.client
            .plan_workers(&slug, &run.id, &name, &plan, &plan_key)
            .await?;
        let claim_key = self.key(&format!("claim:{name}"));
        let assignment = self
            .client
            .claim_worker(&slug, &run.id, &name, &claim, &claim_key)
            .await?;
        let entry = &mut self.ledger.participants[p];
        match &assignment {
            Some(assignment) => entry.assignment = Some(assignment.clone()),
            None => entry.unassigned = true,
        }
        self.save();
        Ok(assignment)
    }

    /// Sends a participant's records the platform has not acknowledged. Unless `last`, the
    /// newest record is held back, so the `isFinal` batch is never empty.
    pub(crate) async fn send_records(&mut self, p: usize, last: bool) -> Result<(), ApiError> {
        loop {
            let entry = &self.ledger.participants[p];
            let Some(assignment) = entry.assignment.clone() else {
                return Ok(());
            };
            let available = self.tallies[p].received;
            let from = entry.delivered;
            let range = BatchRange {
                participant: &entry.name,
                from,
                to: 0,
                max_bytes: BATCH_BYTES,
                shift: assignment.task_range_start,
                skip_warmups: self.ledger.warmed_up,
            };
            let (batch, records, resent) = match entry.in_flight {
                // Sent before: the same records again.
                Some(batch) => {
                    let range = BatchRange {
                        to: batch.end,
                        max_bytes: usize::MAX,
                        ..range
                    };
                    (batch, self.read(range)?, true)
                }
                None => {
                    let limit = if last {
                        available
                    } else {
                        available.saturating_sub(1)
                    };
                    if from >= limit {
                        return Ok(());
                    }
                    let range = BatchRange {
                        to: (from + BATCH_SIZE).min(limit),
                        ..range
                    };
                    let records = self.read(range)?;
                    let end = from + records.count;
                    let batch = Batch {
                        sequence_number: entry.next_sequence,
                        end,
                        is_final: last && end == available,
                    };
                    self.ledger.participants[p].in_flight = Some(batch);
                    self.save();
                    (batch, records, false)
                }
            };
            let body = TaskResults {
                kind: EventKind::TaskResults,
                attempt_id: assignment.attempt_id.clone(),
                sequence_number: batch.sequence_number,
                is_final: batch.is_final,
                records: Vec::new(),
            };
            let target = self.target(&assignment.worker_id);
            self.client
                .send_task_results(target, &body, &records.json, resent)
                .await?;
            let entry = &mut self.ledger.participants[p];
            entry.delivered = batch.end;
            entry.next_sequence = batch.sequence_number + 1;
            entry.in_flight = None;
            self.save();
            self.tallies[p].checkpoint = records.next;
        }
    }

    /// Reads a batch of records, from the participant's checkpoint.
    fn read(&self, range: BatchRange<'_>) -> Result<super::tail::BatchText, ApiError> {
        let at = self.tallies[self.index(range.participant).unwrap_or_default()].checkpoint;
        read_batch(&self.dir, at, range).map_err(|error| ApiError::Local(format!("{error:#}")))
    }

    /// A worker of this run.
    fn target<'a>(&'a self, worker_id: &'a str) -> WorkerTarget<'a> {
        let run_id = self.ledger.run.as_ref().map_or("", |run| run.id.as_str());
        (&self.ledger.benchmark_slug, run_id, worker_id)
    }

    /// The heartbeat of a participant's worker (its progress; one attempt, errors ignored),
    /// ready to be sent on its own; `None` before the worker is claimed.
    pub(crate) fn heartbeat(&self, p: usize) -> Option<impl Future<Output = ()> + Send + 'static> {
        let assignment = self.ledger.participants[p].assignment.as_ref()?;
        let tally = &self.tallies[p];
        let body = Heartbeat {
            attempt_id: assignment.attempt_id.clone(),
            progress: Progress {
                progress_done: tally.received as u64,
                progress_in_flight: 0,
                progress_errors: tally.failed as u64,
                progress_total: self.ledger.participants[p].total_tasks,
            },
        };
        let (slug, run_id, worker_id) = self.target(&assignment.worker_id);
        let target = (slug.to_owned(), run_id.to_owned(), worker_id.to_owned());
        let client = Arc::clone(&self.client);
        Some(async move {
            let (slug, run_id, worker_id) = &target;
            let _ = client.heartbeat((slug, run_id, worker_id), &body).await;
        })
    }

    /// Everything after a participant's last task: the final batch, its log, its system
    /// metrics (participant mode), then complete or fail its worker.
    pub(crate) async fn finish_participant(&mut self, p: usize) -> Result<(), ApiError> {
        let Some(assignment) = self.ensure_worker(p).await? else {
            return Ok(());
        };
        self.send_records(p, true).await?;
        let entry = &self.ledger.participants[p];
        let name = entry.name.clone();
        if !entry.log_uploaded {
            let log = read_artifact(&self.dir, &format!("logs/{}.log", file_name(&name)))?;
            if !log.is_empty() {
                let artifact = artifact_body(
                    &assignment,
                    "coordinator.log",
                    "text/plain",
                    "worker.log",
                    Map::new(),
                    log.len(),
                );
                self.upload(&assignment, &artifact, log, &format!("log:{name}"))
                    .await?;
            }
            self.ledger.participants[p].log_uploaded = true;
            self.save();
        }
        let entry = &self.ledger.participants[p];
        if let (Some((from, to)), false) = (entry.metrics_lines, entry.metrics_uploaded) {
            let body = self.metrics_lines(from..to)?;
            let artifact = artifact_body(
                &assignment,
                "system-metrics",
                "application/x-ndjson",
                "metrics.jsonl",
                Map::new(),
                body.len(),
            );
            self.upload(&assignment, &artifact, body, &format!("metrics:{name}"))
                .await?;
            self.ledger.participants[p].metrics_uploaded = true;
            self.save();
        }
        if !self.ledger.participants[p].closed {
            let (outcome, body) = self.ending(p, &assignment);
            let target = self.target(&assignment.worker_id);
            self.client.finish_worker(target, outcome, &body).await?;
            self.ledger.participants[p].closed = true;
            self.save();
        }
        Ok(())
    }

    /// How a participant's worker ends: `complete` when every planned task is recorded and
    /// succeeded; otherwise `fail` — `Interrupted` or `Partial` with the counts when tasks
    /// are missing, upstream's codes when a task failed.
    fn ending(&self, p: usize, assignment: &Assignment) -> (WorkerOutcome, FinishWorker) {
        let entry = &self.ledger.participants[p];
        let tally = &self.tallies[p];
        let failure = |code: &str, message: String| {
            let body = FinishWorker {
                attempt_id: assignment.attempt_id.clone(),
                error_code: Some(code.into()),
                error_message: Some(message),
            };
            (WorkerOutcome::Fail, body)
        };
        if (tally.received as u64) < entry.total_tasks {
            let code = if self.interrupted {
                "Interrupted"
            } else {
                "Partial"
            };
            return failure(
                code,
                format!(
                    "{code}: {} of {} task(s) recorded",
                    tally.received, entry.total_tasks
                ),
            );
        }
        match (tally.failed > 0, self.ledger.is_round_mode()) {
            (false, _) => (
                WorkerOutcome::Complete,
                FinishWorker {
                    attempt_id: assignment.attempt_id.clone(),
                    error_code: None,
                    error_message: None,
                },
            ),
            (true, false) => failure("Error", "One or more tasks failed".into()),
            (true, true) => failure("ERROR", "Unknown error".into()),
        }
    }

    /// Says that the run stopped before its end (killed): workers with tasks missing end as
    /// `Interrupted` rather than `Partial`.
    pub(crate) fn mark_interrupted(&mut self) {
        self.interrupted = true;
    }

    /// A finished run with a load model: each participant's tasks are the records it has
    /// (counted so far), not a planned count.
    pub(crate) fn plan_what_was_recorded(&mut self) {
        if !self.ledger.time_bounded {
            return;
        }
        for (entry, tally) in self.ledger.participants.iter_mut().zip(&self.tallies) {
            entry.total_tasks = tally.received as u64;
        }
        self.save();
    }

    /// Planned and recorded tasks, per participant and in all.
    pub(crate) fn completeness(&self) -> Completeness {
        let participants = self
            .ledger
            .participants
            .iter()
            .zip(&self.tallies)
            .map(|(entry, tally)| (entry.name.clone(), tally.received as u64, entry.total_tasks))
            .collect();
        Completeness { participants }
    }

    /// Round mode: one system-metrics artifact for the whole process, through the first
    /// participant (config order) that has a worker.
    async fn upload_shared_metrics(&mut self) -> Result<(), ApiError> {
        if self.ledger.shared_metrics_uploaded {
            return Ok(());
        }
        for p in 0..self.ledger.participants.len() {
            if let Some(assignment) = self.ensure_worker(p).await? {
                let body = self.metrics_lines(0..usize::MAX)?;
                let names: Vec<&str> = self
                    .ledger
                    .participants
                    .iter()
                    .map(|entry| entry.name.as_str())
                    .collect();
                let mut metadata = Map::new();
                metadata.insert("scope".into(), json!("shared-process"));
                metadata.insert("participants".into(), json!(names));
                let artifact = artifact_body(
                    &assignment,
                    "system-metrics",
                    "application/x-ndjson",
                    "metrics.jsonl",
                    metadata,
                    body.len(),
                );
                self.upload(&assignment, &artifact, body, "metrics").await?;
                break;
            }
        }
        self.ledger.shared_metrics_uploaded = true;
        self.save();
        Ok(())
    }

    async fn upload(
        &self,
        assignment: &Assignment,
        artifact: &CreateArtifact,
        body: Bytes,
        what: &str,
    ) -> Result<(), ApiError> {
        let target = self.target(&assignment.worker_id);
        self.client
            .upload_artifact(
                target,
                artifact,
                body,
                &self.key(&format!("artifact:{what}")),
            )
            .await
    }

    /// Lines `range` of `metrics.jsonl`, each with its newline, up to
    /// [`MAX_ARTIFACT_BYTES`].
    fn metrics_lines(&self, range: std::ops::Range<usize>) -> Result<Bytes, ApiError> {
        let path = self.dir.join(METRICS_FILE);
        let Some(file) = open_inside(&self.dir, METRICS_FILE)? else {
            return Ok(Bytes::new());
        };
        let mut reader = BufReader::new(file);
        let (mut body, mut line) = (Vec::new(), Vec::new());
        for number in 0..range.end {
            let read = input::read_line(&mut reader, &mut line)
                .map_err(|error| cannot_read(&path, &error))?;
            match read {
                Line::End => break,
                Line::TooLong => {
                    let error = input::too_long(&path, number + 1);
                    return Err(ApiError::Local(error.to_string()));
                }
                Line::Read(_) if number < range.start => continue,
                Line::Read(_) => {}
            }
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            if body.len() + text.len() + 1 > MAX_ARTIFACT_BYTES {
                break;
            }
            body.extend_from_slice(text);
            body.push(b'\n');
        }
        Ok(body.into())
    }

    /// Submits the run summary, once, when scoring produced one.
    pub(crate) async fn submit_summary(&mut self) -> Result<(), ApiError> {
        let Some(summary) = self.ledger.summary.clone() else {
            return Ok(());
        };
        if self.ledger.summary_submitted {
            return Ok(());
        }
        let run = self.ensure_run().await?;
        self.client
            .submit_run_summary(&self.ledger.benchmark_slug, &run.id, &summary)
            .await?;
        self.ledger.summary_submitted = true;
        self.save();
        Ok(())
    }

    /// Delivers everything outstanding of a finished run, in upstream's order; stops at the
    /// first step the platform does not acknowledge.
    pub(crate) async fn deliver_all(&mut self) -> Result<(), ApiError> {
        self.ensure_run().await?;
        if self.ledger.is_round_mode() {
            self.upload_shared_metrics().await?;
        }
        for p in 0..self.ledger.participants.len() {
            self.finish_participant(p).await?;
        }
        self.submit_summary().await
    }

    /// What is still not delivered.
    pub(crate) fn outstanding(&self) -> Outstanding {
        let mut outstanding = Outstanding::default();
        if self.ledger.run.is_none() {
            outstanding.items.push("the run".into());
        }
        for (entry, tally) in self.ledger.participants.iter().zip(&self.tallies) {
            if entry.unassigned {
                continue;
            }
            let left = tally.received.saturating_sub(entry.delivered);
            outstanding.records += left;
            outstanding.deliverable += tally.received;
            if !entry.closed {
                outstanding
                    .items
                    .push(format!("the completion of {}", entry.name));
            }
        }
        if self.ledger.summary.is_some() && !self.ledger.summary_submitted {
            outstanding.items.push("the run summary".into());
        }
        outstanding
    }
}

/// The file `relative` of the results directory `dir`, opened inside it; `None` when it
/// is missing.
fn open_inside(dir: &Path, relative: &str) -> Result<Option<std::fs::File>, ApiError> {
    ResultsDir::open(dir)
        .and_then(|dir| dir.open_file(relative))
        .map_err(|error| ApiError::Local(format!("{error:#}")))
}

/// An artifact's body from the file `relative` of the results directory `dir` (empty when
/// there is none): its first [`MAX_ARTIFACT_BYTES`], with a warning when it is longer.
fn read_artifact(dir: &Path, relative: &str) -> Result<Bytes, ApiError> {
    let path = dir.join(relative);
    let path = path.as_path();
    let Some(file) = open_inside(dir, relative)? else {
        return Ok(Bytes::new());
    };
    let mut body = Vec::new();
    file.take(MAX_ARTIFACT_BYTES as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|error| cannot_read(path, &error))?;
    if body.len() > MAX_ARTIFACT_BYTES {
        body.truncate(MAX_ARTIFACT_BYTES);
        eprintln!(
            "[bench] {} is larger than {} MiB: only its first {} MiB go to the platform.",
            path.display(),
            MAX_ARTIFACT_BYTES >> 20,
            MAX_ARTIFACT_BYTES >> 20
        );
    }
    Ok(body.into())
}

fn cannot_read(path: &Path, error: &std::io::Error) -> ApiError {
    ApiError::Local(format!("cannot read {}: {error}", path.display()))
}

/// `{ attemptId, kind, contentType, name, metadata }` with `metadata.sizeBytes` added.
fn artifact_body(
    assignment: &Assignment,
    kind: &str,
    content_type: &str,
    name: &str,
    mut metadata: Map<String, Value>,
    size: usize,
) -> CreateArtifact {
    metadata.insert("sizeBytes".into(), json!(size));
    CreateArtifact {
        attempt_id: assignment.attempt_id.clone(),
        kind: kind.into(),
        content_type: Some(content_type.into()),
        name: Some(name.into()),
        metadata: Some(metadata),
    }
}

#[cfg(test)]
pub(crate) mod tests;
