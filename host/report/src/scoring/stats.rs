//! Samples and summary statistics (spec §4.2, §4.3): finite numbers gathered from record
//! data, a symmetric trim, the median and nearest-rank percentiles.

use serde_json::Value;
use std::cmp::Ordering;

/// The share of samples trimmed from each end when a metric declares no `trim`.
pub(crate) const DEFAULT_TRIM: f64 = 0.05;

/// Median and tail percentiles of one metric's samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// The middle sample, or the mean of the two middle samples.
    pub median: f64,
    /// The nearest-rank 95th percentile.
    pub p95: f64,
    /// The nearest-rank 99th percentile.
    pub p99: f64,
}

/// Appends the samples one data value holds to `out`: a finite number is one sample, an
/// array gives each of its finite number elements, anything else (strings, booleans, null,
/// objects) gives none.
pub(crate) fn push_samples(value: &Value, out: &mut Vec<f64>) {
    match value {
        Value::Array(items) => out.extend(items.iter().filter_map(finite_number)),
        value => out.extend(finite_number(value)),
    }
}

fn finite_number(value: &Value) -> Option<f64> {
    value.as_f64().filter(|x| x.is_finite())
}

/// Sorts the samples in place, drops `floor(n × trim)` of them from each end (only when
/// that leaves at least one), and returns the median and the nearest-rank p95 and p99 of
/// what is kept. No samples give all zeros.
pub(crate) fn compute_stats(samples: &mut [f64], trim: f64) -> Stats {
    if samples.is_empty() {
        return Stats {
            median: 0.0,
            p95: 0.0,
            p99: 0.0,
        };
    }
    // Stable, with ±0 comparing equal, as JavaScript's `sort((a, b) => a - b)`.
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap_or(Ordering::Equal));
    let kept = trimmed(samples, trim);
    Stats {
        median: median(kept),
        p95: nearest_rank_percentile(kept, 95.0),
        p99: nearest_rank_percentile(kept, 99.0),
    }
}

/// The sorted samples without `floor(n × trim)` values at each end; all of them when that
/// count is not positive or would leave nothing (a trim ≥ 0.5, a negative or NaN trim).
fn trimmed(sorted: &[f64], trim: f64) -> &[f64] {
    let n = sorted.len() as f64;
    let trim_count = (n * trim).floor();
    if trim_count > 0.0 && n - 2.0 * trim_count > 0.0 {
        let cut = trim_count as usize;
        &sorted[cut..sorted.len() - cut]
    } else {
        sorted
    }
}

/// Median of a non-empty sorted list.
pub(crate) fn median(sorted: &[f64]) -> f64 {
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

/// Nearest-rank percentile of a non-empty sorted list, not interpolated:
/// index `max(0, ceil((p / 100) × m) − 1)`, capped at `m − 1`, evaluated in f64 in that
/// order (it decides exact ties such as 95% of 20).
pub(crate) fn nearest_rank_percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() - 1.0;
    let index = (rank.max(0.0) as usize).min(sorted.len() - 1);
    sorted[index]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scoring::test_support::record;
    use bench_model::record::Status;
    use serde_json::json;

    fn one_to(n: u32) -> Vec<f64> {
        (1..=n).map(f64::from).collect()
    }

    #[test]
    fn percentile_and_trim_table() {
        // (n, median, p95, p99) for the samples 1..=n with the default trim.
        let table = [
            (1, 1.0, 1.0, 1.0),
            (2, 1.5, 2.0, 2.0),
            (3, 2.0, 3.0, 3.0),
            (5, 3.0, 5.0, 5.0),
            (10, 5.5, 10.0, 10.0),
            (19, 10.0, 19.0, 19.0),
            (20, 10.5, 19.0, 19.0),
            (21, 11.0, 20.0, 20.0),
            (100, 50.5, 91.0, 95.0),
        ];
        for (n, median, p95, p99) in table {
            let stats = compute_stats(&mut one_to(n), DEFAULT_TRIM);
            assert_eq!(stats, Stats { median, p95, p99 }, "n = {n}");
        }
    }

    #[test]
    fn trim_keeps_the_table_counts() {
        assert_eq!(trimmed(&one_to(19), DEFAULT_TRIM), one_to(19).as_slice());
        assert_eq!(trimmed(&one_to(20), DEFAULT_TRIM), &one_to(20)[1..19]);
        assert_eq!(trimmed(&one_to(21), DEFAULT_TRIM), &one_to(21)[1..20]);
        assert_eq!(trimmed(&one_to(100), DEFAULT_TRIM), &one_to(100)[5..95]);
    }

    #[test]
    fn out_of_range_trims_keep_every_sample() {
        for trim in [0.5, 0.9, -0.2, f64::NAN, 0.0] {
            assert_eq!(trimmed(&one_to(10), trim), one_to(10).as_slice(), "{trim}");
        }
        assert_eq!(trimmed(&one_to(10), 0.49), &one_to(10)[4..6]);
    }

    #[test]
    fn unsorted_input_is_sorted_first() {
        let stats = compute_stats(&mut [500.0, 100.0, 300.0, 200.0, 400.0], DEFAULT_TRIM);
        assert_eq!(
            stats,
            Stats {
                median: 300.0,
                p95: 500.0,
                p99: 500.0
            }
        );
    }

    #[test]
    fn no_samples_give_zeros() {
        assert_eq!(
            compute_stats(&mut [], DEFAULT_TRIM),
            Stats {
                median: 0.0,
                p95: 0.0,
                p99: 0.0
            }
        );
    }

    #[test]
    fn samples_are_finite_numbers_and_number_array_elements() {
        let records = [
            record(Status::Success, json!({"ms": 5})),
            record(
                Status::Success,
                json!({"ms": [1.5, "2", null, 3, true, [4]]}),
            ),
            record(Status::Success, json!({"ms": "7"})),
            record(Status::Success, json!({"ms": false})),
            record(Status::Success, json!({"ms": null})),
            record(Status::Success, json!({"ms": {"value": 8}})),
            record(Status::Success, json!({"other": 9})),
            record(Status::Success, Value::Null),
            record(Status::Success, json!({"ms": 10.25})),
        ];
        let mut samples = Vec::new();
        for data in records.iter().filter_map(|record| record.data.as_ref()) {
            if let Some(value) = data.get("ms") {
                push_samples(value, &mut samples);
            }
        }
        assert_eq!(samples, vec![5.0, 1.5, 3.0, 10.25]);
    }
}
