//! The seam between the executors and whatever runs a task: the executors decide which task
//! runs when; a [`TaskRunner`] runs it. In a run that is a [`SandboxSlot`](super::SandboxSlot);
//! in unit tests a fake that finishes after a chosen delay.

use bench_model::events::Finished;
use std::future::Future;
use std::sync::Arc;
use tokio::runtime::Handle;

/// How many more sandboxes the run's memory has room for, each of the size the largest one
/// came to (`usize::MAX` before the first was opened: nothing says yet what one takes).
pub type RoomCheck = Arc<dyn Fn() -> usize + Send + Sync>;

/// Runs the tasks of one concurrency slot, one after another.
pub trait TaskRunner: Send + 'static {
    /// Runs task `index` of the schedule (in `phase`, when the schedule has phases) and
    /// builds its record. Never fails: whatever goes wrong becomes a failed record.
    fn run(&mut self, index: u32, phase: Option<&str>) -> impl Future<Output = Finished> + Send;

    /// Whether the last task found no sandbox: the slot could not open one for it (its
    /// instance could not be created, e.g. past the run's host memory budget).
    fn could_not_open(&self) -> bool {
        false
    }

    /// The runtime this slot's task loop runs on when it has one of its own (a sandbox's
    /// slot thread); `None`: the executor's.
    fn home(&self) -> Option<Handle> {
        None
    }
}

/// Opens the concurrency slots of one participant.
pub trait SlotFactory {
    /// What runs the tasks of one slot.
    type Runner: TaskRunner;

    /// A new slot, sharing nothing with the participant's other slots.
    fn open_slot(&self) -> Self::Runner;

    /// How the open model asks how many more sandboxes the run's memory has room for (to
    /// open one, or to close an idle one when there is no room left); `None`: no bound to
    /// ask about.
    fn room_check(&self) -> Option<RoomCheck> {
        None
    }

    /// The runtimes the participant's open-model work spreads over, one arrival-rate pacer
    /// and its lanes on each (the slot threads, in a run); none: the executor's own.
    fn homes(&self) -> Vec<Handle> {
        Vec::new()
    }
}
