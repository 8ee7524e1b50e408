//! groupBy `participant`: participants one after another; for each, `concurrency` slots
//! (each its own sandbox) pull the next schedule index from one counter; the stagger ramp is anchored to the
//! first start (spec §3.2–3.3).
//!
//! With one slot the tasks run inline in the executor's task (no thread hand-off per task);
//! with more, each slot is a tokio task and finished tasks are collected every few
//! milliseconds rather than one wake-up per task.

use super::pacing::{flush_ticker, flushing_while, Ramp};
use super::{task_finished, ExecPlan, ParticipantRun, Slot};
use crate::events::{Finished, RunEvent, RunObserver};
use crate::record::TaskRecord;
use anyhow::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinSet;

/// How often finished tasks of concurrent slots are handed to the observer.
const COLLECT_INTERVAL: Duration = Duration::from_millis(5);

/// Runs one participant's schedule and returns its records sorted by task index.
pub async fn run_participant(
    participant: &ParticipantRun,
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<Vec<TaskRecord>> {
    let name = participant.name.as_str();
    observer.observe(RunEvent::ParticipantStarted { participant: name })?;
    let slots = (plan.concurrency as usize).min(plan.schedule.len()).max(1);
    let mut records = if slots == 1 {
        run_inline(participant, plan, observer).await?
    } else {
        run_pool(participant, plan, slots, observer).await?
    };
    records.sort_by_key(|record| record.task_index);
    observer.observe(RunEvent::Flush)?;
    observer.observe(RunEvent::ParticipantFinished {
        participant: name,
        records: &records,
    })?;
    Ok(records)
}

async fn run_inline(
    participant: &ParticipantRun,
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<Vec<TaskRecord>> {
    let total = plan.schedule.len();
    let mut slot = Slot::new(participant.slot.clone());
    let ramp = Ramp::new(plan.stagger_delay_ms);
    let mut ticker = flush_ticker();
    let mut records = Vec::new();
    for index in 0..total {
        ramp.wait(index).await;
        let task = slot.run(index as u32, index as u32, plan.schedule.phase_at(index));
        let finished = flushing_while(task, &mut ticker, observer).await?;
        task_finished(observer, &participant.name, &finished, total)?;
        records.push(finished.record);
    }
    Ok(records)
}

async fn run_pool(
    participant: &ParticipantRun,
    plan: &ExecPlan,
    slots: usize,
    observer: &mut dyn RunObserver,
) -> Result<Vec<TaskRecord>> {
    let total = plan.schedule.len();
    let next_index = Arc::new(AtomicUsize::new(0));
    let ramp = Arc::new(Ramp::new(plan.stagger_delay_ms));
    let done: Arc<Mutex<Vec<Finished>>> = Arc::default();
    let mut workers = JoinSet::new();
    for _ in 0..slots {
        let mut slot = Slot::new(participant.slot.clone());
        let schedule = plan.schedule.clone();
        let (next_index, ramp, done) = (next_index.clone(), ramp.clone(), done.clone());
        workers.spawn(async move {
            loop {
                let index = next_index.fetch_add(1, Ordering::Relaxed);
                if index >= total {
                    break;
                }
                ramp.wait(index).await;
                let finished = slot
                    .run(index as u32, index as u32, schedule.phase_at(index))
                    .await;
                done.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(finished);
            }
        });
    }
    let mut collect = tokio::time::interval(COLLECT_INTERVAL);
    let mut flush = flush_ticker();
    let mut records = Vec::new();
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
        let ready = std::mem::take(&mut *done.lock().unwrap_or_else(|e| e.into_inner()));
        for finished in ready {
            task_finished(observer, &participant.name, &finished, total)?;
            records.push(finished.record);
        }
        if all_done {
            return Ok(records);
        }
        if ticker_fired(&mut flush) {
            observer.observe(RunEvent::Flush)?;
        }
    }
}

/// Whether the ticker has fired since it was last polled (without waiting).
fn ticker_fired(ticker: &mut tokio::time::Interval) -> bool {
    let waker = std::task::Waker::noop();
    let mut context = std::task::Context::from_waker(waker);
    ticker.poll_tick(&mut context).is_ready()
}
