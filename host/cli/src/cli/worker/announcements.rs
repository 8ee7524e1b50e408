//! What a worker does with each announcement it reads: serve a new run, pass a new
//! revision to a run it serves, remember a run that is over, or ignore what it has seen
//! already; and which refusals it has sent already.

use std::collections::{BTreeMap, HashSet};

/// How many finished runs a worker remembers (an old announcement of one is ignored).
const FINISHED_RUNS_KEPT: usize = 10_000;

/// How many refusals a worker remembers, so an announcement seen again is not refused to
/// the coordinator again.
const REFUSALS_KEPT: usize = 1_000;

/// Where a run this worker serves is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RunPhase {
    /// The announcement's revision (a resumed coordinator announces a higher one).
    pub revision: u64,
    /// The run is over.
    pub done: bool,
}

/// What an announcement asks of the worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Nothing: it was seen already, or its run is finished here.
    Ignore,
    /// A newer revision of a run served here (over when its phase is done).
    Update,
    /// The run is over before it was served here: remember it.
    Finish,
    /// A run to serve.
    Serve,
}

/// The step for an announcement of a run at `phase`, given the revision that finished it
/// here (if it did) and where it stands if it is served here.
pub(super) fn step(finished: Option<u64>, serving: Option<RunPhase>, phase: RunPhase) -> Step {
    if finished.is_some_and(|done| done >= phase.revision) {
        return Step::Ignore;
    }
    match serving {
        Some(serving) if serving.revision >= phase.revision => Step::Ignore,
        Some(_) => Step::Update,
        None if phase.done => Step::Finish,
        None => Step::Serve,
    }
}

/// The runs finished here, by id, with the revision that finished them; the oldest are
/// forgotten past [`FINISHED_RUNS_KEPT`] (run ids sort by start).
#[derive(Debug, Default)]
pub(super) struct FinishedRuns(BTreeMap<String, u64>);

impl FinishedRuns {
    /// The revision that finished `run`, if it finished here.
    pub(super) fn get(&self, run: &str) -> Option<u64> {
        self.0.get(run).copied()
    }

    /// Remembers that `revision` finished `run`.
    pub(super) fn insert(&mut self, run: String, revision: u64) {
        self.0.insert(run, revision);
        while self.0.len() > FINISHED_RUNS_KEPT {
            self.0.pop_first();
        }
    }
}

/// The (run, reason) of the refusals sent, at most [`REFUSALS_KEPT`] of them.
#[derive(Debug, Default)]
pub(super) struct Refusals(HashSet<(String, String)>);

impl Refusals {
    /// Whether refusing `run` for `reason` is new (and remembers it).
    pub(super) fn first(&mut self, run: &str, reason: &str) -> bool {
        if self.0.len() >= REFUSALS_KEPT {
            self.0.clear();
        }
        self.0.insert((run.to_owned(), reason.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(revision: u64, done: bool) -> RunPhase {
        RunPhase { revision, done }
    }

    #[test]
    fn an_announcement_is_acted_on_once_per_revision() {
        assert_eq!(step(None, None, phase(1, false)), Step::Serve);
        assert_eq!(step(None, None, phase(1, true)), Step::Finish);
        let served = Some(phase(2, false));
        assert_eq!(step(None, served, phase(2, false)), Step::Ignore, "seen");
        assert_eq!(step(None, served, phase(1, true)), Step::Ignore, "older");
        assert_eq!(step(None, served, phase(3, false)), Step::Update, "resumed");
        assert_eq!(step(None, served, phase(3, true)), Step::Update, "over");
        assert_eq!(
            step(Some(3), None, phase(3, false)),
            Step::Ignore,
            "finished here"
        );
        assert_eq!(
            step(Some(3), None, phase(4, false)),
            Step::Serve,
            "resumed after"
        );
    }

    #[test]
    fn the_oldest_finished_runs_are_forgotten() {
        let mut finished = FinishedRuns::default();
        for n in 0..=FINISHED_RUNS_KEPT {
            finished.insert(format!("run-{n:06}"), 1);
        }
        assert_eq!(finished.get("run-000000"), None);
        assert_eq!(finished.get("run-000001"), Some(1));
        assert_eq!(
            finished.get(&format!("run-{FINISHED_RUNS_KEPT:06}")),
            Some(1)
        );
    }

    #[test]
    fn a_refusal_is_sent_once_per_run_and_reason() {
        let mut refusals = Refusals::default();
        assert!(refusals.first("r1", "untrusted key"));
        assert!(!refusals.first("r1", "untrusted key"));
        assert!(refusals.first("r1", "no component"));
        assert!(refusals.first("r2", "untrusted key"));
        for n in 0..REFUSALS_KEPT {
            refusals.first(&format!("other-{n}"), "x");
        }
        assert!(
            refusals.first("r1", "untrusted key"),
            "forgotten past the bound"
        );
    }
}
