//! Executors: they pull tasks from the schedule, honour concurrency and stagger, and hand each
//! finished task to a [`RunObserver`]. They never format output.

mod outcome;
mod pacing;
mod participant;
mod round;
mod slot;

pub use outcome::{build_record, TaskEnd, Timing};
pub use participant::run_participant;
pub use round::run_rounds;
pub use slot::{Finished, Slot, SlotConfig};

use crate::plan::Schedule;
use crate::record::TaskRecord;
use anyhow::Result;
use std::sync::Arc;

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
    /// The schedule every participant runs, shared by all slots.
    pub schedule: Arc<Schedule>,
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
    /// Writes out what is buffered; the executors call it at least every
    /// [`FLUSH_INTERVAL`] while tasks run, so nothing finished waits long in memory.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
}

/// How often the executors hand buffered output to disk and console while tasks run.
pub const FLUSH_INTERVAL: std::time::Duration = std::time::Duration::from_millis(20);

/// Two observers in turn: every event reaches the first, then the second (the results
/// writer before the platform, so a record is on disk before it is sent).
impl<A: RunObserver, B: RunObserver> RunObserver for (A, B) {
    fn participant_started(&mut self, participant: &str) {
        self.0.participant_started(participant);
        self.1.participant_started(participant);
    }

    fn task_finished(
        &mut self,
        participant: &str,
        finished: &Finished,
        total: usize,
    ) -> Result<()> {
        self.0.task_finished(participant, finished, total)?;
        self.1.task_finished(participant, finished, total)
    }

    fn participant_finished(&mut self, participant: &str, records: &[TaskRecord]) {
        self.0.participant_finished(participant, records);
        self.1.participant_finished(participant, records);
    }

    fn rounds_started(&mut self, participants: usize, rounds: usize) {
        self.0.rounds_started(participants, rounds);
        self.1.rounds_started(participants, rounds);
    }

    fn round_participant_finished(&mut self, participant: &str, failed: bool) {
        self.0.round_participant_finished(participant, failed);
        self.1.round_participant_finished(participant, failed);
    }

    fn flush(&mut self) -> Result<()> {
        self.0.flush()?;
        self.1.flush()
    }
}

/// An observer that may be absent (e.g. no platform configured).
impl<O: RunObserver> RunObserver for Option<O> {
    fn participant_started(&mut self, participant: &str) {
        if let Some(observer) = self {
            observer.participant_started(participant);
        }
    }

    fn task_finished(
        &mut self,
        participant: &str,
        finished: &Finished,
        total: usize,
    ) -> Result<()> {
        match self {
            Some(observer) => observer.task_finished(participant, finished, total),
            None => Ok(()),
        }
    }

    fn participant_finished(&mut self, participant: &str, records: &[TaskRecord]) {
        if let Some(observer) = self {
            observer.participant_finished(participant, records);
        }
    }

    fn rounds_started(&mut self, participants: usize, rounds: usize) {
        if let Some(observer) = self {
            observer.rounds_started(participants, rounds);
        }
    }

    fn round_participant_finished(&mut self, participant: &str, failed: bool) {
        if let Some(observer) = self {
            observer.round_participant_finished(participant, failed);
        }
    }

    fn flush(&mut self) -> Result<()> {
        match self {
            Some(observer) => observer.flush(),
            None => Ok(()),
        }
    }
}

/// The records of every participant, in config order.
pub type RunRecords = Vec<(String, Vec<TaskRecord>)>;
