//! Work units: one participant slot's run of schedule indices (`first, first + step, …`,
//! `count` of them), so that a participant's concurrency is the number of its units in
//! flight across all workers, as it is the number of its slots on one machine.

use crate::config::GroupBy;
use crate::plan::ExecPlan;
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// One slot's run of one participant's task indices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkUnit {
    /// The participant's name.
    pub participant: String,
    /// The first schedule index.
    pub first: u32,
    /// The distance between consecutive indices (at least 1).
    pub step: u32,
    /// How many indices.
    pub count: u32,
    /// The stagger ramp's anchor (Unix milliseconds): task `i` starts no earlier than
    /// `anchor + i × staggerDelayMs`; `None` without a ramp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_anchor_ms: Option<u64>,
}

impl WorkUnit {
    /// The unit's schedule indices, in order.
    pub fn indices(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.count).map(|n| self.first + n * self.step.max(1))
    }

    /// A name of the unit unique within its run: `<participant>/<first>/<step>`.
    pub fn key(&self) -> String {
        format!("{}/{}/{}", self.participant, self.first, self.step)
    }
}

/// A participant's units in participant mode: one per slot (its concurrency, at most one
/// per task), slot `s` running indices `s, s + S, …`; anchored at `anchor` when the plan
/// staggers.
pub fn participant_units(name: &str, plan: &ExecPlan, anchor: SystemTime) -> Vec<WorkUnit> {
    let total = plan.schedule.len() as u32;
    let slots = plan.slot_count() as u32;
    (0..slots.min(total))
        .map(|first| WorkUnit {
            participant: name.to_owned(),
            first,
            step: slots,
            count: (total - first).div_ceil(slots),
            ramp_anchor_ms: (plan.stagger_delay_ms > 0.0).then(|| unix_ms(anchor)),
        })
        .collect()
}

/// Round `round`'s units in round mode: task `round` of every participant, in order.
pub fn round_units(round: u32, participants: &[String]) -> Vec<WorkUnit> {
    participants
        .iter()
        .map(|name| WorkUnit {
            participant: name.clone(),
            first: round,
            step: 1,
            count: 1,
            ramp_anchor_ms: None,
        })
        .collect()
}

/// Every unit a run hands out ([`participant_units`] or [`round_units`]), to tell a unit a
/// worker names from one the run never had.
#[derive(Debug, Clone)]
pub struct RunUnits {
    participants: Vec<String>,
    tasks: u32,
    slots: u32,
    group_by: GroupBy,
}

impl RunUnits {
    /// The units of `participants` running `plan` grouped by `group_by`.
    pub fn new(participants: &[String], plan: &ExecPlan, group_by: GroupBy) -> Self {
        Self {
            participants: participants.to_vec(),
            tasks: plan.schedule.len() as u32,
            slots: plan.slot_count() as u32,
            group_by,
        }
    }

    /// Whether `unit` is one of the run's (its ramp anchor aside).
    pub fn holds(&self, unit: &WorkUnit) -> bool {
        if !self.participants.contains(&unit.participant) || unit.first >= self.tasks {
            return false;
        }
        match self.group_by {
            GroupBy::Participant => {
                unit.step == self.slots
                    && unit.first < self.slots
                    && unit.count == (self.tasks - unit.first).div_ceil(self.slots)
            }
            GroupBy::Round => unit.step == 1 && unit.count == 1,
        }
    }
}

/// `at` after the Unix epoch.
pub fn since_epoch(at: SystemTime) -> Duration {
    at.duration_since(UNIX_EPOCH).unwrap_or_default()
}

fn unix_ms(at: SystemTime) -> u64 {
    since_epoch(at).as_millis() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plan as plan;

    #[test]
    fn a_participant_s_units_are_its_slots_strides_covering_the_schedule_once() {
        let ten = plan(10, 3, 0.0);
        let units = participant_units("a", &ten, UNIX_EPOCH);
        let strides: Vec<Vec<u32>> = units.iter().map(|u| u.indices().collect()).collect();
        assert_eq!(strides, [vec![0, 3, 6, 9], vec![1, 4, 7], vec![2, 5, 8]]);
        assert_eq!(units[1].key(), "a/1/3");
        assert!(units.iter().all(|unit| unit.ramp_anchor_ms.is_none()));
        // Fewer tasks than concurrency: one unit per task.
        assert_eq!(
            participant_units("a", &plan(2, 8, 0.0), UNIX_EPOCH).len(),
            2
        );
        let staggered = participant_units("a", &plan(2, 1, 5.0), UNIX_EPOCH);
        assert_eq!(staggered[0].ramp_anchor_ms, Some(0));
        let json = serde_json::to_string(&units[0]).unwrap();
        assert_eq!(json, r#"{"participant":"a","first":0,"step":3,"count":4}"#);
        assert_eq!(serde_json::from_str::<WorkUnit>(&json).unwrap(), units[0]);
    }

    #[test]
    fn the_run_s_units_are_told_from_others() {
        let names = ["a".to_owned(), "b".to_owned()];
        let ten = plan(10, 3, 0.0);
        let units = RunUnits::new(&names, &ten, GroupBy::Participant);
        for unit in participant_units("b", &ten, UNIX_EPOCH) {
            assert!(units.holds(&unit), "{unit:?}");
        }
        let slot = participant_units("a", &ten, UNIX_EPOCH).remove(1);
        for other in [
            WorkUnit {
                participant: "c".into(),
                ..slot.clone()
            },
            WorkUnit {
                count: 4,
                ..slot.clone()
            },
            WorkUnit {
                step: 2,
                ..slot.clone()
            },
            WorkUnit {
                first: 3,
                ..slot.clone()
            },
            WorkUnit {
                first: 10,
                ..slot.clone()
            },
        ] {
            assert!(!units.holds(&other), "{other:?}");
        }
        let rounds = RunUnits::new(&names, &ten, GroupBy::Round);
        assert!(rounds.holds(&round_units(9, &names)[1]));
        assert!(!rounds.holds(&round_units(10, &names)[0]));
        assert!(!rounds.holds(&slot));
    }

    #[test]
    fn a_round_holds_one_task_of_every_participant() {
        let units = round_units(4, &["a".to_owned(), "b".to_owned()]);
        let tasks: Vec<(&str, Vec<u32>)> = units
            .iter()
            .map(|u| (u.participant.as_str(), u.indices().collect()))
            .collect();
        assert_eq!(tasks, [("a", vec![4]), ("b", vec![4])]);
    }
}
