//! A live progress bar on a terminal (indicatif, on stderr): one bar per participant, or
//! one for the whole run in round mode, with tasks done out of all, failures, tasks/s and
//! the time left. It replaces upstream's per-task lines only on a terminal; logs and pipes
//! get those lines unchanged.

use crate::events::{RunEvent, RunObserver};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// The bar's layout.
const TEMPLATE: &str =
    "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} {msg}{rate} tasks/s ETA {eta}";

/// Draws the progress of a run. Placed before the console among the observers, so a bar is
/// cleared before the console prints the line that ends its participant.
#[derive(Debug, Default)]
pub struct ProgressBars {
    bar: Option<ProgressBar>,
    /// The next bar's label and length (known once its first task finishes in participant
    /// mode, at the start in round mode).
    label: String,
    length: Option<u64>,
    failed: u64,
    /// Arrivals dropped for want of a free sandbox (arrival-rate runs); they count as done.
    dropped: u64,
}

impl RunObserver for ProgressBars {
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        match event {
            RunEvent::ParticipantStarted { participant } => {
                self.clear();
                self.label = participant.to_owned();
                self.length = None;
            }
            RunEvent::RoundsStarted {
                participants,
                rounds,
            } => {
                self.clear();
                self.label = "rounds".into();
                self.length = Some((participants * rounds) as u64);
            }
            RunEvent::TaskFinished {
                finished, total, ..
            } => {
                if !finished.record.is_success() {
                    self.failed += 1;
                }
                self.advance(total);
            }
            RunEvent::TaskDropped { .. } => {
                self.dropped += 1;
                self.advance(0);
            }
            RunEvent::ParticipantFinished { .. } | RunEvent::RoundParticipantFinished { .. } => {
                self.clear();
            }
            RunEvent::Flush => {}
        }
        Ok(())
    }
}

impl ProgressBars {
    /// Moves the bar one task on (creating it with `total` tasks, unless known), with the
    /// failures and drops so far.
    fn advance(&mut self, total: usize) {
        let length = self.length.unwrap_or(total as u64);
        let label = &self.label;
        let bar = self.bar.get_or_insert_with(|| new_bar(label, length));
        let mut message = String::new();
        if self.failed > 0 {
            message.push_str(&format!("{} failed ", self.failed));
        }
        if self.dropped > 0 {
            message.push_str(&format!("{} dropped ", self.dropped));
        }
        bar.set_message(message);
        bar.inc(1);
    }

    /// Takes the current bar off the terminal (before the summary, or a stopped run's end).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.failed = 0;
        self.dropped = 0;
    }
}

fn new_bar(label: &str, length: u64) -> ProgressBar {
    let style = ProgressStyle::with_template(TEMPLATE)
        .expect("the bar template is valid")
        .with_key(
            "rate",
            |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{:.1}", state.per_sec());
            },
        )
        .progress_chars("=> ");
    ProgressBar::new(length)
        .with_style(style)
        .with_prefix(super::console::escape(label).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Finished;
    use crate::record::{Status, TaskRecord};

    fn finished(status: Status) -> Finished {
        Finished {
            record: TaskRecord::bare(0, status, 1.0),
            log: vec![],
        }
    }

    #[test]
    fn a_bar_counts_a_participant_s_tasks_and_failures_and_goes_at_its_end() {
        let mut bars = ProgressBars::default();
        bars.observe(RunEvent::ParticipantStarted { participant: "a" })
            .unwrap();
        assert!(bars.bar.is_none(), "drawn from the first finished task");
        for status in [Status::Success, Status::Error, Status::Error] {
            let finished = finished(status);
            bars.observe(RunEvent::TaskFinished {
                participant: "a",
                finished: &finished,
                total: 10,
            })
            .unwrap();
        }
        let bar = bars.bar.clone().unwrap();
        assert_eq!((bar.position(), bar.length()), (3, Some(10)));
        assert_eq!(bar.message(), "2 failed ");
        assert_eq!(bar.prefix(), "a");
        bars.observe(RunEvent::ParticipantFinished {
            participant: "a",
            tasks: 3,
            succeeded: 1,
        })
        .unwrap();
        assert!(bars.bar.is_none() && bar.is_finished());
    }

    #[test]
    fn round_mode_has_one_bar_for_every_task_of_the_run() {
        let mut bars = ProgressBars::default();
        bars.observe(RunEvent::RoundsStarted {
            participants: 3,
            rounds: 4,
        })
        .unwrap();
        let finished = finished(Status::Success);
        bars.observe(RunEvent::TaskFinished {
            participant: "b",
            finished: &finished,
            total: 4,
        })
        .unwrap();
        let bar = bars.bar.clone().unwrap();
        assert_eq!((bar.position(), bar.length()), (1, Some(12)));
        assert_eq!(bar.prefix(), "rounds");
    }
}
