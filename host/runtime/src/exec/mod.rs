//! Executors: they pull tasks from the schedule (upstream's iterations, per participant or
//! in rounds), run for a duration, or start tasks on an arrival schedule (the load models,
//! `docs/load-models.md`); they honour concurrency, stagger, warm-up and the stop switch, and
//! send each finished task to a [`RunObserver`](crate::events::RunObserver). They run tasks
//! through a [`TaskRunner`] (a sandbox in a run, a fake in unit tests) and never format
//! output. [`InstrumentFloor`] measures what they add around a task.

mod arrival_clock;
mod arrival_rate;
mod duration;
mod floor;
mod outcome;
mod pacing;
mod participant;
mod round;
mod runner;
mod shard;
mod slot;
mod stop;
#[cfg(test)]
pub(crate) mod test_support;

pub use arrival_rate::run_arrivals;
pub use duration::run_for_duration;
pub use floor::{InstrumentFloor, FLOOR_FACTOR};
pub use participant::{run_participant, run_participant_shard};
pub use round::run_rounds;
pub use runner::{SlotFactory, TaskRunner};
pub use shard::{Shard, MAX_SHARDS};
pub use slot::SlotConfig;
pub use stop::RunStop;

use crate::config::GroupBy;
use crate::events::{Finished, RunEvent, RunObserver};
use crate::plan::{LoadModel, Schedule};
use anyhow::Result;
use std::sync::Arc;

/// One participant ready to run: its name and how to open each of its concurrency slots.
#[derive(Clone)]
pub struct ParticipantRun<F> {
    /// The participant's name.
    pub name: String,
    /// Opens the participant's slots (one [`TaskRunner`] each).
    pub slots: F,
}

/// What the executors need besides the participants.
#[derive(Debug, Clone)]
pub struct ExecPlan {
    /// The schedule every participant runs, shared by all slots.
    pub schedule: Arc<Schedule>,
    /// Tasks in flight per participant (participant mode) or per round (round mode).
    pub concurrency: u32,
    /// Ramp (participant mode) or gap between rounds (round mode), in milliseconds.
    pub stagger_delay_ms: f64,
    /// How tasks are started: upstream's iterations, for a duration, or on arrivals.
    pub load: LoadModel,
    /// Warm-up tasks every slot runs first (phase `warmup`, indexes from 0).
    pub warmup: u32,
    /// Round mode: the seed of a new participant order in every round.
    pub shuffle_seed: Option<u64>,
    /// The run's stop switch: no task starts once it is thrown.
    pub stop: RunStop,
}

impl ExecPlan {
    /// How many sandboxes the executors keep alive at once: the slots of one participant
    /// at a time in participant mode (`concurrency`, at most one per task; for a duration
    /// all of them; on arrivals as many as the executor may grow to), one per participant
    /// in round mode.
    pub fn sandboxes_at_once(&self, group_by: GroupBy, participants: usize) -> usize {
        match (&self.load, group_by) {
            (LoadModel::ArrivalRate(arrivals), _) => arrivals.max_sandboxes as usize,
            (LoadModel::Duration(_), _) => (self.concurrency as usize).max(1),
            (LoadModel::Iterations, GroupBy::Participant) => participant::slot_count(self),
            (LoadModel::Iterations, GroupBy::Round) => participants,
        }
    }
}

/// How many of one participant's tasks finished, and how many of them succeeded.
#[derive(Debug, Clone, Copy, Default)]
struct Finishes {
    tasks: usize,
    succeeded: usize,
}

/// Counts a finished task and sends [`RunEvent::TaskFinished`]; the record is not kept.
fn task_finished(
    observer: &mut dyn RunObserver,
    participant: &str,
    finished: Finished,
    total: usize,
    finishes: &mut Finishes,
) -> Result<()> {
    finishes.tasks += 1;
    if finished.record.is_success() {
        finishes.succeeded += 1;
    }
    observer.observe(RunEvent::TaskFinished {
        participant,
        finished: &finished,
        total,
    })
}

/// Sends a finished warm-up task to the observers; it does not count as one of the
/// participant's tasks.
fn warmup_finished(
    observer: &mut dyn RunObserver,
    participant: &str,
    finished: Finished,
    total: usize,
) -> Result<()> {
    observer.observe(RunEvent::TaskFinished {
        participant,
        finished: &finished,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::test_support::plan;
    use super::*;

    #[test]
    fn participant_mode_keeps_one_participants_slots_and_round_mode_one_per_participant() {
        let participant = GroupBy::Participant;
        assert_eq!(
            plan(20_000, 10_000, 0.0).sandboxes_at_once(participant, 3),
            10_000
        );
        assert_eq!(plan(5, 10_000, 0.0).sandboxes_at_once(participant, 3), 5);
        assert_eq!(plan(0, 4, 0.0).sandboxes_at_once(participant, 3), 1);
        assert_eq!(
            plan(5, 2, 0.0).sandboxes_at_once(GroupBy::Round, 1000),
            1000
        );
    }
}
