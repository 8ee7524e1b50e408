//! Waiting for an arrival's due time to the tens of microseconds, on a thread of its own:
//! tokio's timer wheel ends a wait at the first whole-millisecond tick after its deadline,
//! which is where the open model's start lag came from. On Linux the thread sleeps in
//! `clock_nanosleep` to the absolute deadline on the monotonic clock (the clock of
//! [`std::time::Instant`]) with its timer slack cut from the default 50 µs to 1 ns, and
//! spins through the last few microseconds, where a sleep would overshoot by more than it
//! waits. Elsewhere it falls back to [`std::thread::sleep`].

use std::time::{Duration, Instant};

/// Waits shorter than this are spun, not slept (a sleep and wake-up costs more).
const SPIN_BELOW: Duration = Duration::from_micros(5);

/// The longest single sleep, so that a stop is seen within this time.
const STOP_POLL: Duration = Duration::from_millis(50);

/// Sleeps the calling thread to deadlines (one per timing thread).
#[derive(Debug)]
pub struct DeadlineSleeper(());

impl DeadlineSleeper {
    /// A sleeper for the calling thread, whose timer slack it lowers (Linux).
    pub fn for_this_thread() -> Self {
        #[cfg(target_os = "linux")]
        {
            // Best effort: without it sleeps end up to 50 µs later, nothing else changes.
            let _ = rustix::thread::set_current_timer_slack(std::num::NonZeroU64::new(1));
        }
        Self(())
    }

    /// Sleeps until `due` (at once when it has passed) unless `stopping()` turns true
    /// first, which it is asked at least every [`STOP_POLL`]. Returns whether `due` was
    /// reached without a stop.
    pub fn sleep_until(&self, due: Instant, stopping: impl Fn() -> bool) -> bool {
        loop {
            if stopping() {
                return false;
            }
            let now = Instant::now();
            let Some(remaining) = due.checked_duration_since(now).filter(|r| !r.is_zero()) else {
                return true;
            };
            if remaining < SPIN_BELOW {
                while Instant::now() < due {
                    std::hint::spin_loop();
                }
                return true;
            }
            nap(now, remaining.min(STOP_POLL));
        }
    }
}

/// Sleeps for `length` from `now` (an absolute deadline: no drift from the call's own cost).
#[cfg(target_os = "linux")]
fn nap(now: Instant, length: Duration) {
    use rustix::thread::{clock_nanosleep_absolute, ClockId};
    use rustix::time::{clock_gettime, Timespec};
    let elapsed = Instant::now().saturating_duration_since(now);
    let left = length.saturating_sub(elapsed);
    let at = clock_gettime(rustix::time::ClockId::Monotonic);
    let nanos = at.tv_nsec as u64 + u64::from(left.subsec_nanos());
    let deadline = Timespec {
        tv_sec: at.tv_sec + left.as_secs() as i64 + (nanos / 1_000_000_000) as i64,
        tv_nsec: (nanos % 1_000_000_000) as _,
    };
    // An interruption by a signal only ends this nap early; the caller sleeps again.
    let _ = clock_nanosleep_absolute(ClockId::Monotonic, &deadline);
}

#[cfg(not(target_os = "linux"))]
fn nap(now: Instant, length: Duration) {
    std::thread::sleep(length.saturating_sub(now.elapsed()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_ends_at_or_after_its_deadline() {
        let sleeper = DeadlineSleeper::for_this_thread();
        for wait in [0, 3, 200, 2_000] {
            let due = Instant::now() + Duration::from_micros(wait);
            assert!(sleeper.sleep_until(due, || false));
            assert!(Instant::now() >= due, "woke before a {wait} µs deadline");
        }
        let past = Instant::now() - Duration::from_millis(5);
        assert!(
            sleeper.sleep_until(past, || false),
            "a past deadline is due at once"
        );
    }

    #[test]
    fn a_stop_ends_a_long_sleep_early() {
        let sleeper = DeadlineSleeper::for_this_thread();
        let started = Instant::now();
        let asked = std::cell::Cell::new(0);
        let stopping = || {
            asked.set(asked.get() + 1);
            asked.get() > 1
        };
        assert!(!sleeper.sleep_until(started + Duration::from_secs(3600), stopping));
        assert!(started.elapsed() < Duration::from_secs(60));
        assert_eq!(asked.get(), 2, "asked before each nap");
    }
}
