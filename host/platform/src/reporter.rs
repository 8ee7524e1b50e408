//! Live platform reporting during `bench run`, which never holds the run up. A background
//! [`Deliverer`](super::deliverer) creates the platform run, claims every participant's
//! worker ahead of time and sends what `records.ndjson` gains — so only records already on
//! disk are ever sent. The run waits for it only at the start (for the platform run, to
//! print its name where upstream does; [`START_LIMIT`] at most) and at the end (for the
//! rest; [`END_LIMIT`] at most), each time only while the platform keeps answering: never
//! more than [`STALL`] without an answer. Whatever the platform did not acknowledge by then
//! stays in the ledger for `bench upload`. The executors reach the delivery through
//! [`PlatformObserver`] (composed after the local results writer), which never waits.

use super::auth::Auth;
use super::client::{ApiError, Client, CreatedRun, Retry};
use super::deliverer::{Claim, Command, Deliverer, Status};
use super::delivery::Delivery;
use super::upload::list_items;
use super::{new_ledger, summary_body};
use anyhow::{bail, Result};
use bench_model::events::{RunEvent, RunObserver};
use bench_model::plan::RunManifest;
use bench_model::text::escape_control;
use bench_report::console::Console;
use bench_report::metrics::MetricsRecorder;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

/// How long the platform may go without answering while the run waits for it.
const STALL: Duration = Duration::from_secs(3);

/// At the start: the longest wait for the platform run and the claims.
const START_LIMIT: Duration = Duration::from_secs(10);

/// At the end: the longest wait, however steadily the platform answers.
const END_LIMIT: Duration = Duration::from_secs(30);

/// The live reporting of one run.
pub struct PlatformRun {
    commands: mpsc::UnboundedSender<Command>,
    /// Commands sent by the run itself (not by its observer): [`PlatformRun::wait`] waits
    /// until the delivery took them all in.
    sent: u64,
    names: Vec<String>,
    dir: PathBuf,
    client: Arc<Client>,
    status: watch::Receiver<Status>,
    stop: watch::Sender<bool>,
    task: JoinHandle<Delivery>,
    /// The `Run created` lines were printed.
    announced: bool,
}

impl PlatformRun {
    /// Writes the run's ledger next to its `run.json` and starts the background delivery,
    /// which upserts the benchmark (when `upsert`: the identity is ours), creates the run
    /// (shared with `run_key`) and claims the participants' workers. Waits for that at most
    /// [`START_LIMIT`] (or [`STALL`] without an answer): when the run is created by then, prints the console lines of spec
    /// §3.6 (`Run created: …`, `View at: …`, blank); when the platform refused it, the run
    /// stops with the API's error; otherwise the tasks start and the lines come at the end.
    pub async fn start(
        auth: &Auth,
        manifest: &RunManifest,
        dir: &Path,
        upsert: bool,
        run_key: Option<&str>,
        console: &mut Console,
    ) -> Result<Self> {
        let ledger = new_ledger(manifest, &auth.api_base_url, upsert, run_key)?;
        ledger.save(dir)?;
        let names = ledger.participants.iter().map(|p| p.name.clone()).collect();
        let shared_key = ledger.create_run.run_key.clone();
        let client = Arc::new(Client::new(auth, Retry::default())?);
        let (deliverer, mut status) = Deliverer::new(Delivery::new(client.clone(), ledger, dir));
        let (commands, receiver) = mpsc::unbounded_channel();
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(deliverer.run(receiver, stopped));
        let opened = |status: &Status| status.opened || status.fatal.is_some();
        wait_while_answering(&mut status, &client, opened, START_LIMIT).await;
        let current = status.borrow().clone();
        let mut platform = Self {
            commands,
            sent: 0,
            names,
            dir: dir.to_owned(),
            client,
            status,
            stop,
            task,
            announced: false,
        };
        if let Some(error) = current.fatal {
            platform.stop();
            return Err(error.into());
        }
        match &current.run {
            Some(run) => {
                for line in created_lines(run, shared_key.as_deref()) {
                    console.line(&line);
                }
                console.line("");
                console.flush();
                platform.announced = true;
            }
            None => eprintln!(
                "[bench] the platform has not created the run yet; the tasks start now and are delivered in the background."
            ),
        }
        Ok(platform)
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

    /// Participant mode, before a participant runs: false (after upstream's message) when
    /// the platform said it has no pending worker for it, so it does not run; an error when
    /// the platform refused the claim. A claim not answered yet does not hold it up: it
    /// runs, and its records follow once the worker is claimed.
    pub fn begin(&self, participant: &str) -> Result<bool> {
        match self.claim(participant) {
            Claim::Pending | Claim::Claimed => Ok(true),
            Claim::NoWorker => {
                let status = self.status.borrow();
                let run_id = status.run.as_ref().map_or("", |run| run.id.as_str());
                eprintln!(
                    "  No pending worker to claim for run {run_id} — it may already be fully claimed."
                );
                Ok(false)
            }
            Claim::Refused(error) => Err(error.into()),
        }
    }

    fn claim(&self, participant: &str) -> Claim {
        let status = self.status.borrow();
        self.names
            .iter()
            .position(|name| name == participant)
            .and_then(|index| status.claims.get(index).cloned())
            .unwrap_or(Claim::Pending)
    }

    /// Round mode, before the first round: warns (upstream's words) about the
    /// participants that run without platform reporting.
    pub fn begin_rounds(&self) {
        for name in &self.names {
            match self.claim(name) {
                Claim::Pending | Claim::Claimed => {}
                Claim::NoWorker => eprintln!(
                    "  {}: could not claim a platform worker — running without platform reporting.",
                    escape_control(name)
                ),
                Claim::Refused(error) => eprintln!(
                    "  {}: reporter claim failed ({error}) — running without platform reporting.",
                    escape_control(name)
                ),
            }
        }
    }

    /// The tasks are over: waits while the platform takes the rest (final batches, logs,
    /// metrics, worker completions) and keeps answering, then hands over to the closing.
    pub async fn finish(mut self) -> Closing {
        self.send(Command::Finish);
        let delivered = self.wait().await;
        let mut closing = Closing {
            platform: Some(self),
            delivery: None,
        };
        if !delivered {
            closing.stop().await;
        }
        closing
    }

    fn send(&mut self, command: Command) {
        if self.commands.send(command).is_ok() {
            self.sent += 1;
        }
    }

    /// Waits until the delivery did what the run asked of it or has stopped (true), or
    /// gives up (false) as [`wait_while_answering`] does, after [`END_LIMIT`] at most.
    async fn wait(&mut self) -> bool {
        let sent = self.sent;
        let done =
            |status: &Status| (status.idle && status.applied >= sent) || status.fatal.is_some();
        wait_while_answering(&mut self.status, &self.client, done, END_LIMIT).await
    }

    fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

/// Waits until the delivery's status is `done` (true), or gives up (false) once the
/// client's breaker opened, the platform went [`STALL`] without an answer or `limit` passed.
async fn wait_while_answering(
    status: &mut watch::Receiver<Status>,
    client: &Client,
    done: impl Fn(&Status) -> bool,
    limit: Duration,
) -> bool {
    let began = Instant::now();
    loop {
        if done(&status.borrow_and_update()) {
            return true;
        }
        if client.unavailable().is_some() {
            return false;
        }
        let heard = client
            .last_answer()
            .filter(|at| *at > began)
            .unwrap_or(began);
        let deadline = (heard + STALL).min(began + limit);
        if Instant::now() >= deadline {
            return false;
        }
        if let Ok(Err(_)) = tokio::time::timeout_at(deadline.into(), status.changed()).await {
            // The delivery ended.
            return true;
        }
    }
}

/// `Run created: <name> (<id>)` (or `Shared run (key "<key>"): …`) and `View at: <url>`.
fn created_lines(run: &CreatedRun, run_key: Option<&str>) -> [String; 2] {
    let created = match run_key {
        // The key quoted as JSON, as upstream prints it.
        Some(key) => format!(
            "Shared run (key {}): {} ({})",
            Value::from(key),
            run.name,
            run.id
        ),
        None => format!("Run created: {} ({})", run.name, run.id),
    };
    [
        escape_control(&created).into_owned(),
        escape_control(&format!("View at: {}", run.dashboard_url)).into_owned(),
    ]
}

/// A run whose tasks are over: the delivery, still running in the background or already
/// stopped. The default is a run without a platform.
#[derive(Default)]
pub struct Closing {
    platform: Option<PlatformRun>,
    /// The delivery, once stopped.
    delivery: Option<Delivery>,
}

impl Closing {
    /// The console lines after the tasks: `All done. View at: <dashboard>` (after the
    /// `Run created` line when the run was created after the tasks started), or
    /// `All done. No platform run created.`
    pub fn done_lines(&self) -> Vec<String> {
        let Some(platform) = &self.platform else {
            return vec!["All done. No platform run created.".into()];
        };
        let status = platform.status.borrow();
        let run = status
            .run
            .as_ref()
            .or(self.delivery.as_ref().and_then(|d| d.ledger().run.as_ref()));
        let Some(run) = run else {
            return vec!["All done. No platform run created.".into()];
        };
        let mut lines = Vec::new();
        if !platform.announced {
            let key = self
                .delivery
                .as_ref()
                .and_then(|d| d.ledger().create_run.run_key.as_deref());
            lines.push(created_lines(run, key)[0].clone());
        }
        lines.push(
            escape_control(&format!("All done. View at: {}", run.dashboard_url)).into_owned(),
        );
        lines
    }

    /// Submits the run summary when the run was scored (`summary.json` has results): the
    /// delivery gets it and is waited for as at the end of the tasks; a delivery that
    /// stopped keeps it for `bench upload`.
    pub async fn submit_summary(&mut self) {
        let Some(platform) = &mut self.platform else {
            return;
        };
        let Some(summary) = summary_body(&platform.dir) else {
            return;
        };
        if let Some(delivery) = &mut self.delivery {
            delivery.set_summary(summary);
            return;
        }
        platform.send(Command::Summary(Box::new(summary)));
        if !platform.wait().await {
            self.stop().await;
        }
    }

    /// Stops the background delivery and takes it back.
    async fn stop(&mut self) {
        let Some(platform) = &mut self.platform else {
            return;
        };
        if self.delivery.is_some() {
            return;
        }
        platform.stop();
        let task = &mut platform.task;
        self.delivery = task.await.ok();
    }

    /// Stops the delivery and says what the platform did not acknowledge and how to
    /// deliver it. An error when the platform refused the run's data (or answered with
    /// another run's), and — with `require_upload` — when anything is left.
    pub async fn report(mut self, require_upload: bool) -> Result<()> {
        self.stop().await;
        let (Some(platform), Some(delivery)) = (&self.platform, &self.delivery) else {
            return Ok(());
        };
        let fatal = platform.status.borrow().fatal.clone();
        if let Some(summary_error) = summary_failure(&fatal, delivery) {
            eprintln!("[benchsdk-runner] failed to submit run summary: {summary_error}");
        }
        let outstanding = delivery.outstanding();
        let dir = platform.dir.display();
        if !outstanding.is_empty() {
            let reason = match (&fatal, platform.client.unavailable()) {
                (Some(error), _) => format!(" ({error})"),
                (None, Some(reason)) => format!(" (the platform is unreachable: {reason})"),
                (None, None) => " (the platform did not answer in time)".into(),
            };
            eprintln!(
                "[bench] not delivered to the platform{reason}: {} record(s){}. Everything is in {dir}; deliver it with `bench upload {dir}`.",
                outstanding.records,
                list_items(&outstanding.items),
            );
        }
        if let Some(error) = fatal {
            bail!(error);
        }
        if require_upload && !outstanding.is_empty() {
            bail!(
                "the platform did not acknowledge the whole run ({} record(s) not delivered); deliver it with `bench upload {dir}`",
                outstanding.records,
            );
        }
        Ok(())
    }
}

/// The refusal of the run summary, when that is what stopped the delivery (upstream warns
/// about it and goes on).
fn summary_failure(fatal: &Option<ApiError>, delivery: &Delivery) -> Option<ApiError> {
    let ledger = delivery.ledger();
    let only_summary_left = ledger.summary.is_some()
        && !ledger.summary_submitted
        && delivery.outstanding().items.len() == 1;
    fatal.clone().filter(|_| only_summary_left)
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
            | RunEvent::TaskDropped { .. }
            | RunEvent::RoundsStarted { .. }
            | RunEvent::RoundParticipantFinished { .. }
            | RunEvent::Flush => {}
        }
        Ok(())
    }
}
