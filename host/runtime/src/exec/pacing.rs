//! Pacing shared by the executors: the anchored stagger ramp and periodic flushing of the
//! observer while a task runs.

use anyhow::Result;
use bench_model::events::{RunEvent, RunObserver, FLUSH_INTERVAL};
use std::future::Future;
use std::sync::OnceLock;
use std::time::Duration;
use tokio::time::{Instant, Interval, MissedTickBehavior};

/// The participant-mode ramp: task `i` starts no earlier than `first start + i × stagger`.
#[derive(Debug, Default)]
pub(crate) struct Ramp {
    stagger_ms: f64,
    first_start: OnceLock<Instant>,
}

impl Ramp {
    /// A ramp of `stagger_ms` per schedule index (0 disables it).
    pub(super) fn new(stagger_ms: f64) -> Self {
        Self {
            stagger_ms,
            first_start: OnceLock::new(),
        }
    }

    /// Waits until schedule index `index` is due (the first caller fixes the anchor).
    pub(super) async fn wait(&self, index: usize) {
        if self.stagger_ms <= 0.0 {
            return;
        }
        let start = *self.first_start.get_or_init(Instant::now);
        let due = start + Duration::from_secs_f64(index as f64 * self.stagger_ms / 1000.0);
        tokio::time::sleep_until(due).await;
    }
}

/// A ticker firing every [`FLUSH_INTERVAL`].
pub(crate) fn flush_ticker() -> Interval {
    let mut ticker = tokio::time::interval(FLUSH_INTERVAL);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ticker
}

/// Awaits `work`, flushing the observer at every tick meanwhile.
pub(crate) async fn flushing_while<F: Future>(
    work: F,
    ticker: &mut Interval,
    observer: &mut dyn RunObserver,
) -> Result<F::Output> {
    tokio::pin!(work);
    loop {
        tokio::select! {
            biased;
            output = &mut work => return Ok(output),
            _ = ticker.tick() => observer.observe(RunEvent::Flush)?,
        }
    }
}
