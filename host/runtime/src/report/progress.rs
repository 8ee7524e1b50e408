//! A live progress bar on a terminal (indicatif, on stderr): one bar per participant, or
//! one for the whole run in round mode, with tasks done out of all, failures, tasks/s and
//! the time left; in a distributed run, also each worker's share of the bar's tasks. It
//! replaces upstream's per-task lines only on a terminal; logs and pipes get those lines
//! unchanged.

use crate::events::{RunEvent, RunObserver};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};
use std::collections::BTreeMap;

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
    /// Tasks of the bar each worker ran (a distributed run).
    workers: BTreeMap<String, u64>,
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
                let length = self.length.unwrap_or(total as u64);
                let label = &self.label;
                let bar = self.bar.get_or_insert_with(|| new_bar(label, length));
                let failed = !finished.record.is_success();
                self.failed += u64::from(failed);
                if let Some(worker) = &finished.worker {
                    *self.workers.entry(worker.clone()).or_default() += 1;
                }
                if failed || finished.worker.is_some() {
                    bar.set_message(message(self.failed, &self.workers));
                }
                bar.inc(1);
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
    /// Takes the current bar off the terminal (before the summary, or a stopped run's end).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.failed = 0;
        self.workers.clear();
    }
}

/// `2 failed w1 60% w2 40% `: the failures and each worker's share, when there are any.
fn message(failed: u64, workers: &BTreeMap<String, u64>) -> String {
    let mut text = String::new();
    if failed > 0 {
        text.push_str(&format!("{failed} failed "));
    }
    let total: u64 = workers.values().sum();
    for (worker, tasks) in workers {
        let share = tasks * 100 / total.max(1);
        text.push_str(&format!("{} {share}% ", super::console::escape(worker)));
    }
    text
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
            worker: None,
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
    fn a_distributed_run_s_bar_shows_each_worker_s_share() {
        let mut bars = ProgressBars::default();
        for (worker, status) in [
            ("w1", Status::Success),
            ("w2", Status::Error),
            ("w1", Status::Success),
        ] {
            let mut finished = finished(status);
            finished.worker = Some(worker.to_owned());
            bars.observe(RunEvent::TaskFinished {
                participant: "a",
                finished: &finished,
                total: 4,
            })
            .unwrap();
        }
        assert_eq!(
            bars.bar.clone().unwrap().message(),
            "1 failed w1 66% w2 33% "
        );
        bars.clear();
        assert!(bars.workers.is_empty());
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
