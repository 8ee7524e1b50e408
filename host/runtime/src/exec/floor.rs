//! The instrument's floor, measured when a run starts: how fine this machine's clock is,
//! what reading it costs, and what bench itself adds around an empty step and an empty
//! task (the host's bookkeeping of a step; recording, timing and serializing a task that
//! does nothing); for an open model also how late the arrival clock wakes from a sleep to
//! a deadline (the least start lag this machine allows). A median within 10× of the floor
//! is mostly bench, not the workload; the summary says so ([`InstrumentFloor::warnings`]).
//! Stored in `run.json`.
//!
//! The floor is host-side: the call into the guest (well under a microsecond in wasmtime)
//! is not part of it.

use super::arrival_clock::ArrivalClock;
use super::outcome::{build_record, TaskEnd, Timing};
use crate::sandbox::context::TaskRecorder;
use crate::sandbox::limits::{StopCode, TaskBounds};
use bench_contract::bench::task::context::Host;
use bench_contract::bench::task::model::{StepOptions, TaskOutput};
use bench_model::clock::Moment;
use bench_model::plan::InstrumentFloor;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How many batches each figure takes the median of.
const BATCHES: usize = 31;
/// Operations per batch.
const BATCH: u32 = 64;

/// Sleeps the arrival-lag figure takes the median of.
const ARRIVAL_SLEEPS: usize = 21;
/// The length of each of them.
const ARRIVAL_SLEEP: Duration = Duration::from_micros(250);

/// Measures the floor (a few milliseconds).
pub fn measure_floor() -> InstrumentFloor {
    InstrumentFloor {
        clock_resolution_ns: clock_resolution().as_nanos() as f64,
        clock_read_ns: median_per_op(|| {
            black_box(Instant::now());
        }),
        empty_step_ns: median_per_op(empty_step()),
        empty_task_ns: median_per_op(empty_task()),
        arrival_lag_ns: None,
    }
}

/// Adds the arrival clock's wake-up lag (about 6 ms of sleeps) to `floor`, for an open
/// model.
pub fn with_arrival_lag(floor: InstrumentFloor) -> InstrumentFloor {
    InstrumentFloor {
        arrival_lag_ns: Some(arrival_lag().as_nanos() as f64),
        ..floor
    }
}

/// The median over [`BATCHES`] batches of the time per call of `op`, in nanoseconds.
fn median_per_op(mut op: impl FnMut()) -> f64 {
    let mut per_op: Vec<f64> = (0..BATCHES)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..BATCH {
                op();
            }
            start.elapsed().as_nanos() as f64 / f64::from(BATCH)
        })
        .collect();
    per_op.sort_by(f64::total_cmp);
    per_op[BATCHES / 2]
}

/// The smallest non-zero difference between consecutive clock readings.
fn clock_resolution() -> Duration {
    let mut smallest = Duration::MAX;
    let mut previous = Instant::now();
    for _ in 0..10_000 {
        let now = Instant::now();
        let step = now - previous;
        if !step.is_zero() {
            smallest = smallest.min(step);
        }
        previous = now;
    }
    smallest
}

/// The median lateness of [`ARRIVAL_SLEEPS`] sleeps to a deadline on the arrival clock, in
/// a runtime of its own on a thread of its own (zero if none could be started).
fn arrival_lag() -> Duration {
    let measure = || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            let mut clock = ArrivalClock::precise().ok()?;
            let mut lags = Vec::with_capacity(ARRIVAL_SLEEPS);
            for _ in 0..ARRIVAL_SLEEPS {
                let due = tokio::time::Instant::now() + ARRIVAL_SLEEP;
                clock.sleep_until(due).await;
                lags.push(due.elapsed());
            }
            lags.sort();
            Some(lags[ARRIVAL_SLEEPS / 2])
        })
    };
    std::thread::scope(|scope| scope.spawn(measure).join())
        .ok()
        .flatten()
        .unwrap_or(Duration::ZERO)
}

fn empty_step() -> impl FnMut() {
    let mut recorder = TaskRecorder::new(TaskBounds::default());
    let mut steps = 0u32;
    move || {
        if steps.is_multiple_of(1000) {
            recorder.begin(0);
        }
        steps += 1;
        let options = StepOptions {
            timeout_ms: None,
            concurrency: None,
            capture_output: None,
        };
        if let Ok(id) = recorder.step_start(String::new(), options) {
            let _ = black_box(recorder.step_end(id, None));
        }
    }
}

fn empty_task() -> impl FnMut() {
    let mut recorder = TaskRecorder::new(TaskBounds::default());
    move || {
        let start = Moment::now();
        recorder.begin(0);
        let recorded = recorder.finish(StopCode::Abandoned, "");
        let timing = Timing::ending_now(start);
        let output = TaskEnd::Output(TaskOutput {
            data: None,
            latency_ms: None,
            steps: Vec::new(),
        });
        let record = build_record(0, None, timing, recorded, output);
        black_box(serde_json::to_vec(&record).expect("a record serializes"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_is_measured_and_positive() {
        let floor = measure_floor();
        assert!(floor.clock_resolution_ns > 0.0 && floor.clock_resolution_ns < 1e7);
        assert!(floor.clock_read_ns > 0.0);
        assert!(floor.empty_step_ns > 0.0);
        assert!(floor.empty_task_ns > floor.clock_read_ns, "{floor:?}");
        assert_eq!(floor.arrival_lag_ns, None, "measured for open models only");
        let lag = with_arrival_lag(floor).arrival_lag_ns.unwrap();
        assert!((0.0..1e9).contains(&lag), "{lag}");
    }
}
