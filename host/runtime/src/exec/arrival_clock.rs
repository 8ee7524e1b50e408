//! Waiting for an arrival's due time to the tens of microseconds, inside the async runtime
//! that runs the tasks. tokio's timer wheel ends a wait at the first whole-millisecond tick
//! after its deadline (where the open model's start lag came from); a timing thread of its
//! own is precise but costs two wake-ups per arrival (its own, then the runtime worker's
//! that runs the task). On Linux the clock is a `timerfd` armed to the absolute deadline on
//! the monotonic clock (the clock of [`std::time::Instant`]) and registered with tokio's I/O
//! driver: the worker waiting in the driver wakes at the deadline and runs the due task
//! itself, one wake-up per arrival, as a native loop sleeping to each due time has. Waits
//! shorter than a few microseconds are spun, where a wake-up would overshoot by more than
//! it waits. Elsewhere the clock is tokio's timer.

use std::time::Duration;
use tokio::time::Instant;

/// Waits shorter than this are spun, not slept (a sleep and wake-up costs more).
const SPIN_BELOW: Duration = Duration::from_micros(5);

/// Waits to arrival deadlines (one per pacer).
#[derive(Debug)]
pub(crate) struct ArrivalClock {
    timer: Timer,
}

#[derive(Debug)]
enum Timer {
    /// A `timerfd` in tokio's I/O driver.
    #[cfg(target_os = "linux")]
    Timerfd(tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>),
    /// tokio's timer (to the millisecond; follows tokio's paused clock in tests).
    #[cfg(any(test, not(target_os = "linux")))]
    Tokio,
}

impl ArrivalClock {
    /// The most precise clock of this platform. Must be called inside a tokio runtime with
    /// I/O enabled.
    pub(crate) fn precise() -> std::io::Result<Self> {
        #[cfg(target_os = "linux")]
        {
            use rustix::time::{timerfd_create, TimerfdClockId, TimerfdFlags};
            let fd = timerfd_create(
                TimerfdClockId::Monotonic,
                TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
            )?;
            // The descriptor is owned by the `OwnedFd` inside, so it stays open and the same
            // for the `AsyncFd`'s life: what the deprecation warns of cannot happen, and its
            // replacement is an `unsafe fn`, which this crate does not use.
            #[allow(deprecated)]
            let timer = tokio::io::unix::AsyncFd::with_interest(fd, tokio::io::Interest::READABLE)?;
            Ok(Self {
                timer: Timer::Timerfd(timer),
            })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Self {
            timer: Timer::Tokio,
        })
    }

    /// tokio's timer, which unit tests pause for exact times.
    #[cfg(test)]
    pub(crate) fn tokio() -> Self {
        Self {
            timer: Timer::Tokio,
        }
    }

    /// Waits until `due` (at once when it has passed).
    pub(crate) async fn sleep_until(&mut self, due: Instant) {
        match &self.timer {
            #[cfg(target_os = "linux")]
            Timer::Timerfd(timer) => {
                if timerfd_sleep_until(timer, due.into_std()).await.is_err() {
                    // The timer cannot fail once created; if it does, tokio's is late, not wrong.
                    tokio::time::sleep_until(due).await;
                }
            }
            #[cfg(any(test, not(target_os = "linux")))]
            Timer::Tokio => tokio::time::sleep_until(due).await,
        }
    }
}

/// Sleeps in the I/O driver until the timer, armed to `due`, fires; spins the last
/// [`SPIN_BELOW`].
#[cfg(target_os = "linux")]
async fn timerfd_sleep_until(
    timer: &tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>,
    due: std::time::Instant,
) -> std::io::Result<()> {
    use rustix::time::{timerfd_settime, Itimerspec, TimerfdTimerFlags, Timespec};
    loop {
        let now = std::time::Instant::now();
        let Some(remaining) = due.checked_duration_since(now).filter(|r| !r.is_zero()) else {
            return Ok(());
        };
        if remaining < SPIN_BELOW {
            while std::time::Instant::now() < due {
                std::hint::spin_loop();
            }
            return Ok(());
        }
        let at = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
        let nanos = at.tv_nsec as u64 + u64::from(remaining.subsec_nanos());
        let deadline = Timespec {
            tv_sec: at.tv_sec + remaining.as_secs() as i64 + (nanos / 1_000_000_000) as i64,
            tv_nsec: (nanos % 1_000_000_000) as _,
        };
        let zero = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let armed = Itimerspec {
            it_interval: zero,
            it_value: deadline,
        };
        // Arming anew drops an expiry not yet seen; the driver reports each expiry once
        // (edge-triggered), so the timer is never read.
        timerfd_settime(timer, TimerfdTimerFlags::ABSTIME, &armed)?;
        let mut ready = timer.readable().await?;
        ready.clear_ready();
        // A readiness left from an earlier wait ends this one early: the loop sleeps again.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_sleep_ends_at_or_after_its_deadline() {
        let mut clock = ArrivalClock::precise().unwrap();
        for wait in [0, 3, 200, 2_000, 200] {
            let due = Instant::now() + Duration::from_micros(wait);
            clock.sleep_until(due).await;
            assert!(Instant::now() >= due, "woke before a {wait} µs deadline");
        }
        let past = Instant::now() - Duration::from_millis(5);
        let started = Instant::now();
        clock.sleep_until(past).await;
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "a past deadline is due at once"
        );
    }

    #[tokio::test]
    async fn a_wait_dropped_before_its_deadline_does_not_end_the_next_one_early() {
        let mut clock = ArrivalClock::precise().unwrap();
        // Polled once (the timer armed for 300 ms, long enough for a busy machine to get to
        // the poll in time), then dropped.
        let early = Instant::now() + Duration::from_millis(300);
        let abandoned = tokio::time::timeout(Duration::ZERO, clock.sleep_until(early)).await;
        assert!(abandoned.is_err(), "a 300 ms wait ended at once");
        // The first wait's timer fires meanwhile, unseen.
        std::thread::sleep(Duration::from_millis(350));
        let due = Instant::now() + Duration::from_millis(20);
        clock.sleep_until(due).await;
        assert!(Instant::now() >= due);
    }
}
