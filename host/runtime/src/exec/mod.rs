//! Executors: they pull tasks from the schedule, honour concurrency and stagger, and send
//! each finished task to a [`RunObserver`](crate::events::RunObserver). They run tasks through
//! a [`TaskRunner`] (a sandbox in a run, a fake in unit tests) and never format output.

mod outcome;
mod pacing;
mod participant;
mod round;
mod runner;
mod slot;
#[cfg(test)]
mod test_support;

pub use participant::run_participant;
pub use round::run_rounds;
pub use runner::{SlotFactory, TaskRunner};
pub use slot::SlotConfig;

use crate::events::{Finished, RunEvent, RunObserver};
use crate::plan::Schedule;
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
