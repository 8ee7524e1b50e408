//! groupBy `round`: round `i` runs task `i` of every participant (at most `concurrency` at
//! once, started in participant order), with a fixed gap between rounds (spec §3.4).

use super::{ExecPlan, Finished, ParticipantRun, RunObserver, RunRecords, Slot};
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
    observer.rounds_started(participants.len(), rounds);
    let mut slots: Vec<Option<Slot>> = participants
        .iter()
        .map(|participant| Some(Slot::new(participant.slot.clone())))
        .collect();
    let mut records: RunRecords = participants
        .iter()
        .map(|participant| (participant.name.clone(), Vec::with_capacity(rounds)))
        .collect();
    let mut failed = vec![false; participants.len()];
    let permits = Arc::new(Semaphore::new((plan.concurrency as usize).max(1)));
    for (round, entry) in plan.schedule.iter().enumerate() {
        if round > 0 && plan.stagger_delay_ms > 0.0 {
            tokio::time::sleep(Duration::from_secs_f64(plan.stagger_delay_ms / 1000.0)).await;
        }
        let mut running: JoinSet<(usize, Slot, Finished)> = JoinSet::new();
        for (index, slot) in slots.iter_mut().enumerate() {
            let permit = permits.clone().acquire_owned().await?;
            let mut slot = slot
                .take()
                .expect("every slot is back before the next round");
            let phase = entry.phase.clone();
            running.spawn(async move {
                let finished = slot.run(round as u32, round as u32, phase.as_deref()).await;
                drop(permit);
                (index, slot, finished)
            });
        }
        while let Some(joined) = running.join_next().await {
            let (index, slot, finished) = joined?;
            slots[index] = Some(slot);
            observer.task_finished(&participants[index].name, &finished, rounds)?;
            failed[index] |= !finished.record.is_success();
            records[index].1.push(finished.record);
        }
    }
    for (participant, failed) in participants.iter().zip(failed) {
        observer.round_participant_finished(&participant.name, failed);
    }
    Ok(records)
}
