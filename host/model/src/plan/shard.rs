//! Static shards (`--shard i/N`): a run split into `N` deterministic parts that run apart
//! (Kubernetes Indexed Jobs, CI matrices) and are merged afterwards (`bench merge`).
//!
//! The unit of a shard is a participant slot, dealt round-robin:
//! - groupBy `participant`: each participant has `S` slots (its concurrency, at most one per
//!   task); slot `s` runs the schedule indices `s, s + S, s + 2S, …`. The run's slots are
//!   numbered participant by participant (`g = participant × S + s`) and shard `i` runs the
//!   slots with `g mod N = i`. All shards together keep `S` tasks of a participant in
//!   flight, as a single run does.
//! - groupBy `round`: a participant is one slot; shard `i` runs every round of the
//!   participants with `participant mod N = i`.

use super::ExecPlan;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (`i/N` on the command line, `0 ≤ i < N`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
    pub index: u32,
    /// How many shards the run is split into.
    pub count: u32,
}

/// The most shards a run can be split into.
pub const MAX_SHARDS: u32 = 100_000;

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let usage =
            || format!("--shard expects i/N with 0 <= i < N <= {MAX_SHARDS} (got \"{text}\")");
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let number = |part: &str| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(usage());
            }
            part.parse::<u32>().map_err(|_| usage())
        };
        let (index, count) = (number(index)?, number(count)?);
        if count == 0 || count > MAX_SHARDS || index >= count {
            return Err(usage());
        }
        Ok(Self { index, count })
    }
}

impl Serialize for Shard {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Shard {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// One slot's share of a participant's schedule: indices `first, first + stride, …`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stride {
    /// The slot's first schedule index.
    pub first: usize,
    /// The participant's slot count.
    pub step: usize,
}

impl Stride {
    /// How many of the schedule's `total` indices the slot runs.
    pub fn len(&self, total: usize) -> usize {
        if self.first >= total {
            0
        } else {
            (total - self.first).div_ceil(self.step)
        }
    }
}

impl Shard {
    /// The slots of participant number `participant` this shard runs in participant mode
    /// (empty when it runs none of them).
    pub fn strides(&self, participant: usize, plan: &ExecPlan) -> Vec<Stride> {
        let step = plan.slot_count();
        let count = self.count as usize;
        (0..step)
            .filter(|slot| (participant * step + slot) % count == self.index as usize)
            .map(|first| Stride { first, step })
            .filter(|stride| stride.len(plan.schedule.len()) > 0)
            .collect()
    }

    /// Whether this shard runs participant number `participant` in round mode.
    pub fn runs_rounds_of(&self, participant: usize) -> bool {
        participant % self.count as usize == self.index as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plan as plan;

    fn shard(text: &str) -> Shard {
        text.parse().unwrap()
    }

    /// Every (participant, index) the shards of `count` run, in participant mode.
    fn dealt(count: u32, participants: usize, plan: &ExecPlan) -> Vec<Vec<(usize, usize)>> {
        (0..count)
            .map(|index| {
                let shard = Shard { index, count };
                let mut tasks = Vec::new();
                for participant in 0..participants {
                    for stride in shard.strides(participant, plan) {
                        let total = plan.schedule.len();
                        let indices = (stride.first..total).step_by(stride.step);
                        assert_eq!(indices.len(), stride.len(total));
                        tasks.extend(indices.map(|index| (participant, index)));
                    }
                }
                tasks
            })
            .collect()
    }

    #[test]
    fn shards_parse_from_i_slash_n_and_print_back() {
        assert_eq!(shard("0/3"), Shard { index: 0, count: 3 });
        assert_eq!(shard("2/3").to_string(), "2/3");
        let json = serde_json::to_string(&shard("1/4")).unwrap();
        assert_eq!(json, r#""1/4""#);
        assert_eq!(serde_json::from_str::<Shard>(&json).unwrap(), shard("1/4"));
        assert!(serde_json::from_str::<Shard>(r#""4/4""#).is_err());
        for bad in [
            "3/3", "0/0", "-1/3", "1", "a/3", "1/", "/3", "1/3/4", "+1/3", "0/100001",
        ] {
            let error = bad.parse::<Shard>().unwrap_err();
            assert!(error.contains(&format!("(got \"{bad}\")")), "{error}");
        }
    }

    #[test]
    fn the_shards_of_a_run_hold_every_task_exactly_once() {
        for (tasks, concurrency, participants, count) in [
            (10, 3, 2, 3),
            (7, 1, 3, 2),
            (5, 8, 1, 4),
            (100, 4, 5, 7),
            (3, 2, 1, 1),
        ] {
            let plan = plan(tasks, concurrency, 0.0);
            let mut all: Vec<(usize, usize)> = dealt(count, participants, &plan)
                .into_iter()
                .flatten()
                .collect();
            all.sort_unstable();
            let expected: Vec<(usize, usize)> = (0..participants)
                .flat_map(|p| (0..tasks).map(move |i| (p, i)))
                .collect();
            assert_eq!(all, expected, "{tasks} tasks, concurrency {concurrency}");
        }
    }

    #[test]
    fn slots_are_dealt_round_robin_across_participants() {
        // Two participants of 3 slots: global slots 0..6, shard i takes g mod 2 = i.
        let plan = plan(6, 3, 0.0);
        let shard = Shard { index: 1, count: 2 };
        let firsts =
            |p| -> Vec<usize> { shard.strides(p, &plan).iter().map(|s| s.first).collect() };
        assert_eq!(firsts(0), [1]);
        assert_eq!(firsts(1), [0, 2]);
        assert_eq!(shard.strides(0, &plan)[0], Stride { first: 1, step: 3 });
        assert!(Shard { index: 1, count: 2 }.runs_rounds_of(3));
        assert!(!Shard { index: 1, count: 2 }.runs_rounds_of(2));
    }
}
