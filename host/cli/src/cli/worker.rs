//! `bench worker nats://HOST:PORT`: a long-running worker. It serves every run announced on
//! the NATS server: fetches and verifies the run's component, prepares the run from the
//! coordinator's flags with its own environment (it serves a participant only when it has
//! that participant's requiredEnvVars), then runs the units it pulls in the same sandboxes
//! and limits as a local run, publishing their records before it acks them.

use super::task::{prepare, slot_config, Prepared};
use super::{block_on, error_exit};
use anyhow::{Context as _, Result};
use bench_dispatch::{RunDescriptor, UnitDelivery, WorkerLink};
use bench_runtime::dispatch::{run_unit, RecordBatch};
use bench_runtime::engine::{EngineSettings, TaskEngine};
use bench_runtime::exec::{ExecPlan, SlotConfig, SlotFactory};
use clap::Args;
use futures_util::StreamExt;
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

/// The most units one worker runs at once.
const MAX_SLOTS: u32 = 10_000;

#[derive(Debug, Args)]
pub(super) struct WorkerArgs {
    /// The NATS server with JetStream (nats://HOST:PORT).
    url: String,
    /// How many units (participant slots) this worker runs at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_SLOTS as i64))]
    slots: u32,
    /// The worker's name in records and in the coordinator's progress (default: the host
    /// name and the process id).
    #[arg(long)]
    name: Option<String>,
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

    async fn serve(self) -> Result<()> {
        let name = self.name.clone().unwrap_or_else(default_name);
        let link = WorkerLink::connect(&self.url, &name).await?;
        eprintln!(
            "[bench] worker {name} serving {} with {} slots",
            self.url, self.slots
        );
        let slots = Arc::new(Semaphore::new(self.slots as usize));
        let runs = link.runs().await?;
        tokio::pin!(runs);
        let mut serving: HashMap<String, watch::Sender<bool>> = HashMap::new();
        while let Some(descriptor) = runs.next().await {
            let descriptor = match descriptor {
                Ok(descriptor) => descriptor,
                Err(error) => {
                    eprintln!("[bench] worker {name}: {error:#}");
                    continue;
                }
            };
            let run = descriptor.run_id.clone();
            if descriptor.done {
                if let Some(done) = serving.remove(&run) {
                    let _ = done.send(true);
                }
                continue;
            }
            if serving.contains_key(&run) {
                continue;
            }
            let (done_sender, done) = watch::channel(false);
            serving.insert(run.clone(), done_sender);
            let (link, slots, count) = (link.clone(), slots.clone(), self.slots);
            tokio::spawn(async move {
                if let Err(error) = serve_run(link.clone(), descriptor, slots, count, done).await {
                    eprintln!("[bench] worker {}: run {run}: {error:#}", link.name());
                }
            });
        }
        anyhow::bail!("the runs stream ended")
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

/// Serves one run until it is done.
async fn serve_run(
    link: WorkerLink,
    descriptor: RunDescriptor,
    slots: Arc<Semaphore>,
    slot_count: u32,
    done: watch::Receiver<bool>,
) -> Result<()> {
    let run = descriptor.run_id.clone();
    // A run this worker cannot take part in is refused, saying why.
    let ready = match ready_to_serve(&link, &descriptor, slot_count).await {
        Ok(ready) => ready,
        Err(error) => {
            link.refuse(&run, &format!("{error:#}")).await?;
            return Err(error);
        }
    };
    let ReadyRun {
        engine,
        served,
        exec_plan,
        _component_dir,
    } = ready;
    let names: Vec<String> = served.iter().map(|(_, name, _)| name.clone()).collect();
    link.hello(&run, &names).await?;
    eprintln!(
        "[bench] worker {}: run {run}: serving {}",
        link.name(),
        if names.is_empty() {
            "no participant (their requiredEnvVars are not set here)".to_owned()
        } else {
            names.join(", ")
        }
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
        participants.spawn(serve_participant(
            unit_run,
            position,
            slots.clone(),
            done.clone(),
        ));
    }
    while let Some(joined) = participants.join_next().await {
        joined??;
    }
    drop(engine);
    Ok(())
}

/// A run prepared on this worker.
struct ReadyRun {
    /// The run's engine: it drives the sandboxes' deadlines, so it lives until every unit
    /// is done.
    engine: TaskEngine,
    /// (participant number, name, slot config) of each participant this worker serves.
    served: Vec<(usize, String, SlotConfig)>,
    exec_plan: ExecPlan,
    /// Holds the component file while the run is served.
    _component_dir: tempfile::TempDir,
}

/// Fetches and verifies the run's component and prepares the run from its flags with this
/// worker's environment, as `bench run` would here.
async fn ready_to_serve(
    link: &WorkerLink,
    descriptor: &RunDescriptor,
    slot_count: u32,
) -> Result<ReadyRun> {
    let component = link.component(&descriptor.component_sha256).await?;
    let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
    let path = dir.path().join("task.wasm");
    std::fs::write(&path, &component).context("cannot store the task component")?;
    let Prepared {
        engine: loading_engine,
        task,
        config,
        flags,
        available,
        grants,
        exec_plan,
        ..
    } = prepare(&path, &descriptor.argv).await?;
    let engine = TaskEngine::for_run(&EngineSettings::default(), task.pool_size(slot_count))?;
    let task = Arc::new(task.load_into(&engine)?);
    drop(loading_engine);
    let mut served = Vec::new();
    for participant in &available {
        let Some(position) = descriptor
            .participants
            .iter()
            .position(|name| *name == participant.name)
        else {
            continue;
        };
        let slot = slot_config(
            &task,
            participant,
            &config,
            &flags,
            &grants,
            &exec_plan.stop,
        )?;
        served.push((position, participant.name.clone(), slot));
    }
    Ok(ReadyRun {
        engine,
        served,
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

/// Pulls and runs one participant's units while a slot is free, until the run is done.
async fn serve_participant(
    unit_run: UnitRun,
    position: usize,
    slots: Arc<Semaphore>,
    mut done: watch::Receiver<bool>,
) -> Result<()> {
    let source = unit_run.link.work(&unit_run.run, position).await?;
    let mut units = JoinSet::new();
    while !*done.borrow() {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => permit?,
            _ = done.changed() => break,
        };
        match source.next().await {
            Ok(Some(delivery)) => {
                units.spawn(run_delivery(unit_run.clone(), delivery, permit));
            }
            Ok(None) => {}
            Err(error) => {
                eprintln!("[bench] worker {}: {error:#}", unit_run.link.name());
                tokio::time::sleep(Duration::from_secs(1)).await;
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
        "[bench] worker {}: a unit of {} was not finished (it goes to a worker again): {error:#}",
        unit_run.link.name(),
        unit_run.participant
    );
}

/// Runs one delivered unit: its tasks in order, their records published in batches, the
/// unit's ack wait extended meanwhile, and the unit acked only once everything is published.
async fn run_delivery(
    unit_run: UnitRun,
    delivery: UnitDelivery,
    _permit: OwnedSemaphorePermit,
) -> Result<()> {
    let unit = delivery.unit.clone();
    if delivery.delivered() > 1 {
        eprintln!(
            "[bench] worker {}: unit {} of run {} delivered again (attempt {})",
            unit_run.link.name(),
            unit.key(),
            unit_run.run,
            delivery.delivered()
        );
    }
    let (sender, mut receiver) = mpsc::channel(128);
    let mut runner = unit_run.slot.open_slot();
    let plan = &unit_run.plan;
    let running = async move {
        run_unit(&mut runner, &unit, plan, &sender).await;
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
                            unit_run.link.publish(&full).await?;
                        }
                    }
                    None => break,
                },
                _ = heartbeat.tick() => delivery.in_progress().await?,
            }
        }
        if !batch.tasks.is_empty() {
            unit_run.link.publish(&batch).await?;
        }
        anyhow::Ok(())
    };
    let ((), published) = tokio::join!(running, publishing);
    published?;
    delivery.done().await
}
