//! The Mann–Whitney U test of two independent samples, two-sided, by the normal
//! approximation with tie and continuity corrections — what
//! `scipy.stats.mannwhitneyu(a, b, alternative='two-sided', method='asymptotic')` computes.

use std::cmp::Ordering;

/// The U statistic of the first sample and the two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct MannWhitney {
    /// `R₁ − n₁(n₁+1)/2`, where `R₁` is the first sample's rank sum (ties get their mean
    /// rank).
    pub u: f64,
    /// The probability of a U at least this far from `n₁n₂/2` when both samples come from
    /// one distribution.
    pub p_value: f64,
}

/// Tests whether `a` and `b` (both non-empty) come from one distribution:
///
/// - `U₁ = R₁ − n₁(n₁+1)/2`, `U = max(U₁, n₁n₂ − U₁)`, `μ = n₁n₂/2`;
/// - `σ = √(n₁n₂/12 · ((n+1) − Σ(t³−t) / (n(n−1))))` over the sizes `t` of tied groups;
/// - `z = (U − μ − ½) / σ`, `p = min(1, 2·(1 − Φ(z)))` (`p = 1` when every value ties).
pub(crate) fn mann_whitney_u(a: &[f64], b: &[f64]) -> MannWhitney {
    let (n1, n2) = (a.len() as f64, b.len() as f64);
    let n = n1 + n2;
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap_or(Ordering::Equal));
    let mut rank_sum_a = 0.0;
    let mut tie_sum = 0.0;
    let mut start = 0;
    while start < pooled.len() {
        let end = start
            + pooled[start..]
                .iter()
                .take_while(|(x, _)| *x == pooled[start].0)
                .count();
        // Ranks start+1 ..= end share their mean.
        let mean_rank = (start + 1 + end) as f64 / 2.0;
        let from_a = pooled[start..end].iter().filter(|(_, in_a)| *in_a).count();
        rank_sum_a += mean_rank * from_a as f64;
        let t = (end - start) as f64;
        tie_sum += t * t * t - t;
        start = end;
    }
    let u1 = rank_sum_a - n1 * (n1 + 1.0) / 2.0;
    let u = u1.max(n1 * n2 - u1);
    let mu = n1 * n2 / 2.0;
    let sigma = (n1 * n2 / 12.0 * ((n + 1.0) - tie_sum / (n * (n - 1.0)))).sqrt();
    let z = (u - mu - 0.5) / sigma;
    let p_value = if z.is_nan() {
        1.0
    } else {
        (2.0 * normal_survival(z)).min(1.0)
    };
    MannWhitney { u: u1, p_value }
}

/// `1 − Φ(z)` of the standard normal distribution.
fn normal_survival(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference values come from SciPy 1.17.1 (`pip install scipy`):
    ///
    /// ```text
    /// python3 -c "
    /// from scipy import stats
    /// t=lambda a,b: stats.mannwhitneyu(a,b,alternative='two-sided',method='asymptotic')
    /// r=t([1.2,3.4,2.2,5.0,3.4,1.1,4.8,2.2],[3.4,6.1,5.5,2.2,7.3,4.9,6.6])
    /// print(repr(float(r.statistic)), repr(float(r.pvalue)))
    /// r=t([((i*37)%101)/10 for i in range(20)],[((i*53)%97)/10+1 for i in range(25)])
    /// print(repr(float(r.statistic)), repr(float(r.pvalue)))
    /// print(t([5.0]*4,[5.0]*3))"
    /// ```
    ///
    /// → `9.0 0.031051089619570944`, `235.0 0.7404579326122698`, then U 6.0 and p 1.0.
    #[test]
    fn u_and_p_match_scipy_mannwhitneyu_asymptotic() {
        let tied = mann_whitney_u(
            &[1.2, 3.4, 2.2, 5.0, 3.4, 1.1, 4.8, 2.2],
            &[3.4, 6.1, 5.5, 2.2, 7.3, 4.9, 6.6],
        );
        assert_eq!(tied.u, 9.0);
        assert!(
            (tied.p_value - 0.031051089619570944).abs() < 1e-12,
            "{tied:?}"
        );

        let a: Vec<f64> = (0..20u32)
            .map(|i| f64::from((i * 37) % 101) / 10.0)
            .collect();
        let b: Vec<f64> = (0..25u32)
            .map(|i| f64::from((i * 53) % 97) / 10.0 + 1.0)
            .collect();
        let spread = mann_whitney_u(&a, &b);
        assert_eq!(spread.u, 235.0);
        assert!(
            (spread.p_value - 0.7404579326122698).abs() < 1e-12,
            "{spread:?}"
        );
    }

    #[test]
    fn all_ties_give_p_one() {
        let result = mann_whitney_u(&[5.0; 4], &[5.0; 3]);
        assert_eq!(
            result,
            MannWhitney {
                u: 6.0,
                p_value: 1.0
            }
        );
    }

    #[test]
    fn the_test_is_symmetric_in_p() {
        let a = [1.0, 2.0, 3.0, 10.0];
        let b = [4.0, 5.0, 6.0];
        let forward = mann_whitney_u(&a, &b);
        let backward = mann_whitney_u(&b, &a);
        assert_eq!(forward.p_value, backward.p_value);
        assert_eq!(forward.u + backward.u, 12.0);
    }
}
