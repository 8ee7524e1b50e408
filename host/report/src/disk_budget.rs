//! The run's disk budget: the bytes of records, participant logs and metrics it writes
//! together. The write that reaches it stops the run (no task starts, running ones are
//! interrupted): the records of the tasks still in flight are written (each is bounded, and
//! they are few), participant log lines after it are not, and the run ends as usual, its
//! summary written.

use bench_model::stop::RunStop;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Exit code of a run a budget stopped.
pub const BUDGET_EXIT: u8 = 3;

/// The disk budget of one run, shared by its writers.
#[derive(Debug)]
pub struct DiskBudget {
    limit: Option<u64>,
    used: AtomicU64,
    reached: AtomicBool,
    stop: RunStop,
}

impl DiskBudget {
    /// A budget of `limit` bytes (`None`: unlimited) that stops `stop`'s run when reached.
    pub fn new(limit: Option<u64>, stop: RunStop) -> Arc<Self> {
        Arc::new(Self {
            limit,
            used: AtomicU64::new(0),
            reached: AtomicBool::new(false),
            stop,
        })
    }

    /// A budget that is never reached.
    pub fn unlimited() -> Arc<Self> {
        Self::new(None, RunStop::default())
    }

    /// Counts `bytes` written (whatever the budget: a record is always written whole); the
    /// first count that reaches the budget stops the run.
    pub(crate) fn charge(&self, bytes: u64) {
        let used = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if self.limit.is_some_and(|limit| used >= limit) {
            self.reach();
        }
    }

    /// Counts `bytes` that may be left out: they are written only while they fit, and the
    /// first that do not stop the run.
    pub(crate) fn admit(&self, bytes: u64) -> bool {
        let fits = !self.reached.load(Ordering::Relaxed)
            && self
                .limit
                .is_none_or(|limit| self.used.load(Ordering::Relaxed) + bytes < limit);
        if fits {
            self.used.fetch_add(bytes, Ordering::Relaxed);
        } else {
            self.reach();
        }
        fits
    }

    fn reach(&self) {
        if !self.reached.swap(true, Ordering::Relaxed) {
            self.stop.interrupt();
        }
    }

    /// The budget, once the run reached it.
    pub fn reached(&self) -> Option<u64> {
        self.limit.filter(|_| self.reached.load(Ordering::Relaxed))
    }

    /// The bytes written so far.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaching_the_budget_stops_the_run_once() {
        let stop = RunStop::default();
        let budget = DiskBudget::new(Some(100), stop.clone());
        budget.charge(60);
        assert!(budget.admit(39));
        assert_eq!(budget.reached(), None);
        assert!(!stop.is_stopping());
        assert!(!budget.admit(1), "what does not fit is left out");
        assert_eq!(budget.reached(), Some(100));
        assert!(stop.is_stopping());
        budget.charge(10);
        assert_eq!(budget.used(), 109, "records are still counted");
        let records = DiskBudget::new(Some(100), RunStop::default());
        records.charge(100);
        assert_eq!(records.reached(), Some(100));
        let unlimited = DiskBudget::unlimited();
        unlimited.charge(u64::MAX / 2);
        assert!(unlimited.admit(1) && unlimited.reached().is_none());
    }
}
