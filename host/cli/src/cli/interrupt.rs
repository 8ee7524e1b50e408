//! Ctrl-C (SIGINT) and SIGTERM during `bench run`: the first stops scheduling and gives the
//! running tasks a grace period, then interrupts them; the run then ends as usual (records,
//! summary, exports, `Results:` line) with exit 130. Another signal ends bench at once.

use bench_model::stop::RunStop;
use std::time::Duration;
use tokio::signal::unix::{signal, Signal, SignalKind};

/// Exit code of a run stopped by a signal: 128 + SIGINT, as shells report an interrupt.
pub(super) const INTERRUPTED_EXIT: u8 = 130;

/// How long running tasks may go on after the first signal (`--stop-grace`).
pub(super) const DEFAULT_STOP_GRACE: Duration = Duration::from_secs(5);

/// SIGINT and SIGTERM, as one stream.
struct StopSignals {
    interrupt: Signal,
    terminate: Signal,
}

impl StopSignals {
    async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// Handles SIGINT and SIGTERM for the rest of the process, moving `stop` forward.
pub(super) fn watch(stop: RunStop, grace: Duration) -> anyhow::Result<()> {
    let mut signals = StopSignals {
        interrupt: signal(SignalKind::interrupt())?,
        terminate: signal(SignalKind::terminate())?,
    };
    tokio::spawn(async move {
        signals.next().await;
        stop.stop_scheduling();
        eprintln!(
            "Stopping: no new task starts; running tasks have {} to finish \
             (press Ctrl-C again to quit at once)",
            humanize(grace)
        );
        tokio::select! {
            () = tokio::time::sleep(grace) => {
                stop.interrupt();
                eprintln!("Interrupting the tasks still running");
            }
            () = signals.next() => quit(),
        }
        signals.next().await;
        quit();
    });
    Ok(())
}

fn quit() -> ! {
    eprintln!("Stopped at once: the summary was not written");
    std::process::exit(INTERRUPTED_EXIT.into());
}

/// `5s`, `1.5s` or `250ms`.
fn humanize(grace: Duration) -> String {
    match grace.as_millis() {
        ms if ms % 1000 == 0 => format!("{}s", ms / 1000),
        ms if ms >= 1000 => format!("{}s", ms as f64 / 1000.0),
        ms => format!("{ms}ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grace_period_reads_in_its_unit() {
        assert_eq!(humanize(Duration::from_secs(5)), "5s");
        assert_eq!(humanize(Duration::from_millis(1500)), "1.5s");
        assert_eq!(humanize(Duration::from_millis(250)), "250ms");
    }
}
