//! The bootstrap confidence interval of a ratio of medians: both samples are resampled
//! with replacement, independently, `resamples` times from a seeded PCG stream; the ratio
//! `median(B*) / median(A*)` of each pair of resamples forms the bootstrap distribution,
//! whose percentiles are the interval's ends (the percentile method).
//!
//! Only the median of a resample matters, and it is drawn directly rather than by drawing
//! `n` values and selecting their middle: a resample is `n` uniform draws `Uᵢ` mapped to the
//! sorted sample as `x₍⌊Uᵢ·n⌋₎`, a monotone map, so its `k`-th smallest value is
//! `x₍⌊U₍ₖ₎·n⌋₎` where the order statistic `U₍ₖ₎ ~ Beta(k, n − k + 1)`; the next one is
//! `U₍ₖ₊₁₎ = U₍ₖ₎ + (1 − U₍ₖ₎)·Beta(1, n − k)`. The median (`k = ⌈n/2⌉`, the mean of the
//! `k`-th and `k+1`-th for an even `n`) then has exactly its bootstrap distribution, at a
//! cost that does not grow with `n`.

use rand_distr::{Beta, Distribution as _};
use rand_pcg::rand_core::SeedableRng as _;
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
    let baseline = ResampledMedian::new(baseline);
    let candidate = ResampledMedian::new(candidate);
    let mut rng = Pcg64::seed_from_u64(settings.seed);
    let mut ratios: Vec<f64> = (0..settings.resamples)
        .map(|_| {
            let a = baseline.draw(&mut rng);
            candidate.draw(&mut rng) / a
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let tail = (1.0 - settings.confidence) / 2.0;
    RatioInterval {
        ratio: candidate.median() / baseline.median(),
        low: linear_quantile(&ratios, tail),
        high: linear_quantile(&ratios, 1.0 - tail),
    }
}

/// The median of a bootstrap resample of one sample, drawn through its order statistics.
struct ResampledMedian {
    sorted: Vec<f64>,
    /// `U₍ₖ₎ ~ Beta(k, n − k + 1)`, `k = ⌈n/2⌉`.
    lower_middle: Beta<f64>,
    /// For an even `n`: the gap to `U₍ₖ₊₁₎`, as a share of `1 − U₍ₖ₎` (`Beta(1, n − k)`).
    upper_gap: Option<Beta<f64>>,
}

impl ResampledMedian {
    /// Sorts a non-empty sample.
    fn new(sample: &[f64]) -> Self {
        let mut sorted = sample.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let k = n.div_ceil(2);
        let beta =
            |a: usize, b: usize| Beta::new(a as f64, b as f64).expect("both shapes are at least 1");
        Self {
            lower_middle: beta(k, n - k + 1),
            upper_gap: n.is_multiple_of(2).then(|| beta(1, n - k)),
            sorted,
        }
    }

    /// The median of the sample itself.
    fn median(&self) -> f64 {
        sorted_median(&self.sorted)
    }

    /// The median of one resample.
    fn draw(&self, rng: &mut Pcg64) -> f64 {
        let u = self.lower_middle.sample(rng);
        let lower = self.value_at(u);
        match &self.upper_gap {
            None => lower,
            Some(gap) => (lower + self.value_at(u + (1.0 - u) * gap.sample(rng))) / 2.0,
        }
    }

    /// The sample value a uniform draw `u` in [0, 1) picks.
    fn value_at(&self, u: f64) -> f64 {
        let n = self.sorted.len();
        self.sorted[((u * n as f64) as usize).min(n - 1)]
    }
}

/// The median of a non-empty sample: the middle value, or the mean of the two middle
/// values of an even count.
pub(crate) fn median(sample: &[f64]) -> f64 {
    let mut sorted = sample.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted_median(&sorted)
}

/// The median of a non-empty sorted sample.
fn sorted_median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n.is_multiple_of(2) {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    } else {
        sorted[n / 2]
    }
}

/// The `q`-quantile (0..=1) of sorted values, interpolated linearly between the two
/// nearest ranks (NumPy's default `linear` method).
fn linear_quantile(sorted: &[f64], q: f64) -> f64 {
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
    use std::collections::BTreeMap;

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

    /// The share of each value among the medians of all `nⁿ` resamples of `sample`.
    fn exact_median_shares(sample: &[f64]) -> BTreeMap<u64, f64> {
        let n = sample.len();
        let total = n.pow(n as u32);
        let mut shares = BTreeMap::new();
        for code in 0..total {
            let resample: Vec<f64> = (0..n).map(|i| sample[code / n.pow(i as u32) % n]).collect();
            *shares.entry(median(&resample).to_bits()).or_insert(0.0) += 1.0 / total as f64;
        }
        shares
    }

    #[test]
    fn drawn_medians_follow_the_exact_bootstrap_distribution() {
        for sample in [&[3.0, 1.0, 4.0, 1.5][..], &[2.0, 7.0, 1.0, 8.0, 2.5]] {
            let exact = exact_median_shares(sample);
            let sampler = ResampledMedian::new(sample);
            let mut rng = Pcg64::seed_from_u64(3);
            let draws = 200_000;
            let mut drawn: BTreeMap<u64, f64> = BTreeMap::new();
            for _ in 0..draws {
                *drawn.entry(sampler.draw(&mut rng).to_bits()).or_insert(0.0) +=
                    1.0 / f64::from(draws);
            }
            assert_eq!(
                drawn.keys().collect::<Vec<_>>(),
                exact.keys().collect::<Vec<_>>(),
                "{sample:?}"
            );
            for (value, share) in &exact {
                let seen = drawn[value];
                assert!(
                    (seen - share).abs() < 0.005,
                    "{sample:?}: median {} drawn {seen}, exactly {share}",
                    f64::from_bits(*value)
                );
            }
        }
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[9.0, 1.0, 5.0]), 5.0);
        assert_eq!(median(&[7.0]), 7.0);
    }

    #[test]
    fn percentiles_interpolate_between_ranks_as_numpy_does() {
        let sorted = [1.0, 2.0, 3.0, 4.0];
        // numpy.linear_quantile([1, 2, 3, 4], [2.5, 50, 97.5]) → 1.075, 2.5, 3.925
        assert!((linear_quantile(&sorted, 0.025) - 1.075).abs() < 1e-12);
        assert_eq!(linear_quantile(&sorted, 0.5), 2.5);
        assert!((linear_quantile(&sorted, 0.975) - 3.925).abs() < 1e-12);
    }
}
