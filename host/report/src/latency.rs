//! One participant's task latencies as the timing lines read them: an `f64` column of its
//! successful tasks at the records' finest resolution, sorted once into the mean, sample
//! deviation and order statistics, Tukey's far outliers and a slow start.

use crate::scoring::{median, nearest_rank_percentile};
use bench_model::record::TaskRecord;

/// Tukey's far-out fence: a sample beyond this many interquartile ranges outside the
/// quartiles is an outlier.
const FAR_OUT_FENCE: f64 = 3.0;
/// The share of outliers from which a participant's latency gets a warning.
const OUTLIER_SHARE: f64 = 0.01;
/// How many times slower than the rest's median the first tasks must be for a warning.
const SLOW_START_FACTOR: f64 = 2.0;
/// The fewest samples the warnings look at.
const WARNING_MIN_SAMPLES: usize = 20;

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
    pub(super) fn into_sorted(self) -> Option<SortedLatencies> {
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
pub(super) struct SortedLatencies {
    /// The samples, in ascending order.
    pub sorted: Vec<f64>,
    mean: f64,
    deviation: f64,
    /// The first tasks and how much slower they were, when that calls for a warning.
    pub slow_start: Option<(usize, f64)>,
}

impl SortedLatencies {
    /// Mean, sample standard deviation and order statistics.
    pub(super) fn spread(&self) -> Spread {
        let sorted = &self.sorted;
        Spread {
            mean: self.mean,
            deviation: self.deviation,
            min: sorted[0],
            median: median(sorted),
            p95: nearest_rank_percentile(sorted, 95.0),
            p99: nearest_rank_percentile(sorted, 99.0),
            max: sorted[sorted.len() - 1],
        }
    }

    /// How many samples lie beyond Tukey's far-out fences, when they are at least
    /// [`OUTLIER_SHARE`] of enough samples; `None` otherwise, and when the quartiles are
    /// equal (whole-millisecond latencies of a fast task in an older record).
    pub(super) fn far_outliers(&self) -> Option<usize> {
        let sorted = &self.sorted;
        if sorted.len() < WARNING_MIN_SAMPLES {
            return None;
        }
        let (q1, q3) = (
            nearest_rank_percentile(sorted, 25.0),
            nearest_rank_percentile(sorted, 75.0),
        );
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
pub(super) struct Spread {
    pub mean: f64,
    pub deviation: f64,
    pub min: f64,
    pub median: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
