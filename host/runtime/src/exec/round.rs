//! groupBy `round`: round `i` runs task `i` of every participant (at most `concurrency` at
//! once, started in participant order), with a fixed gap between rounds (spec §3.4).

use super::pacing::{flush_ticker, flushing_while};
use super::{task_finished, ExecPlan, ParticipantRun, RunRecords, Slot};
use crate::events::{Finished, RunEvent, RunObserver};
use anyhow::Result;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// Runs all rounds and returns every participant's records in config order.
pub async fn run_rounds(
    participants: &[ParticipantRun],
    plan: &ExecPlan,
    observer: &mut dyn RunObserver,
) -> Result<RunRecords> {
    let rounds = plan.schedule.len();
    observer.observe(RunEvent::RoundsStarted {
        participants: participants.len(),
        rounds,
    })?;
    let mut slots: Vec<Option<Slot>> = participants
        .iter()
        .map(|participant| Some(Slot::new(participant.slot.clone())))
        .collect();
    let mut records: RunRecords = participants
        .iter()
        .map(|participant| (participant.name.clone(), Vec::new()))
        .collect();
    let mut ticker = flush_ticker();
    let permits = Arc::new(Semaphore::new((plan.concurrency as usize).max(1)));
    for round in 0..rounds {
        if round > 0 && plan.stagger_delay_ms > 0.0 {
            observer.observe(RunEvent::Flush)?;
            tokio::time::sleep(Duration::from_secs_f64(plan.stagger_delay_ms / 1000.0)).await;
        }
        if plan.concurrency <= 1 {
            let phase = plan.schedule.phase_at(round);
            // One task at a time, in participant order: run them inline.
            for (index, slot) in slots.iter_mut().enumerate() {
                let slot = slot
                    .as_mut()
                    .expect("slots stay in place in sequential rounds");
                let task = slot.run(round as u32, round as u32, phase);
                let finished = flushing_while(task, &mut ticker, observer).await?;
                task_finished(observer, &participants[index].name, &finished, rounds)?;
                records[index].1.push(finished.record);
            }
            continue;
        }
        let mut running: JoinSet<(usize, Slot, Finished)> = JoinSet::new();
        for (index, slot) in slots.iter_mut().enumerate() {
            let permit = permits.clone().acquire_owned().await?;
            let mut slot = slot
                .take()
                .expect("every slot is back before the next round");
            let schedule = plan.schedule.clone();
            running.spawn(async move {
                let phase = schedule.phase_at(round);
                let finished = slot.run(round as u32, round as u32, phase).await;
                drop(permit);
                (index, slot, finished)
            });
        }
        while let Some(joined) = flushing_while(running.join_next(), &mut ticker, observer).await? {
            let (index, slot, finished) = joined?;
            slots[index] = Some(slot);
            task_finished(observer, &participants[index].name, &finished, rounds)?;
            records[index].1.push(finished.record);
        }
    }
    observer.observe(RunEvent::Flush)?;
    for (index, participant) in participants.iter().enumerate() {
        let failed = records[index].1.iter().any(|record| !record.is_success());
        observer.observe(RunEvent::RoundParticipantFinished {
            participant: &participant.name,
            failed,
        })?;
    }
    Ok(records)
}
