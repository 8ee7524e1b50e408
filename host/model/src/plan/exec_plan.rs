//! What the executors need besides the participants: the schedule, concurrency, stagger, load
//! model, warm-up, shuffle and the run's stop switch.

use super::{LoadModel, Schedule};
use crate::config::GroupBy;
use crate::stop::RunStop;
use std::sync::Arc;

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
    /// The slots a participant opens: `concurrency`, but no more than it has tasks.
    pub fn slot_count(&self) -> usize {
        (self.concurrency as usize).min(self.schedule.len()).max(1)
    }

    /// How many sandboxes the executors keep alive at once: the slots of one participant
    /// at a time in participant mode (`concurrency`, at most one per task; for a duration
    /// all of them; on arrivals as many as the executor may grow to), one per participant
    /// in round mode.
    pub fn sandboxes_at_once(&self, group_by: GroupBy, participants: usize) -> usize {
        match (&self.load, group_by) {
            (LoadModel::ArrivalRate(arrivals), _) => arrivals.max_sandboxes as usize,
            (LoadModel::Duration(_), _) => (self.concurrency as usize).max(1),
            (LoadModel::Iterations, GroupBy::Participant) => self.slot_count(),
            (LoadModel::Iterations, GroupBy::Round) => participants,
        }
    }
}

/// A plan of `iterations` tasks in one phase, upstream's load model.
#[cfg(any(test, feature = "test-support"))]
pub fn test_plan(iterations: usize, concurrency: u32, stagger_delay_ms: f64) -> ExecPlan {
    ExecPlan {
        schedule: Arc::new(Schedule::from_phases([(None, iterations)])),
        concurrency,
        stagger_delay_ms,
        load: LoadModel::Iterations,
        warmup: 0,
        shuffle_seed: None,
        stop: RunStop::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn participant_mode_keeps_one_participants_slots_and_round_mode_one_per_participant() {
        let participant = GroupBy::Participant;
        assert_eq!(
            test_plan(20_000, 10_000, 0.0).sandboxes_at_once(participant, 3),
            10_000
        );
        assert_eq!(
            test_plan(5, 10_000, 0.0).sandboxes_at_once(participant, 3),
            5
        );
        assert_eq!(test_plan(0, 4, 0.0).sandboxes_at_once(participant, 3), 1);
        assert_eq!(
            test_plan(5, 2, 0.0).sandboxes_at_once(GroupBy::Round, 1000),
            1000
        );
    }
}
