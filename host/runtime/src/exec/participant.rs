//! groupBy `participant`: participants one after another; for each, `concurrency` slots
//! (each its own [`TaskRunner`]) pull the next schedule index from one counter; the stagger ramp is anchored to the
//! first start (spec §3.2–3.3). A static shard runs only its slots, each its own stride of
//! the schedule ([`Shard`]).
//!
//! With `--warmup N` every slot first runs N warm-up tasks (phase `warmup`, indexes from 0),
//! which are reported but not counted as the participant's tasks.
//!
//! A slot that cannot open its sandbox (past the run's host memory budget) fails the task it
//! took and retires, while another slot still works: the others run the rest of the
//! schedule, rather than the failing slot failing task after task in no time.
//!
//! Once the run's stop is thrown no task starts; the running ones finish (or are
//! interrupted by their slot) and the participant ends with the records it has.
//!
//! With one slot the tasks run inline in the executor's task (no thread hand-off per task);
//! with more, each slot is a task of its own, on the slot's thread when it has one (a
//! sandbox's: see `slot_threads`), and finished tasks are collected every few milliseconds
//! rather than one wake-up per task. Every finished task goes to the observer as it is
//! collected; no record is kept.

use super::pacing::{flush_ticker, flushing_while, Ramp};
use super::{
    spawn_slot, task_finished, warmup_finished, ExecPlan, Finishes, ParticipantRun, SlotFactory,
    TaskRunner,
};
use anyhow::Result;
use bench_model::events::{Finished, RunEvent, RunObserver};
use bench_model::plan::{Shard, Stride};
use bench_model::record::WARMUP_PHASE;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::sync::{Barrier, Notify};
use tokio::task::JoinSet;

/// How often finished tasks of the slots are handed to the observer.
const COLLECT_INTERVAL: Duration = Duration::from_millis(5);

/// How many finished tasks may wait for the observer: a slot that finishes one past this
/// waits for the next collection (so slots that finish tasks faster than the observer takes
/// them do not pile them up in memory).
const COLLECT_CAPACITY: usize = 4096;

/// Finished tasks of the slots (and whether each was a warm-up) until the next collection.
#[derive(Default)]
struct Collected {
    finished: Mutex<Vec<(bool, Finished)>>,
    taken: Notify,
}

impl Collected {
    /// Adds a finished task; past [`COLLECT_CAPACITY`], waits for the next collection.
    async fn put(&self, warmup: bool, finished: Finished) {
        let full = {
            let mut waiting = self.finished.lock().unwrap_or_else(PoisonError::into_inner);
            waiting.push((warmup, finished));
            waiting.len() >= COLLECT_CAPACITY
        };
        if full {
            // A collection between the push and this wait is missed: the next one (one
            // collect interval later) wakes the slot.
            self.taken.notified().await;
        }
    }

    /// Takes every finished task, waking the slots that wait for room.
    fn take(&self) -> Vec<(bool, Finished)> {
        let taken =
            std::mem::take(&mut *self.finished.lock().unwrap_or_else(PoisonError::into_inner));
        self.taken.notify_waiters();
        taken
    }
}

/// Runs one participant's schedule, handing each finished task to the observer.
pub async fn run_participant<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    run_sources(
        participant,
        plan,
        NextIndex::shared(plan.slot_count()),
        observer,
    )
    .await
}

/// Runs the slots of participant number `position` that `shard` holds, each its own
/// stride of the schedule; nothing (not even the participant's start) when it holds none.
pub async fn run_participant_shard<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    position: usize,
    shard: Shard,
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let strides = shard.strides(position, plan);
    if strides.is_empty() {
        return Ok(());
    }
    let sources = strides.into_iter().map(NextIndex::Strided).collect();
    run_sources(participant, plan, sources, observer).await
}

/// The slots that pull schedule indices from `sources` (one each).
async fn run_sources<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    sources: Vec<NextIndex>,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let name = participant.name.as_str();
    observer.observe(RunEvent::ParticipantStarted { participant: name })?;
    let finishes = match <[NextIndex; 1]>::try_from(sources) {
        Ok([source]) => run_inline(participant, plan, source, observer).await?,
        Err(sources) => run_pool(participant, plan, sources, observer).await?,
    };
    observer.observe(RunEvent::Flush)?;
    observer.observe(RunEvent::ParticipantFinished {
        participant: name,
        tasks: finishes.tasks,
        succeeded: finishes.succeeded,
    })
}

/// Where a slot takes its next schedule index from.
pub(super) enum NextIndex {
    /// One counter shared by all the participant's slots (a whole run).
    Shared(Arc<AtomicUsize>),
    /// The slot's own stride (a shard).
    Strided(Stride),
}

impl NextIndex {
    /// `slots` sources sharing one counter from 0 (a whole run).
    pub(super) fn shared(slots: usize) -> Vec<Self> {
        let counter = Arc::new(AtomicUsize::new(0));
        (0..slots).map(|_| Self::Shared(counter.clone())).collect()
    }

    /// Whether a slot may stop before the schedule's end: its indices are taken by the
    /// others (a shared counter), where a stride's would be left unrun.
    fn is_shared(&self) -> bool {
        matches!(self, Self::Shared(_))
    }

    /// The next schedule index (past the schedule's end once the slot is done).
    fn take(&mut self) -> usize {
        match self {
            Self::Shared(counter) => counter.fetch_add(1, Ordering::Relaxed),
            Self::Strided(stride) => {
                let index = stride.first;
                stride.first = stride.first.saturating_add(stride.step);
                index
            }
        }
    }
}

async fn run_inline<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    mut source: NextIndex,
    observer: &mut dyn RunObserver,
) -> Result<Finishes> {
    let total = plan.schedule.len();
    let mut slot = participant.slots.open_slot();
    let ramp = Ramp::new(plan.stagger_delay_ms);
    let mut ticker = flush_ticker();
    let mut finishes = Finishes::default();
    for warm in 0..plan.warmup {
        if plan.stop.is_stopping() {
            break;
        }
        let task = slot.run(warm, Some(WARMUP_PHASE));
        let finished = flushing_while(task, &mut ticker, observer).await?;
        warmup_finished(observer, &participant.name, finished, total)?;
    }
    loop {
        let index = source.take();
        if index >= total {
            break;
        }
        if plan.stop.unless_stopped(ramp.wait(index)).await.is_none() {
            break;
        }
        let task = slot.run(index as u32, plan.schedule.phase_at(index));
        let finished = flushing_while(task, &mut ticker, observer).await?;
        task_finished(observer, &participant.name, finished, total, &mut finishes)?;
    }
    Ok(finishes)
}

async fn run_pool<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    sources: Vec<NextIndex>,
    observer: &mut dyn RunObserver,
) -> Result<Finishes> {
    let total = plan.schedule.len();
    run_slots(participant, plan, sources, total, observer, move |index| {
        index < total
    })
    .await
}

/// Runs one slot per source, each pulling its next index from its source while
/// `more(index)` holds (and the run is not stopped), handing finished tasks to the
/// observer; `total` is the schedule length the events report. With a warm-up, every slot
/// runs its warm-up tasks first and none pulls an index before all are warm.
pub(super) async fn run_slots<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    sources: Vec<NextIndex>,
    total: usize,
    observer: &mut dyn RunObserver,
    more: impl Fn(usize) -> bool + Clone + Send + 'static,
) -> Result<Finishes> {
    let slots = sources.len();
    let ramp = Arc::new(Ramp::new(plan.stagger_delay_ms));
    let done = Arc::new(Collected::default());
    let warm = Arc::new(Barrier::new(slots));
    let working = Arc::new(Working(AtomicUsize::new(slots)));
    let warmup = plan.warmup;
    let mut workers = JoinSet::new();
    for mut source in sources {
        let mut slot = participant.slots.open_slot();
        let home = slot.home();
        let schedule = plan.schedule.clone();
        let (ramp, done) = (ramp.clone(), done.clone());
        let stop = plan.stop.clone();
        let more = more.clone();
        let (warm, working) = (warm.clone(), working.clone());
        spawn_slot(&mut workers, home, async move {
            for index in 0..warmup {
                if stop.is_stopping() {
                    break;
                }
                let finished = slot.run(index, Some(WARMUP_PHASE)).await;
                done.put(true, finished).await;
            }
            if warmup > 0 {
                warm.wait().await;
            }
            while !stop.is_stopping() {
                let index = source.take();
                if !more(index) {
                    break;
                }
                if stop.unless_stopped(ramp.wait(index)).await.is_none() {
                    break;
                }
                let finished = slot.run(index as u32, schedule.phase_at(index)).await;
                done.put(false, finished).await;
                if slot.could_not_open() && source.is_shared() && working.retire() {
                    break;
                }
            }
        });
    }
    let mut collect = tokio::time::interval(COLLECT_INTERVAL);
    let mut flush = flush_ticker();
    let mut finishes = Finishes::default();
    loop {
        let all_done = tokio::select! {
            joined = workers.join_next() => match joined {
                None => true,
                Some(joined) => {
                    joined?;
                    false
                }
            },
            _ = collect.tick() => false,
        };
        for (warmup, finished) in done.take() {
            if warmup {
                warmup_finished(observer, &participant.name, finished, total)?;
            } else {
                task_finished(observer, &participant.name, finished, total, &mut finishes)?;
            }
        }
        if all_done {
            return Ok(finishes);
        }
        if ticker_fired(&mut flush) {
            observer.observe(RunEvent::Flush)?;
        }
    }
}

/// How many of a participant's slots still take tasks. A slot that cannot open its sandbox
/// (e.g. past the run's host memory budget) retires after failing one task, so that it
/// does not fail the tasks the others would run; the last one never retires, so every
/// task of the schedule still ends in a record.
struct Working(AtomicUsize);

impl Working {
    /// Retires a slot unless it is the last one working; whether it did.
    fn retire(&self) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |working| {
                (working > 1).then(|| working - 1)
            })
            .is_ok()
    }
}

/// Whether the ticker has fired since it was last polled (without waiting).
fn ticker_fired(ticker: &mut tokio::time::Interval) -> bool {
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    ticker.poll_tick(&mut context).is_ready()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::test_support::*;
    use bench_model::events::FLUSH_INTERVAL;
    use bench_model::record::Status;
    use tokio::time::Instant;

    /// Asserts that between `from` and `to` no two flushes are more than `gap` apart.
    fn assert_flushed_every(tape: &Tape, from: Instant, to: Instant, gap: Duration) {
        let mut previous = from;
        for at in tape.flushes().into_iter().filter(|at| *at <= to) {
            assert!(at - previous <= gap, "no flush for {:?}", at - previous);
            previous = at;
        }
        assert!(to - previous <= gap, "no flush for {:?}", to - previous);
    }

    #[tokio::test(start_paused = true)]
    async fn one_slot_runs_the_schedule_in_order_with_its_phases() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(3));
        let plan = phased_plan(&[(Some("cold"), 2), (Some("warm"), 1)], 1, 0.0);
        let mut tape = Tape::default();
        run_participant(&fake, &plan, &mut tape).await.unwrap();

        let ran: Vec<(u32, Option<String>)> = journal
            .ran()
            .into_iter()
            .map(|ran| (ran.index, ran.phase))
            .collect();
        let phase = |name: &str| Some(name.to_owned());
        assert_eq!(
            ran,
            [(0, phase("cold")), (1, phase("cold")), (2, phase("warm"))]
        );
        assert_eq!(journal.slots_opened(), 1);
        let tagged: Vec<_> = tape
            .records_of("a")
            .iter()
            .map(|record| {
                (
                    record.task_index,
                    record.data.as_ref().unwrap()["phase"].clone(),
                )
            })
            .collect();
        assert_eq!(
            tagged,
            [(0, "cold".into()), (1, "cold".into()), (2, "warm".into())]
        );
        assert_eq!(
            tape.without_flushes(),
            [
                Seen::ParticipantStarted("a".into()),
                Seen::TaskFinished("a".into(), 0, 3),
                Seen::TaskFinished("a".into(), 1, 3),
                Seen::TaskFinished("a".into(), 2, 3),
                Seen::ParticipantFinished("a".into(), 3, 3),
            ]
        );
        let last_two: Vec<&Seen> = tape.events.iter().rev().take(2).map(|(_, s)| s).collect();
        assert_eq!(
            last_two[1],
            &Seen::Flush,
            "flushed before the participant ends"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_slots_never_run_more_than_concurrency_tasks() {
        let journal = Arc::default();
        // Uneven durations, so tasks finish out of order.
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(1 + u64::from(index * 7 % 5) * 10),
            fails: false,
            unopened: false,
        });
        let mut tape = Tape::default();
        run_participant(&fake, &plan(20, 3, 0.0), &mut tape)
            .await
            .unwrap();

        assert_eq!(journal.slots_opened(), 3);
        assert_eq!(journal.max_in_flight(), 3);
        let all: Vec<u32> = (0..20).collect();
        let started: Vec<u32> = journal.started().iter().map(|(_, index)| *index).collect();
        assert_eq!(started, all, "every index is handed out once, in order");
        let finished: Vec<u32> = journal.ran().iter().map(|ran| ran.index).collect();
        assert_ne!(finished, all, "the slots finished out of order");
        let reported: Vec<u32> = tape
            .without_flushes()
            .into_iter()
            .filter_map(|seen| match seen {
                Seen::TaskFinished(_, index, 20) => Some(index),
                _ => None,
            })
            .collect();
        assert_eq!(reported, finished, "observers see tasks as they finish");
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 20, 20))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn every_slot_warms_up_first_and_warm_up_tasks_do_not_count() {
        for concurrency in [1, 3] {
            let journal = Arc::default();
            let fake = participant("a", &journal, takes(5));
            let mut plan = plan(6, concurrency, 0.0);
            plan.warmup = 2;
            let mut tape = Tape::default();
            run_participant(&fake, &plan, &mut tape).await.unwrap();
            let warm = concurrency as usize * 2;
            let ran = journal.ran();
            assert_eq!(ran.len(), warm + 6, "concurrency {concurrency}");
            let (first, rest) = ran.split_at(warm);
            assert!(first.iter().all(|r| r.phase.as_deref() == Some("warmup")));
            assert!(rest.iter().all(|r| r.phase.is_none()));
            let last_warm = first.iter().map(|r| r.ended).max().unwrap();
            assert!(
                rest.iter().all(|r| r.started >= last_warm),
                "all warm first"
            );
            let warm_records = tape.records.iter().filter(|(_, r)| r.is_warmup()).count();
            assert_eq!(warm_records, warm, "warm-up records are reported");
            assert_eq!(
                tape.without_flushes().last(),
                Some(&Seen::ParticipantFinished("a".into(), 6, 6)),
                "but not counted"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn fewer_tasks_than_concurrency_open_one_slot_per_task() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(10));
        run_participant(&fake, &plan(2, 8, 0.0), &mut Tape::default())
            .await
            .unwrap();
        assert_eq!(journal.slots_opened(), 2);
        assert_eq!(journal.max_in_flight(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn the_stagger_ramp_is_anchored_at_the_first_start() {
        // One slot: a slow first task delays the next ones, but task 3 is still due 300 ms
        // after the first start, not 100 ms after task 2.
        let journal = Arc::default();
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(if index == 0 { 250 } else { 10 }),
            fails: false,
            unopened: false,
        });
        let start = Instant::now();
        run_participant(&fake, &plan(5, 1, 100.0), &mut Tape::default())
            .await
            .unwrap();
        let starts: Vec<Duration> = journal.ran().iter().map(|r| r.started - start).collect();
        assert_eq!(starts, [ms(0), ms(250), ms(260), ms(300), ms(400)]);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_slots_share_one_stagger_ramp() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(1000));
        let start = Instant::now();
        run_participant(&fake, &plan(6, 3, 100.0), &mut Tape::default())
            .await
            .unwrap();
        let mut starts: Vec<Duration> = journal.ran().iter().map(|r| r.started - start).collect();
        starts.sort();
        assert_eq!(
            starts,
            [ms(0), ms(100), ms(200), ms(1000), ms(1100), ms(1200)]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn observers_are_flushed_while_long_tasks_run() {
        for concurrency in [1, 2] {
            let journal = Arc::default();
            let fake = participant("a", &journal, takes(200));
            let mut tape = Tape::default();
            let start = Instant::now();
            run_participant(&fake, &plan(2, concurrency, 0.0), &mut tape)
                .await
                .unwrap();
            let end = journal.ran().iter().map(|ran| ran.ended).max().unwrap();
            assert!(end - start >= ms(200));
            let gap = FLUSH_INTERVAL + COLLECT_INTERVAL;
            assert_flushed_every(&tape, start, end, gap);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_failed_task_is_a_failed_record_and_the_participant_goes_on() {
        let journal = Arc::default();
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(1),
            fails: index == 1,
            unopened: false,
        });
        let mut tape = Tape::default();
        run_participant(&fake, &plan(3, 1, 0.0), &mut tape)
            .await
            .unwrap();
        let records = tape.records_of("a");
        let outcome: Vec<(Status, Option<&str>)> = records
            .iter()
            .map(|record| (record.status, record.error_code.as_deref()))
            .collect();
        assert_eq!(
            outcome,
            [
                (Status::Success, None),
                (Status::Error, Some("trap")),
                (Status::Success, None)
            ]
        );
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 3, 2))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_slot_that_cannot_open_its_sandbox_retires_and_the_others_run_the_schedule() {
        let journal = Arc::default();
        // Task 1 (the second slot's first) finds no sandbox; every task takes 10 ms.
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(10),
            fails: false,
            unopened: index == 1,
        });
        let mut tape = Tape::default();
        run_participant(&fake, &plan(20, 2, 0.0), &mut tape)
            .await
            .unwrap();
        let records = tape.records_of("a");
        assert_eq!(records.len(), 20, "every task has its record");
        let failed: Vec<u32> = records
            .iter()
            .filter(|record| !record.is_success())
            .map(|record| record.task_index)
            .collect();
        assert_eq!(failed, [1]);
        let ran = journal.ran();
        let first_slot = ran.iter().find(|r| r.index == 0).unwrap().slot;
        assert!(
            ran.iter()
                .filter(|r| r.index >= 2)
                .all(|r| r.slot == first_slot),
            "the retired slot took no further task"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn when_no_slot_can_open_its_sandbox_the_last_one_still_records_every_task() {
        let journal = Arc::default();
        let fake = participant("a", &journal, |_| Behaviour {
            delay: ms(1),
            fails: false,
            unopened: true,
        });
        let mut tape = Tape::default();
        run_participant(&fake, &plan(12, 3, 0.0), &mut tape)
            .await
            .unwrap();
        let records = tape.records_of("a");
        assert_eq!(records.len(), 12);
        assert!(records
            .iter()
            .all(|r| r.error_code.as_deref() == Some("instantiation_failed")));
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 12, 0))
        );
    }

    #[tokio::test(start_paused = true)]
    async fn no_task_starts_once_the_run_is_stopped_and_running_ones_are_recorded() {
        for concurrency in [1, 3] {
            let journal = Arc::default();
            let fake = participant("a", &journal, takes(100));
            let plan = plan(50, concurrency, 0.0);
            stop_scheduling_after(&plan, 250);
            let mut tape = Tape::default();
            run_participant(&fake, &plan, &mut tape).await.unwrap();
            // Tasks start at 0, 100 and 200 ms in every slot; the stop at 250 ms lets the
            // third wave finish and starts no fourth.
            let expected = 3 * concurrency as usize;
            assert_eq!(
                journal.started().len(),
                expected,
                "concurrency {concurrency}"
            );
            let indexes: Vec<u32> = tape
                .records_of("a")
                .iter()
                .map(|record| record.task_index)
                .collect();
            assert_eq!(indexes, (0..expected as u32).collect::<Vec<_>>());
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_stop_during_the_stagger_ramp_ends_the_participant_at_once() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(1));
        let plan = plan(5, 1, 1000.0);
        stop_scheduling_after(&plan, 10);
        let start = Instant::now();
        run_participant(&fake, &plan, &mut Tape::default())
            .await
            .unwrap();
        assert_eq!(journal.started(), [("a", 0)]);
        assert_eq!(start.elapsed(), ms(10));
    }

    /// Fails when told of a finished task, as the results writer does when its disk is full.
    struct FailingWriter;

    impl RunObserver for FailingWriter {
        fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
            match event {
                RunEvent::TaskFinished { .. } => anyhow::bail!("disk full"),
                _ => Ok(()),
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_observer_error_stops_the_participant() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(1));
        let error = run_participant(&fake, &plan(5, 1, 0.0), &mut FailingWriter)
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), "disk full");
        assert_eq!(journal.started(), [("a", 0)]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_shard_runs_only_its_slots_strides_each_in_its_own_slot() {
        let plan = plan(10, 3, 0.0);
        let mut ran = Vec::new();
        for (index, opened, tasks) in [(0, 2, 7), (1, 1, 3)] {
            let journal = Arc::default();
            let fake = participant("a", &journal, takes(5));
            let shard = Shard { index, count: 2 };
            let mut tape = Tape::default();
            run_participant_shard(&fake, 0, shard, &plan, &mut tape)
                .await
                .unwrap();
            assert_eq!(journal.slots_opened(), opened, "shard {index}");
            let by_slot = |slot| -> Vec<u32> {
                let ran = journal.ran();
                ran.iter()
                    .filter(|r| r.slot == slot)
                    .map(|r| r.index)
                    .collect()
            };
            if index == 0 {
                assert_eq!(by_slot(0), [0, 3, 6, 9]);
                assert_eq!(by_slot(1), [2, 5, 8]);
            } else {
                assert_eq!(by_slot(0), [1, 4, 7]);
            }
            let finished = tape.without_flushes();
            assert_eq!(
                finished.last(),
                Some(&Seen::ParticipantFinished("a".into(), tasks, tasks))
            );
            assert!(finished.contains(&Seen::TaskFinished("a".into(), index, 10)));
            ran.extend(journal.ran().into_iter().map(|r| r.index));
        }
        ran.sort_unstable();
        assert_eq!(ran, (0..10).collect::<Vec<u32>>());
    }

    #[tokio::test(start_paused = true)]
    async fn a_shard_without_slots_of_a_participant_reports_nothing_of_it() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(5));
        let mut tape = Tape::default();
        let shard = Shard { index: 2, count: 3 };
        run_participant_shard(&fake, 0, shard, &plan(4, 2, 0.0), &mut tape)
            .await
            .unwrap();
        assert!(tape.events.is_empty());
        assert_eq!(journal.slots_opened(), 0);
    }
}
