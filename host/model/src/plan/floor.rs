//! The instrument's floor of a run (`run.json`'s `instrumentFloor`): how fine this machine's
//! clock is, what reading it costs, and what bench itself adds around an empty step and an
//! empty task; for an open model also how late the arrival clock wakes from a sleep to a
//! deadline. A median within [`FLOOR_FACTOR`]× of the floor is mostly bench, not the workload;
//! the summary says so ([`InstrumentFloor::warnings`]). The runtime measures it.

use crate::js;
use serde::{Deserialize, Serialize};

/// A median below this many times the floor draws a warning.
pub const FLOOR_FACTOR: f64 = 10.0;

/// What bench costs on this machine, in nanoseconds (`run.json`'s `instrumentFloor`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstrumentFloor {
    /// The smallest step the monotonic clock was seen to take.
    pub clock_resolution_ns: f64,
    /// What one clock reading costs.
    pub clock_read_ns: f64,
    /// The host's bookkeeping of one empty step (start and end).
    pub empty_step_ns: f64,
    /// What bench adds around a task that does nothing: recorder, timestamps, record, JSON.
    pub empty_task_ns: f64,
    /// Open models: the median lateness of the arrival clock's wake-up from a sleep to a
    /// deadline, the floor of the records' `startLagMs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrival_lag_ns: Option<f64>,
}

impl InstrumentFloor {
    /// The smallest task latency bench can tell from its own cost, in milliseconds.
    pub fn task_floor_ms(&self) -> f64 {
        self.empty_task_ns.max(self.clock_resolution_ns) / 1e6
    }

    /// The smallest step latency bench can tell from its own cost, in milliseconds.
    pub fn step_floor_ms(&self) -> f64 {
        self.empty_step_ns.max(self.clock_resolution_ns) / 1e6
    }

    /// A warning for each `(participant, metric, median ms, task-level)` whose median is
    /// within [`FLOOR_FACTOR`]× of the floor (the task floor for task-level metrics, the
    /// step floor for the others).
    pub fn warnings<'a>(
        &self,
        medians: impl IntoIterator<Item = (&'a str, &'a str, f64, bool)>,
    ) -> Vec<String> {
        medians
            .into_iter()
            .filter_map(|(participant, metric, median, task_level)| {
                let floor = if task_level {
                    self.task_floor_ms()
                } else {
                    self.step_floor_ms()
                };
                (median < FLOOR_FACTOR * floor).then(|| {
                    format!(
                        "Warning: {participant} {metric} median {} ms is within {}× of bench's own floor ({} ms on this machine): the number is mostly bench, not the workload",
                        js::number_to_string(median),
                        js::number_to_string(FLOOR_FACTOR),
                        js::number_to_string((floor * 1e6).round() / 1e6),
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_near_the_floor_are_flagged() {
        let floor = InstrumentFloor {
            clock_resolution_ns: 50.0,
            clock_read_ns: 20.0,
            empty_step_ns: 300.0,
            empty_task_ns: 20_000.0,
            arrival_lag_ns: None,
        };
        assert_eq!(floor.task_floor_ms(), 0.02);
        let warnings = floor.warnings([
            ("a", "latencyMs", 0.1, true),
            ("a", "create.ms", 0.1, false),
            ("b", "latencyMs", 0.2, true),
        ]);
        assert_eq!(
            warnings,
            ["Warning: a latencyMs median 0.1 ms is within 10× of bench's own floor (0.02 ms on this machine): the number is mostly bench, not the workload"]
        );
    }
}
