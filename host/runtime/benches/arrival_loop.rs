//! A native open loop, the floor `bench run`'s arrival-rate executors are measured against
//! (`scripts/bench-arrival.sh` runs both, interleaved): one thread sleeping to each due
//! time of a constant rate (absolute `clock_nanosleep` on the monotonic clock, timer slack
//! 1 ns, the last 5 µs spun), doing nothing at each arrival but note how late it woke. What
//! `bench run` adds on top is the hand-off to a sandbox and the task.
//!
//! ```sh
//! cargo bench -p bench-runtime --bench arrival_loop -- RATE SECONDS
//! ```
//!
//! Prints one line: arrivals, then the start lag's p50, p99 and max in milliseconds (the
//! same figures the script takes from a run's records). Its CPU time is measured from
//! outside (`/usr/bin/time`), as `bench run`'s.

use std::time::{Duration, Instant};

/// Waits shorter than this are spun, not slept.
const SPIN_BELOW: Duration = Duration::from_micros(5);

fn main() {
    // `cargo bench` adds `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| arg != "--bench")
        .collect();
    let (Some(rate), Some(seconds)) = (
        args.first().and_then(|rate| rate.parse::<f64>().ok()),
        args.get(1).and_then(|seconds| seconds.parse::<f64>().ok()),
    ) else {
        eprintln!("usage: arrival_loop RATE SECONDS   (arrivals per second, seconds)");
        std::process::exit(2);
    };
    // Best effort: without it sleeps end up to 50 µs later.
    let _ = rustix::thread::set_current_timer_slack(std::num::NonZeroU64::new(1));
    let arrivals = (rate * seconds) as u64;
    let start = Instant::now() + Duration::from_millis(10);
    let mut lags: Vec<f64> = Vec::with_capacity(arrivals as usize);
    for index in 0..arrivals {
        let due = start + Duration::from_secs_f64(index as f64 / rate);
        sleep_until(due);
        lags.push(due.elapsed().as_secs_f64() * 1e3);
    }
    lags.sort_by(f64::total_cmp);
    let rank = |p: f64| lags[((lags.len() as f64 * p).ceil() as usize).clamp(1, lags.len()) - 1];
    println!(
        "{arrivals} {:.3} {:.3} {:.3}",
        rank(0.5),
        rank(0.99),
        lags.last().copied().unwrap_or(0.0)
    );
}

/// Sleeps until `due` (at once when it has passed).
fn sleep_until(due: Instant) {
    use rustix::thread::{clock_nanosleep_absolute, ClockId};
    use rustix::time::{clock_gettime, Timespec};
    loop {
        let now = Instant::now();
        let Some(remaining) = due.checked_duration_since(now).filter(|r| !r.is_zero()) else {
            return;
        };
        if remaining < SPIN_BELOW {
            while Instant::now() < due {
                std::hint::spin_loop();
            }
            return;
        }
        let at = clock_gettime(rustix::time::ClockId::Monotonic);
        let nanos = at.tv_nsec as u64 + u64::from(remaining.subsec_nanos());
        let deadline = Timespec {
            tv_sec: at.tv_sec + remaining.as_secs() as i64 + (nanos / 1_000_000_000) as i64,
            tv_nsec: (nanos % 1_000_000_000) as _,
        };
        // An interruption by a signal only ends this sleep early; the loop sleeps again.
        let _ = clock_nanosleep_absolute(ClockId::Monotonic, &deadline);
    }
}
