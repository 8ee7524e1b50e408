//! The timing lines printed under the summary table: the run's elapsed time and throughput
//! (from `run.json`'s start and end), and each participant's task latency as mean ± standard
//! deviation with its minimum and maximum, in a unit that fits. Computed from the saved run
//! alone, so `bench report` prints the same lines.

use super::console::escape;
use super::tally::RunTally;
use crate::plan::RunManifest;
use crate::record::TaskRecord;
use chrono::DateTime;

/// The timing lines of a run (none for a run without tasks).
pub(crate) fn timing_lines(manifest: &RunManifest, tally: &RunTally) -> Vec<String> {
    let tasks = tally.task_counts().total;
    if tasks == 0 {
        return Vec::new();
    }
    let mut lines = Vec::new();
    if let Some(seconds) = elapsed_seconds(manifest) {
        let rate = if seconds > 0.0 {
            format!(" ({:.1} tasks/s)", tasks as f64 / seconds)
        } else {
            String::new()
        };
        lines.push(format!(
            "Elapsed: {} for {tasks} tasks{rate}",
            duration(seconds * 1000.0)
        ));
    }
    let open = manifest.load.as_ref().is_some_and(|load| load.is_open());
    let what = if open { "response time" } else { "latency" };
    for (participant, latency) in tally.latencies() {
        let Some(stats) = latency.spread() else {
            continue;
        };
        lines.push(format!(
            "  {}: {what} {} \u{b1} {} (min {}, max {}, {} successful tasks)",
            escape(participant),
            duration(stats.mean),
            duration(stats.deviation),
            duration(stats.min),
            duration(stats.max),
            latency.count
        ));
    }
    lines
}

/// One participant's latency of successful tasks, taken a record at a time (Welford's
/// running mean and sum of squared deviations), so no sample is kept.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LatencySpread {
    count: u64,
    mean: f64,
    squares: f64,
    min: f64,
    max: f64,
}

impl LatencySpread {
    /// Takes a finished task's latency when it succeeded: its response time when it ran on
    /// an arrival schedule.
    pub(crate) fn add(&mut self, record: &TaskRecord) {
        let ms = record
            .arrival
            .as_ref()
            .map_or(record.latency_ms, |arrival| arrival.response_time_ms);
        if record.is_success() && ms.is_finite() {
            self.add_sample(ms);
        }
    }

    fn add_sample(&mut self, ms: f64) {
        self.count += 1;
        let delta = ms - self.mean;
        self.mean += delta / self.count as f64;
        self.squares += delta * (ms - self.mean);
        if self.count == 1 {
            (self.min, self.max) = (ms, ms);
        } else {
            self.min = self.min.min(ms);
            self.max = self.max.max(ms);
        }
    }

    /// Mean, sample standard deviation, minimum and maximum; `None` without samples.
    fn spread(&self) -> Option<Spread> {
        if self.count == 0 {
            return None;
        }
        let deviation = if self.count > 1 {
            (self.squares / (self.count - 1) as f64).sqrt()
        } else {
            0.0
        };
        Some(Spread {
            mean: self.mean,
            deviation,
            min: self.min,
            max: self.max,
        })
    }
}

/// Mean, sample standard deviation, minimum and maximum.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    mean: f64,
    deviation: f64,
    min: f64,
    max: f64,
}

/// Seconds from `startedAt` to `completedAt`, once the run is over.
fn elapsed_seconds(manifest: &RunManifest) -> Option<f64> {
    let start = DateTime::parse_from_rfc3339(&manifest.started_at).ok()?;
    let end = DateTime::parse_from_rfc3339(manifest.completed_at.as_deref()?).ok()?;
    Some((end - start).num_milliseconds().max(0) as f64 / 1000.0)
}

/// Milliseconds in a unit that fits: `0.85 ms`, `12.3 ms`, `1.23 s`, `2 m 05 s`. Records
/// time tasks in whole milliseconds (upstream's `latencyMs`), so nothing finer than a
/// millisecond is shown: a mean below it keeps its fraction of a millisecond.
fn duration(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{} ms", three_digits(ms))
    } else if ms < 60_000.0 {
        format!("{} s", three_digits(ms / 1000.0))
    } else {
        let seconds = (ms / 1000.0).round() as u64;
        format!("{} m {:02} s", seconds / 60, seconds % 60)
    }
}

/// Three significant digits, no trailing zeros after the point (`12.3`, `123`, `1.5`).
fn three_digits(value: f64) -> String {
    let decimals = if value >= 100.0 {
        0
    } else if value >= 10.0 {
        1
    } else {
        2
    };
    let text = format!("{value:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_manifest;
    use crate::record::Status;
    use serde_json::json;

    fn record(latency_ms: f64, status: Status) -> TaskRecord {
        TaskRecord::bare(0, status, latency_ms)
    }

    #[test]
    fn durations_take_a_unit_that_fits() {
        assert_eq!(duration(0.25), "0.25 ms");
        assert_eq!(duration(0.0), "0 ms");
        assert_eq!(duration(1.0), "1 ms");
        assert_eq!(duration(12.34), "12.3 ms");
        assert_eq!(duration(123.4), "123 ms");
        assert_eq!(duration(1500.0), "1.5 s");
        assert_eq!(duration(125_000.0), "2 m 05 s");
    }

    #[test]
    fn the_spread_is_the_mean_sample_deviation_and_range() {
        let mut latency = LatencySpread::default();
        for ms in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            latency.add_sample(ms);
        }
        let spread = latency.spread().unwrap();
        assert_eq!((spread.mean, spread.min, spread.max), (5.0, 2.0, 9.0));
        assert!((spread.deviation - 2.138).abs() < 0.001);
        let mut one = LatencySpread::default();
        one.add_sample(3.0);
        assert_eq!(one.spread().unwrap().deviation, 0.0);
        assert_eq!(LatencySpread::default().spread(), None);
    }

    #[test]
    fn a_run_shows_its_elapsed_time_throughput_and_each_participant_s_latency() {
        let manifest = test_manifest(json!({
            "startedAt": "2026-01-01T00:00:00.000Z",
            "completedAt": "2026-01-01T00:00:02.000Z",
        }));
        let mut tally = RunTally::new(&manifest);
        assert!(timing_lines(&manifest, &tally).is_empty());
        tally.add("alpha", &record(10.0, Status::Success));
        tally.add("alpha", &record(14.0, Status::Success));
        tally.add("alpha", &record(900.0, Status::Error));
        tally.add("beta", &record(5.0, Status::Error));
        assert_eq!(
            timing_lines(&manifest, &tally),
            [
                "Elapsed: 2 s for 4 tasks (2.0 tasks/s)",
                "  alpha: latency 12 ms \u{b1} 2.83 ms (min 10 ms, max 14 ms, 2 successful tasks)",
            ]
        );
    }
}
