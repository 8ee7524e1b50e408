//! The `duration` executor (k6's `constant-vus`): a closed model bounded by time. The
//! participant's `concurrency` slots start task after task, each as soon as its previous
//! one ends, until the duration is over; tasks running then finish and are recorded. The
//! schedule has no length: task indexes count up from 0, and the events report a total of 0.
//!
//! Once the run's stop is thrown no task starts; the running ones finish (or are
//! interrupted by their slot).

use super::participant::{run_slots, NextIndex};
use super::{ExecPlan, ParticipantRun, SlotFactory};
use anyhow::Result;
use bench_model::events::{RunEvent, RunObserver};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::time::Instant;

/// Runs one participant for `duration`, handing each finished task to the observer.
pub async fn run_for_duration<F: SlotFactory>(
    participant: &ParticipantRun<F>,
    plan: &ExecPlan,
    duration: Duration,
    observer: &mut dyn RunObserver,
) -> Result<()> {
    let name = participant.name.as_str();
    observer.observe(RunEvent::ParticipantStarted { participant: name })?;
    // The clock starts with the first measured task (after the warm-up, if any).
    let deadline: Arc<OnceLock<Instant>> = Arc::default();
    let slots = (plan.concurrency as usize).max(1);
    // Task indexes are `u32`: a run of more tasks than that ends there.
    let within = move |index: usize| {
        index < u32::MAX as usize
            && Instant::now() < *deadline.get_or_init(|| Instant::now() + duration)
    };
    let finishes = run_slots(
        participant,
        plan,
        NextIndex::shared(slots),
        0,
        observer,
        within,
    )
    .await?;
    observer.observe(RunEvent::Flush)?;
    observer.observe(RunEvent::ParticipantFinished {
        participant: name,
        tasks: finishes.tasks,
        succeeded: finishes.succeeded,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::test_support::*;

    #[tokio::test(start_paused = true)]
    async fn slots_start_tasks_until_the_duration_is_over_and_the_last_ones_finish() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(30));
        let mut tape = Tape::default();
        let start = Instant::now();
        run_for_duration(&fake, &plan(0, 2, 0.0), ms(100), &mut tape)
            .await
            .unwrap();
        // Each slot starts at 0, 30, 60 and 90 ms: 8 tasks; the two started at 90 ms end
        // at 120 ms.
        assert_eq!(journal.started().len(), 8);
        assert_eq!(journal.max_in_flight(), 2);
        assert_eq!(start.elapsed(), ms(120));
        let indexes: Vec<u32> = tape.records_of("a").iter().map(|r| r.task_index).collect();
        assert_eq!(indexes, (0..8).collect::<Vec<_>>());
        assert_eq!(
            tape.without_flushes().last(),
            Some(&Seen::ParticipantFinished("a".into(), 8, 8))
        );
        assert!(tape
            .without_flushes()
            .iter()
            .all(|seen| !matches!(seen, Seen::TaskFinished(_, _, total) if *total != 0)));
    }

    #[tokio::test(start_paused = true)]
    async fn the_duration_starts_after_the_warm_up() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(30));
        let mut plan = plan(0, 1, 0.0);
        plan.warmup = 3;
        let start = Instant::now();
        run_for_duration(&fake, &plan, ms(100), &mut Tape::default())
            .await
            .unwrap();
        // 90 ms of warm-up, then tasks at 90, 120, 150 and 180 ms.
        assert_eq!(journal.started().len(), 7);
        assert_eq!(start.elapsed(), ms(210));
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_target_gets_fewer_tasks_in_the_same_time() {
        let journal = Arc::default();
        let fake = participant("a", &journal, |index| Behaviour {
            delay: ms(if index == 2 { 1000 } else { 10 }),
            fails: false,
            unopened: false,
        });
        run_for_duration(&fake, &plan(0, 1, 0.0), ms(1000), &mut Tape::default())
            .await
            .unwrap();
        // 2 quick tasks, the stalled one (1 s), then time is up: the closed loop sent less.
        assert_eq!(journal.started().len(), 3);
    }

    #[tokio::test(start_paused = true)]
    async fn once_the_run_is_stopped_no_task_starts() {
        let journal = Arc::default();
        let fake = participant("a", &journal, takes(40));
        let plan = plan(0, 1, 0.0);
        stop_scheduling_after(&plan, 100);
        let mut tape = Tape::default();
        run_for_duration(&fake, &plan, Duration::from_secs(60), &mut tape)
            .await
            .unwrap();
        assert_eq!(journal.started().len(), 3, "0, 40 and 80 ms");
        assert_eq!(tape.records.len(), 3);
    }
}
