//! One clock read per event: a task or step start or end reads the monotonic clock once,
//! and its wall-clock time is derived from a per-thread anchor (a `SystemTime` and an
//! `Instant` read together) refreshed once a second. So `startedAt`/`completedAt`,
//! `latencyMs` and `durationUs` of a record all come from the same reads, and an event costs
//! one `clock_gettime` instead of two.

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long an anchor serves before the system clock is read again.
const REFRESH: Duration = Duration::from_secs(1);

/// How far behind the time extrapolated from the previous anchor a new system-clock reading
/// may be and still be treated as drift (the derived time then holds still rather than step
/// back); a larger step back is the clock being set, and is followed.
const MAX_SLEW: Duration = Duration::from_millis(10);

/// One event's time: the monotonic instant read, and the wall-clock time derived from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moment {
    /// The monotonic clock's reading.
    pub at: Instant,
    /// The wall-clock time at `at`.
    pub wall: SystemTime,
}

impl Moment {
    /// Now: one read of the monotonic clock, its wall-clock time from this thread's anchor.
    pub fn now() -> Self {
        let at = Instant::now();
        Self {
            at,
            wall: wall_at(at),
        }
    }
}

/// The wall-clock time now, derived as [`Moment::now`] derives it.
pub fn wall_now() -> SystemTime {
    Moment::now().wall
}

/// Whole milliseconds from `start` to `end` as upstream computes `latencyMs`:
/// `Date.now() − start`, the difference of the two whole-millisecond wall-clock values
/// (never negative).
pub fn whole_ms_between(start: SystemTime, end: SystemTime) -> f64 {
    let ms = |time: SystemTime| {
        time.duration_since(UNIX_EPOCH)
            .map_or(0, |since| since.as_millis())
    };
    ms(end).saturating_sub(ms(start)) as f64
}

/// The wall-clock time at `at`, from this thread's anchor (refreshed when a second old).
fn wall_at(at: Instant) -> SystemTime {
    thread_local! {
        static ANCHOR: Cell<Option<Anchor>> = const { Cell::new(None) };
    }
    ANCHOR.with(|cell| {
        let anchor = match cell.get() {
            Some(anchor) if !anchor.is_stale(at) => anchor,
            previous => {
                let fresh = Anchor::read(previous);
                cell.set(Some(fresh));
                fresh
            }
        };
        anchor.wall_at(at)
    })
}

/// A wall-clock time and the monotonic instant it was read at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Anchor {
    wall: SystemTime,
    at: Instant,
}

impl Anchor {
    /// An anchor from the clocks now, continuing `previous` (see [`Anchor::refreshed`]).
    fn read(previous: Option<Anchor>) -> Self {
        let wall = SystemTime::now();
        let at = Instant::now();
        match previous {
            Some(previous) => previous.refreshed(wall, at),
            None => Self { wall, at },
        }
    }

    /// The anchor after reading `wall` at `at`: the new reading, unless it is slightly
    /// behind what this anchor gives for `at` (within [`MAX_SLEW`]), in which case this
    /// anchor's time is kept so that derived times never step back by drift.
    fn refreshed(self, wall: SystemTime, at: Instant) -> Self {
        let extrapolated = self.wall_at(at);
        let behind = extrapolated.duration_since(wall).unwrap_or_default();
        if behind > Duration::ZERO && behind <= MAX_SLEW {
            Self {
                wall: extrapolated,
                at,
            }
        } else {
            Self { wall, at }
        }
    }

    /// Whether the anchor is due for a refresh at `at`.
    fn is_stale(&self, at: Instant) -> bool {
        at.saturating_duration_since(self.at) >= REFRESH
    }

    /// The wall-clock time at `at`: the anchor's, moved by the monotonic difference.
    fn wall_at(&self, at: Instant) -> SystemTime {
        if at >= self.at {
            self.wall + (at - self.at)
        } else {
            self.wall - (self.at - at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(wall_ms: u64, at: Instant) -> Anchor {
        Anchor {
            wall: UNIX_EPOCH + Duration::from_millis(wall_ms),
            at,
        }
    }

    #[test]
    fn derived_times_move_with_the_monotonic_clock_on_both_sides_of_the_anchor() {
        let base = Instant::now();
        let anchor = anchor(1_000_000, base + Duration::from_millis(50));
        let ms = |offset: u64| anchor.wall_at(base + Duration::from_millis(offset));
        assert_eq!(ms(50), anchor.wall);
        assert_eq!(ms(1_049), anchor.wall + Duration::from_millis(999));
        assert_eq!(ms(0), anchor.wall - Duration::from_millis(50));
        let times: Vec<SystemTime> = (0..2_000).step_by(7).map(ms).collect();
        assert!(times.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn a_refresh_never_steps_back_by_drift_but_follows_a_clock_that_was_set() {
        let base = Instant::now();
        let old = anchor(1_000_000, base);
        let later = base + REFRESH;
        let expected = old.wall_at(later);
        // The system clock ran 3 ms slower than the monotonic clock: hold still.
        let slow = old.refreshed(expected - Duration::from_millis(3), later);
        assert_eq!(slow.wall_at(later), expected);
        // It ran faster: follow it forward.
        let fast = old.refreshed(expected + Duration::from_millis(3), later);
        assert_eq!(fast.wall_at(later), expected + Duration::from_millis(3));
        // It was set back an hour: follow it.
        let set = expected - Duration::from_secs(3600);
        assert_eq!(old.refreshed(set, later).wall_at(later), set);
        assert!(!old.is_stale(later - Duration::from_nanos(1)));
        assert!(old.is_stale(later));
    }

    #[test]
    fn the_thread_clock_is_monotone_and_stays_with_the_system_clock_across_seconds() {
        let mut previous = Moment::now();
        let end = previous.at + Duration::from_millis(1_100);
        while previous.at < end {
            let before = SystemTime::now();
            let moment = Moment::now();
            let after = SystemTime::now();
            assert!(moment.at >= previous.at);
            assert!(
                moment.wall >= previous.wall,
                "{moment:?} after {previous:?}"
            );
            // Within the drift one refresh period can gather, plus the slew allowance.
            let slack = MAX_SLEW + Duration::from_millis(5);
            assert!(moment.wall + slack >= before && moment.wall <= after + slack);
            previous = moment;
            std::thread::sleep(Duration::from_millis(3));
        }
    }

    #[test]
    fn latency_is_the_difference_of_whole_milliseconds() {
        let at = |us: u64| UNIX_EPOCH + Duration::from_micros(us);
        assert_eq!(whole_ms_between(at(1_999), at(2_001)), 1.0);
        assert_eq!(whole_ms_between(at(2_001), at(2_999)), 0.0);
        assert_eq!(whole_ms_between(at(2_000), at(9_999)), 7.0);
        assert_eq!(whole_ms_between(at(5_000), at(4_000)), 0.0);
    }
}
