//! The standard normal distribution, through `statrs`, behind panic-free wrappers.

use statrs::distribution::{ContinuousCDF, Normal};

/// P(Z ≥ z) for a standard normal Z. `sf(∞) = 0`, `sf(−∞) = 1`, `sf(NaN) = NaN`.
///
/// statrs computes it as ½·erfc(z/√2); its `erfc` is accurate to about 1e-10 relative
/// (measured against `scipy.special.ndtr` for z in [−8, 38.4]: at most 1.03e-10), which
/// bounds how closely the p-values of this module can agree with SciPy's.
pub(crate) fn sf(z: f64) -> f64 {
    Normal::standard().sf(z)
}

/// The `p` quantile of the standard normal. `None` unless 0 < p < 1.
pub(crate) fn quantile(p: f64) -> Option<f64> {
    // statrs panics outside [0, 1]; the ends give infinities, which no caller wants.
    (p > 0.0 && p < 1.0).then(|| Normal::standard().inverse_cdf(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(sf(0.0), 0.5);
        assert_eq!(sf(f64::INFINITY), 0.0);
        assert_eq!(sf(f64::NEG_INFINITY), 1.0);
        assert!((sf(1.959_963_984_540_054) - 0.025).abs() < 0.025 * 1e-9);
        assert!((sf(10.0) / 7.619_853_024_160_47e-24 - 1.0).abs() < 1e-9);
        assert!((quantile(0.975).unwrap() - 1.959_963_984_540_054).abs() < 1e-12);
        assert!(quantile(0.0).is_none());
        assert!(quantile(1.0).is_none());
        assert!(quantile(f64::NAN).is_none());
    }
}
