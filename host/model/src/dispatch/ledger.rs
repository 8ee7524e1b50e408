//! Exactly once: which (participant, taskIndex) pairs of a run are recorded, in a
//! compressed bitmap per participant (memory grows with the tasks recorded, not with the
//! schedule: a run of 4 294 967 295 planned tasks costs nothing up front). A task recorded
//! again (a unit redelivered after its worker died re-runs tasks that were already
//! recorded) is dropped; a task the run does not have is refused.

use roaring::RoaringBitmap;
use std::collections::HashMap;

/// The recorded tasks of a run.
#[derive(Debug)]
pub struct TaskLedger {
    bits: HashMap<String, RoaringBitmap>,
    tasks_per_participant: u64,
    recorded: u64,
}

/// What [`TaskLedger::accept`] decided about a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepted {
    /// First time: record it.
    New,
    /// Already recorded: drop it.
    Again,
    /// Not a task of the run (an unknown participant or an index past the schedule).
    Unknown,
}

impl TaskLedger {
    /// An empty ledger of `participants`, each running `tasks_per_participant` tasks.
    pub fn new(participants: &[String], tasks_per_participant: u64) -> Self {
        let bits = participants
            .iter()
            .map(|name| (name.clone(), RoaringBitmap::new()))
            .collect();
        Self {
            bits,
            tasks_per_participant,
            recorded: 0,
        }
    }

    /// Marks task `index` of `participant` recorded, unless it already was.
    pub fn accept(&mut self, participant: &str, index: u32) -> Accepted {
        let Some(bits) = self.bits.get_mut(participant) else {
            return Accepted::Unknown;
        };
        if u64::from(index) >= self.tasks_per_participant {
            return Accepted::Unknown;
        }
        if !bits.insert(index) {
            return Accepted::Again;
        }
        self.recorded += 1;
        Accepted::New
    }

    /// Whether task `index` of `participant` is recorded.
    pub fn contains(&self, participant: &str, index: u32) -> bool {
        self.bits
            .get(participant)
            .is_some_and(|bits| bits.contains(index))
    }

    /// How many tasks are recorded.
    pub fn recorded(&self) -> u64 {
        self.recorded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_task_is_new_once_then_again_and_strangers_are_unknown() {
        let mut ledger = TaskLedger::new(&["a".into(), "b".into()], 130);
        assert_eq!(ledger.accept("a", 129), Accepted::New);
        assert_eq!(ledger.accept("b", 129), Accepted::New);
        assert_eq!(ledger.accept("a", 129), Accepted::Again);
        assert_eq!(ledger.accept("a", 130), Accepted::Unknown);
        assert_eq!(ledger.accept("c", 0), Accepted::Unknown);
        assert!(ledger.contains("a", 129) && !ledger.contains("a", 0));
        assert!(!ledger.contains("a", 500) && !ledger.contains("c", 0));
        assert_eq!(ledger.recorded(), 2);
    }

    #[test]
    fn a_huge_schedule_costs_only_what_is_recorded() {
        let names: Vec<String> = (0..1000).map(|i| format!("p{i}")).collect();
        let mut ledger = TaskLedger::new(&names, u64::from(u32::MAX));
        assert_eq!(ledger.accept("p999", u32::MAX - 1), Accepted::New);
        assert_eq!(ledger.accept("p999", u32::MAX - 1), Accepted::Again);
        assert_eq!(ledger.accept("p0", u32::MAX), Accepted::Unknown);
    }
}
