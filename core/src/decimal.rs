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

/// The JSON formatter of results: serde_json's compact output, byte for byte, with
/// the numbers that results emit written faster. Every score, risk, confidence and
/// contribution is rounded to four decimals before it is written ([`round`]), and
/// such a number's shortest form, which serde_json writes, is its four decimals with
/// the trailing zeros dropped: those are written from the integer, not by the general
/// shortest-form search (a serialised result is mostly such numbers). Any other number
/// is left to serde_json.
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl serde_json::ser::Formatter for Json {
    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        let mut buffer = [0u8; 24];
        match four_decimals(value, &mut buffer) {
            Some(n) => writer.write_all(&buffer[..n]),
            None => serde_json::ser::CompactFormatter.write_f64(writer, value),
        }
    }
}

/// Below this magnitude, two numbers of at most four decimals are further apart than
/// two neighbouring doubles, so the four decimals are the shortest form that reads
/// back as the same double.
const FOUR_DECIMALS_BELOW: f64 = 1e11;

/// Writes `x` into `out` as serde_json would when it has at most four decimals (and a
/// magnitude below [`FOUR_DECIMALS_BELOW`]): `-0.0705`, `0.15`, `3.0`. Returns the
/// length, or `None` for any other number (and for `-0.0`).
fn four_decimals(x: f64, out: &mut [u8; 24]) -> Option<usize> {
    // NaN and infinities fail the first test (serde_json writes no number for them).
    if !x.is_finite() || x.abs() >= FOUR_DECIMALS_BELOW || x.to_bits() == (-0.0f64).to_bits() {
        return None;
    }
    let k = round(x * 10_000.0);
    if k / 10_000.0 != x {
        return None;
    }
    let k = k as i64;
    let (whole, fraction) = (k.unsigned_abs() / 10_000, k.unsigned_abs() % 10_000);
    let mut n = 0;
    if k < 0 {
        out[0] = b'-';
        n = 1;
    }
    let mut digits = itoa::Buffer::new();
    let whole = digits.format(whole).as_bytes();
    out[n..n + whole.len()].copy_from_slice(whole);
    n += whole.len();
    out[n] = b'.';
    n += 1;
    // Four digits, the trailing zeros dropped (one kept: "3.0").
    let mut fraction = fraction;
    let mut width = 4;
    while width > 1 && fraction % 10 == 0 {
        fraction /= 10;
        width -= 1;
    }
    for i in (0..width).rev() {
        out[n + i] = b'0' + (fraction % 10) as u8;
        fraction /= 10;
    }
    Some(n + width)
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

    /// `x` written by [`Json`] and by serde_json's own formatter.
    fn both(x: f64) -> (String, String) {
        let mut ours = Vec::new();
        serde::Serialize::serialize(
            &x,
            &mut serde_json::Serializer::with_formatter(&mut ours, Json),
        )
        .unwrap();
        (
            String::from_utf8(ours).unwrap(),
            serde_json::to_string(&x).unwrap(),
        )
    }

    #[test]
    fn every_four_decimal_number_is_written_as_serde_json_writes_it() {
        // Every number of at most four decimals in (-100, 100), as results round them.
        for k in -1_000_000i64..1_000_000 {
            let x = round(k as f64) / 10_000.0;
            let (ours, theirs) = both(x);
            assert_eq!(ours, theirs, "{k}");
        }
        let mut written = [0u8; 24];
        assert_eq!(four_decimals(0.0705, &mut written), Some(6));
        assert_eq!(&written[..6], b"0.0705");
        for (x, fast) in [
            (-0.0, false),
            (0.0, true),
            (1e11 - 0.0001, true),
            (1e11, false),
            (99_999_999_999.999, true),
            (-12_345.5, true),
            (0.00005, false),
            (1.0 / 3.0, false),
            (f64::MAX, false),
        ] {
            assert_eq!(four_decimals(x, &mut written).is_some(), fast, "{x}");
            let (ours, theirs) = both(x);
            assert_eq!(ours, theirs, "{x}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_number_is_written_as_serde_json_writes_it(
            x in proptest::prop_oneof![
                proptest::strategy::Strategy::prop_map(-1e12..1e12f64, |x| round(x) / 10_000.0),
                proptest::strategy::Strategy::prop_map(-1e6..1e6f64, |x| round(x * 10.0) / 10.0),
                proptest::num::f64::NORMAL,
                proptest::num::f64::ANY,
            ],
        ) {
            let (ours, theirs) = both(x);
            proptest::prop_assert_eq!(ours, theirs);
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
