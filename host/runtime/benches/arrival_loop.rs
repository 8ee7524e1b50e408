//! A native open loop, the floor `bench run`'s arrival-rate executors are measured against
//! (`scripts/bench-arrival.sh` runs both, interleaved): one thread sleeping to each due
//! time of a constant rate with the arrival thread's own sleeper (absolute `clock_nanosleep`
//! on the monotonic clock, timer slack 1 ns), doing nothing at each arrival but note how
//! late it woke. What `bench run` adds on top is the hand-off to a sandbox and the task.
//!
//! ```sh
//! cargo bench -p bench-runtime --bench arrival_loop -- RATE SECONDS
//! ```
//!
//! Prints one line: arrivals, then the start lag's p50, p99 and max in milliseconds (the
//! same figures the script takes from a run's records). Its CPU time is measured from
//! outside (`/usr/bin/time`), as `bench run`'s.

use bench_runtime::exec::DeadlineSleeper;
use std::time::{Duration, Instant};

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
    let sleeper = DeadlineSleeper::for_this_thread();
    let arrivals = (rate * seconds) as u64;
    let start = Instant::now() + Duration::from_millis(10);
    let mut lags: Vec<f64> = Vec::with_capacity(arrivals as usize);
    for index in 0..arrivals {
        let due = start + Duration::from_secs_f64(index as f64 / rate);
        sleeper.sleep_until(due, || false);
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
