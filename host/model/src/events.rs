//! The observer seam: what a run reports while it executes. The executors send
//! [`RunEvent`]s to one [`RunObserver`]; [`Observers`] fans every event out to several in a
//! fixed order (the results writer before the platform, so a record is on disk before it is
//! sent).

use crate::record::TaskRecord;
use anyhow::Result;
use std::time::Duration;

/// How often the executors send [`RunEvent::Flush`] while tasks run, so nothing finished
/// waits long in memory.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(20);

/// A finished task: its record and the participant-log lines it produced.
#[derive(Debug)]
pub struct Finished {
    /// The task record.
    pub record: TaskRecord,
    /// Lines for the participant log.
    pub log: Vec<String>,
    /// The worker that ran it, in a distributed run (`None` on this machine); its record
    /// line in `records.ndjson` then ends with `"worker"`.
    pub worker: Option<String>,
}

/// Something that happened during a run, in the order it happened.
#[derive(Debug, Clone, Copy)]
pub enum RunEvent<'a> {
    /// Participant mode: a participant starts.
    ParticipantStarted {
        /// The participant's name.
        participant: &'a str,
    },
    /// A task finished.
    TaskFinished {
        /// The participant it ran for.
        participant: &'a str,
        /// Its record and log lines.
        finished: &'a Finished,
        /// The schedule length.
        total: usize,
    },
    /// An arrival-rate run: a task was due but no sandbox was free, so it did not start
    /// (k6's `dropped_iterations`).
    TaskDropped {
        /// The participant it was due for.
        participant: &'a str,
        /// Its index on the arrival schedule.
        index: u32,
    },
    /// Participant mode: a participant finished.
    ParticipantFinished {
        /// The participant's name.
        participant: &'a str,
        /// How many of its tasks finished.
        tasks: usize,
        /// How many of them succeeded.
        succeeded: usize,
    },
    /// Round mode starts.
    RoundsStarted {
        /// Participants in every round.
        participants: usize,
        /// Number of rounds (the schedule length).
        rounds: usize,
    },
    /// Round mode ended, for one participant.
    RoundParticipantFinished {
        /// The participant's name.
        participant: &'a str,
        /// Whether any of its tasks failed.
        failed: bool,
    },
    /// Write out what is buffered; sent at least every [`FLUSH_INTERVAL`] while tasks run.
    Flush,
}

/// Receives the events of a run (console, results directory, metrics, platform…).
pub trait RunObserver {
    /// Handles one event. An error aborts the run (e.g. the records file cannot be written).
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()>;
}

/// Several observers in turn: every event reaches each in the order they were added, and an
/// error stops the event there.
#[derive(Default)]
pub struct Observers<'a> {
    observers: Vec<&'a mut dyn RunObserver>,
}

impl<'a> Observers<'a> {
    /// Adds an observer after the ones already added.
    pub fn push(&mut self, observer: &'a mut dyn RunObserver) {
        self.observers.push(observer);
    }
}

impl RunObserver for Observers<'_> {
    fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
        self.observers
            .iter_mut()
            .try_for_each(|observer| observer.observe(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Tape {
        name: &'static str,
        seen: Vec<String>,
        fail_on_flush: bool,
    }

    impl RunObserver for Tape {
        fn observe(&mut self, event: RunEvent<'_>) -> Result<()> {
            self.seen.push(format!("{}:{event:?}", self.name));
            if self.fail_on_flush && matches!(event, RunEvent::Flush) {
                anyhow::bail!("{} cannot flush", self.name);
            }
            Ok(())
        }
    }

    #[test]
    fn every_event_reaches_each_observer_in_order() {
        let mut first = Tape {
            name: "first",
            ..Tape::default()
        };
        let mut second = Tape {
            name: "second",
            ..Tape::default()
        };
        let mut observers = Observers::default();
        observers.push(&mut first);
        observers.push(&mut second);
        observers
            .observe(RunEvent::ParticipantStarted { participant: "a" })
            .unwrap();
        observers.observe(RunEvent::Flush).unwrap();
        drop(observers);
        assert_eq!(
            first.seen,
            [
                r#"first:ParticipantStarted { participant: "a" }"#,
                "first:Flush"
            ]
        );
        assert_eq!(
            second.seen,
            [
                r#"second:ParticipantStarted { participant: "a" }"#,
                "second:Flush"
            ]
        );
    }

    #[test]
    fn an_error_stops_the_event_before_later_observers() {
        let mut results = Tape {
            name: "results",
            fail_on_flush: true,
            ..Tape::default()
        };
        let mut platform = Tape {
            name: "platform",
            ..Tape::default()
        };
        let mut observers = Observers::default();
        observers.push(&mut results);
        observers.push(&mut platform);
        let error = observers.observe(RunEvent::Flush).unwrap_err();
        drop(observers);
        assert_eq!(error.to_string(), "results cannot flush");
        assert_eq!(results.seen, ["results:Flush"]);
        assert!(platform.seen.is_empty());
    }
}
