//! Two-sample z-test for a difference of proportions (pooled variance).

use serde::Serialize;

use super::normal;

/// Result of [`two_proportion_z`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProportionTest {
    /// First sample's proportion, `success1 / n1`.
    pub p1: f64,
    /// Second sample's proportion, `success2 / n2`.
    pub p2: f64,
    /// `p2 − p1` (second minus first: positive when the rate went up).
    pub diff: f64,
    /// `diff` over its pooled standard error; same sign as `diff`.
    pub z: f64,
    /// Two-sided p-value 2·P(Z ≥ |z|).
    pub p_value: f64,
}

/// Pooled two-sided z-test of H₀: both samples share one success probability.
///
/// With p̂ = (success1 + success2)/(n1 + n2), the standard error of p2 − p1 under H₀ is
/// √(p̂(1 − p̂)(1/n1 + 1/n2)); z = (p2 − p1)/SE and the p-value is 2·P(Z ≥ |z|). No
/// continuity correction. This is `statsmodels.stats.proportion.proportions_ztest(
/// [success1, success2], [n1, n2])` (its default pooled variance, `value=0`) with the
/// sign of z flipped, since statsmodels reports first minus second; the p-value is the
/// same.
///
/// `None` when `n1` or `n2` is 0, a success count exceeds its trial count, or p̂ is 0 or
/// 1 (every trial failed, or every trial succeeded: the standard error is 0 and there
/// is no evidence of a difference to weigh).
///
/// ```
/// use undertone_core::stats::two_proportion_z;
///
/// // statsmodels' documentation example: count [5, 12], nobs [83, 99] → p ≈ 0.159.
/// let t = two_proportion_z(5, 83, 12, 99).unwrap();
/// assert!(t.diff > 0.0 && t.z > 0.0);
/// assert!((t.p_value - 0.159).abs() < 5e-4);
/// assert_eq!(two_proportion_z(0, 10, 0, 20), None);
/// ```
pub fn two_proportion_z(success1: u64, n1: u64, success2: u64, n2: u64) -> Option<ProportionTest> {
    if n1 == 0 || n2 == 0 || success1 > n1 || success2 > n2 {
        return None;
    }
    let successes = u128::from(success1) + u128::from(success2);
    let trials = u128::from(n1) + u128::from(n2);
    if successes == 0 || successes == trials {
        return None;
    }
    let p1 = success1 as f64 / n1 as f64;
    let p2 = success2 as f64 / n2 as f64;
    let pooled = successes as f64 / trials as f64;
    let variance = pooled * (1.0 - pooled) * (1.0 / n1 as f64 + 1.0 / n2 as f64);
    let diff = p2 - p1;
    let z = diff / variance.sqrt();
    Some(ProportionTest {
        p1,
        p2,
        diff,
        z,
        p_value: (2.0 * normal::sf(z.abs())).min(1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked() {
        // 40/100 vs 60/100: pooled 0.5, SE = √(0.25·0.02) = 0.070711, z = 2.828427.
        let t = two_proportion_z(40, 100, 60, 100).unwrap();
        assert_eq!((t.p1, t.p2), (0.4, 0.6));
        assert!((t.diff - 0.2).abs() < 1e-15);
        assert!((t.z - 2.0 * std::f64::consts::SQRT_2).abs() < 1e-12);
        assert!((t.p_value - 0.004_677_734_981_047_258).abs() < 1e-12);
    }

    #[test]
    fn swapping_samples_flips_z_and_keeps_p() {
        let a = two_proportion_z(13, 250, 31, 270).unwrap();
        let b = two_proportion_z(31, 270, 13, 250).unwrap();
        assert_eq!(a.z, -b.z);
        assert_eq!(a.diff, -b.diff);
        assert_eq!(a.p_value, b.p_value);
    }

    #[test]
    fn equal_rates_give_p_one() {
        let t = two_proportion_z(5, 10, 10, 20).unwrap();
        assert_eq!((t.z, t.p_value), (0.0, 1.0));
    }

    #[test]
    fn invalid_counts() {
        assert_eq!(two_proportion_z(0, 0, 1, 2), None);
        assert_eq!(two_proportion_z(1, 2, 0, 0), None);
        assert_eq!(two_proportion_z(3, 2, 1, 2), None);
        assert_eq!(two_proportion_z(1, 2, 3, 2), None);
        assert_eq!(two_proportion_z(0, 5, 0, 7), None);
        assert_eq!(two_proportion_z(5, 5, 7, 7), None);
        assert!(two_proportion_z(u64::MAX, u64::MAX, 0, u64::MAX).is_some());
    }
}
