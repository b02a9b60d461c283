//! Scale-free effect sizes of two samples: rank-biserial correlation and Cliff's delta.
//!
//! The two are the same number, P(X > Y) − P(X < Y) for a random pair, computed here in
//! two independent ways (from the rank sum, and by counting dominance directly). Both
//! reduce to the exact integer #{xᵢ > yⱼ} − #{xᵢ < yⱼ} divided by m·n, so they agree
//! bit for bit.

use super::rank::rank_two;

/// Rank-biserial correlation 2·U₁/(m·n) − 1 of `x` against `y`, in [−1, 1].
///
/// U₁ is the Mann–Whitney statistic of `x` ([`super::MannWhitney::u1`]). **Sign:**
/// positive when `x` tends to be larger than `y`, +1 when every xᵢ exceeds every yⱼ.
/// Equal to [`cliffs_delta`] (exactly, not only up to rounding: both are computed as an
/// exact integer over m·n).
///
/// `None` when either sample is empty or any value is `NaN`.
///
/// ```
/// use undertone_core::stats::{cliffs_delta, rank_biserial};
///
/// let x = [3.0, 5.0];
/// let y = [1.0, 2.0, 3.0];
/// // Pairs: 5 with x > y, 1 tie, 0 with x < y.
/// assert_eq!(rank_biserial(&x, &y), Some(5.0 / 6.0));
/// assert_eq!(cliffs_delta(&x, &y), rank_biserial(&x, &y));
/// ```
pub fn rank_biserial(x: &[f64], y: &[f64]) -> Option<f64> {
    let ranking = rank_two(x, y)?;
    // 2·U₁/(m·n) − 1 = (2·U₁ − m·n)/(m·n), numerator exact.
    Some(ranking.u_difference() as f64 / ranking.pairs() as f64)
}

/// Cliff's delta P(X > Y) − P(X < Y) over all m·n pairs (xᵢ, yⱼ), in [−1, 1].
///
/// **Sign:** positive when `x` tends to be larger. Identical to [`rank_biserial`];
/// computed independently by counting, for each xᵢ, the yⱼ below and above it in sorted
/// `y` (O((m + n) log n)).
///
/// `None` when either sample is empty or any value is `NaN`.
pub fn cliffs_delta(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    let mut sorted = y.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    let n = sorted.len() as i128;
    let mut difference: i128 = 0;
    for &xi in x {
        let below = sorted.partition_point(|&v| v < xi) as i128;
        let not_above = sorted.partition_point(|&v| v <= xi) as i128;
        difference += below - (n - not_above);
    }
    Some(difference as f64 / (x.len() as u128 * y.len() as u128) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked() {
        assert_eq!(rank_biserial(&[10.0, 11.0], &[1.0, 2.0, 3.0]), Some(1.0));
        assert_eq!(rank_biserial(&[1.0, 2.0, 3.0], &[10.0, 11.0]), Some(-1.0));
        assert_eq!(cliffs_delta(&[1.0, 2.0, 3.0], &[10.0, 11.0]), Some(-1.0));
        assert_eq!(rank_biserial(&[2.0, 2.0], &[2.0]), Some(0.0));
        // x = [1, 4], y = [2, 3, 4]: gt = 2 (4>2, 4>3), lt = 3 (1<2, 1<3, 1<4), tie 1.
        assert_eq!(
            cliffs_delta(&[1.0, 4.0], &[2.0, 3.0, 4.0]),
            Some(-1.0 / 6.0)
        );
        assert_eq!(
            rank_biserial(&[1.0, 4.0], &[2.0, 3.0, 4.0]),
            Some(-1.0 / 6.0)
        );
    }

    #[test]
    fn coincide_and_flip_sign_on_swap() {
        let x = [0.3, -1.0, 2.5, 2.5, 7.0, -0.0, f64::INFINITY, 4.0];
        let y = [0.0, 2.5, 1.0, 8.0, -3.0, f64::NEG_INFINITY, 4.0];
        let rb = rank_biserial(&x, &y).unwrap();
        assert_eq!(cliffs_delta(&x, &y), Some(rb));
        assert_eq!(rank_biserial(&y, &x), Some(-rb));
        assert_eq!(cliffs_delta(&y, &x), Some(-rb));
    }

    #[test]
    fn empty_and_nan() {
        assert!(rank_biserial(&[], &[1.0]).is_none());
        assert!(cliffs_delta(&[1.0], &[]).is_none());
        assert!(rank_biserial(&[f64::NAN], &[1.0]).is_none());
        assert!(cliffs_delta(&[1.0], &[f64::NAN]).is_none());
    }
}
