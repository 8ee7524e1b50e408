//! A work unit of a dispatched run, run on one slot: its tasks one after another, honouring
//! the plan's stagger ramp and its stop.

use super::{spawn_slot, SlotFactory, TaskRunner};
use bench_model::dispatch::{since_epoch, WorkUnit};
use bench_model::events::Finished;
use bench_model::plan::ExecPlan;
use std::time::{Duration, SystemTime};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// Runs a unit's tasks on a new slot of `slots`, on the slot's own thread when it has one
/// (its tasks one after another, as `run_unit` runs them); returns how many ran.
pub async fn run_unit_in_new_slot<F: SlotFactory>(
    slots: &F,
    unit: &WorkUnit,
    plan: &ExecPlan,
    finished: &mpsc::Sender<Finished>,
) -> usize {
    let mut runner = slots.open_slot();
    let home = runner.home();
    let (unit, plan, finished) = (unit.clone(), plan.clone(), finished.clone());
    let mut running = JoinSet::new();
    spawn_slot(&mut running, home, async move {
        run_unit(&mut runner, &unit, &plan, &finished).await
    });
    match running.join_next().await {
        Some(Ok(ran)) => ran,
        Some(Err(error)) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        _ => 0,
    }
}

/// Runs a unit's tasks one after another on `runner` (honouring the plan's stagger ramp
/// and its stop), sending each finished task to `finished`; returns how many ran. Stops
/// early when the receiver is gone.
async fn run_unit<R: TaskRunner>(
    runner: &mut R,
    unit: &WorkUnit,
    plan: &ExecPlan,
    finished: &mpsc::Sender<Finished>,
) -> usize {
    let mut ran = 0;
    for index in unit.indices() {
        if index as usize >= plan.schedule.len() || plan.stop.is_stopping() {
            break;
        }
        if let Some(anchor) = unit.ramp_anchor_ms {
            let due = Duration::from_millis(anchor)
                + Duration::from_secs_f64(f64::from(index) * plan.stagger_delay_ms / 1000.0);
            let wait = due.saturating_sub(since_epoch(SystemTime::now()));
            if plan
                .stop
                .unless_stopped(tokio::time::sleep(wait))
                .await
                .is_none()
            {
                break;
            }
        }
        let phase = plan.schedule.phase_at(index as usize);
        let done = runner.run(index, phase).await;
        ran += 1;
        if finished.send(done).await.is_err() {
            break;
        }
    }
    ran
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::test_support::{participant, plan, takes};
    use crate::exec::SlotFactory;
    use bench_model::dispatch::participant_units;
    use std::sync::Arc;
    use std::time::UNIX_EPOCH;

    #[tokio::test(start_paused = true)]
    async fn a_unit_runs_its_indices_in_order_and_stops_with_the_run() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(2));
        let plan = plan(10, 3, 0.0);
        let unit = participant_units("a", &plan, UNIX_EPOCH).remove(1);
        let (sender, mut receiver) = mpsc::channel(16);
        let ran = run_unit(&mut fake.slots.open_slot(), &unit, &plan, &sender).await;
        assert_eq!(ran, 3);
        drop(sender);
        let mut indices = Vec::new();
        while let Some(finished) = receiver.recv().await {
            indices.push(finished.record.task_index);
        }
        assert_eq!(indices, [1, 4, 7]);

        plan.stop.stop_scheduling();
        let (sender, _receiver) = mpsc::channel(16);
        assert_eq!(
            run_unit(&mut fake.slots.open_slot(), &unit, &plan, &sender).await,
            0
        );
    }
}
