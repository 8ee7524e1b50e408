//! Exactly once: which (participant, taskIndex) pairs of a run are recorded, one bit per
//! task of the schedule. A task recorded again (a unit redelivered after its worker died
//! re-runs tasks that were already recorded) is dropped; a task the run does not have is
//! refused.

use std::collections::HashMap;

/// The recorded tasks of a run.
#[derive(Debug)]
pub struct TaskLedger {
    bits: HashMap<String, Vec<u64>>,
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
        let words = tasks_per_participant.div_ceil(64) as usize;
        let bits = participants
            .iter()
            .map(|name| (name.clone(), vec![0; words]))
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
        let (word, bit) = (index as usize / 64, 1u64 << (index % 64));
        if bits[word] & bit != 0 {
            return Accepted::Again;
        }
        bits[word] |= bit;
        self.recorded += 1;
        Accepted::New
    }

    /// Whether task `index` of `participant` is recorded.
    pub fn contains(&self, participant: &str, index: u32) -> bool {
        self.bits.get(participant).is_some_and(|bits| {
            bits.get(index as usize / 64)
                .is_some_and(|word| word & (1u64 << (index % 64)) != 0)
        })
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
}
