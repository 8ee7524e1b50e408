//! `bench-report`: where a run's progress and results go: the console, the local results
//! directory, scores (`scoring`, pure), the summary (table, `summary.json`, exports), the run
//! page, the gates (`--fail-under`, failed tasks), system metrics (`metrics`) and saved runs
//! compared (`compare`). It reads what `bench-model` defines and knows no engine.

pub mod compare;
pub mod console;
pub mod disk_budget;
mod durations;
pub mod export;
pub mod failures;
pub mod files;
pub mod finish;
pub mod gate;
mod git_head;
mod guest_cpu;
pub mod input;
mod latency;
mod live;
pub mod load;
pub mod merge;
pub mod metrics;
pub mod origin;
pub mod page;
pub mod participants;
pub mod paths;
pub mod planned;
pub mod progress;
pub mod results;
pub mod saved;
pub mod scoring;
pub(crate) mod step_summary;
pub mod summary;
pub mod summary_document;
pub mod table;
pub mod tally;
mod timing;
mod unopened;

use anyhow::Result;
use bench_model::events::{RunEvent, RunObserver};
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
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        match event {
            RunEvent::ParticipantStarted { participant } => {
                self.console.participant_banner(participant);
            }
            RunEvent::TaskFinished {
                participant,
                finished,
                total,
            } => {
                self.results.append(participant, finished)?;
                self.console.task_line(participant, &finished.record, total);
            }
            RunEvent::ParticipantFinished {
                tasks, succeeded, ..
            } => {
                // A write error here shows again at the run's final flush.
                let _ = self.results.flush();
                self.console.participant_done(tasks, succeeded);
            }
            RunEvent::RoundsStarted {
                participants,
                rounds,
            } => self.console.rounds_started(participants, rounds),
            RunEvent::RoundParticipantFinished {
                participant,
                failed,
            } => self.console.round_participant_done(participant, failed),
            // Counted by the tally; a line per dropped task would drown the console.
            RunEvent::TaskDropped { .. } => {}
            RunEvent::Flush => {
                self.console.flush();
                self.results.flush()?;
            }
        }
        Ok(())
    }
}
