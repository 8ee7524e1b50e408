//! Executors: they pull schedule slots, honour concurrency and stagger, and hand each
//! finished task to a [`RunObserver`]. They never format output.

mod outcome;
mod participant;
mod round;
mod slot;

pub use outcome::{build_record, Ending, Timing};
pub use participant::run_participant;
pub use round::run_rounds;
pub use slot::{Finished, Slot, SlotConfig};

use crate::plan::Slot as ScheduleSlot;
use crate::record::TaskRecord;
use anyhow::Result;

/// One participant ready to run: its name and what each of its slots needs.
#[derive(Clone)]
pub struct ParticipantRun {
    /// The participant's name.
    pub name: String,
    /// What every slot of this participant shares.
    pub slot: SlotConfig,
}

/// What the executors need besides the participants.
#[derive(Debug, Clone)]
pub struct ExecPlan {
    /// The schedule every participant runs.
    pub schedule: Vec<ScheduleSlot>,
    /// Tasks in flight per participant (participant mode) or per round (round mode).
    pub concurrency: u32,
    /// Ramp (participant mode) or gap between rounds (round mode), in milliseconds.
    pub stagger_delay_ms: f64,
}

/// Receives the progress of a run (console, results directory…).
pub trait RunObserver {
    /// A participant starts (participant mode).
    fn participant_started(&mut self, participant: &str);
    /// A task finished; `total` is the schedule length. An error aborts the run (e.g. the
    /// records file cannot be written).
    fn task_finished(&mut self, participant: &str, finished: &Finished, total: usize)
        -> Result<()>;
    /// A participant finished (participant mode) with these records.
    fn participant_finished(&mut self, participant: &str, records: &[TaskRecord]);
    /// Round mode starts.
    fn rounds_started(&mut self, participants: usize, rounds: usize);
    /// Round mode ended for a participant.
    fn round_participant_finished(&mut self, participant: &str, failed: bool);
}

/// The records of every participant, in config order.
pub type RunRecords = Vec<(String, Vec<TaskRecord>)>;
