//! Numbers written as decimal text, for evidence details: the same digits as
//! `format!("{x:.N}")`, without the formatting machinery in the common case.

/// Appends `x` with `decimals` decimals, exactly as `format!("{x:.decimals$}")` writes
/// it, without the formatting machinery in the common case (evidence details write
/// a few numbers per turn).
pub fn push_fixed(out: &mut String, x: f64, decimals: u32) {
    let scale = 10u64.pow(decimals.min(9));
    let y = x * scale as f64;
    if decimals <= 9 && x.is_sign_positive() && y < 1e9 {
        let floor = y.floor();
        let frac = y - floor;
        // Away from a tie, the rounded product rounds as the exact decimal does (the
        // product's error is far below 1e-6 here); near one, core::fmt decides.
        if (frac - 0.5).abs() > 1e-6 {
            let n = floor as u64 + u64::from(frac > 0.5);
            let mut b = itoa::Buffer::new();
            out.push_str(b.format(n / scale));
            if decimals > 0 {
                out.push('.');
                let d = b.format(n % scale);
                out.extend(std::iter::repeat_n('0', decimals as usize - d.len()));
                out.push_str(d);
            }
            return;
        }
    }
    use std::fmt::Write as _;
    let _ = write!(out, "{x:.prec$}", prec = decimals as usize);
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn push_fixed_writes_what_format_writes(
            x in proptest::prop_oneof![0.0..1.0f64, 0.0..1000.0f64, -1.0..1.0f64, proptest::num::f64::ANY],
            decimals in 0u32..4,
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
