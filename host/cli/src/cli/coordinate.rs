//! `bench run --dispatch`: the coordinator. It follows a local run's schedule semantics
//! with work units instead of slots (participant mode: a participant's units, one per
//! slot, before the next participant; round mode: round `r + 1` only once round `r` is
//! recorded, at most `concurrency` units in flight), and hands every task the workers
//! record to the run's observers exactly once. What workers send is untrusted: a batch
//! counts only when it holds consecutive tasks of one of the run's units; anything left
//! out is said, counted and escaped.

use super::dispatched::DispatchedRun;
use anyhow::{anyhow, bail, Result};
use bench_dispatch::{Coordinator, Incoming};
use bench_model::config::GroupBy;
use bench_model::dispatch::{
    participant_units, round_units, Accepted, RecordBatch, RunUnits, TaskLedger, WorkUnit,
};
use bench_model::events::{RunEvent, RunObserver};
use bench_model::plan::ExecPlan;
use bench_model::record::TaskRecord;
use bench_model::text::escape_control;
use bench_platform::reporter::PlatformRun;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How long one wait for worker messages lasts before the coordinator checks its clocks.
const POLL: Duration = Duration::from_millis(20);

/// How often the coordinator asks JetStream whether it gave up on a unit it is waiting
/// for (an advisory only makes it ask at once).
const GIVEN_UP_CHECK: Duration = Duration::from_secs(5);

/// How many notices of each kind are shown one by one; after that only every tenfold.
const NOTICES_SHOWN: u64 = 20;

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
    /// Participants one after another, or rounds.
    pub group_by: GroupBy,
    /// `--worker-wait`.
    pub worker_wait: Duration,
    /// Platform reporting, when on.
    pub platform: Option<&'a PlatformRun>,
    /// What a resumed run recorded before.
    pub prior: Prior,
    /// `dispatch.json`: the workers that join are added to it.
    pub dispatched: DispatchedRun,
    /// The results directory.
    pub dir: &'a Path,
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
    observer: &mut dyn RunObserver,
) -> Result<WorkerShares> {
    let Coordination {
        link,
        names,
        plan,
        group_by,
        worker_wait,
        platform,
        prior,
        dispatched,
        dir,
    } = run;
    let mut state = State {
        link,
        names: names.to_vec(),
        units: RunUnits::new(names, plan, group_by),
        ledger: prior.ledger,
        counts: prior.counts,
        serving: HashMap::new(),
        shares: BTreeMap::new(),
        total: plan.schedule.len(),
        worker_wait,
        last_ack: Instant::now(),
        last_given_up_check: Instant::now(),
        dropped: Notices::new("left out a message not from this run's workers"),
        refusals: Notices::new("a worker refused the run"),
        dispatched,
        dir,
    };
    let schedule = Schedule {
        names,
        plan,
        group_by,
        platform,
    };
    let outcome = state.follow(&schedule, observer).await;
    state.dropped.summary();
    outcome?;
    observer.observe(RunEvent::Flush)?;
    state.link.ack_received().await?;
    let shares = std::mem::take(&mut state.shares);
    state.link.finish().await?;
    Ok(shares)
}

/// The run's order of work.
struct Schedule<'a> {
    names: &'a [String],
    plan: &'a ExecPlan,
    group_by: GroupBy,
    platform: Option<&'a PlatformRun>,
}

struct State<'a> {
    link: Coordinator,
    /// Participants in run order.
    names: Vec<String>,
    /// The units the run hands out (a batch of any other is left out).
    units: RunUnits,
    ledger: TaskLedger,
    /// Per participant: tasks recorded and how many succeeded.
    counts: HashMap<String, (usize, usize)>,
    /// Per participant: the workers that said they serve it.
    serving: HashMap<String, BTreeSet<String>>,
    shares: WorkerShares,
    total: usize,
    worker_wait: Duration,
    last_ack: Instant,
    last_given_up_check: Instant,
    /// Messages left out.
    dropped: Notices,
    /// Refusals shown.
    refusals: Notices,
    dispatched: DispatchedRun,
    dir: &'a Path,
}

impl State<'_> {
    /// The whole schedule, in participant or round order.
    async fn follow(&mut self, run: &Schedule<'_>, observer: &mut dyn RunObserver) -> Result<()> {
        let total = self.total;
        match run.group_by {
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
                    let units =
                        self.unrecorded(participant_units(name, run.plan, SystemTime::now()));
                    self.link.publish_units(position, &units).await?;
                    let waiting = Instant::now();
                    while self.recorded(name) < total && !run.plan.stop.is_stopping() {
                        self.receive(observer).await?;
                        self.check_workers(name, waiting)?;
                        self.check_given_up(&[position]).await?;
                    }
                    observer.observe(RunEvent::Flush)?;
                    let (tasks, succeeded) = self.counts.get(name).copied().unwrap_or_default();
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
                    self.run_round(round, run.names, run.plan, observer).await?;
                }
                observer.observe(RunEvent::Flush)?;
                for name in run.names {
                    let (tasks, succeeded) = self.counts.get(name).copied().unwrap_or_default();
                    observer.observe(RunEvent::RoundParticipantFinished {
                        participant: name,
                        failed: succeeded < tasks,
                    })?;
                }
            }
        }
        Ok(())
    }

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
            let in_flight: Vec<usize> = units[..published]
                .iter()
                .filter(|(_, unit)| !recorded(unit))
                .map(|(position, _)| *position)
                .collect();
            let free = limit.saturating_sub(in_flight.len());
            for (position, unit) in units.iter().skip(published).take(free) {
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
            self.check_given_up(&in_flight).await?;
        }
    }

    /// Takes what the workers sent within a short wait; acknowledges it once the
    /// observers flushed it to disk.
    async fn receive(&mut self, observer: &mut dyn RunObserver) -> Result<()> {
        if let Some(incoming) = self.link.next(POLL).await? {
            self.take(incoming, observer).await?;
            // Drain what is already there without waiting.
            while let Some(incoming) = self.link.next(Duration::ZERO).await? {
                self.take(incoming, observer).await?;
            }
        }
        if self.last_ack.elapsed() >= POLL {
            observer.observe(RunEvent::Flush)?;
            self.link.ack_received().await?;
            self.last_ack = Instant::now();
        }
        Ok(())
    }

    async fn take(&mut self, incoming: Incoming, observer: &mut dyn RunObserver) -> Result<()> {
        match incoming {
            Incoming::Records(batch) => self.take_batch(batch, observer)?,
            Incoming::Hello { note, key } => {
                if self.dispatched.add_worker(key, &note.worker) {
                    self.dispatched.write(self.dir)?;
                }
                for participant in note.participants {
                    self.serving
                        .entry(participant)
                        .or_default()
                        .insert(note.worker.clone());
                }
            }
            Incoming::Refusal(note) => self.refusals.show(&format!(
                "worker {} refused the run: {}",
                note.worker, note.reason
            )),
            Incoming::Dropped(reason) => self.dropped.count(&reason),
            Incoming::GaveUp { participant, units } => {
                return Err(self.given_up(participant, units));
            }
        }
        Ok(())
    }

    /// Hands a batch's new tasks to the observers, unless the batch is not one a worker
    /// running one of the run's units sends.
    fn take_batch(&mut self, batch: RecordBatch, observer: &mut dyn RunObserver) -> Result<()> {
        if !self.units.holds(&batch.unit) {
            self.dropped.count(&format!(
                "a record batch of unit {}, which this run does not have",
                batch.unit.key()
            ));
            return Ok(());
        }
        if let Err(reason) = batch.check_tasks() {
            self.dropped
                .count(&format!("a record batch that is not its unit's: {reason}"));
            return Ok(());
        }
        for (participant, finished) in batch.into_finished() {
            let index = finished.record.task_index;
            if self.ledger.accept(&participant, index) != Accepted::New {
                continue;
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
        Ok(())
    }

    /// Fails once JetStream confirms it gave up on a unit of one of `positions` (asked
    /// every [`GIVEN_UP_CHECK`]: an advisory may come before JetStream's state says so).
    async fn check_given_up(&mut self, positions: &[usize]) -> Result<()> {
        if self.last_given_up_check.elapsed() < GIVEN_UP_CHECK {
            return Ok(());
        }
        self.last_given_up_check = Instant::now();
        for &position in positions {
            match self.link.given_up_units(position).await {
                Ok(0) => {}
                Ok(units) => return Err(self.given_up(position, units)),
                Err(error) => self.dropped.count(&format!(
                    "could not ask JetStream about given-up units: {error:#}"
                )),
            }
        }
        Ok(())
    }

    fn given_up(&self, participant: usize, units: u64) -> anyhow::Error {
        let name = self.names.get(participant).map_or("?", String::as_str);
        anyhow!(
            "{units} work unit(s) of participant \"{name}\" were delivered 5 times and never finished (their workers died or could not send their records); the run stops here: once the workers are healthy, bench run --resume <results-dir> completes it"
        )
    }

    /// Fails once `participant` has waited `--worker-wait` without a worker serving it.
    fn check_workers(&self, participant: &str, since: Instant) -> Result<()> {
        let served = self.serving.get(participant).is_some_and(|w| !w.is_empty());
        if !served && since.elapsed() >= self.worker_wait {
            bail!(
                "no worker can run participant \"{participant}\": none joined within {}s (a worker serves a participant only when it trusts the run's key and its operator grants what the participant asks: its requiredEnvVars with --serve-env, its hosts with --allow-host, its directories with --allow-dir)",
                self.worker_wait.as_secs_f64()
            );
        }
        Ok(())
    }
}

/// Notices of one kind on stderr, escaped: the first [`NOTICES_SHOWN`] one by one, then
/// every tenfold, and how many in all at the end of the run.
struct Notices {
    what: &'static str,
    count: u64,
}

impl Notices {
    fn new(what: &'static str) -> Self {
        Self { what, count: 0 }
    }

    /// Counts a left-out message and shows why when it is among those shown.
    fn count(&mut self, reason: &str) {
        self.count += 1;
        if self.shown() {
            eprintln!(
                "[bench] {} (#{}): {}",
                self.what,
                self.count,
                escape_control(reason)
            );
        }
    }

    /// Shows a line (escaped) when it is among those shown.
    fn show(&mut self, line: &str) {
        self.count += 1;
        if self.shown() {
            eprintln!("[bench] {}", escape_control(line));
        }
    }

    fn shown(&self) -> bool {
        let mut count = self.count;
        while count >= 10 && count.is_multiple_of(10) {
            count /= 10;
        }
        self.count <= NOTICES_SHOWN || count == 1
    }

    /// The count, when any.
    fn summary(&self) {
        if self.count > 0 {
            eprintln!("[bench] {}: {} in all", self.what, self.count);
        }
    }
}
