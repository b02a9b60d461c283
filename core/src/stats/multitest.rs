//! Multiple-testing adjustment of p-values: Holm (family-wise error rate) and
//! Benjamini–Hochberg (false discovery rate).
//!
//! Both return one adjusted p-value per input, in the input's order, as
//! `statsmodels.stats.multitest.multipletests(p, method=...)[1]` does: reject hypothesis
//! i at level α when `adjusted[i] <= α`. The adjusted values are monotone in the raw
//! ones and clipped at 1.
//!
//! **`NaN` inputs** (a test that could not be run) stay `NaN` in the output and are left
//! out of the family, so the family size is the number of non-`NaN` p-values (R's
//! `p.adjust` does the same; statsmodels has no defined behaviour for `NaN`). An empty
//! input gives an empty output. Other values are used as given: p-values are expected
//! in [0, 1].

/// Holm's step-down adjustment: with the k non-`NaN` p-values sorted ascending,
/// p̃₍ᵣ₎ = min(1, max_{s ≤ r} (k − s + 1)·p₍ₛ₎) (r, s counted from 1).
///
/// Controls the family-wise error rate under any dependence; uniformly more powerful
/// than Bonferroni. Same results as `multipletests(p, method="holm")`.
///
/// One output per input, in input order. A `NaN` input stays `NaN` and is left out of the
/// family (k counts the non-`NaN` p-values, as R's `p.adjust`); an empty input gives an
/// empty output.
///
/// ```
/// use undertone_core::stats::holm;
///
/// assert_eq!(holm(&[0.01, 0.04, 0.03]), vec![0.03, 0.06, 0.06]);
/// ```
pub fn holm(p: &[f64]) -> Vec<f64> {
    let order = ascending_non_nan(p);
    let family = order.len();
    let mut adjusted = vec![f64::NAN; p.len()];
    let mut running = f64::NEG_INFINITY;
    for (rank, &index) in order.iter().enumerate() {
        running = running.max(p[index] * (family - rank) as f64);
        adjusted[index] = running.min(1.0);
    }
    adjusted
}

/// Benjamini–Hochberg step-up adjustment: with the k non-`NaN` p-values sorted
/// ascending, p̃₍ᵣ₎ = min(1, min_{s ≥ r} p₍ₛ₎ / (s/k)) (r, s counted from 1).
///
/// Controls the false discovery rate for independent or positively dependent tests.
/// Same results as `multipletests(p, method="fdr_bh")` (which divides by s/k, as here,
/// rather than multiplying by k/s).
///
/// One output per input, in input order. A `NaN` input stays `NaN` and is left out of the
/// family (k counts the non-`NaN` p-values, as R's `p.adjust`); an empty input gives an
/// empty output.
///
/// ```
/// use undertone_core::stats::benjamini_hochberg;
///
/// let adjusted = benjamini_hochberg(&[0.01, 0.04, 0.03]);
/// // 0.01·3/1, min(0.03·3/2, 0.04·3/3), 0.04·3/3 (up to rounding)
/// let expected = [0.03, 0.04, 0.04];
/// assert!(adjusted.iter().zip(expected).all(|(a, e)| (a - e).abs() < 1e-15));
/// ```
pub fn benjamini_hochberg(p: &[f64]) -> Vec<f64> {
    let order = ascending_non_nan(p);
    let family = order.len() as f64;
    let mut adjusted = vec![f64::NAN; p.len()];
    let mut running = f64::INFINITY;
    for (rank, &index) in order.iter().enumerate().rev() {
        let ecdf = (rank + 1) as f64 / family;
        running = running.min(p[index] / ecdf);
        adjusted[index] = running.min(1.0);
    }
    adjusted
}

/// Indices of the non-`NaN` entries of `p`, ordered by value (ties by index).
fn ascending_non_nan(p: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_holm() {
        // Sorted 0.01, 0.02, 0.03, 0.5 → ×4, ×3, ×2, ×1 = 0.04, 0.06, 0.06, 0.5.
        let adjusted = holm(&[0.5, 0.02, 0.01, 0.03]);
        let expected = [0.5, 0.06, 0.04, 0.06];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-15, "{adjusted:?}");
        }
        assert_eq!(holm(&[0.3, 0.6]), vec![0.6, 0.6]);
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
    }

    #[test]
    fn hand_checked_bh() {
        // Sorted 0.01, 0.02, 0.03, 0.5 → ×4/1, ×4/2, ×4/3, ×4/4 = 0.04, 0.04, 0.04, 0.5.
        let adjusted = benjamini_hochberg(&[0.5, 0.02, 0.01, 0.03]);
        let expected = [0.5, 0.04, 0.04, 0.04];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-15, "{adjusted:?}");
        }
    }

    #[test]
    fn empty_single_and_nan() {
        assert!(holm(&[]).is_empty());
        assert!(benjamini_hochberg(&[]).is_empty());
        assert_eq!(holm(&[0.2]), vec![0.2]);
        assert_eq!(benjamini_hochberg(&[0.2]), vec![0.2]);
        let h = holm(&[0.01, f64::NAN, 0.02]);
        assert_eq!((h[0], h[2]), (0.02, 0.02));
        assert!(h[1].is_nan());
        let b = benjamini_hochberg(&[f64::NAN, 0.01, 0.04]);
        assert!(b[0].is_nan());
        assert_eq!((b[1], b[2]), (0.02, 0.04));
        assert!(holm(&[f64::NAN]).iter().all(|v| v.is_nan()));
    }

    #[test]
    fn monotone_and_at_least_raw() {
        let p = [0.04, 0.001, 0.3, 0.04, 0.9, 0.0, 1.0, 0.02];
        for adjusted in [holm(&p), benjamini_hochberg(&p)] {
            for i in 0..p.len() {
                assert!(adjusted[i] >= p[i] && adjusted[i] <= 1.0);
                for j in 0..p.len() {
                    if p[i] <= p[j] {
                        assert!(adjusted[i] <= adjusted[j]);
                    }
                }
            }
        }
    }
}
