//! `bench run --dispatch`: the coordinator. It follows a local run's schedule semantics
//! with work units instead of slots (participant mode: a participant's units, one per
//! slot, before the next participant; round mode: round `r + 1` only once round `r` is
//! recorded, at most `concurrency` units in flight), and hands every task the workers
//! record to the run's observers exactly once.

use anyhow::{bail, Result};
use bench_dispatch::{Coordinator, Incoming};
use bench_platform::reporter::PlatformRun;
use bench_runtime::config::GroupBy;
use bench_runtime::dispatch::{participant_units, round_units, Accepted, TaskLedger, WorkUnit};
use bench_runtime::events::{RunEvent, RunObserver};
use bench_runtime::exec::ExecPlan;
use bench_runtime::record::TaskRecord;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant, SystemTime};

/// How long one wait for worker messages lasts before the coordinator checks its clocks.
const POLL: Duration = Duration::from_millis(20);

/// The default `--worker-wait`.
pub(super) const DEFAULT_WORKER_WAIT: Duration = Duration::from_secs(30);

/// The default `--ack-wait`.
pub(super) const DEFAULT_ACK_WAIT: Duration = Duration::from_secs(30);

/// What the coordinator follows while the workers run the tasks.
pub(super) struct Coordination<'a> {
    /// The run's connection.
    pub link: Coordinator,
    /// Participants in run order.
    pub names: &'a [String],
    /// Schedule, concurrency, stagger and stop.
    pub plan: &'a ExecPlan,
    /// `--worker-wait`.
    pub worker_wait: Duration,
    /// Platform reporting, when on.
    pub platform: Option<&'a PlatformRun>,
    /// What a resumed run recorded before.
    pub prior: Prior,
}

/// The tasks a run recorded before its coordinator was resumed.
pub(super) struct Prior {
    ledger: TaskLedger,
    /// Per participant: tasks recorded and how many succeeded.
    counts: HashMap<String, (usize, usize)>,
}

impl Prior {
    /// Nothing recorded yet, for `participants` running `tasks` tasks each.
    pub(super) fn new(participants: &[String], tasks: usize) -> Self {
        Self {
            ledger: TaskLedger::new(participants, tasks as u64),
            counts: HashMap::new(),
        }
    }

    /// Counts a record already on disk.
    pub(super) fn add(&mut self, participant: &str, record: &TaskRecord) {
        if self.ledger.accept(participant, record.task_index) == Accepted::New {
            let counts = self.counts.entry(participant.to_owned()).or_default();
            counts.0 += 1;
            counts.1 += usize::from(record.is_success());
        }
    }
}

/// How many tasks each worker recorded, by worker name.
pub(super) type WorkerShares = BTreeMap<String, u64>;

/// Runs the whole schedule through the workers; returns each worker's share.
pub(super) async fn coordinate(
    run: Coordination<'_>,
    group_by: GroupBy,
    observer: &mut dyn RunObserver,
) -> Result<WorkerShares> {
    let total = run.plan.schedule.len();
    let mut state = State {
        link: run.link,
        names: run.names.to_vec(),
        ledger: run.prior.ledger,
        counts: run.prior.counts,
        serving: HashMap::new(),
        shares: BTreeMap::new(),
        total,
        worker_wait: run.worker_wait,
        last_ack: Instant::now(),
    };
    match group_by {
        GroupBy::Participant => {
            for (position, name) in run.names.iter().enumerate() {
                if run.plan.stop.is_stopping() {
                    break;
                }
                if let Some(platform) = run.platform {
                    if !platform.begin(name)? {
                        continue;
                    }
                }
                observer.observe(RunEvent::ParticipantStarted { participant: name })?;
                let units = state.unrecorded(participant_units(name, run.plan, SystemTime::now()));
                state.link.publish_units(position, &units).await?;
                let waiting = Instant::now();
                while state.recorded(name) < total && !run.plan.stop.is_stopping() {
                    state.receive(observer).await?;
                    state.check_workers(name, waiting)?;
                }
                observer.observe(RunEvent::Flush)?;
                let (tasks, succeeded) = state.counts.get(name).copied().unwrap_or_default();
                observer.observe(RunEvent::ParticipantFinished {
                    participant: name,
                    tasks,
                    succeeded,
                })?;
            }
        }
        GroupBy::Round => {
            if let Some(platform) = run.platform {
                platform.begin_rounds();
            }
            observer.observe(RunEvent::RoundsStarted {
                participants: run.names.len(),
                rounds: total,
            })?;
            for round in 0..total as u32 {
                if round > 0 && run.plan.stagger_delay_ms > 0.0 {
                    observer.observe(RunEvent::Flush)?;
                    let gap = Duration::from_secs_f64(run.plan.stagger_delay_ms / 1000.0);
                    tokio::select! {
                        () = tokio::time::sleep(gap) => {}
                        () = run.plan.stop.stopping() => {}
                    }
                }
                if run.plan.stop.is_stopping() {
                    break;
                }
                state
                    .run_round(round, run.names, run.plan, observer)
                    .await?;
            }
            observer.observe(RunEvent::Flush)?;
            for name in run.names {
                let (tasks, succeeded) = state.counts.get(name).copied().unwrap_or_default();
                observer.observe(RunEvent::RoundParticipantFinished {
                    participant: name,
                    failed: succeeded < tasks,
                })?;
            }
        }
    }
    observer.observe(RunEvent::Flush)?;
    state.link.ack_received().await?;
    let shares = std::mem::take(&mut state.shares);
    state.link.finish().await?;
    Ok(shares)
}

struct State {
    link: Coordinator,
    /// Participants in run order.
    names: Vec<String>,
    ledger: TaskLedger,
    /// Per participant: tasks recorded and how many succeeded.
    counts: HashMap<String, (usize, usize)>,
    /// Per participant: the workers that said they serve it.
    serving: HashMap<String, BTreeSet<String>>,
    shares: WorkerShares,
    total: usize,
    worker_wait: Duration,
    last_ack: Instant,
}

impl State {
    /// `units` without those whose every task is recorded (a resumed run).
    fn unrecorded(&self, units: Vec<WorkUnit>) -> Vec<WorkUnit> {
        units
            .into_iter()
            .filter(|unit| {
                unit.indices()
                    .any(|index| !self.ledger.contains(&unit.participant, index))
            })
            .collect()
    }

    fn recorded(&self, participant: &str) -> usize {
        self.counts.get(participant).map_or(0, |(tasks, _)| *tasks)
    }

    /// Round `round`: every participant's task, at most `concurrency` in flight.
    async fn run_round(
        &mut self,
        round: u32,
        names: &[String],
        plan: &ExecPlan,
        observer: &mut dyn RunObserver,
    ) -> Result<()> {
        let units: Vec<(usize, WorkUnit)> =
            round_units(round, names).into_iter().enumerate().collect();
        let limit = (plan.concurrency as usize).max(1);
        let waiting = Instant::now();
        let mut published = 0;
        loop {
            let recorded = |unit: &WorkUnit| self.ledger.contains(&unit.participant, round);
            if units.iter().all(|(_, unit)| recorded(unit)) || plan.stop.is_stopping() {
                return Ok(());
            }
            let in_flight = units[..published]
                .iter()
                .filter(|(_, unit)| !recorded(unit))
                .count();
            for (position, unit) in units
                .iter()
                .skip(published)
                .take(limit.saturating_sub(in_flight))
            {
                self.link
                    .publish_units(*position, std::slice::from_ref(unit))
                    .await?;
                published += 1;
            }
            self.receive(observer).await?;
            for name in names
                .iter()
                .filter(|name| !self.ledger.contains(name, round))
            {
                self.check_workers(name, waiting)?;
            }
        }
    }

    /// Takes what the workers sent within a short wait; acknowledges it once the
    /// observers flushed it to disk.
    async fn receive(&mut self, observer: &mut dyn RunObserver) -> Result<()> {
        if let Some(incoming) = self.link.next(POLL).await? {
            self.take(incoming, observer)?;
            // Drain what is already there without waiting.
            while let Some(incoming) = self.link.next(Duration::ZERO).await? {
                self.take(incoming, observer)?;
            }
        }
        if self.last_ack.elapsed() >= POLL {
            observer.observe(RunEvent::Flush)?;
            self.link.ack_received().await?;
            self.last_ack = Instant::now();
        }
        Ok(())
    }

    fn take(&mut self, incoming: Incoming, observer: &mut dyn RunObserver) -> Result<()> {
        match incoming {
            Incoming::Records(batch) => {
                for (participant, finished) in batch.into_finished() {
                    let index = finished.record.task_index;
                    match self.ledger.accept(&participant, index) {
                        Accepted::New => {}
                        Accepted::Again => continue,
                        Accepted::Unknown => {
                            eprintln!("[bench] a worker sent task {index} of \"{participant}\", which this run does not have; it is left out");
                            continue;
                        }
                    }
                    let counts = self.counts.entry(participant.clone()).or_default();
                    counts.0 += 1;
                    counts.1 += usize::from(finished.record.is_success());
                    if let Some(worker) = &finished.worker {
                        *self.shares.entry(worker.clone()).or_default() += 1;
                    }
                    observer.observe(RunEvent::TaskFinished {
                        participant: &participant,
                        finished: &finished,
                        total: self.total,
                    })?;
                }
            }
            Incoming::Hello(note) => {
                for participant in note.participants {
                    self.serving
                        .entry(participant)
                        .or_default()
                        .insert(note.worker.clone());
                }
            }
            Incoming::Refusal(note) => {
                eprintln!(
                    "[bench] worker {} refused the run: {}",
                    note.worker, note.reason
                );
            }
            Incoming::Invalid(reason) => eprintln!("[bench] left out a worker message: {reason}"),
            Incoming::GaveUp {
                participant,
                deliveries,
            } => {
                let name = self.names.get(participant).map_or("?", String::as_str);
                bail!(
                    "a work unit of participant \"{name}\" was delivered {deliveries} times and never finished (its workers died or could not send its records); the run stops here: once the workers are healthy, bench run --resume <results-dir> completes it"
                );
            }
        }
        Ok(())
    }

    /// Fails once `participant` has waited `--worker-wait` without a worker serving it.
    fn check_workers(&self, participant: &str, since: Instant) -> Result<()> {
        let served = self.serving.get(participant).is_some_and(|w| !w.is_empty());
        if !served && since.elapsed() >= self.worker_wait {
            bail!(
                "no worker can run participant \"{participant}\": none joined within {}s (a worker serves a participant only when its own environment has the participant's requiredEnvVars)",
                self.worker_wait.as_secs_f64()
            );
        }
        Ok(())
    }
}
