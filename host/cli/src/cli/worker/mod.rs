//! `bench worker nats://HOST:PORT --trust FILE.pub`: a long-running worker. It serves the
//! runs announced on the NATS server that are signed by a key it trusts (`--trust-any`
//! serves any): fetches and verifies the run's component, prepares the run from the
//! coordinator's flags within its operator's grants (hosts, directories and variables
//! given on its own command line; a participant asking for more is not served), then runs
//! the units it pulls in the same sandboxes and limits as a local run, publishing their
//! records, signed with its own key, before it acks them. When the server is lost it
//! follows the runs again once it is back, and exits non-zero if it cannot.

mod announcements;

use super::session::slots::{load_into_run_engine, slot_config};
use super::task::{prepare_with, Prepared};
use super::{block_on, error_exit};
use crate::{flags, settings};
use announcements::{step, FinishedRuns, Refusals, RunPhase, Step};
use anyhow::{bail, Context as _, Result};
use bench_dispatch::{
    check_worker_name, AccessFiles, Announcement, NatsAccess, PublicKey, Pulled, RunDescriptor,
    RunTrust, SigningKey, UnitDelivery, WorkSource, WorkerLink,
};
use bench_model::ceilings::Ceilings;
use bench_model::dispatch::RecordBatch;
use bench_model::plan::ExecPlan;
use bench_model::text::escape_control;
use bench_runtime::compile_budget::abandoned_compilation;
use bench_runtime::engine::TaskEngine;
use bench_runtime::exec::{self, SlotConfig};
use bench_runtime::sandbox::grants::OperatorGrants;
use clap::Args;
use futures_util::{Stream, StreamExt};
use std::collections::HashMap;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

/// The most units one worker runs at once.
const MAX_SLOTS: u32 = 10_000;

/// The default `--reconnect-wait`.
const DEFAULT_RECONNECT_WAIT: &str = "60s";

#[derive(Debug, Args)]
pub(super) struct WorkerArgs {
    /// The NATS server with JetStream: nats://HOST:PORT or tls://HOST:PORT, with
    /// user:password@ or token@ when the server asks for them.
    url: String,
    /// How many units (participant slots) this worker runs at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_SLOTS as i64))]
    slots: u32,
    /// The worker's name in records and in the coordinator's progress (default: the host
    /// name and the process id).
    #[arg(long)]
    name: Option<String>,
    /// Serve runs signed by this public key (FILE.pub of `bench keygen FILE`; repeatable).
    #[arg(long, value_name = "FILE.pub")]
    trust: Vec<PathBuf>,
    /// Serve any run, signed or not: whoever can publish to the NATS server then controls
    /// this worker.
    #[arg(long, conflicts_with = "trust")]
    trust_any: bool,
    /// Sign hellos and records with this key (`bench keygen FILE`; the coordinator counts
    /// only records of keys it trusts with --trust-worker FILE.pub). Default: a new key
    /// each time the worker starts.
    #[arg(long, value_name = "FILE")]
    sign: Option<PathBuf>,
    /// Let the runs' tasks reach this origin, as `bench run --allow-host` (repeatable): a
    /// participant asking for a host outside these is not served.
    #[arg(long, value_name = "URL")]
    allow_host: Vec<String>,
    /// Let the runs' tasks have this directory, as `bench run --allow-dir` (repeatable): a
    /// participant asking for another, or to write one granted read-only, is not served.
    #[arg(long, value_name = "HOST[:GUEST][:rw]")]
    allow_dir: Vec<String>,
    /// Give the runs' tasks this variable of the worker's environment when they ask for
    /// it (requiredEnvVars, passEnv; repeatable or comma-separated): no other variable
    /// reaches a sandbox, and a participant whose requiredEnvVars are not all served is
    /// not served.
    #[arg(long, value_name = "NAME", value_delimiter = ',')]
    serve_env: Vec<String>,
    /// A NATS .creds file: user JWT and nkey seed.
    #[arg(long, value_name = "FILE", env = "NATS_CREDS")]
    nats_creds: Option<PathBuf>,
    /// A file holding a NATS nkey seed.
    #[arg(long, value_name = "FILE", env = "NATS_NKEY")]
    nats_nkey: Option<PathBuf>,
    /// The CA the NATS server's certificate must chain to.
    #[arg(long, value_name = "FILE", env = "NATS_CA")]
    nats_ca: Option<PathBuf>,
    /// A client certificate for NATS over TLS (with --nats-key).
    #[arg(long, value_name = "FILE", env = "NATS_CERT")]
    nats_cert: Option<PathBuf>,
    /// The client certificate's private key.
    #[arg(long, value_name = "FILE", env = "NATS_KEY")]
    nats_key: Option<PathBuf>,
    /// How long the worker tries to follow the runs (and pull their units) again once it
    /// is connected again after losing the server; then it exits non-zero, so that an
    /// orchestrator restarts it.
    #[arg(long, value_name = "DURATION", default_value = DEFAULT_RECONNECT_WAIT, value_parser = duration)]
    reconnect_wait: Duration,
}

/// `--reconnect-wait`'s value, read as `bench run` reads durations.
fn duration(text: &str) -> Result<Duration, String> {
    crate::flags::duration_ms("--reconnect-wait", text)
        .map(Duration::from_millis)
        .map_err(|error| error.to_string())
}

impl WorkerArgs {
    /// Serves runs until the process is stopped; returns the exit code of a fatal error.
    pub(super) fn execute(self) -> ExitCode {
        block_on(async move {
            match self.serve().await {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => error_exit(&error),
            }
        })
    }

    /// Whose runs this worker serves.
    fn trust(&self) -> Result<RunTrust> {
        if self.trust_any {
            return Ok(RunTrust::Any);
        }
        if self.trust.is_empty() {
            bail!(
                "a worker serves only runs signed by a key it trusts: give --trust FILE.pub (the public key of bench keygen FILE, whose FILE the coordinator signs with: bench run --dispatch URL --sign FILE), or --trust-any to serve any run (then anyone who can publish to the NATS server controls this worker)"
            );
        }
        let keys = self
            .trust
            .iter()
            .map(|path| PublicKey::read(path))
            .collect::<Result<Vec<_>>>()?;
        Ok(RunTrust::Keys(keys))
    }

    async fn serve(self) -> Result<()> {
        let trust = self.trust()?;
        let name = self.name.clone().unwrap_or_else(default_name);
        check_worker_name(&name).context("--name")?;
        let key = match &self.sign {
            Some(path) => SigningKey::read(path)?,
            None => SigningKey::generate(),
        };
        // The ceilings of the runs served here: this machine's environment's and bench
        // config file's (a run's flags may only lower them).
        let mut ceilings = Ceilings::default();
        settings::apply(&mut ceilings)?;
        let operator = Arc::new(
            OperatorGrants::parse(&self.allow_host, &self.allow_dir, &self.serve_env)?
                .with_ceilings(ceilings),
        );
        let files = AccessFiles {
            creds: self.nats_creds.clone(),
            nkey: self.nats_nkey.clone(),
            ca: self.nats_ca.clone(),
            cert: self.nats_cert.clone(),
            key: self.nats_key.clone(),
        };
        let access = NatsAccess::new(&self.url, files)?;
        let trusted = match &trust {
            RunTrust::Any => "any run (--trust-any)".to_owned(),
            RunTrust::Keys(keys) => {
                let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
                format!("runs signed by {}", keys.join(", "))
            }
        };
        let link = WorkerLink::connect(&access, &name, key, trust).await?;
        open_streams(&link).await?;
        let mut connections = link.connections();
        let recovery = self.reconnect_wait;
        let first = follow(&link).await;
        eprintln!(
            "[bench] worker {} serving {} with {} slots: {trusted}; signing with {}",
            escape_control(&name),
            access.server(),
            self.slots,
            link.key()
        );
        let (fatal, mut fatal_errors) = mpsc::channel(1);
        let mut runs = Runs {
            link: link.clone(),
            operator,
            slots: Arc::new(Semaphore::new(self.slots as usize)),
            slot_count: self.slots,
            serving: HashMap::new(),
            finished: FinishedRuns::default(),
            refused: Refusals::default(),
            fatal,
            recovery: self.reconnect_wait,
        };
        let mut announcements = match first {
            Ok(announcements) => announcements,
            // The server was lost while the worker started following: it follows again
            // once it is connected again, as it does when the server is lost later.
            Err(error) if !link.is_connected() || *connections.borrow() > 1 => {
                eprintln!(
                    "[bench] worker {}: {}; following the runs once connected again",
                    escape_control(&name),
                    escape_control(&format!("{error:#}"))
                );
                Box::pin(futures_util::stream::pending())
            }
            Err(error) => return Err(error),
        };
        loop {
            tokio::select! {
                announcement = announcements.next() => match announcement {
                    Some(Ok(announcement)) => runs.take(announcement).await,
                    Some(Err(error)) => {
                        eprintln!("[bench] worker {}: {}; following the runs again", escape_control(&name), escape_control(&format!("{error:#}")));
                        announcements = follow_again(&link, recovery).await?;
                    }
                    None => announcements = follow_again(&link, recovery).await?,
                },
                changed = connections.changed() => {
                    changed.context("the NATS connection closed")?;
                    if *connections.borrow_and_update() <= 1 {
                        continue;
                    }
                    eprintln!("[bench] worker {}: connected to NATS again; following the runs again", escape_control(&name));
                    announcements = follow_again(&link, recovery).await?;
                }
                Some(error) = fatal_errors.recv() => return Err(error),
            }
        }
    }
}

/// `<host name>-<process id>`.
fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .unwrap_or_default();
    let host = if host.is_empty() {
        "worker".to_owned()
    } else {
        host
    };
    format!("{host}-{}", std::process::id())
}

/// Opens the shared streams; while they are missing and this worker may not create them
/// (a secured server: the coordinator creates them), it waits.
async fn open_streams(link: &WorkerLink) -> Result<()> {
    let mut said = false;
    loop {
        match link.open_streams().await {
            Ok(()) => return Ok(()),
            Err(error) if !said => {
                said = true;
                eprintln!(
                    "[bench] worker {}: waiting for the streams ({}); a coordinator creates them",
                    escape_control(link.name()),
                    escape_control(&format!("{error:#}"))
                );
            }
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

type Announcements = Pin<Box<dyn Stream<Item = Result<Announcement>> + Send>>;

async fn follow(link: &WorkerLink) -> Result<Announcements> {
    Ok(Box::pin(link.runs().await?))
}

/// Follows the runs again after the server was lost, trying for `recovery`; an error (the
/// process then exits non-zero, so an orchestrator restarts it) if it cannot.
async fn follow_again(link: &WorkerLink, recovery: Duration) -> Result<Announcements> {
    let deadline = Instant::now() + recovery;
    loop {
        match follow(link).await {
            Ok(announcements) => return Ok(announcements),
            Err(error) if Instant::now() >= deadline => {
                return Err(error.context(format!(
                    "cannot follow the runs again within {}s of losing the NATS server",
                    recovery.as_secs_f64()
                )))
            }
            Err(_) => tokio::time::sleep(Duration::from_secs(1)).await,
        }
    }
}

/// The runs this worker knows of.
struct Runs {
    link: WorkerLink,
    operator: Arc<OperatorGrants>,
    slots: Arc<Semaphore>,
    slot_count: u32,
    /// Runs being served, by id.
    serving: HashMap<String, watch::Sender<RunPhase>>,
    /// Runs finished here.
    finished: FinishedRuns,
    /// Refusals already sent.
    refused: Refusals,
    /// A serving task that cannot go on (its queue is lost) ends the worker through it.
    fatal: mpsc::Sender<anyhow::Error>,
    /// `--reconnect-wait`.
    recovery: Duration,
}

impl Runs {
    async fn take(&mut self, announcement: Announcement) {
        let descriptor = match announcement {
            Announcement::Run(descriptor) => descriptor,
            Announcement::Refused { run, reason } => return self.refuse(run, reason).await,
        };
        let run = descriptor.run_id.clone();
        let phase = RunPhase {
            revision: descriptor.revision,
            done: descriptor.done,
        };
        let serving = self.serving.get(&run).map(|serving| *serving.borrow());
        match step(self.finished.get(&run), serving, phase) {
            Step::Ignore => return,
            Step::Update => {
                if let Some(serving) = self.serving.get(&run) {
                    serving.send_replace(phase);
                }
                if phase.done {
                    self.serving.remove(&run);
                    self.finished.insert(run, phase.revision);
                }
                return;
            }
            Step::Finish => return self.finished.insert(run, phase.revision),
            Step::Serve => {}
        }
        let (sender, receiver) = watch::channel(phase);
        self.serving.insert(run.clone(), sender);
        let server = RunServer {
            link: self.link.clone(),
            operator: self.operator.clone(),
            slots: self.slots.clone(),
            slot_count: self.slot_count,
            fatal: self.fatal.clone(),
            recovery: self.recovery,
        };
        tokio::spawn(async move {
            let name = server.link.name().to_owned();
            if let Err(error) = server.serve(descriptor, receiver).await {
                eprintln!(
                    "[bench] worker {}: run {run}: {}",
                    escape_control(&name),
                    escape_control(&format!("{error:#}"))
                );
            }
        });
    }

    /// Says why an announcement is refused, here and (once per run and reason) to the
    /// run's coordinator.
    async fn refuse(&mut self, run: Option<String>, reason: String) {
        let name = escape_control(self.link.name()).into_owned();
        let shown = run.as_deref().unwrap_or("(not a run id)");
        eprintln!(
            "[bench] worker {name}: refused an announcement of run {}: {}",
            escape_control(shown),
            escape_control(&reason)
        );
        // A run served here goes on: what was refused is only someone else's announcement.
        let Some(run) = run.filter(|run| !self.serving.contains_key(run)) else {
            return;
        };
        if self.refused.first(&run, &reason) {
            if let Err(error) = self.link.refuse(&run, &reason).await {
                eprintln!(
                    "[bench] worker {name}: {}",
                    escape_control(&format!("{error:#}"))
                );
            }
        }
    }
}

/// What serving one run needs.
struct RunServer {
    link: WorkerLink,
    operator: Arc<OperatorGrants>,
    slots: Arc<Semaphore>,
    slot_count: u32,
    fatal: mpsc::Sender<anyhow::Error>,
    recovery: Duration,
}

impl RunServer {
    /// Serves one run until it is done; says hello again each time the run is announced
    /// anew (a resumed coordinator).
    async fn serve(
        self,
        descriptor: RunDescriptor,
        mut phase: watch::Receiver<RunPhase>,
    ) -> Result<()> {
        let link = &self.link;
        let run = descriptor.run_id.clone();
        // A run this worker cannot take part in is refused, saying why.
        let ready = match ready_to_serve(link, &descriptor, &self.operator, self.slot_count).await {
            Ok(ready) => ready,
            Err(error) => {
                link.refuse(&run, &format!("{error:#}")).await?;
                if abandoned_compilation(&error) {
                    eprintln!(
                        "[bench] worker {}: run {run}: {}; the worker stops (a compilation \
                         cannot be interrupted)",
                        escape_control(link.name()),
                        escape_control(&format!("{error:#}"))
                    );
                    std::process::exit(1);
                }
                return Err(error);
            }
        };
        let ReadyRun {
            engine,
            served,
            not_served,
            exec_plan,
            _component_dir,
        } = ready;
        let names: Vec<String> = served.iter().map(|(_, name, _)| name.clone()).collect();
        link.hello(&run, &names).await?;
        let mut said = if names.is_empty() {
            "no participant".to_owned()
        } else {
            names.join(", ")
        };
        if !not_served.is_empty() {
            said.push_str(&format!("; not {}", not_served.join("; ")));
        }
        eprintln!(
            "[bench] worker {}: run {run}: serving {}",
            escape_control(link.name()),
            escape_control(&said)
        );
        let mut participants = JoinSet::new();
        for (position, name, slot) in served {
            let unit_run = UnitRun {
                link: link.clone(),
                run: run.clone(),
                participant: name,
                slot,
                plan: exec_plan.clone(),
                heartbeat: descriptor.heartbeat(),
            };
            let source = link.work(&run, position, &unit_run.participant).await?;
            let puller = Puller {
                source,
                slots: self.slots.clone(),
                phase: phase.clone(),
                fatal: self.fatal.clone(),
                recovery: self.recovery,
            };
            participants.spawn(serve_participant(unit_run, puller));
        }
        let mut revision = phase.borrow().revision;
        let mut announced = true;
        loop {
            tokio::select! {
                joined = participants.join_next() => match joined {
                    Some(joined) => joined??,
                    None => break,
                },
                changed = phase.changed(), if announced => {
                    if changed.is_err() {
                        announced = false;
                        continue;
                    }
                    if phase.borrow().done {
                        continue;
                    }
                    let now = phase.borrow().revision;
                    if now > revision {
                        revision = now;
                        link.hello(&run, &names).await?;
                    }
                }
            }
        }
        drop(engine);
        Ok(())
    }
}

/// A run prepared on this worker.
struct ReadyRun {
    /// The run's engine: it drives the sandboxes' deadlines, so it lives until every unit
    /// is done.
    engine: TaskEngine,
    /// (participant number, name, slot config) of each participant this worker serves.
    served: Vec<(usize, String, SlotConfig)>,
    /// Participants it does not serve, each with why.
    not_served: Vec<String>,
    exec_plan: ExecPlan,
    /// Holds the component file while the run is served.
    _component_dir: tempfile::TempDir,
}

/// Fetches and verifies the run's component and prepares the run from its flags, as
/// `bench run` would here, with only the grants and variables the operator gives and within
/// its ceilings.
async fn ready_to_serve(
    link: &WorkerLink,
    descriptor: &RunDescriptor,
    operator: &OperatorGrants,
    slot_count: u32,
) -> Result<ReadyRun> {
    let ceilings = operator.ceilings_for(&flags::ceilings_of(&descriptor.argv)?)?;
    let component = link.component(&descriptor.component_sha256).await?;
    let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
    let path = dir.path().join("task.wasm");
    std::fs::write(&path, &component).context("cannot store the task component")?;
    let env = |name: &str| operator.env(name);
    let mut prepared = prepare_with(&path, &descriptor.argv, ceilings, &env).await?;
    load_into_run_engine(&mut prepared, slot_count)?;
    let mut not_served: Vec<String> = prepared
        .skipped
        .iter()
        .map(|skipped| {
            format!(
                "{} (its requiredEnvVars {} are not served here: bench worker --serve-env)",
                skipped.name,
                skipped.missing.join(", ")
            )
        })
        .collect();
    let mut served = Vec::new();
    for participant in &prepared.available {
        let Some(position) = descriptor
            .participants
            .iter()
            .position(|name| *name == participant.name)
        else {
            continue;
        };
        let slot = slot_config(&prepared, participant, &env)?;
        match operator.admit(&slot.capabilities) {
            Ok(()) => served.push((position, participant.name.clone(), slot)),
            Err(why) => not_served.push(format!("{} ({why})", participant.name)),
        }
    }
    let Prepared {
        engine, exec_plan, ..
    } = prepared;
    Ok(ReadyRun {
        engine,
        served,
        not_served,
        exec_plan,
        _component_dir: dir,
    })
}

/// What running a unit of one participant needs.
#[derive(Clone)]
struct UnitRun {
    link: WorkerLink,
    run: String,
    participant: String,
    slot: SlotConfig,
    plan: ExecPlan,
    heartbeat: Duration,
}

/// Where and how one participant's units are pulled.
struct Puller {
    source: WorkSource,
    slots: Arc<Semaphore>,
    phase: watch::Receiver<RunPhase>,
    /// Ends the worker when the queue cannot be pulled from again.
    fatal: mpsc::Sender<anyhow::Error>,
    /// `--reconnect-wait`.
    recovery: Duration,
}

/// Pulls and runs one participant's units while a slot is free, until the run is done. A
/// queue that cannot be pulled from again within `--reconnect-wait` ends the worker.
async fn serve_participant(unit_run: UnitRun, puller: Puller) -> Result<()> {
    let Puller {
        mut source,
        slots,
        mut phase,
        fatal,
        recovery,
    } = puller;
    let name = escape_control(unit_run.link.name()).into_owned();
    let mut units = JoinSet::new();
    let mut failing_since: Option<Instant> = None;
    while !phase.borrow().done {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => permit?,
            changed = phase.changed() => match changed {
                Ok(()) => continue,
                Err(_) => break,
            },
        };
        match source.next().await {
            Ok(pulled) => {
                failing_since = None;
                match pulled {
                    Pulled::Unit(delivery) => {
                        units.spawn(run_delivery(unit_run.clone(), *delivery, permit));
                    }
                    Pulled::Nothing => {}
                    Pulled::Refused(reason) => eprintln!(
                        "[bench] worker {name}: run {}: refused a work message: {}",
                        unit_run.run,
                        escape_control(&reason)
                    ),
                }
            }
            Err(error) => {
                let since = *failing_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= recovery {
                    let error = error.context(format!(
                        "run {}: cannot pull units of {} again within {}s",
                        unit_run.run,
                        escape_control(&unit_run.participant),
                        recovery.as_secs_f64()
                    ));
                    let _ = fatal.send(error).await;
                    break;
                }
                eprintln!(
                    "[bench] worker {name}: {}",
                    escape_control(&format!("{error:#}"))
                );
                tokio::time::sleep(Duration::from_secs(1)).await;
                if let Err(error) = source.reopen().await {
                    eprintln!(
                        "[bench] worker {name}: {}",
                        escape_control(&format!("{error:#}"))
                    );
                }
            }
        }
        while let Some(finished) = units.try_join_next() {
            report_unit(&unit_run, finished);
        }
    }
    while let Some(finished) = units.join_next().await {
        report_unit(&unit_run, finished);
    }
    Ok(())
}

fn report_unit(unit_run: &UnitRun, finished: Result<Result<()>, tokio::task::JoinError>) {
    let error = match finished {
        Ok(Ok(())) => return,
        Ok(Err(error)) => error,
        Err(error) => error.into(),
    };
    eprintln!(
        "[bench] worker {}: a unit of {} was not finished (it goes to a worker again): {}",
        escape_control(unit_run.link.name()),
        escape_control(&unit_run.participant),
        escape_control(&format!("{error:#}"))
    );
}

/// Runs one delivered unit: its tasks in order, their records published in batches, the
/// unit's ack wait extended meanwhile, and the unit acked only once every batch is
/// published (a batch JetStream refuses leaves the unit unacknowledged).
async fn run_delivery(
    unit_run: UnitRun,
    delivery: UnitDelivery,
    _permit: OwnedSemaphorePermit,
) -> Result<()> {
    let unit = delivery.unit.clone();
    if delivery.delivered() > 1 {
        eprintln!(
            "[bench] worker {}: unit {} of run {} delivered again (attempt {})",
            escape_control(unit_run.link.name()),
            escape_control(&unit.key()),
            unit_run.run,
            delivery.delivered()
        );
    }
    let (sender, mut receiver) = mpsc::channel(128);
    let (slot, plan) = (&unit_run.slot, &unit_run.plan);
    let running = async move {
        exec::run_unit_in_new_slot(slot, &unit, plan, &sender).await;
    };
    let publishing = async {
        let mut batch = RecordBatch::new(&unit_run.run, &delivery.unit, unit_run.link.name());
        let mut heartbeat = tokio::time::interval(unit_run.heartbeat);
        heartbeat.tick().await;
        loop {
            tokio::select! {
                finished = receiver.recv() => match finished {
                    Some(finished) => {
                        if let Some(full) = batch.push(&unit_run.participant, finished) {
                            unit_run.link.publish(&full, &delivery).await?;
                        }
                    }
                    None => break,
                },
                _ = heartbeat.tick() => delivery.in_progress().await?,
            }
        }
        if !batch.tasks.is_empty() {
            unit_run.link.publish(&batch, &delivery).await?;
        }
        anyhow::Ok(())
    };
    let ((), published) = tokio::join!(running, publishing);
    published?;
    delivery.done().await
}
