//! The guest CPU of a task (`guestCpuUs`): the time its thread spent running the guest, in
//! the polls of the task's future, so time blocked in host I/O (an HTTP response, a sleep,
//! a timer) is not counted: the guest waits then with its future pending, off the thread.
//!
//! Reading the thread's CPU clock is a system call (about 0.5 µs here, a quarter of a no-op
//! task), so a poll is timed with the monotonic clock and the CPU clock is read only for a
//! poll longer than [`LONG_POLL`]: such a poll is charged the CPU its thread spent since the
//! thread's last CPU reading, at most the poll's wall time, so a guest the OS preempted is
//! not charged for the time it was off the CPU. A short poll is charged its wall time.

use rustix::time::{clock_gettime, ClockId};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

/// A poll at least this long reads the thread's CPU clock.
const LONG_POLL: Duration = Duration::from_micros(200);

/// How old the thread's last CPU reading may be when a poll starts; an older one is read
/// again, so a long poll is measured against a reading taken just before it.
const BASELINE_AGE: Duration = Duration::from_millis(1);

/// The guest CPU of the task running in one sandbox, shared by the future that runs the
/// guest (which adds to it) and the task's recorder (which reads it at step boundaries).
#[derive(Debug, Clone, Default)]
pub struct GuestCpu {
    inner: Arc<Meter>,
}

#[derive(Debug, Default)]
struct Meter {
    /// Guest CPU of the finished polls, in nanoseconds.
    spent_ns: AtomicU64,
    /// When the running poll started ([`nanos_since_origin`]), or 0 between polls.
    running_since_ns: AtomicU64,
}

impl GuestCpu {
    /// Starts the next task at zero.
    pub(crate) fn reset(&self) {
        self.inner.spent_ns.store(0, Ordering::Relaxed);
    }

    /// The guest CPU of the task so far, the running poll counted up to now.
    pub(crate) fn now(&self) -> Duration {
        let spent = self.inner.spent_ns.load(Ordering::Relaxed);
        let since = self.inner.running_since_ns.load(Ordering::Relaxed);
        let running = if since == 0 {
            0
        } else {
            nanos_since_origin(Instant::now()).saturating_sub(since)
        };
        Duration::from_nanos(spent.saturating_add(running))
    }

    /// `future` with each of its polls counted as guest CPU.
    pub(crate) fn metered<F: Future>(&self, future: F) -> Metered<F> {
        Metered {
            future,
            cpu: self.clone(),
        }
    }
}

pin_project_lite::pin_project! {
    /// A future whose polls are counted as guest CPU ([`GuestCpu::metered`]).
    pub(crate) struct Metered<F> {
        #[pin]
        future: F,
        cpu: GuestCpu,
    }
}

impl<F: Future> Future for Metered<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let start = Instant::now();
        let baseline = thread_baseline(start);
        let meter = &this.cpu.inner;
        meter
            .running_since_ns
            .store(nanos_since_origin(start).max(1), Ordering::Relaxed);
        let result = this.future.poll(cx);
        let end = Instant::now();
        let spent = charged(end - start, || {
            let cpu = thread_cpu();
            set_thread_baseline(end, cpu);
            cpu.saturating_sub(baseline.cpu)
        });
        meter.running_since_ns.store(0, Ordering::Relaxed);
        meter.spent_ns.fetch_add(
            u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        result
    }
}

/// The guest CPU charged for a poll of `wall` time: the wall time of a short poll, else the
/// thread's CPU since its baseline (`cpu_since_baseline`), at most the wall time.
fn charged(wall: Duration, cpu_since_baseline: impl FnOnce() -> Duration) -> Duration {
    if wall < LONG_POLL {
        wall
    } else {
        cpu_since_baseline().min(wall)
    }
}

/// A thread's CPU clock read at a monotonic instant.
#[derive(Debug, Clone, Copy)]
struct Baseline {
    at: Instant,
    cpu: Duration,
}

thread_local! {
    static BASELINE: Cell<Option<Baseline>> = const { Cell::new(None) };
}

/// This thread's CPU reading, read again when older than [`BASELINE_AGE`] at `now`.
fn thread_baseline(now: Instant) -> Baseline {
    BASELINE.with(|cell| match cell.get() {
        Some(baseline) if now.saturating_duration_since(baseline.at) < BASELINE_AGE => baseline,
        _ => {
            let baseline = Baseline {
                at: now,
                cpu: thread_cpu(),
            };
            cell.set(Some(baseline));
            baseline
        }
    })
}

fn set_thread_baseline(at: Instant, cpu: Duration) {
    BASELINE.with(|cell| cell.set(Some(Baseline { at, cpu })));
}

/// The CPU time this thread has used.
fn thread_cpu() -> Duration {
    let time = clock_gettime(ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    )
}

/// Nanoseconds from the first call in this process to `at` (never 0 after it, as 0 means
/// "no poll running").
fn nanos_since_origin(at: Instant) -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    let origin = *ORIGIN.get_or_init(|| at - Duration::from_nanos(1));
    u64::try_from(at.saturating_duration_since(origin).as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_poll_is_charged_its_wall_time_and_a_long_one_at_most_that() {
        let short = Duration::from_micros(50);
        assert_eq!(charged(short, || unreachable!("no CPU read")), short);
        let long = Duration::from_millis(5);
        assert_eq!(
            charged(long, || Duration::from_millis(3)),
            Duration::from_millis(3)
        );
        assert_eq!(charged(long, || Duration::from_secs(9)), long);
    }

    #[tokio::test]
    async fn polls_that_compute_count_and_waits_between_them_do_not() {
        let cpu = GuestCpu::default();
        let started = Instant::now();
        cpu.metered(async {
            let spin_until = Instant::now() + Duration::from_millis(30);
            while Instant::now() < spin_until {
                std::hint::spin_loop();
            }
            tokio::time::sleep(Duration::from_millis(60)).await;
        })
        .await;
        let spent = cpu.now();
        assert!(spent >= Duration::from_millis(10), "{spent:?}");
        assert!(
            spent < Duration::from_millis(50),
            "the sleep was counted: {spent:?}"
        );
        assert!(spent < started.elapsed());
        cpu.reset();
        assert_eq!(cpu.now(), Duration::ZERO);
    }
}
