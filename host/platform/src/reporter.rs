//! Live platform reporting during `bench run`. A background task owns the [`Delivery`]:
//! every [`FLUSH_INTERVAL`] it reads what `records.ndjson` gained — so only records already
//! on disk are ever sent — and sends them in batches of
//! [`BATCH_SIZE`](super::delivery::BATCH_SIZE) with a progress heartbeat. The executors
//! reach it through [`PlatformObserver`] (composed after the local results writer), which
//! says when a participant starts and finishes and never waits for the network. A platform
//! that does not answer only delays delivery: what it did not acknowledge stays in the
//! ledger for `bench upload`.

use super::auth::Auth;
use super::client::{ApiError, Client, Retry};
use super::delivery::Delivery;
use super::tail::RecordsTail;
use super::upload::list_items;
use super::{new_ledger, summary_body};
use anyhow::{bail, Result};
use bench_runtime::events::{RunEvent, RunObserver};
use bench_runtime::metrics::MetricsRecorder;
use bench_runtime::plan::RunManifest;
use bench_runtime::report::console::Console;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// How often pending records are sent and progress is reported.
pub(crate) const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

enum Command {
    Begin {
        participant: usize,
        reply: oneshot::Sender<Result<Begin, ApiError>>,
    },
    /// Participant mode: a participant finished with this many records.
    Done {
        participant: usize,
        records: usize,
        metrics_lines: (usize, usize),
    },
    /// The run's tasks are over: stop and hand the delivery back.
    Finish,
}

/// What a participant may do once the platform was asked for a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Begin {
    /// Run it (with a worker, or with the claim deferred until the platform answers).
    Run,
    /// The platform has no pending worker for it in this run.
    NoWorker {
        /// The platform run.
        run_id: String,
    },
}

/// The live reporting of one run.
pub struct PlatformRun {
    commands: mpsc::UnboundedSender<Command>,
    names: Vec<String>,
    dir: PathBuf,
    task: JoinHandle<Delivery>,
}

impl PlatformRun {
    /// Writes the run's ledger next to its `run.json`, upserts the benchmark (when
    /// `upsert`: the identity is ours) and creates the run (shared with `run_key`), then
    /// starts the background delivery. Prints the console lines of spec §3.6
    /// (`Run created: …`, `View at: …`, blank). An API error other than "no answer" aborts
    /// the run; without an answer the run goes on locally and a warning says so.
    pub async fn start(
        auth: &Auth,
        manifest: &RunManifest,
        dir: &Path,
        upsert: bool,
        run_key: Option<&str>,
        console: &mut Console,
    ) -> Result<Self> {
        let ledger = new_ledger(manifest, &auth.api_base_url, upsert, run_key);
        ledger.save(dir)?;
        let client = Client::new(auth, Retry::default())?;
        let mut delivery = Delivery::new(client, ledger, dir, Vec::new());
        match delivery.ensure_run().await {
            Ok(run) => {
                let created = match &delivery.ledger().create_run.run_key {
                    // The key quoted as JSON, as upstream prints it.
                    Some(key) => format!(
                        "Shared run (key {}): {} ({})",
                        Value::from(key.as_str()),
                        run.name,
                        run.id
                    ),
                    None => format!("Run created: {} ({})", run.name, run.id),
                };
                console.line(&created);
                console.line(&format!("View at: {}", run.dashboard_url));
                console.line("");
                console.flush();
            }
            Err(error) if error.is_retryable() => warn_unreachable(&error),
            Err(error) => return Err(error.into()),
        }
        let names = delivery
            .ledger()
            .participants
            .iter()
            .map(|entry| entry.name.clone())
            .collect();
        let (commands, receiver) = mpsc::unbounded_channel();
        let task = tokio::spawn(serve(delivery, receiver, dir.to_owned()));
        Ok(Self {
            commands,
            names,
            dir: dir.to_owned(),
            task,
        })
    }

    /// The observer that feeds this run's delivery; `metrics` tells which samples belong
    /// to which participant.
    pub fn observer(&self, metrics: MetricsRecorder) -> PlatformObserver {
        PlatformObserver {
            commands: self.commands.clone(),
            names: self.names.clone(),
            metrics,
            window_start: 0,
        }
    }

    /// Participant mode: claims a worker for a participant about to run; false (after
    /// upstream's message) when the platform has no pending worker for it, so it does not
    /// run. An API error other than "no answer" aborts the run.
    pub async fn begin(&self, participant: &str) -> Result<bool> {
        match self.claim(participant).await? {
            Begin::Run => Ok(true),
            Begin::NoWorker { run_id } => {
                eprintln!(
                    "  No pending worker to claim for run {run_id} — it may already be fully claimed."
                );
                Ok(false)
            }
        }
    }

    async fn claim(&self, participant: &str) -> Result<Begin, ApiError> {
        let Some(index) = self.names.iter().position(|name| name == participant) else {
            return Ok(Begin::Run);
        };
        let (reply, answer) = oneshot::channel();
        let command = Command::Begin {
            participant: index,
            reply,
        };
        if self.commands.send(command).is_err() {
            return Ok(Begin::Run);
        }
        answer.await.unwrap_or(Ok(Begin::Run))
    }

    /// Round mode: claims a worker for every participant before the first round, warning
    /// (upstream's words) about those that run without platform reporting.
    pub async fn begin_rounds(&self) {
        for name in &self.names {
            match self.claim(name).await {
                Ok(Begin::Run) => {}
                Ok(Begin::NoWorker { .. }) => eprintln!(
                    "  {name}: could not claim a platform worker — running without platform reporting."
                ),
                Err(error) => eprintln!(
                    "  {name}: reporter claim failed ({error}) — running without platform reporting."
                ),
            }
        }
    }

    /// Waits for the background delivery, then delivers whatever is still outstanding
    /// (final batches, logs, metrics, worker completions).
    pub async fn finish(self) -> Closing {
        let _ = self.commands.send(Command::Finish);
        let (delivery, error) = match self.task.await {
            Ok(mut delivery) => {
                // The last chance before `bench upload`: a platform that was down may be
                // back, so the final steps get every attempt.
                delivery.client().retry_fully();
                let error = delivery.deliver_all().await.err();
                (Some(delivery), error)
            }
            Err(error) => (None, Some(ApiError::Protocol(error.to_string()))),
        };
        Closing {
            delivery,
            error,
            dir: self.dir,
        }
    }
}

/// A run whose tasks are over: what reached the platform and what did not. The default
/// is a run without a platform.
#[derive(Default)]
pub struct Closing {
    delivery: Option<Delivery>,
    error: Option<ApiError>,
    dir: PathBuf,
}

impl Closing {
    /// `All done. View at: <dashboard>`, or `All done. No platform run created.`
    pub fn done_line(&self) -> String {
        match self.delivery.as_ref().and_then(|d| d.ledger().run.as_ref()) {
            Some(run) => format!("All done. View at: {}", run.dashboard_url),
            None => "All done. No platform run created.".into(),
        }
    }

    /// Submits the run summary when the run was scored (`summary.json` has results); a
    /// failure is a warning, as upstream's.
    pub async fn submit_summary(&mut self) {
        let Some(delivery) = &mut self.delivery else {
            return;
        };
        let Some(summary) = summary_body(&self.dir) else {
            return;
        };
        delivery.set_summary(summary);
        if self.error.is_none() {
            if let Err(error) = delivery.submit_summary().await {
                eprintln!("[benchsdk-runner] failed to submit run summary: {error}");
                self.error = Some(error);
            }
        }
    }

    /// Says what the platform did not acknowledge and how to deliver it; with
    /// `require_upload`, that is an error.
    pub fn report(&self, require_upload: bool) -> Result<()> {
        let Some(delivery) = &self.delivery else {
            return Ok(());
        };
        let outstanding = delivery.outstanding();
        if outstanding.is_empty() {
            return Ok(());
        }
        let reason = match &self.error {
            Some(error) => format!(" ({error})"),
            None => String::new(),
        };
        eprintln!(
            "[bench] not delivered to the platform{reason}: {} record(s){}. Everything is in {}; deliver it with `bench upload {}`.",
            outstanding.records,
            list_items(&outstanding.items),
            self.dir.display(),
            self.dir.display()
        );
        if require_upload {
            bail!(
                "the platform did not acknowledge the whole run ({} record(s) not delivered); deliver it with `bench upload {}`",
                outstanding.records,
                self.dir.display()
            );
        }
        Ok(())
    }
}

fn warn_unreachable(error: &ApiError) {
    eprintln!(
        "[bench] the platform did not answer ({error}); records are kept locally and delivery is retried."
    );
}

/// The background task: applies commands in order; every [`FLUSH_INTERVAL`] reads the
/// records `records.ndjson` gained, sends them and reports progress, and settles the
/// participants (participant mode) whose records are all read.
async fn serve(
    mut delivery: Delivery,
    mut commands: mpsc::UnboundedReceiver<Command>,
    dir: PathBuf,
) -> Delivery {
    let count = delivery.ledger().participants.len();
    let mut feed = Feed {
        tail: RecordsTail::new(&dir),
        active: vec![false; count],
        changed: vec![false; count],
        finished: vec![None; count],
        settled: vec![false; count],
    };
    let mut warned = delivery.client().is_offline();
    let mut ticker = tokio::time::interval(FLUSH_INTERVAL);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let result = tokio::select! {
            command = commands.recv() => match command {
                None | Some(Command::Finish) => {
                    if let Err(error) = feed.read(&mut delivery) {
                        eprintln!("[bench] {error:#}");
                    }
                    break;
                }
                Some(Command::Begin { participant, reply }) => {
                    feed.active[participant] = true;
                    let answer = begin(&mut delivery, participant).await;
                    let _ = reply.send(answer);
                    Ok(())
                }
                Some(Command::Done { participant, records, metrics_lines }) => {
                    delivery.set_metrics_lines(participant, metrics_lines);
                    feed.finished[participant] = Some(records);
                    feed.settle(&mut delivery).await
                }
            },
            _ = ticker.tick() => feed.send(&mut delivery).await,
        };
        match result {
            Err(error) if !warned => {
                warned = true;
                warn_unreachable(&error);
            }
            _ => {}
        }
    }
    delivery
}

/// What the background task knows besides the delivery.
struct Feed {
    tail: RecordsTail,
    /// Participants that began or have records.
    active: Vec<bool>,
    /// Participants with records or progress not reported yet.
    changed: Vec<bool>,
    /// Participant mode: how many records a finished participant has.
    finished: Vec<Option<usize>>,
    /// Participant mode: participants whose worker was completed or failed.
    settled: Vec<bool>,
}

impl Feed {
    /// Hands the delivery the records written since the last read.
    fn read(&mut self, delivery: &mut Delivery) -> Result<()> {
        for (participant, record) in self.tail.read_new()? {
            if let Some(index) = delivery.index(&participant) {
                delivery.push(index, record);
                self.active[index] = true;
                self.changed[index] = true;
            }
        }
        Ok(())
    }

    /// Reads, sends the new records with a heartbeat, then settles.
    async fn send(&mut self, delivery: &mut Delivery) -> Result<(), ApiError> {
        if let Err(error) = self.read(delivery) {
            eprintln!("[bench] {error:#}");
        }
        let mut result = Ok(());
        for participant in 0..self.active.len() {
            if self.active[participant] && std::mem::take(&mut self.changed[participant]) {
                result = result.and(flush(delivery, participant).await);
                delivery.heartbeat(participant).await;
            }
        }
        result.and(self.settle(delivery).await)
    }

    /// Finishes (final batch, log, metrics, completion) the participants whose records
    /// are all read.
    async fn settle(&mut self, delivery: &mut Delivery) -> Result<(), ApiError> {
        if let Err(error) = self.read(delivery) {
            eprintln!("[bench] {error:#}");
        }
        for participant in 0..self.finished.len() {
            let Some(records) = self.finished[participant] else {
                continue;
            };
            if self.settled[participant] || delivery.received(participant) < records {
                continue;
            }
            delivery.finish_participant(participant).await?;
            self.settled[participant] = true;
            self.active[participant] = false;
        }
        Ok(())
    }
}

async fn begin(delivery: &mut Delivery, participant: usize) -> Result<Begin, ApiError> {
    match delivery.ensure_worker(participant).await {
        Ok(Some(_)) => Ok(Begin::Run),
        Ok(None) => Ok(Begin::NoWorker {
            run_id: delivery
                .ledger()
                .run
                .as_ref()
                .map(|run| run.id.clone())
                .unwrap_or_default(),
        }),
        Err(error) if error.is_retryable() => Ok(Begin::Run),
        Err(error) => {
            if delivery.ledger().is_round_mode() {
                delivery.give_up(participant);
            }
            Err(error)
        }
    }
}

async fn flush(delivery: &mut Delivery, participant: usize) -> Result<(), ApiError> {
    delivery.ensure_worker(participant).await?;
    delivery.send_records(participant, false).await
}

/// Hands finished tasks to the live delivery; composed after the results writer.
pub struct PlatformObserver {
    commands: mpsc::UnboundedSender<Command>,
    names: Vec<String>,
    metrics: MetricsRecorder,
    window_start: usize,
}

impl PlatformObserver {
    fn index(&self, participant: &str) -> Option<usize> {
        self.names.iter().position(|name| name == participant)
    }
}

impl RunObserver for PlatformObserver {
    /// Records reach the platform from `records.ndjson`, not from task events; round mode
    /// delivers every participant's ending when the run ends.
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        match event {
            RunEvent::ParticipantStarted { .. } => {
                // The metrics observer runs first: its start sample is the last line.
                self.window_start = self.metrics.lines().saturating_sub(1);
            }
            RunEvent::ParticipantFinished {
                participant, tasks, ..
            } => {
                if let Some(index) = self.index(participant) {
                    let _ = self.commands.send(Command::Done {
                        participant: index,
                        records: tasks,
                        metrics_lines: (self.window_start, self.metrics.lines()),
                    });
                }
            }
            RunEvent::TaskFinished { .. }
            | RunEvent::RoundsStarted { .. }
            | RunEvent::RoundParticipantFinished { .. }
            | RunEvent::Flush => {}
        }
        Ok(())
    }
}
