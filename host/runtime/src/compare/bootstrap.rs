//! The bootstrap confidence interval of a ratio of medians: both samples are resampled
//! with replacement, independently, `resamples` times from a seeded PCG stream; the ratio
//! `median(B*) / median(A*)` of each pair of resamples forms the bootstrap distribution,
//! whose percentiles are the interval's ends (the percentile method).

use rand::{RngExt as _, SeedableRng as _};
use rand_pcg::Pcg64;
use serde::Serialize;
use std::cmp::Ordering;

/// The ratio of two medians and its bootstrap confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RatioInterval {
    /// `median(B) / median(A)` of the samples themselves.
    pub ratio: f64,
    /// The lower end of the interval.
    pub low: f64,
    /// The upper end of the interval.
    pub high: f64,
}

/// How the interval is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapSettings {
    /// Resamples of each sample.
    pub resamples: usize,
    /// The interval's confidence level, e.g. 0.95.
    pub confidence: f64,
    /// The seed of the random stream: the same seed and samples give the same interval.
    pub seed: u64,
}

/// The ratio `median(candidate) / median(baseline)` with its percentile bootstrap interval.
/// Both samples must be non-empty and the baseline's median non-zero (the caller checks).
/// Every call starts its own stream from `settings.seed`, so each interval can be
/// reproduced on its own.
pub(crate) fn ratio_of_medians(
    baseline: &[f64],
    candidate: &[f64],
    settings: &BootstrapSettings,
) -> RatioInterval {
    let ratio = median(&mut candidate.to_vec()) / median(&mut baseline.to_vec());
    let mut rng = Pcg64::seed_from_u64(settings.seed);
    let mut resample_a = vec![0.0; baseline.len()];
    let mut resample_b = vec![0.0; candidate.len()];
    let mut ratios: Vec<f64> = (0..settings.resamples)
        .map(|_| {
            resample(baseline, &mut resample_a, &mut rng);
            resample(candidate, &mut resample_b, &mut rng);
            median(&mut resample_b) / median(&mut resample_a)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - settings.confidence) / 2.0;
    RatioInterval {
        ratio,
        low: percentile(&ratios, tail),
        high: percentile(&ratios, 1.0 - tail),
    }
}

/// Fills `out` with `out.len()` values drawn from `sample` with replacement.
fn resample(sample: &[f64], out: &mut [f64], rng: &mut Pcg64) {
    for slot in out {
        *slot = sample[rng.random_range(0..sample.len())];
    }
}

/// The median of a non-empty sample (the mean of the two middle values of an even count),
/// reordering it.
pub(crate) fn median(sample: &mut [f64]) -> f64 {
    let mid = sample.len() / 2;
    let odd = !sample.len().is_multiple_of(2);
    let (lower, upper, _) = sample.select_nth_unstable_by(mid, f64::total_cmp);
    let upper = *upper;
    if odd {
        return upper;
    }
    let below = lower
        .iter()
        .copied()
        .max_by(f64::total_cmp)
        .expect("an even, non-empty sample has a lower half");
    (below + upper) / 2.0
}

/// The `q`-quantile (0..=1) of sorted values, interpolated linearly between the two
/// nearest ranks (NumPy's default `linear` method).
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let fraction = position - below as f64;
    match sorted[below].partial_cmp(&sorted[above]) {
        Some(Ordering::Equal) => sorted[below],
        _ => sorted[below] + (sorted[above] - sorted[below]) * fraction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 40 samples around 100 and 40 around 123, as the reference script builds them.
    fn reference_samples() -> (Vec<f64>, Vec<f64>) {
        let a = (0..40u32)
            .map(|i| f64::from(100 + (i * 37) % 23) - 11.0)
            .collect();
        let b = (0..40u32)
            .map(|i| 1.2 * (f64::from(100 + (i * 29) % 23) - 11.0) + f64::from((i * 13) % 7))
            .collect();
        (a, b)
    }

    fn settings(seed: u64) -> BootstrapSettings {
        BootstrapSettings {
            resamples: 10_000,
            confidence: 0.95,
            seed,
        }
    }

    /// The reference values come from SciPy 1.17.1 / NumPy 2.4.6 (`pip install scipy`):
    ///
    /// ```text
    /// python3 -c "
    /// import numpy as np; from scipy import stats
    /// a=[100+((i*37)%23)-11 for i in range(40)]
    /// b=[1.2*(100+((i*29)%23)-11)+((i*13)%7) for i in range(40)]
    /// print(repr(float(np.median(b)/np.median(a))))
    /// r=stats.bootstrap((a,b), lambda x,y: np.median(y)/np.median(x), paired=False,
    ///     vectorized=False, n_resamples=10000, method='percentile', confidence_level=0.95,
    ///     random_state=np.random.default_rng(7))
    /// print(repr(float(r.confidence_interval.low)), repr(float(r.confidence_interval.high)))"
    /// ```
    ///
    /// → `1.2309999999999999`, then `1.1650485436893203 1.290721649484536` (over seeds 0–4
    /// SciPy's upper end moves between 1.2896 and 1.2921).
    #[test]
    fn the_ratio_is_exact_and_the_interval_matches_scipy_bootstrap() {
        let (a, b) = reference_samples();
        let interval = ratio_of_medians(&a, &b, &settings(1));
        assert_eq!(interval.ratio, 1.2309999999999999);
        let (scipy_low, scipy_high) = (1.1650485436893203, 1.290721649484536);
        assert!(
            (interval.low - scipy_low).abs() < 0.005 && (interval.high - scipy_high).abs() < 0.005,
            "{interval:?} against SciPy's [{scipy_low}, {scipy_high}]"
        );
    }

    #[test]
    fn a_seed_reproduces_its_interval_and_another_seed_draws_another() {
        let (a, b) = reference_samples();
        let first = ratio_of_medians(&a, &b, &settings(42));
        assert_eq!(ratio_of_medians(&a, &b, &settings(42)), first);
        let other = ratio_of_medians(&a, &b, &settings(43));
        assert_eq!(other.ratio, first.ratio);
        assert_ne!((other.low, other.high), (first.low, first.high));
    }

    #[test]
    fn identical_constant_samples_give_a_point_interval_at_one() {
        let same = [5.0; 7];
        let interval = ratio_of_medians(&same, &same, &settings(1));
        assert_eq!(
            (interval.ratio, interval.low, interval.high),
            (1.0, 1.0, 1.0)
        );
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut [9.0, 1.0, 5.0]), 5.0);
        assert_eq!(median(&mut [7.0]), 7.0);
    }

    #[test]
    fn percentiles_interpolate_between_ranks_as_numpy_does() {
        let sorted = [1.0, 2.0, 3.0, 4.0];
        // numpy.percentile([1, 2, 3, 4], [2.5, 50, 97.5]) → 1.075, 2.5, 3.925
        assert!((percentile(&sorted, 0.025) - 1.075).abs() < 1e-12);
        assert_eq!(percentile(&sorted, 0.5), 2.5);
        assert!((percentile(&sorted, 0.975) - 3.925).abs() < 1e-12);
    }
}
