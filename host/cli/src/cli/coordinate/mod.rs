//! `bench run --dispatch`: the coordinator. It follows a local run's schedule semantics
//! with work units instead of slots (participant mode: a participant's units, one per
//! slot, before the next participant; round mode: round `r + 1` only once round `r` is
//! recorded, at most `concurrency` units in flight), and hands every task the workers
//! record to the run's observers exactly once. What workers send is untrusted: a batch
//! counts only when it holds consecutive tasks of one of the run's units; anything left
//! out is said, counted and escaped.

mod notices;
mod recorded;
mod round;
mod serving;

pub(super) use recorded::{Prior, WorkerShares};

use super::dispatched::DispatchedRun;
use anyhow::{anyhow, Result};
use bench_dispatch::{Coordinator, Incoming};
use bench_model::config::GroupBy;
use bench_model::dispatch::{participant_units, round_units, RecordBatch, RunUnits, WorkUnit};
use bench_model::events::{RunEvent, RunObserver};
use bench_model::plan::ExecPlan;
use bench_platform::reporter::PlatformRun;
use notices::Notices;
use recorded::Recorded;
use round::round_window;
use serving::Serving;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How long one wait for worker messages lasts before the coordinator checks its clocks.
const POLL: Duration = Duration::from_millis(20);

/// How often the coordinator asks JetStream whether it gave up on a unit it is waiting
/// for (an advisory only makes it ask at once).
const GIVEN_UP_CHECK: Duration = Duration::from_secs(5);

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
    let units = RunUnits::new(names, plan, group_by);
    let mut state = State {
        link,
        names: names.to_vec(),
        recorded: Recorded::new(units, prior, plan.schedule.len()),
        serving: Serving::new(worker_wait),
        total: plan.schedule.len(),
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
    let shares = state.recorded.take_shares();
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
    /// The tasks recorded, each once.
    recorded: Recorded,
    /// The workers serving each participant.
    serving: Serving,
    total: usize,
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
                    let units = participant_units(name, run.plan, SystemTime::now());
                    let units = self.recorded.unrecorded(units);
                    self.link.publish_units(position, &units).await?;
                    let waiting = Instant::now();
                    while self.tasks_recorded(name) < total && !run.plan.stop.is_stopping() {
                        self.receive(observer).await?;
                        self.serving.check(name, waiting.elapsed())?;
                        self.check_given_up(&[position]).await?;
                    }
                    observer.observe(RunEvent::Flush)?;
                    let (tasks, succeeded) = self.recorded.counts(name);
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
                    let (tasks, succeeded) = self.recorded.counts(name);
                    observer.observe(RunEvent::RoundParticipantFinished {
                        participant: name,
                        failed: succeeded < tasks,
                    })?;
                }
            }
        }
        Ok(())
    }

    fn tasks_recorded(&self, participant: &str) -> usize {
        self.recorded.counts(participant).0
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
            let recorded = |unit: &WorkUnit| self.recorded.contains(&unit.participant, round);
            let window = round_window(&units, published, limit, recorded);
            let Some(window) = window.filter(|_| !plan.stop.is_stopping()) else {
                return Ok(());
            };
            for (position, unit) in &units[window.publish.clone()] {
                self.link
                    .publish_units(*position, std::slice::from_ref(unit))
                    .await?;
            }
            published = window.publish.end;
            self.receive(observer).await?;
            for name in names
                .iter()
                .filter(|name| !self.recorded.contains(name, round))
            {
                self.serving.check(name, waiting.elapsed())?;
            }
            self.check_given_up(&window.in_flight).await?;
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
                self.serving.add(&note.worker, note.participants);
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

    /// Hands a batch's new tasks to the observers; a batch that is not one a worker
    /// running one of the run's units sends is left out, and counted.
    fn take_batch(&mut self, batch: RecordBatch, observer: &mut dyn RunObserver) -> Result<()> {
        if let Some(reason) = self.recorded.take_batch(batch, observer)? {
            self.dropped.count(&reason);
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
}
