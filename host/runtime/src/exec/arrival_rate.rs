//! The arrival-rate executors (k6's `constant-arrival-rate` and `ramping-arrival-rate`):
//! an open model. Task `i` is due at the `i`-th arrival of the plan's
//! [`RateProfile`](crate::plan::RateProfile), however slow the target is; it starts in a
//! free sandbox. `preAllocated` sandboxes are opened first; when none is free another is
//! opened, up to `maxSandboxes`; past that the arrival is dropped and counted
//! ([`RunEvent::TaskDropped`], k6's `dropped_iterations`), never started late.
//!
//! Every record carries its [`ArrivalTiming`]: the response time counts from the intended
//! start, so a stall shows in it even though the next tasks start on time in other
//! sandboxes (no coordinated omission). Once the run's stop is thrown no task starts; the
//! running ones finish (or are interrupted by their slot).

use super::pacing::{flush_ticker, flushing_while};
use super::{
    task_finished, warmup_finished, ExecPlan, Finishes, ParticipantRun, SlotFactory, TaskRunner,
};
use crate::events::{Finished, RunEvent, RunObserver};
use crate::js;
use crate::plan::ArrivalPlan;
use crate::record::{ArrivalTiming, WARMUP_PHASE};
use anyhow::Result;
use std::time::{Duration, SystemTime};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// A finished task and the sandbox that ran it, back for the next arrival.
type Returned<R> = (R, Finished);

/// Runs one participant on the arrival schedule of `arrivals`, handing each finished task
/// (and each dropped arrival) to the observer.
pub async fn run_arrivals<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    arrivals: &ArrivalPlan,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let name = participant.name.as_str();
    observer.observe(RunEvent::ParticipantStarted { participant: name })?;
    let total = arrivals.profile.expected_tasks() as usize;
    let mut idle: Vec<F::Runner> = (0..arrivals.pre_allocated)
        .map(|_| participant.slots.open_slot())
        .collect();
    let mut opened = idle.len();
    let mut running: JoinSet<Returned<F::Runner>> = JoinSet::new();
    let mut finishes = Finishes::default();
    let mut ticker = flush_ticker();
    let stop = &plan.stop;
    if plan.warmup > 0 {
        warm_up(&mut idle, plan, name, total, &mut ticker, observer).await?;
    }
    // One wait for the stop, polled at every arrival.
    let stopping = stop.stopping();
    tokio::pin!(stopping);
    let start = Instant::now();
    'arrivals: for (index, offset) in arrivals.profile.arrivals().enumerate() {
        let due = start + offset;
        let wait = tokio::time::sleep_until(due);
        tokio::pin!(wait);
        loop {
            tokio::select! {
                biased;
                () = &mut stopping => break 'arrivals,
                Some(joined) = running.join_next() => {
                    let (slot, finished) = joined?;
                    idle.push(slot);
                    task_finished(observer, name, finished, total, &mut finishes)?;
                }
                () = &mut wait => break,
                _ = ticker.tick() => observer.observe(RunEvent::Flush)?,
            }
        }
        if idle.is_empty() && opened >= arrivals.max_sandboxes as usize {
            // A late arrival (the process did not run for a while) meets tasks that ended
            // but were not collected yet: give them one turn before calling it a drop.
            tokio::task::yield_now().await;
            while let Some(joined) = running.try_join_next() {
                let (slot, finished) = joined?;
                idle.push(slot);
                task_finished(observer, name, finished, total, &mut finishes)?;
            }
        }
        let slot = match idle.pop() {
            Some(slot) => slot,
            None if opened < arrivals.max_sandboxes as usize => {
                opened += 1;
                participant.slots.open_slot()
            }
            None => {
                let index = index as u32;
                observer.observe(RunEvent::TaskDropped {
                    participant: name,
                    index,
                })?;
                continue;
            }
        };
        running.spawn(run_arrival(slot, index as u32, due));
    }
    while let Some(joined) = flushing_while(running.join_next(), &mut ticker, observer).await? {
        let (_, finished) = joined?;
        task_finished(observer, name, finished, total, &mut finishes)?;
    }
    observer.observe(RunEvent::Flush)?;
    observer.observe(RunEvent::ParticipantFinished {
        participant: name,
        tasks: finishes.tasks,
        succeeded: finishes.succeeded,
    })
}

/// Runs the warm-up tasks in every pre-allocated sandbox (all sandboxes at once) before
/// the first arrival.
async fn warm_up<R: TaskRunner>(
    idle: &mut Vec<R>,
    plan: &ExecPlan,
    participant: &str,
    total: usize,
    ticker: &mut tokio::time::Interval,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let mut warming = JoinSet::new();
    for mut slot in idle.drain(..) {
        let (count, stop) = (plan.warmup, plan.stop.clone());
        warming.spawn(async move {
            let mut done = Vec::new();
            for index in 0..count {
                if stop.is_stopping() {
                    break;
                }
                done.push(slot.run(index, Some(WARMUP_PHASE)).await);
            }
            (slot, done)
        });
    }
    while let Some(joined) = flushing_while(warming.join_next(), ticker, observer).await? {
        let (slot, done) = joined?;
        idle.push(slot);
        for finished in done {
            warmup_finished(observer, participant, finished, total)?;
        }
    }
    Ok(())
}

/// Runs task `index`, due at `due`, and adds its arrival timing to the record.
async fn run_arrival<R: TaskRunner>(mut slot: R, index: u32, due: Instant) -> Returned<R> {
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
    (slot, finished)
}

/// Milliseconds to the microsecond.
fn millis(duration: Duration) -> f64 {
    (duration.as_secs_f64() * 1e6).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ExecutorKind, Stage};
    use crate::exec::test_support::*;
    use crate::plan::RateProfile;
    use std::sync::Arc;

    fn constant(rate: f64, duration: Duration, pre: u32, max: u32) -> ArrivalPlan {
        ArrivalPlan {
            kind: ExecutorKind::ConstantArrivalRate,
            profile: RateProfile::constant(rate, duration),
            pre_allocated: pre,
            max_sandboxes: max,
        }
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

    #[tokio::test(start_paused = true)]
    async fn tasks_start_on_the_rate_grid_whatever_their_latency() {
        let journal = Arc::default();
        // Every task takes 25 ms: 3 run at once at 100/s.
        let fake = participant("a", &journal, takes(25));
        let mut tape = Tape::default();
        let start = Instant::now();
        let arrivals = constant(100.0, Duration::from_secs(1), 1, 10);
        run_arrivals(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
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
        });
        let mut tape = Tape::default();
        let start = Instant::now();
        let arrivals = constant(10.0, Duration::from_secs(2), 1, 2);
        run_arrivals(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
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
    async fn a_task_ending_as_the_next_arrival_is_due_hands_it_its_sandbox() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(100));
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(1), 1, 1);
        run_arrivals(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
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
        });
        let mut tape = Tape::default();
        let arrivals = constant(10.0, Duration::from_secs(2), 1, 1);
        run_arrivals(&fake, &plan(0, 1, 0.0), &arrivals, &mut tape)
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
        run_arrivals(&fake, &plan(0, 1, 0.0), &arrivals, &mut Tape::default())
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
        run_arrivals(&fake, &plan, &arrivals, &mut tape)
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
        run_arrivals(&fake, &plan, &arrivals, &mut tape)
            .await
            .unwrap();
        assert_eq!(journal.started().len(), 3, "0, 100 and 200 ms");
        assert_eq!(tape.records.len(), 3, "the running tasks are recorded");
    }
}
