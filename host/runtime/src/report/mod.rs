//! Where a run's progress and results go: the console, the local results directory, the
//! summary (table, `summary.json`, exports) and the `--fail-under` gate.

pub mod console;
pub mod export;
pub mod finish;
pub mod gate;
pub mod origin;
pub mod participants;
pub mod results;
pub mod saved;
pub mod step_summary;
pub mod summary;
pub mod table;

use crate::exec::{Finished, RunObserver};
use crate::record::TaskRecord;
use anyhow::Result;
use console::Console;
use results::ResultsWriter;

/// Prints upstream console lines and writes every record and log line to the results
/// directory as tasks finish.
pub struct RunReporter {
    /// The console.
    pub console: Console,
    /// The results directory.
    pub results: ResultsWriter,
}

impl RunObserver for RunReporter {
    fn participant_started(&mut self, participant: &str) {
        self.console.participant_banner(participant);
    }

    fn task_finished(
        &mut self,
        participant: &str,
        finished: &Finished,
        total: usize,
    ) -> Result<()> {
        self.results.append(participant, finished)?;
        self.console.task_line(participant, &finished.record, total);
        Ok(())
    }

    fn participant_finished(&mut self, _participant: &str, records: &[TaskRecord]) {
        // A write error here shows again at the run's final flush.
        let _ = self.results.flush();
        self.console.participant_done(records);
    }

    fn rounds_started(&mut self, participants: usize, rounds: usize) {
        self.console.rounds_started(participants, rounds);
    }

    fn round_participant_finished(&mut self, participant: &str, failed: bool) {
        self.console.round_participant_done(participant, failed);
    }

    fn flush(&mut self) -> Result<()> {
        self.console.flush();
        self.results.flush()
    }
}
