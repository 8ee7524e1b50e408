//! The timing lines printed under the summary table: the run's elapsed time and throughput
//! (from `run.json`'s start and end), and each participant's task latency as mean ± standard
//! deviation with its minimum, median, p95, p99 and maximum, in a unit that fits, with its
//! guest CPU under it (`guest_cpu`); and the warnings its samples call for (many far
//! outliers, a slow start, a scored metric that measures the guest's CPU). Computed from the saved
//! run alone, so `bench report` prints the same lines.

use super::load::RESPONSE_TIME;
use super::participants::LATENCY;
use super::tally::RunTally;
use crate::scoring::{median, percentile};
use bench_model::plan::RunManifest;
use bench_model::record::TaskRecord;
use bench_model::text::escape_control;
use chrono::DateTime;
use std::collections::HashMap;

/// Tukey's far-out fence: a sample beyond this many interquartile ranges outside the
/// quartiles is an outlier.
const FAR_OUT_FENCE: f64 = 3.0;
/// The share of outliers from which a participant's latency gets a warning.
const OUTLIER_SHARE: f64 = 0.01;
/// How many times slower than the rest's median the first tasks must be for a warning.
const SLOW_START_FACTOR: f64 = 2.0;
/// The fewest samples the warnings look at.
const WARNING_MIN_SAMPLES: usize = 20;

/// The timing lines under the summary table and the warnings the samples call for.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct TimingReport {
    /// The elapsed-time line and one latency line per participant.
    pub lines: Vec<String>,
    /// Many far outliers (Tukey's fences at 3 × IQR), or first tasks much slower than the
    /// rest (a cold start a warm-up would leave out).
    pub warnings: Vec<String>,
    /// The summary metric the lines are about: `latencyMs`, or `responseTimeMs` in an
    /// open-model run.
    metric: &'static str,
    /// Each participant's median of that metric in milliseconds, at the records' finest
    /// resolution (`durationUs` where they have it).
    medians: HashMap<String, f64>,
}

impl TimingReport {
    /// `participant`'s median of `metric` at the records' finest resolution, when these
    /// lines are about that metric.
    pub(crate) fn fine_median(&self, participant: &str, metric: &str) -> Option<f64> {
        (metric == self.metric)
            .then(|| self.medians.get(participant).copied())
            .flatten()
    }
}

/// The timing lines and warnings of a run (none for a run without tasks). Takes the
/// tally's latency columns (nothing else reads them) and sorts each in place, once, for
/// its line and its warnings alike: no copy of a column at the end of a long run.
pub(crate) fn timing_report(manifest: &RunManifest, tally: &mut RunTally) -> TimingReport {
    let mut report = TimingReport::default();
    let tasks = tally.task_counts().total;
    if tasks == 0 {
        return report;
    }
    if let Some(seconds) = elapsed_seconds(manifest) {
        let rate = if seconds > 0.0 {
            format!(" ({:.1} tasks/s)", tasks as f64 / seconds)
        } else {
            String::new()
        };
        report.lines.push(format!(
            "Elapsed: {} for {tasks} tasks{rate}",
            duration(seconds * 1000.0)
        ));
    }
    let (what, metric) = latency_name(manifest);
    report.metric = metric;
    let (mut guest_cpu, metric_keys) = tally.take_guest_cpu();
    let metric_keys = metric_keys.to_vec();
    for ((participant, latency), guest_cpu) in tally.take_latencies().zip(&mut guest_cpu) {
        report
            .warnings
            .extend(guest_cpu.warnings(&escape_control(participant), &metric_keys));
        let Some(sorted) = latency.into_sorted() else {
            continue;
        };
        let stats = sorted.spread();
        report.medians.insert(participant.to_owned(), stats.median);
        let participant = escape_control(participant);
        report.lines.push(format!(
            "  {participant}: {what} {} \u{b1} {} (min {}, median {}, p95 {}, p99 {}, max {}, {} successful tasks)",
            duration(stats.mean),
            duration(stats.deviation),
            duration(stats.min),
            duration(stats.median),
            duration(stats.p95),
            duration(stats.p99),
            duration(stats.max),
            sorted.sorted.len()
        ));
        report
            .lines
            .extend(guest_cpu.line(&participant, what, stats.median));
        if let Some(outliers) = sorted.far_outliers() {
            report.warnings.push(format!(
                "Warning: {participant}: {outliers} of {} {what} samples are far outliers (beyond 3 \u{d7} the interquartile range): other work on the machine may have interfered; run again on a quieter machine",
                sorted.sorted.len()
            ));
        }
        if let Some((first, factor)) = sorted.slow_start {
            report.warnings.push(format!(
                "Warning: {participant}: the first {first} tasks took {factor:.1}\u{d7} the median {what} of the rest (a cold start?): --warmup {first} runs such tasks first and leaves them out of the summary"
            ));
        }
    }
    report
}

/// `response time` in an open-model run (what its summary leads with), else `latency`,
/// with the summary metric of that name.
fn latency_name(manifest: &RunManifest) -> (&'static str, &'static str) {
    if manifest.load.as_ref().is_some_and(|load| load.is_open()) {
        ("response time", RESPONSE_TIME)
    } else {
        ("latency", LATENCY)
    }
}

/// One participant's latencies of successful tasks, in milliseconds, in the order the
/// tasks finished: one `f64` column (8 bytes a task), so the percentiles are exact.
#[derive(Debug, Clone, Default)]
pub(crate) struct LatencySamples {
    samples: Vec<f64>,
}

impl LatencySamples {
    /// Takes a finished task's latency when it succeeded: its response time when it ran on
    /// an arrival schedule, else its `durationUs` when the record has one (a fast task
    /// shows microseconds), else its whole-millisecond `latencyMs`.
    pub(crate) fn add(&mut self, record: &TaskRecord) {
        let ms = record.arrival.as_ref().map_or_else(
            || record.fine_latency_ms(),
            |arrival| arrival.response_time_ms,
        );
        if record.is_success() && ms.is_finite() {
            self.samples.push(ms);
        }
    }

    /// The samples sorted in place, with what needs them in finishing order (mean and
    /// deviation, the slow-start check); `None` without samples.
    fn into_sorted(self) -> Option<SortedLatencies> {
        let mut samples = self.samples;
        let count = samples.len();
        if count == 0 {
            return None;
        }
        let mean = samples.iter().sum::<f64>() / count as f64;
        let deviation = if count > 1 {
            let squares: f64 = samples.iter().map(|ms| (ms - mean).powi(2)).sum();
            (squares / (count - 1) as f64).sqrt()
        } else {
            0.0
        };
        let slow_start = slow_start(&mut samples);
        // Unstable: in place, no scratch buffer the size of the column.
        samples.sort_unstable_by(f64::total_cmp);
        Some(SortedLatencies {
            sorted: samples,
            mean,
            deviation,
            slow_start,
        })
    }
}

/// The first tenth of the tasks (1 to 10 of them) and how many times the rest's median
/// their median is, when it is at least [`SLOW_START_FACTOR`]. Sorts the rest in place.
fn slow_start(samples: &mut [f64]) -> Option<(usize, f64)> {
    let count = samples.len();
    if count < WARNING_MIN_SAMPLES {
        return None;
    }
    let first = (count / 10).clamp(1, 10);
    let (head, rest) = samples.split_at_mut(first);
    let mut head = head.to_vec();
    head.sort_unstable_by(f64::total_cmp);
    rest.sort_unstable_by(f64::total_cmp);
    let (head, rest) = (median(&head), median(rest));
    let factor = head / rest;
    (rest > 0.0 && factor >= SLOW_START_FACTOR).then_some((first, factor))
}

/// A participant's latencies sorted, with what was taken in finishing order.
struct SortedLatencies {
    sorted: Vec<f64>,
    mean: f64,
    deviation: f64,
    /// The first tasks and how much slower they were, when that calls for a warning.
    slow_start: Option<(usize, f64)>,
}

impl SortedLatencies {
    /// Mean, sample standard deviation and order statistics.
    fn spread(&self) -> Spread {
        let sorted = &self.sorted;
        Spread {
            mean: self.mean,
            deviation: self.deviation,
            min: sorted[0],
            median: median(sorted),
            p95: percentile(sorted, 95.0),
            p99: percentile(sorted, 99.0),
            max: sorted[sorted.len() - 1],
        }
    }

    /// How many samples lie beyond Tukey's far-out fences, when they are at least
    /// [`OUTLIER_SHARE`] of enough samples; `None` otherwise, and when the quartiles are
    /// equal (whole-millisecond latencies of a fast task in an older record).
    fn far_outliers(&self) -> Option<usize> {
        let sorted = &self.sorted;
        if sorted.len() < WARNING_MIN_SAMPLES {
            return None;
        }
        let (q1, q3) = (percentile(sorted, 25.0), percentile(sorted, 75.0));
        let iqr = q3 - q1;
        if iqr <= 0.0 {
            return None;
        }
        let (low, high) = (q1 - FAR_OUT_FENCE * iqr, q3 + FAR_OUT_FENCE * iqr);
        let outliers = sorted.iter().filter(|&&ms| ms < low || ms > high).count();
        (outliers >= 2 && outliers as f64 >= OUTLIER_SHARE * sorted.len() as f64)
            .then_some(outliers)
    }
}

/// Mean, sample standard deviation and order statistics of a participant's latencies.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Spread {
    mean: f64,
    deviation: f64,
    min: f64,
    median: f64,
    p95: f64,
    p99: f64,
    max: f64,
}

/// Seconds from `startedAt` to `completedAt`, once the run is over.
fn elapsed_seconds(manifest: &RunManifest) -> Option<f64> {
    let start = DateTime::parse_from_rfc3339(&manifest.started_at).ok()?;
    let end = DateTime::parse_from_rfc3339(manifest.completed_at.as_deref()?).ok()?;
    Some((end - start).num_milliseconds().max(0) as f64 / 1000.0)
}

/// Milliseconds in a unit that fits: `850 µs`, `12.3 ms`, `1.23 s`, `2 m 05 s` (`durationUs`
/// times tasks to the nanosecond; older records' whole milliseconds show as such).
pub(super) fn duration(ms: f64) -> String {
    if ms < 1.0 {
        format!("{} \u{b5}s", three_digits(ms * 1000.0))
    } else if ms < 1000.0 {
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
    use bench_model::plan::test_manifest;
    use bench_model::record::Status;
    use serde_json::json;

    fn record(latency_ms: f64, status: Status) -> TaskRecord {
        TaskRecord::bare(0, status, latency_ms)
    }

    #[test]
    fn durations_take_a_unit_that_fits() {
        assert_eq!(duration(0.25), "250 \u{b5}s");
        assert_eq!(duration(0.001234), "1.23 \u{b5}s");
        assert_eq!(duration(0.0), "0 \u{b5}s");
        assert_eq!(duration(1.0), "1 ms");
        assert_eq!(duration(12.34), "12.3 ms");
        assert_eq!(duration(123.4), "123 ms");
        assert_eq!(duration(1500.0), "1.5 s");
        assert_eq!(duration(125_000.0), "2 m 05 s");
    }

    fn samples(values: &[f64]) -> LatencySamples {
        LatencySamples {
            samples: values.to_vec(),
        }
    }

    #[test]
    fn the_spread_is_the_mean_sample_deviation_and_order_statistics() {
        let spread = samples(&[9.0, 4.0, 4.0, 2.0, 5.0, 5.0, 7.0, 4.0])
            .into_sorted()
            .unwrap()
            .spread();
        assert_eq!(
            (spread.mean, spread.min, spread.median, spread.max),
            (5.0, 2.0, 4.5, 9.0)
        );
        assert_eq!((spread.p95, spread.p99), (9.0, 9.0));
        assert!((spread.deviation - 2.138).abs() < 0.001);
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        let spread = samples(&hundred).into_sorted().unwrap().spread();
        assert_eq!((spread.median, spread.p95, spread.p99), (50.5, 95.0, 99.0));
        assert_eq!(
            samples(&[3.0]).into_sorted().unwrap().spread().deviation,
            0.0
        );
        assert!(LatencySamples::default().into_sorted().is_none());
    }

    fn outliers(values: &[f64]) -> Option<usize> {
        samples(values).into_sorted().unwrap().far_outliers()
    }

    #[test]
    fn far_outliers_warn_only_when_they_are_many() {
        let steady: Vec<f64> = (0..100).map(|i| 10.0 + f64::from(i % 5)).collect();
        assert_eq!(outliers(&steady), None);
        let mut spiky = steady.clone();
        spiky[40] = 500.0;
        assert_eq!(outliers(&spiky), None, "one spike is no pattern");
        spiky[70] = 400.0;
        assert_eq!(outliers(&spiky), Some(2));
        // Whole-millisecond latencies of a fast task: equal quartiles say nothing.
        let mut flat = vec![0.0; 100];
        flat[3] = 1.0;
        flat[9] = 1.0;
        assert_eq!(outliers(&flat), None);
        assert_eq!(outliers(&spiky[..19]), None);
    }

    #[test]
    fn a_slow_start_names_the_first_tasks_and_how_much_slower_they_were() {
        let mut cold: Vec<f64> = vec![10.0; 50];
        for ms in &mut cold[..5] {
            *ms = 35.0;
        }
        assert_eq!(slow_start(&mut cold.clone()), Some((5, 3.5)));
        cold[..5].fill(15.0);
        assert_eq!(slow_start(&mut cold.clone()), None);
        assert_eq!(slow_start(&mut [0.0; 50]), None);
    }

    fn fast(duration_us: f64) -> TaskRecord {
        let mut record = record(0.0, Status::Success);
        record.duration_us = Some(duration_us);
        record
    }

    #[test]
    fn a_run_shows_its_elapsed_time_throughput_and_each_participant_s_latency() {
        let manifest = test_manifest(json!({
            "startedAt": "2026-01-01T00:00:00.000Z",
            "completedAt": "2026-01-01T00:00:02.000Z",
        }));
        let mut tally = RunTally::new(&manifest);
        assert_eq!(
            timing_report(&manifest, &mut tally),
            TimingReport::default()
        );
        tally.add("alpha", &record(10.0, Status::Success));
        tally.add("alpha", &record(14.0, Status::Success));
        tally.add("alpha", &record(900.0, Status::Error));
        tally.add("beta", &record(5.0, Status::Error));
        tally.add("gamma", &fast(350.0));
        tally.add("gamma", &fast(250.0));
        let report = timing_report(&manifest, &mut tally);
        assert_eq!(
            report.lines,
            [
                "Elapsed: 2 s for 6 tasks (3.0 tasks/s)",
                "  alpha: latency 12 ms \u{b1} 2.83 ms (min 10 ms, median 12 ms, p95 14 ms, p99 14 ms, max 14 ms, 2 successful tasks)",
                "  gamma: latency 300 \u{b5}s \u{b1} 70.7 \u{b5}s (min 250 \u{b5}s, median 300 \u{b5}s, p95 350 \u{b5}s, p99 350 \u{b5}s, max 350 \u{b5}s, 2 successful tasks)",
            ]
        );
        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert_eq!(report.fine_median("gamma", "latencyMs"), Some(0.3));
        assert_eq!(report.fine_median("alpha", "latencyMs"), Some(12.0));
        assert_eq!(report.fine_median("gamma", "responseTimeMs"), None);
        assert_eq!(report.fine_median("beta", "latencyMs"), None);
    }

    #[test]
    fn the_warnings_see_the_microseconds_of_fast_tasks() {
        let manifest = test_manifest(json!({"startedAt": "2026-01-01T00:00:00.000Z"}));
        let mut tally = RunTally::new(&manifest);
        for i in 0..100 {
            let us = match i {
                0..=4 => 90.0,
                40 | 70 => 400.0,
                _ => 10.0 + f64::from(i % 5),
            };
            tally.add("fast", &fast(us));
        }
        let report = timing_report(&manifest, &mut tally);
        assert_eq!(
            report.warnings,
            [
                "Warning: fast: 7 of 100 latency samples are far outliers (beyond 3 \u{d7} the interquartile range): other work on the machine may have interfered; run again on a quieter machine",
                "Warning: fast: the first 10 tasks took 4.3\u{d7} the median latency of the rest (a cold start?): --warmup 10 runs such tasks first and leaves them out of the summary",
            ]
        );
    }
}
