//! The timing lines printed under the summary table: the run's elapsed time and throughput
//! (from `run.json`'s start and end), and each participant's task latency as mean ± standard
//! deviation with its minimum, median, p95, p99 and maximum, in a unit that fits, with its
//! guest CPU under it (`guest_cpu`); and the warnings its samples call for (many far
//! outliers, a slow start, a scored metric that measures the guest's CPU). Computed from the saved
//! run alone, so `bench report` prints the same lines.

use super::durations::duration;
use super::tally::RunTally;
use bench_model::metric::{LATENCY, RESPONSE_TIME};
use bench_model::plan::RunManifest;
use bench_model::text::escape_control;
use chrono::DateTime;
use std::collections::HashMap;

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

/// Seconds from `startedAt` to `completedAt`, once the run is over.
fn elapsed_seconds(manifest: &RunManifest) -> Option<f64> {
    let start = DateTime::parse_from_rfc3339(&manifest.started_at).ok()?;
    let end = DateTime::parse_from_rfc3339(manifest.completed_at.as_deref()?).ok()?;
    Some((end - start).num_milliseconds().max(0) as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bench_model::plan::test_manifest;
    use bench_model::record::{Status, TaskRecord};
    use serde_json::json;

    fn record(latency_ms: f64, status: Status) -> TaskRecord {
        TaskRecord::bare(0, status, latency_ms)
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
