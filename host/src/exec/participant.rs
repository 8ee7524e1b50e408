//! groupBy `participant`: participants one after another; for each, `concurrency` slots
//! (each its own sandbox) pull the next schedule index; the stagger ramp is anchored to the
//! first start (spec §3.2–3.3).

use super::{ExecPlan, Finished, ParticipantRun, RunObserver, Slot};
use crate::record::TaskRecord;
use anyhow::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Runs every participant in turn and returns their records sorted by task index.
pub async fn run_participant(
    participant: &ParticipantRun,
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<Vec<TaskRecord>> {
    observer.participant_started(&participant.name);
    let total = plan.schedule.len();
    let workers = (plan.concurrency as usize).min(total).max(1);
    let next_index = Arc::new(AtomicUsize::new(0));
    let ramp_start = Arc::new(OnceLock::new());
    let (sender, mut receiver) = mpsc::unbounded_channel::<Finished>();
    let mut handles = Vec::with_capacity(workers);
    for _ in 0..workers {
        let mut slot = Slot::new(participant.slot.clone());
        let schedule = plan.schedule.clone();
        let next_index = next_index.clone();
        let ramp_start = ramp_start.clone();
        let sender = sender.clone();
        let stagger = plan.stagger_delay_ms;
        handles.push(tokio::spawn(async move {
            loop {
                let index = next_index.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = schedule.get(index) else {
                    break;
                };
                if stagger > 0.0 {
                    let start: &Instant = ramp_start.get_or_init(Instant::now);
                    let due = *start + Duration::from_secs_f64(index as f64 * stagger / 1000.0);
                    tokio::time::sleep_until(due.into()).await;
                }
                let finished = slot
                    .run(index as u32, index as u32, entry.phase.as_deref())
                    .await;
                if sender.send(finished).is_err() {
                    break;
                }
            }
        }));
    }
    drop(sender);
    let mut records = Vec::with_capacity(total);
    while let Some(finished) = receiver.recv().await {
        if let Err(error) = observer.task_finished(&participant.name, &finished, total) {
            handles.iter().for_each(|handle| handle.abort());
            return Err(error);
        }
        records.push(finished.record);
    }
    records.sort_by_key(|record| record.task_index);
    observer.participant_finished(&participant.name, &records);
    Ok(records)
}
