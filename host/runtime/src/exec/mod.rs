//! Executors: they pull tasks from the schedule (upstream's iterations, per participant or
//! in rounds), run for a duration, or start tasks on an arrival schedule (the load models,
//! `docs/load-models.md`); they honour concurrency, stagger, warm-up and the stop switch, and
//! send each finished task to a [`RunObserver`](bench_model::events::RunObserver). They run tasks
//! through a [`TaskRunner`] (a sandbox in a run, a fake in unit tests) and never format
//! output; a slot spawned on its own runs on its home (a sandbox's slot thread, see
//! `slot_threads`). [`InstrumentFloor`] measures what they add around a task.

mod arrival_clock;
mod arrival_rate;
mod duration;
mod floor;
mod outcome;
mod pacing;
mod participant;
mod round;
mod runner;
mod slot;
mod slot_threads;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
mod unit;

pub use arrival_rate::run_arrivals;
pub use duration::run_for_duration;
pub use floor::{measure_floor, with_arrival_lag};
pub use participant::{run_participant, run_participant_shard};
pub use round::run_rounds;
pub use runner::{RoomCheck, SlotFactory, TaskRunner};
pub use slot::SlotConfig;
pub use unit::run_unit_in_new_slot;

use anyhow::Result;
use bench_model::events::{Finished, RunEvent, RunObserver};
use bench_model::plan::ExecPlan;
use bench_model::stop::RunStop;
use std::future::Future;
use tokio::runtime::Handle;
use tokio::task::JoinSet;

/// One participant ready to run: its name and how to open each of its concurrency slots.
#[derive(Clone)]
pub struct ParticipantRun<F> {
    /// The participant's name.
    pub name: String,
    /// Opens the participant's slots (one [`TaskRunner`] each).
    pub slots: F,
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

/// Spawns a slot's task loop into `set`: on the slot's own thread when it has one
/// ([`TaskRunner::home`]), else on the executor's runtime.
fn spawn_slot<T: Send + 'static>(
    set: &mut JoinSet<T>,
    home: Option<Handle>,
    work: impl Future<Output = T> + Send + 'static,
) {
    match home {
        Some(home) => drop(set.spawn_on(work, &home)),
        None => drop(set.spawn(work)),
    }
}
