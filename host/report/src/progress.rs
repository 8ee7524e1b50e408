//! A live progress bar on a terminal (indicatif, on stderr): one bar per participant, or
//! one for the whole run in round mode, with tasks done out of all, the participant's
//! p50/p99 so far (latency, or response time in an open-model run, from [`LiveStats`]),
//! failures, dropped arrivals, each worker's share of the bar's tasks (a distributed run),
//! tasks/s and the time left. It replaces upstream's per-task lines only on a terminal;
//! logs and pipes get those lines unchanged.

use super::durations::duration;
use super::live::LiveStats;
use anyhow::Result;
use bench_model::events::{RunEvent, RunObserver};
use bench_model::metric::{LATENCY, RESPONSE_TIME};
use bench_model::text::escape_control;
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
    /// Arrivals dropped for want of a free sandbox (arrival-rate runs); they count as done.
    dropped: u64,
    /// Histograms of every participant's metrics so far.
    live: LiveStats,
    /// The participant of the current bar (participant mode).
    participant: Option<String>,
    /// The metric the bar shows: latency (`""`), or the response time once a task ran on
    /// an arrival schedule.
    headline: &'static str,
}

impl RunObserver for ProgressBars {
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        match event {
            RunEvent::ParticipantStarted { participant } => {
                self.clear();
                self.label = participant.to_owned();
                self.length = None;
                self.participant = Some(participant.to_owned());
            }
            RunEvent::RoundsStarted {
                participants,
                rounds,
            } => {
                self.clear();
                self.label = "rounds".into();
                self.length = Some((participants * rounds) as u64);
                self.participant = None;
            }
            RunEvent::TaskFinished {
                participant,
                finished,
                total,
            } => {
                let record = &finished.record;
                if !record.is_success() {
                    self.failed += 1;
                }
                if let Some(worker) = &finished.worker {
                    *self.workers.entry(worker.clone()).or_default() += 1;
                }
                if record.arrival.is_some() {
                    self.headline = RESPONSE_TIME;
                }
                self.live.add(participant, record);
                self.advance(total);
            }
            RunEvent::TaskDropped { participant, .. } => {
                self.dropped += 1;
                self.live.add_dropped(participant);
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
        // The position first: setting the message draws the bar.
        bar.inc(1);
        let mut message = String::new();
        let headline = if self.headline.is_empty() {
            LATENCY
        } else {
            self.headline
        };
        let live = (self.participant.as_deref())
            .and_then(|participant| self.live.line(participant, headline));
        if let Some(line) = live {
            let (p50, p99) = (duration(line.p50), duration(line.p99));
            message.push_str(&format!("p50 {p50} p99 {p99} "));
        }
        if self.failed > 0 {
            message.push_str(&format!("{} failed ", self.failed));
        }
        if self.dropped > 0 {
            message.push_str(&format!("{} dropped ", self.dropped));
        }
        let shared: u64 = self.workers.values().sum();
        for (worker, tasks) in &self.workers {
            let share = tasks * 100 / shared.max(1);
            message.push_str(&format!("{} {share}% ", escape_control(worker)));
        }
        bar.set_message(message);
        if bar.length() == Some(bar.position()) {
            // The last frame shows the full bar, whatever the draw rate allowed before.
            bar.force_draw();
        }
    }

    /// Takes the current bar off the terminal (before the summary, or a stopped run's end).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        self.failed = 0;
        self.workers.clear();
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
        .with_prefix(escape_control(label).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::events::Finished;
    use bench_model::record::{Status, TaskRecord};

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
        assert_eq!(bar.message(), "p50 1 ms p99 1 ms 2 failed ");
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
    fn an_open_run_shows_response_time_percentiles_and_drops() {
        let mut bars = ProgressBars::default();
        bars.observe(RunEvent::ParticipantStarted { participant: "a" })
            .unwrap();
        let mut late = finished(Status::Success);
        late.record.arrival = Some(bench_model::record::ArrivalTiming {
            intended_start_at: String::new(),
            start_lag_ms: 0.0,
            service_time_ms: 2.0,
            response_time_ms: 250.0,
        });
        bars.observe(RunEvent::TaskFinished {
            participant: "a",
            finished: &late,
            total: 10,
        })
        .unwrap();
        bars.observe(RunEvent::TaskDropped {
            participant: "a",
            index: 1,
        })
        .unwrap();
        let bar = bars.bar.clone().unwrap();
        assert_eq!(bar.message(), "p50 250 ms p99 250 ms 1 dropped ");
        assert_eq!(bar.position(), 2, "a dropped arrival is done too");
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
