//! The arrival-rate executors (k6's `constant-arrival-rate` and `ramping-arrival-rate`):
//! an open model. Task `i` is due at the `i`-th arrival of the plan's
//! [`RateProfile`](bench_model::plan::RateProfile), however slow the target is; it starts in a
//! free sandbox. `preAllocated` sandboxes are opened first; when none is free another is
//! opened, up to `maxSandboxes`; past that the arrival is dropped and counted
//! ([`RunEvent::TaskDropped`], k6's `dropped_iterations`), never started late. No sandbox
//! is opened that the run's memory has no room for ([`SlotFactory::room_check`]), beside
//! one sandbox's worth kept for the open ones to grow into; when they have grown into it, an
//! idle sandbox is closed. One that cannot be opened all the same fails the task handed to
//! it, and its pacer opens no more: what its open sandboxes cannot take is dropped.
//!
//! Arrivals are timed by a pacer task sleeping to each due time on the [`ArrivalClock`] (a
//! timer in the runtime's I/O driver, not tokio's millisecond timer), which hands every
//! arrival due by then straight to an idle sandbox: each sandbox is a long-lived *lane* (one
//! tokio task running its tasks one after another), so an arrival costs a message, not a
//! spawn. The pacer and the lanes share the participant's thread (a slot thread in a run),
//! which wakes at the due time and runs the task itself (no second thread to wake). Lanes
//! put themselves back on the idle board as their task ends; their records are collected at
//! every flush tick, not one wake-up per task.
//!
//! Every record carries its [`ArrivalTiming`]: the response time counts from the intended
//! start, so a stall (of the target, of the machine or of the pacer) shows in it
//! even though the next tasks start on time in other sandboxes (no coordinated omission).
//! Once the run's stop is thrown no task starts; the running ones finish (or are
//! interrupted by their slot).

use super::arrival_clock::ArrivalClock;
use super::pacing::{flush_ticker, flushing_while};
use super::{
    spawn_slot, task_finished, warmup_finished, ExecPlan, Finishes, ParticipantRun, RoomCheck,
    RunStop, SlotFactory, TaskRunner,
};
use anyhow::{Context as _, Result};
use bench_model::events::{Finished, RunEvent, RunObserver};
use bench_model::js;
use bench_model::plan::{ArrivalPlan, RateProfile};
use bench_model::record::{ArrivalTiming, WARMUP_PHASE};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};
use tokio::runtime::Handle;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// One due task: its index on the arrival schedule and when it was due.
#[derive(Debug, Clone, Copy)]
struct Arrival {
    index: u32,
    due: Instant,
}

/// A lane a pacer opened for an arrival that found no idle one: the collector opens its
/// sandbox (its first arrival is already in `inbox`) where the pacer runs.
struct OpenLane {
    pacer: usize,
    id: usize,
    inbox: UnboundedReceiver<Arrival>,
}

/// A pacer's idle lanes, most recently used last (a warm sandbox is reused first), the
/// lanes closed to give their memory back (whose ids a new lane takes), and whether it may
/// still open more.
#[derive(Debug, Default)]
struct IdleBoard {
    lanes: Mutex<BoardLanes>,
    /// A lane could not open its sandbox (e.g. past the run's host memory budget): no more
    /// are opened, and that lane is gone.
    full: AtomicBool,
}

#[derive(Debug, Default)]
struct BoardLanes {
    idle: Vec<usize>,
    closed: Vec<usize>,
}

impl IdleBoard {
    fn put(&self, lane: usize) {
        self.lock().idle.push(lane);
    }

    fn take(&self) -> Option<usize> {
        self.lock().idle.pop()
    }

    /// Closes `lane` when another lane is idle to take the next arrival; whether it did.
    fn close_if_another_is_idle(&self, lane: usize) -> bool {
        let mut lanes = self.lock();
        let another = !lanes.idle.is_empty();
        if another {
            lanes.closed.push(lane);
        }
        another
    }

    /// The id of a closed lane, for a new one.
    fn reuse_closed(&self) -> Option<usize> {
        self.lock().closed.pop()
    }

    /// No further lane is opened: a sandbox could not be.
    fn stop_growing(&self) {
        self.full.store(true, Ordering::Relaxed);
    }

    fn is_full(&self) -> bool {
        self.full.load(Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BoardLanes> {
        self.lanes.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where a pacer sends each arrival: one of its idle lanes, a new lane, or the drop count.
struct Dispatcher {
    pacer: usize,
    lanes: Vec<UnboundedSender<Arrival>>,
    max_lanes: usize,
    idle: Arc<IdleBoard>,
    /// How many more sandboxes the run has memory for, and the lanes of all pacers whose
    /// sandbox is being opened (not counted in the run's memory yet).
    room: Option<RoomCheck>,
    opening: Arc<AtomicUsize>,
    opens: UnboundedSender<OpenLane>,
    /// The indexes of dropped arrivals, for the collector.
    drops: UnboundedSender<u32>,
}

impl Dispatcher {
    /// Hands `arrival` to an idle lane or a new one; gives it back when every lane is busy
    /// and no other may be opened.
    fn try_dispatch(&mut self, arrival: Arrival) -> Result<(), Arrival> {
        if let Some(lane) = self.idle.take() {
            // A lane on the idle board is waiting for its next arrival: the send cannot fail.
            let _ = self.lanes[lane].send(arrival);
            return Ok(());
        }
        if self.idle.is_full() || !self.has_room() {
            return Err(arrival);
        }
        let (sender, inbox) = unbounded_channel();
        let id = match self.idle.reuse_closed() {
            Some(id) => {
                self.lanes[id] = sender.clone();
                id
            }
            None if self.lanes.len() < self.max_lanes => {
                self.lanes.push(sender.clone());
                self.lanes.len() - 1
            }
            None => return Err(arrival),
        };
        self.opening.fetch_add(1, Ordering::Relaxed);
        let _ = sender.send(arrival);
        let _ = self.opens.send(OpenLane {
            pacer: self.pacer,
            id,
            inbox,
        });
        Ok(())
    }

    /// Whether the run has memory for one more sandbox beside those being opened, and for
    /// one more again: that spare is what the open sandboxes grow into (a lane closes
    /// when none is left, see [`lane`]), so the number of sandboxes does not swing.
    fn has_room(&self) -> bool {
        let opening = self.opening.load(Ordering::Relaxed);
        self.room
            .as_ref()
            .is_none_or(|room| room() >= opening.saturating_add(2))
    }

    /// Counts an arrival no sandbox could take.
    fn drop_arrival(&self, arrival: Arrival) {
        let _ = self.drops.send(arrival.index);
    }
}

/// Runs one participant on the arrival schedule of `arrivals`, handing each finished task
/// (and each dropped arrival) to the observer.
pub async fn run_arrivals<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    arrivals: &ArrivalPlan,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    // One pacer per thread the participant may spread over (never more than it may have
    // sandboxes); each clock's timer is registered with its thread's driver, so it is made
    // there.
    let mut homes: Vec<Option<Handle>> = participant.slots.homes().into_iter().map(Some).collect();
    if homes.is_empty() {
        homes.push(None);
    }
    homes.truncate((arrivals.max_sandboxes as usize).max(1));
    let mut pacers = Vec::with_capacity(homes.len());
    for home in homes {
        let clock = match &home {
            Some(home) => home.spawn(async { ArrivalClock::precise() }).await?,
            None => ArrivalClock::precise(),
        };
        let clock = clock.context("could not start the arrival clock")?;
        pacers.push(PacerHome { home, clock });
    }
    run_paced(participant, plan, arrivals, observer, pacers).await
}

/// Where one pacer and its lanes run, and its clock (made there).
struct PacerHome {
    home: Option<Handle>,
    clock: ArrivalClock,
}

async fn run_paced<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    arrivals: &ArrivalPlan,
    observer: &mut dyn RunObserver,
    pacers: Vec<PacerHome>,
) -> Result<()> {
    let name = participant.name.as_str();
    observer.observe(RunEvent::ParticipantStarted { participant: name })?;
    let total = arrivals.profile.expected_tasks() as usize;
    let homes: Vec<Option<Handle>> = pacers.iter().map(|pacer| pacer.home.clone()).collect();
    let mut ready: Vec<F::Runner> = (0..arrivals.pre_allocated)
        .map(|_| participant.slots.open_slot())
        .collect();
    let mut finishes = Finishes::default();
    let mut ticker = flush_ticker();
    if plan.warmup > 0 {
        warm_up(&mut ready, plan, &homes, name, total, &mut ticker, observer).await?;
    }
    let (finished_sender, finished) = unbounded_channel();
    let (drops, dropped) = unbounded_channel();
    let mut collected = Collected { finished, dropped };
    let (opens, mut opened) = unbounded_channel();
    let mut lanes = JoinSet::new();
    // Pre-allocated sandbox `i` serves pacer `i mod pacers`.
    let count = pacers.len();
    let mut shares: Vec<Vec<F::Runner>> = (0..count).map(|_| Vec::new()).collect();
    for (position, slot) in ready.into_iter().enumerate() {
        shares[position % count].push(slot);
    }
    let idle: Vec<Arc<IdleBoard>> = (0..count).map(|_| Arc::default()).collect();
    let (room, opening) = (
        participant.slots.room_check(),
        Arc::new(AtomicUsize::new(0)),
    );
    let start = Instant::now();
    // Aborted when this returns early (the observer failed).
    let mut pacing = JoinSet::new();
    for (pacer, (PacerHome { home, clock }, share)) in pacers.into_iter().zip(shares).enumerate() {
        let mut senders = Vec::new();
        for slot in share {
            let (sender, inbox) = unbounded_channel();
            let id = senders.len();
            senders.push(sender);
            idle[pacer].put(id);
            let lane = lane(
                slot,
                id,
                inbox,
                idle[pacer].clone(),
                None,
                room.clone(),
                finished_sender.clone(),
            );
            spawn_slot(&mut lanes, home.clone(), lane);
        }
        let dispatcher = Dispatcher {
            pacer,
            lanes: senders,
            max_lanes: share_of(arrivals.max_sandboxes as usize, pacer, count),
            idle: idle[pacer].clone(),
            room: room.clone(),
            opening: opening.clone(),
            opens: opens.clone(),
            drops: drops.clone(),
        };
        let turn = Turn {
            first: pacer,
            every: count,
        };
        let (profile, stop) = (arrivals.profile.clone(), plan.stop.clone());
        let paced = pace(dispatcher, profile, turn, start, stop, clock);
        spawn_slot(&mut pacing, home, paced);
    }
    drop((opens, drops));
    // The pacers end with the schedule (or the stop): their senders close `opened`.
    loop {
        tokio::select! {
            biased;
            open = opened.recv() => match open {
                Some(OpenLane { pacer, id, inbox }) => {
                    let slot = participant.slots.open_slot();
                    let (idle, opening) = (idle[pacer].clone(), Some(opening.clone()));
                    let (room, finishes) = (room.clone(), finished_sender.clone());
                    let lane = lane(slot, id, inbox, idle, opening, room, finishes);
                    spawn_slot(&mut lanes, homes[pacer].clone(), lane);
                }
                None => break,
            },
            _ = ticker.tick() => collected.hand_over(observer, name, total, &mut finishes)?,
        }
    }
    // Every lane's inbox is closed now: each ends after its running task.
    drop(finished_sender);
    loop {
        tokio::select! {
            biased;
            joined = lanes.join_next() => match joined {
                Some(joined) => drop(joined?),
                None => break,
            },
            _ = ticker.tick() => collected.hand_over(observer, name, total, &mut finishes)?,
        }
    }
    collected.hand_over(observer, name, total, &mut finishes)?;
    observer.observe(RunEvent::ParticipantFinished {
        participant: name,
        tasks: finishes.tasks,
        succeeded: finishes.succeeded,
    })
}

/// Pacer `pacer`'s share of `total` sandboxes among `count` pacers (the first ones take
/// one more when it does not divide).
fn share_of(total: usize, pacer: usize, count: usize) -> usize {
    total / count + usize::from(pacer < total % count)
}

/// Which arrivals of the schedule a pacer times: every `every`-th from `first`.
#[derive(Debug, Clone, Copy)]
struct Turn {
    first: usize,
    every: usize,
}

/// Times this pacer's `turn` of the arrivals of `profile` from `start` on `clock`, handing
/// each to one of its lanes as it is due (every arrival due by a wake-up at once).
async fn pace(
    mut dispatcher: Dispatcher,
    profile: RateProfile,
    turn: Turn,
    start: Instant,
    stop: RunStop,
    mut clock: ArrivalClock,
) {
    let stopping = stop.stopping();
    tokio::pin!(stopping);
    let arrivals = profile.arrivals().enumerate();
    for (index, offset) in arrivals.skip(turn.first).step_by(turn.every) {
        let due = start + offset;
        tokio::select! {
            biased;
            () = &mut stopping => return,
            () = clock.sleep_until(due) => {}
        }
        let arrival = Arrival {
            index: index as u32,
            due,
        };
        if let Err(arrival) = dispatcher.try_dispatch(arrival) {
            // A task ending just as this one is due: give its lane a turn to come back.
            tokio::task::yield_now().await;
            if let Err(arrival) = dispatcher.try_dispatch(arrival) {
                dispatcher.drop_arrival(arrival);
            }
        }
    }
}

/// One sandbox: runs the arrivals sent to it, one after another, until its inbox closes
/// (or its sandbox could not be opened), putting itself back on its pacer's `idle` board
/// after each. A lane a pacer opened is one of the `opening` ones until its first task ran
/// (its sandbox is then open and counted in the run's memory, or could not be). When the
/// run's memory has no `room` left for one more sandbox (the open ones grew into it) and
/// another lane is idle, the lane closes and its sandbox gives its memory back: the growth
/// of those still open then fits, where it would fail their tasks with `memory_limit`.
async fn lane<R: TaskRunner>(
    mut slot: R,
    id: usize,
    mut inbox: UnboundedReceiver<Arrival>,
    idle: Arc<IdleBoard>,
    mut opening: Option<Arc<AtomicUsize>>,
    room: Option<RoomCheck>,
    finishes: UnboundedSender<Finished>,
) {
    while let Some(arrival) = inbox.recv().await {
        let finished = run_arrival(&mut slot, arrival).await;
        if let Some(opening) = opening.take() {
            opening.fetch_sub(1, Ordering::Relaxed);
        }
        let _ = finishes.send(finished);
        if slot.could_not_open() {
            // Its task is a failed record; the arrivals no sandbox can take are dropped,
            // not each failed again.
            idle.stop_growing();
            return;
        }
        let no_room = room.as_ref().is_some_and(|room| room() == 0);
        if no_room && idle.close_if_another_is_idle(id) {
            return;
        }
        idle.put(id);
    }
}

/// What the lanes finished and the pacer dropped, waiting for the collector.
struct Collected {
    finished: UnboundedReceiver<Finished>,
    dropped: UnboundedReceiver<u32>,
}

impl Collected {
    /// Hands what came since the last call to the observer, then flushes it.
    fn hand_over(
        &mut self,
        observer: &mut dyn RunObserver,
        participant: &str,
        total: usize,
        finishes: &mut Finishes,
    ) -> Result<()> {
        while let Ok(index) = self.dropped.try_recv() {
            observer.observe(RunEvent::TaskDropped { participant, index })?;
        }
        while let Ok(finished) = self.finished.try_recv() {
            task_finished(observer, participant, finished, total, finishes)?;
        }
        observer.observe(RunEvent::Flush)
    }
}

/// Runs the warm-up tasks in every pre-allocated sandbox (all sandboxes at once) before
/// the first arrival.
async fn warm_up<R: TaskRunner>(
    idle: &mut Vec<R>,
    plan: &ExecPlan,
    homes: &[Option<Handle>],
    participant: &str,
    total: usize,
    ticker: &mut tokio::time::Interval,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let mut warming = JoinSet::new();
    // Sandbox `i` warms where it will serve: with pacer `i mod pacers`, in order.
    for (position, mut slot) in idle.drain(..).enumerate() {
        let (count, stop) = (plan.warmup, plan.stop.clone());
        let home = homes[position % homes.len()].clone();
        spawn_slot(&mut warming, home, async move {
            let mut done = Vec::new();
            for index in 0..count {
                if stop.is_stopping() {
                    break;
                }
                done.push(slot.run(index, Some(WARMUP_PHASE)).await);
            }
            (position, slot, done)
        });
    }
    let mut warmed = Vec::new();
    while let Some(joined) = flushing_while(warming.join_next(), ticker, observer).await? {
        let (position, slot, done) = joined?;
        warmed.push((position, slot));
        for finished in done {
            warmup_finished(observer, participant, finished, total)?;
        }
    }
    warmed.sort_by_key(|(position, _)| *position);
    idle.extend(warmed.into_iter().map(|(_, slot)| slot));
    Ok(())
}

/// Runs the task of `arrival` and adds its arrival timing to the record.
async fn run_arrival<R: TaskRunner>(slot: &mut R, arrival: Arrival) -> Finished {
    let Arrival { index, due } = arrival;
    let started = Instant::now();
    let intended_start_at = SystemTime::now()
        .checked_sub(started - due)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let mut finished = slot.run(index, None).await;
    let ended = Instant::now();
    finished.record.arrival = Some(ArrivalTiming {
        intended_start_at: js::iso_timestamp(intended_start_at),
        start_lag_ms: millis(started - due),
        service_time_ms: millis(ended - started),
        response_time_ms: millis(ended - due),
    });
    finished
}

/// Milliseconds to the microsecond.
fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::test_support::*;
    use bench_model::config::{ExecutorKind, Stage};
    use bench_model::plan::RateProfile;
    use std::sync::Arc;

    fn constant(rate: f64, duration: Duration, pre: u32, max: u32) -> ArrivalPlan {
        ArrivalPlan {
            kind: ExecutorKind::ConstantArrivalRate,
            profile: RateProfile::constant(rate, duration),
            pre_allocated: pre,
            max_sandboxes: max,
        }
    }

    /// The executor paced on tokio's clock (paused by the tests).
    async fn run_paused<F: SlotFactory>(
        participant: &ParticipantRun<F>,
        plan: &ExecPlan,
        arrivals: &ArrivalPlan,
        observer: &mut dyn RunObserver,
    ) -> Result<()> {
        let pacer = PacerHome {
            home: None,
            clock: ArrivalClock::tokio(),
        };
        run_paced(participant, plan, arrivals, observer, vec![pacer]).await
    }

    fn dropped(tape: &Tape) -> Vec<u32> {
        tape.without_flushes()
            .into_iter()
            .filter_map(|seen| match seen {
                Seen::TaskDropped(_, index) => Some(index),
                _ => None,
            })
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_arrival_clock_starts_every_task_in_a_ready_sandbox() {
        // Real time: 200/s for 0.25 s, each task 2 ms; as many sandboxes as tasks, so that
        // none is dropped however the machine schedules this test.
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(2));
        let mut tape = Tape::default();
        let arrivals = constant(200.0, Duration::from_millis(250), 2, 50);
        run_arrivals(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        let mut indexes: Vec<u32> = tape.records_of("a").iter().map(|r| r.task_index).collect();
        indexes.sort();
        assert_eq!(
            indexes,
            (0..50).collect::<Vec<u32>>(),
            "all started, none dropped"
        );
        assert!(dropped(&tape).is_empty());
        assert!((2..=50).contains(&journal.slots_opened()));
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 50, 50))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn tasks_start_on_the_rate_grid_whatever_their_latency() {
        let journal = Arc::default();
        // Every task takes 25 ms: 3 run at once at 100/s.
        let fake = participant("a", &journal, takes(25));
        let mut tape = Tape::default();
        let start = Instant::now();
        let arrivals = constant(100.0, Duration::from_secs(1), 1, 10);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        let mut starts: Vec<Duration> = journal.ran().iter().map(|r| r.started - start).collect();
        starts.sort();
        let grid: Vec<Duration> = (0..100).map(|i| ms(10 * i)).collect();
        assert_eq!(starts, grid);
        assert_eq!(
            journal.slots_opened(),
            3,
            "grown from 1 to what the rate needs"
        );
        assert!(dropped(&tape).is_empty());
        let records = tape.records_of("a");
        assert_eq!(records.len(), 100);
        for record in &records {
            let arrival = record.arrival.as_ref().expect("open-model timing");
            assert_eq!(arrival.start_lag_ms, 0.0);
            assert_eq!(arrival.service_time_ms, 25.0);
            assert_eq!(arrival.response_time_ms, 25.0);
        }
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 100, 100))
        );
        assert!(tape
            .without_flushes()
            .contains(&Seen::TaskFinished("a".into(), 99, 100)));
    }

    #[tokio::test(start_paused = true)]
    async fn with_no_free_sandbox_an_arrival_is_dropped_not_delayed() {
        let journal = Arc::default();
        // Task 2 stalls for 1 s; the others take 5 ms. Two sandboxes at most.
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(if index == 2 || index == 3 { 1050 } else { 5 }),
            fails: false,
            unopened: false,
        });
        let mut tape = Tape::default();
        let start = Instant::now();
        let arrivals = constant(10.0, Duration::from_secs(2), 1, 2);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        // Tasks 2 and 3 hold both sandboxes from 200 and 300 ms to 1.25 and 1.35 s: the
        // arrivals at 400…1200 ms are dropped, 1300 ms finds task 2's sandbox free again.
        assert_eq!(dropped(&tape), (4..=12).collect::<Vec<u32>>());
        assert_eq!(journal.slots_opened(), 2);
        for ran in journal.ran() {
            assert_eq!(
                ran.started - start,
                ms(100 * u64::from(ran.index)),
                "on time"
            );
        }
        assert_eq!(tape.records.len(), 11);
    }

    #[tokio::test(start_paused = true)]
    async fn a_sandbox_that_cannot_be_opened_stops_growth_and_later_arrivals_are_dropped() {
        let journal = Arc::default();
        // Every task takes 150 ms, so 10/s needs two sandboxes; the second one cannot be
        // opened (task 1 finds no instance). Its failure is recorded once; from then on the
        // one sandbox takes what it can and the rest is dropped, not failed again.
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(150),
            fails: false,
            unopened: index == 1,
        });
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(1), 1, 4);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        assert_eq!(dropped(&tape), [3, 5, 7, 9]);
        assert_eq!(journal.slots_opened(), 2, "no third sandbox tried");
        let records = tape.records_of("a");
        let mut indexes: Vec<u32> = records.iter().map(|r| r.task_index).collect();
        indexes.sort();
        assert_eq!(indexes, [0, 1, 2, 4, 6, 8]);
        let failed: Vec<u32> = records
            .iter()
            .filter(|r| !r.is_success())
            .map(|r| r.task_index)
            .collect();
        assert_eq!(failed, [1]);
    }

    #[tokio::test(start_paused = true)]
    async fn with_memory_for_few_sandboxes_arrivals_are_dropped_not_failed() {
        let journal = Arc::default();
        // 100/s of 50 ms tasks needs five sandboxes; the run has memory for three.
        let room = Arc::new(AtomicUsize::new(3));
        let fake = participant_with_room("a", &journal, &room, takes(50));
        let mut tape = Tape::default();
        let arrivals = constant(100.0, Duration::from_secs(1), 1, 20);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        assert_eq!(
            journal.slots_opened(),
            2,
            "no sandbox past the memory, one sandbox's room kept to grow into"
        );
        let records = tape.records_of("a");
        assert!(records.iter().all(|r| r.is_success()));
        assert_eq!(records.len() + dropped(&tape).len(), 100);
        assert!(dropped(&tape).len() >= 30, "{}", dropped(&tape).len());
    }

    #[tokio::test(start_paused = true)]
    async fn idle_sandboxes_close_when_the_open_ones_grew_into_the_memory_left() {
        let journal: Arc<Journal> = Arc::default();
        // 100/s of 100 ms tasks opens sandboxes up to the memory for ten; from task 30 on
        // the sandboxes have grown (the memory holds three of them) and tasks take 5 ms.
        let room = Arc::new(AtomicUsize::new(10));
        let open_later = Arc::new(Mutex::new(Vec::new()));
        let (grown, seen, open) = (room.clone(), journal.clone(), open_later.clone());
        let fake = participant_with_room("a", &journal, &room, move |index| {
            if index == 30 {
                grown.store(3, Ordering::Relaxed);
            }
            if index >= 60 {
                open.lock().unwrap().push(seen.sandboxes_open());
            }
            takes(if index < 30 { 100 } else { 5 })(index)
        });
        let mut tape = Tape::default();
        let arrivals = constant(100.0, Duration::from_secs(1), 1, 20);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        assert!(journal.slots_opened() >= 5, "{}", journal.slots_opened());
        let open_later = open_later.lock().unwrap().clone();
        assert_eq!(open_later.len(), 40, "every later arrival started");
        assert!(
            open_later.iter().all(|open| *open <= 2),
            "room for one more kept: {open_later:?}"
        );
        assert!(tape.records_of("a").iter().all(|r| r.is_success()));
    }

    #[tokio::test(start_paused = true)]
    async fn sandboxes_closed_for_memory_are_opened_again_when_it_has_room() {
        let journal: Arc<Journal> = Arc::default();
        // At most six sandboxes: six open for the first 100 ms tasks, two once the memory
        // holds only three (tasks 30 to 59 take 5 ms), six again once it holds ten and the
        // tasks take 100 ms again (a closed sandbox does not count against the six).
        let room = Arc::new(AtomicUsize::new(10));
        let open_at_end = Arc::new(Mutex::new(Vec::new()));
        let (memory, seen, open) = (room.clone(), journal.clone(), open_at_end.clone());
        let fake = participant_with_room("a", &journal, &room, move |index| {
            match index {
                30 => memory.store(3, Ordering::Relaxed),
                60 => memory.store(10, Ordering::Relaxed),
                90.. => open.lock().unwrap().push(seen.sandboxes_open()),
                _ => {}
            }
            takes(if (30..60).contains(&index) { 5 } else { 100 })(index)
        });
        let mut tape = Tape::default();
        let arrivals = constant(100.0, Duration::from_secs(1), 1, 6);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        let open_at_end = open_at_end.lock().unwrap().clone();
        assert!(open_at_end.iter().any(|open| *open >= 5), "{open_at_end:?}");
        assert!(journal.max_in_flight() <= 6);
    }

    /// The executor with `pacers` pacers on tokio's (paused) clock.
    async fn run_paused_pacers<F: SlotFactory>(
        participant: &ParticipantRun<F>,
        arrivals: &ArrivalPlan,
        pacers: usize,
        observer: &mut dyn RunObserver,
    ) -> Result<()> {
        let pacers = (0..pacers)
            .map(|_| PacerHome {
                home: None,
                clock: ArrivalClock::tokio(),
            })
            .collect();
        run_paced(participant, &plan(0, 1, 0.0), arrivals, observer, pacers).await
    }

    #[tokio::test(start_paused = true)]
    async fn pacers_time_every_other_arrival_each_with_its_share_of_sandboxes() {
        let journal = Arc::default();
        // 100/s, each task 25 ms: one pacer's arrivals come every 20 ms, so each needs two
        // sandboxes of its own; five at most, shared out 3 and 2.
        let fake = participant("a", &journal, takes(25));
        let mut tape = Tape::default();
        let start = Instant::now();
        let arrivals = constant(100.0, Duration::from_secs(1), 2, 5);
        run_paused_pacers(&fake, &arrivals, 2, &mut tape)
            .await
            .unwrap();
        let mut starts: Vec<Duration> = journal.ran().iter().map(|r| r.started - start).collect();
        starts.sort();
        assert_eq!(starts, (0..100).map(|i| ms(10 * i)).collect::<Vec<_>>());
        assert!(dropped(&tape).is_empty());
        assert_eq!(journal.slots_opened(), 4, "two per pacer");
        assert_eq!(tape.records_of("a").len(), 100);
    }

    #[tokio::test(start_paused = true)]
    async fn a_pacer_drops_what_its_own_sandboxes_cannot_take() {
        let journal = Arc::default();
        // Two sandboxes, one per pacer; task 0 stalls for 1 s, the others take 5 ms: the
        // first pacer's arrivals (even indexes) are dropped while its sandbox is held, the
        // second pacer's (odd) all start.
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(if index == 0 { 1000 } else { 5 }),
            fails: false,
            unopened: false,
        });
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(2), 1, 2);
        run_paused_pacers(&fake, &arrivals, 2, &mut tape)
            .await
            .unwrap();
        assert_eq!(dropped(&tape), [2, 4, 6, 8]);
        assert_eq!(journal.slots_opened(), 2);
        assert_eq!(tape.records_of("a").len(), 16);
    }

    #[test]
    fn sandboxes_are_shared_out_among_pacers_the_first_ones_taking_the_rest() {
        let shares = |total, count| {
            (0..count)
                .map(|p| share_of(total, p, count))
                .collect::<Vec<_>>()
        };
        assert_eq!(shares(5, 2), [3, 2]);
        assert_eq!(shares(4, 2), [2, 2]);
        assert_eq!(shares(1, 1), [1]);
        assert_eq!(shares(7, 3), [3, 2, 2]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_ending_as_the_next_arrival_is_due_hands_it_its_sandbox() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(100));
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(1), 1, 1);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        assert!(dropped(&tape).is_empty(), "{:?}", dropped(&tape));
        assert_eq!(tape.records.len(), 10);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stall_shows_in_the_response_time_of_late_starts() {
        // One sandbox that may not grow: task 0 stalls for 1.05 s, so the arrivals meanwhile
        // are dropped.
        let journal = Arc::default();
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(if index == 0 { 1050 } else { 1 }),
            fails: false,
            unopened: false,
        });
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(2), 1, 1);
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
            .await
            .unwrap();
        let first = tape.records_of("a")[0].arrival.clone().unwrap();
        assert_eq!(first.response_time_ms, 1050.0);
        assert_eq!(
            dropped(&tape),
            (1..=10).collect::<Vec<u32>>(),
            "100…1000 ms"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn ramping_stages_start_the_expected_count_per_stage() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(1));
        let stage = |seconds: u64, target: f64| Stage {
            duration: Duration::from_secs(seconds),
            target,
        };
        let profile = RateProfile {
            start_rate: 0.0,
            stages: vec![stage(2, 20.0), stage(1, 20.0), stage(2, 0.0)],
        };
        let arrivals = ArrivalPlan {
            kind: ExecutorKind::RampingArrivalRate,
            profile,
            pre_allocated: 1,
            max_sandboxes: 4,
        };
        let start = Instant::now();
        run_paused(&fake, &plan(0, 1, 0.0), &arrivals, &mut Tape::default())
            .await
            .unwrap();
        let starts: Vec<Duration> = journal.ran().iter().map(|r| r.started - start).collect();
        let within = |from: u64, to: u64| {
            starts
                .iter()
                .filter(|at| **at >= ms(from) && **at < ms(to))
                .count()
        };
        assert_eq!(
            [within(0, 2000), within(2000, 3000), within(3000, 5000)],
            [20, 20, 20]
        );
        // Rising rate: the gaps shrink during the first stage.
        assert!(starts[1] - starts[0] > starts[19] - starts[18]);
    }

    #[tokio::test(start_paused = true)]
    async fn pre_allocated_sandboxes_warm_up_before_the_first_arrival() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(10));
        let mut plan = plan(0, 1, 0.0);
        plan.warmup = 2;
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(1), 3, 3);
        run_paused(&fake, &plan, &arrivals, &mut tape)
            .await
            .unwrap();
        let warm: Vec<_> = tape.records.iter().filter(|(_, r)| r.is_warmup()).collect();
        assert_eq!(warm.len(), 6, "2 in each of 3 sandboxes");
        assert!(warm.iter().all(|(_, r)| r.arrival.is_none()));
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 10, 10))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn once_the_run_is_stopped_no_task_starts_and_running_ones_finish() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(250));
        let plan = plan(0, 1, 0.0);
        stop_scheduling_after(&plan, 205);
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(10), 4, 4);
        run_paused(&fake, &plan, &arrivals, &mut tape)
            .await
            .unwrap();
        assert_eq!(journal.started().len(), 3, "0, 100 and 200 ms");
        assert_eq!(tape.records.len(), 3, "the running tasks are recorded");
    }
}
