//! A graceful stop of a run: the first request stops scheduling (no task starts after it,
//! running tasks go on), a later one interrupts the tasks still running (their records say
//! `interrupted`). Executors and slots share one [`RunStop`]; whoever owns the signals
//! (the command line) moves it forward.

use std::future::Future;
use std::sync::Arc;
use tokio::sync::watch;

/// How far the stop of a run has gone; it only moves forward.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    /// Tasks are being scheduled.
    #[default]
    Running,
    /// No new task starts; running tasks may finish.
    Draining,
    /// Running tasks are stopped now.
    Interrupting,
}

/// The shared stop switch of one run (cheap to clone; every clone is the same switch).
#[derive(Debug, Clone, Default)]
pub struct RunStop {
    stage: Arc<watch::Sender<Stage>>,
}

impl RunStop {
    /// Stops scheduling: no task starts after this.
    pub fn stop_scheduling(&self) {
        self.advance(Stage::Draining);
    }

    /// Interrupts the tasks still running (and stops scheduling, if not done yet).
    pub fn interrupt(&self) {
        self.advance(Stage::Interrupting);
    }

    /// Whether a stop was requested (the run is incomplete from then on).
    pub fn is_stopping(&self) -> bool {
        *self.stage.borrow() >= Stage::Draining
    }

    /// Resolves once a stop is requested.
    pub async fn stopping(&self) {
        self.reached(Stage::Draining).await;
    }

    /// Resolves once running tasks are to be interrupted.
    pub async fn interrupted(&self) {
        self.reached(Stage::Interrupting).await;
    }

    /// Awaits `work` unless a stop is (or gets) requested first: `None` then.
    pub async fn unless_stopped<F: Future>(&self, work: F) -> Option<F::Output> {
        tokio::select! {
            biased;
            () = self.stopping() => None,
            output = work => Some(output),
        }
    }

    fn advance(&self, to: Stage) {
        self.stage.send_if_modified(|stage| {
            let moved = *stage < to;
            *stage = (*stage).max(to);
            moved
        });
    }

    async fn reached(&self, stage: Stage) {
        let mut watching = self.stage.subscribe();
        // The sender lives as long as `self`: the wait ends only when the stage is reached.
        let _ = watching.wait_for(|current| *current >= stage).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn the_stop_moves_forward_only_and_wakes_its_waiters() {
        let stop = RunStop::default();
        assert!(!stop.is_stopping());
        let waiter = tokio::spawn({
            let stop = stop.clone();
            async move { stop.interrupted().await }
        });
        stop.stop_scheduling();
        assert!(stop.is_stopping());
        stop.stopping().await;
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert!(!waiter.is_finished(), "draining does not interrupt");
        stop.interrupt();
        waiter.await.unwrap();
        stop.stop_scheduling();
        stop.interrupted().await;
    }
}
