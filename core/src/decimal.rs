//! Decimal numbers: rounding as emitted numbers are rounded, and numbers written as
//! text for evidence details (the same digits as `format!("{x:.N}")`, without the
//! formatting machinery in the common case).

/// Appends `x` with `decimals` decimals, exactly as `format!("{x:.decimals$}")` writes
/// it, without the formatting machinery in the common case (evidence details write
/// a few numbers per turn).
pub fn push_fixed(out: &mut String, x: f64, decimals: u32) {
    if let Some(&scale) = TENS.get(decimals as usize) {
        let y = x * scale as f64;
        if x.is_sign_positive() && y < 1e9 {
            // `y` is in [0, 1e9): truncating is flooring (and needs no call to the C
            // library's `floor`, as on the baseline x86-64 target `f64::floor` does).
            let whole = y as u64;
            let frac = y - whole as f64;
            // Away from a tie, the rounded product rounds as the exact decimal does (the
            // product's error is far below 1e-6 here); near one, core::fmt decides.
            if (frac - 0.5).abs() > 1e-6 {
                let n = whole + u64::from(frac > 0.5);
                push_digits(out, n / scale, 1);
                if decimals > 0 {
                    out.push('.');
                    push_digits(out, n % scale, decimals as usize);
                }
                return;
            }
        }
    }
    use std::fmt::Write as _;
    let _ = write!(out, "{x:.prec$}", prec = decimals as usize);
}

/// `10^k` for the `k` decimals [`push_fixed`] writes itself.
const TENS: [u64; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// Appends the decimal digits of `n`, at least `width` of them (zero-padded; none for
/// 0 with width 0).
pub fn push_digits(out: &mut String, n: u64, width: usize) {
    if n == 0 && width == 0 {
        return;
    }
    let mut buffer = itoa::Buffer::new();
    let digits = buffer.format(n);
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(digits);
}

/// `x.round()` (half away from zero), computed without the call to the C library's
/// `round` that the baseline x86-64 target makes for it (no rounding instruction
/// before SSE4.1); every emitted number goes through it. Below 2^52 in magnitude
/// the fraction `x - trunc(x)` is exact, so the result is the same; a zero may lose
/// its sign.
pub fn round(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64 as f64;
        let f = x - t;
        if f >= 0.5 {
            t + 1.0
        } else if f <= -0.5 {
            t - 1.0
        } else {
            t
        }
    } else {
        x.round()
    }
}

/// Whether [`round`] gives zero for `x`: `x` in (-0.5, 0.5); false for NaN.
pub fn rounds_to_zero(x: f64) -> bool {
    x.abs() < 0.5
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn round_is_std_round(
            x in proptest::prop_oneof![-2.0..2.0f64, -1e6..1e6f64, proptest::num::f64::ANY],
        ) {
            let (a, b) = (round(x), x.round());
            proptest::prop_assert!(a == b || a.is_nan() && b.is_nan(), "{x}: {a} vs {b}");
            proptest::prop_assert_eq!(rounds_to_zero(x), b == 0.0);
        }
    }

    #[test]
    fn digits_are_padded_to_the_width() {
        for (n, w, text) in [
            (0, 1, "0"),
            (7, 2, "07"),
            (1234, 1, "1234"),
            (u64::MAX, 1, "18446744073709551615"),
            (5, 0, "5"),
            (0, 0, ""),
            (42, 5, "00042"),
        ] {
            let mut out = String::new();
            push_digits(&mut out, n, w);
            assert_eq!(out, text);
        }
    }

    #[test]
    fn round_at_halves_and_edges() {
        for x in [
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            4_503_599_627_370_495.5,
            1e300,
            -0.0,
            f64::INFINITY,
        ] {
            assert_eq!(round(x), x.round(), "{x}");
        }
        assert!(round(f64::NAN).is_nan());
    }

    proptest::proptest! {
        #[test]
        fn push_fixed_writes_what_format_writes(
            x in proptest::prop_oneof![0.0..1.0f64, 0.0..1000.0f64, -1.0..1.0f64, proptest::num::f64::ANY],
            decimals in 0u32..10,
        ) {
            let mut out = String::new();
            push_fixed(&mut out, x, decimals);
            proptest::prop_assert_eq!(out, format!("{x:.prec$}", prec = decimals as usize));
        }
    }

    #[test]
    fn push_fixed_at_ties_and_edges() {
        for (x, d) in [
            (0.125, 2),
            (0.375, 2),
            (2.5, 0),
            (3.5, 0),
            (0.005, 2),
            (-0.0, 2),
            (99.995, 2),
            (0.0, 0),
            (1e20, 1),
            (f64::NAN, 2),
            (0.999, 2),
        ] {
            let mut out = String::new();
            push_fixed(&mut out, x, d);
            assert_eq!(out, format!("{x:.prec$}", prec = d as usize), "{x} {d}");
        }
    }
}
