//! The exact null distribution of the Mann–Whitney U statistic, counted in exact
//! integers.
//!
//! Under H₀ (and without ties) all (m+n choose m) orderings of the pooled sample are
//! equally likely. The number of orderings with U = u is the coefficient of qᵘ in the
//! Gaussian binomial coefficient
//!
//! ```text
//! [m+n choose m]_q = Π_{i=1..m} (1 − q^{n+i}) / (1 − q^i).
//! ```
//!
//! Writing Nᵢ(u) for the counts with i values in the first sample and n in the second,
//! the product gives the counting recurrence
//!
//! ```text
//! Nᵢ(u) = Nᵢ(u − i) + Nᵢ₋₁(u) − Nᵢ₋₁(u − n − i),   N₀(u) = [u = 0],
//! ```
//!
//! which adds the first sample one value at a time (the textbook recurrence of Mann and
//! Whitney, over both sizes at once, is used as a test oracle). P(U ≤ k) needs only
//! u ≤ k, and the recurrence never looks at a larger u, so each of the m steps costs
//! O(k) additions.
//!
//! The recurrence subtracts, so it is run in exact integers: every count is a
//! fixed-width integer of W 64-bit limbs, W chosen so that 2·(m+n choose m) fits, with
//! wrapping (two's-complement) arithmetic — a transiently negative value is harmless
//! because every final value lies in [0, (m+n choose m)]. (In `f64` the same recurrence
//! loses all accuracy once m reaches a few hundred: rounding residue in the upper tails
//! of the intermediate distributions is amplified at every step.) Only the final ratio
//! P(U ≤ k) = Σ_{u ≤ k} N_m(u) / (m+n choose m) is rounded, once, to `f64`.

/// Largest table [`cdf`] builds: (k + 1)·W limbs of 8 bytes (128 MiB).
const MAX_TABLE_LIMBS: u128 = 1 << 24;
/// Largest work [`cdf`] does: min(m, n)·(k + 1)·W limb additions (a few seconds).
const MAX_WORK: u128 = 1 << 32;

/// P(U ≤ k) under H₀ for samples of sizes `m` and `n` without ties; `None` when the table
/// or the work would exceed 128 MiB or 2^32 limb additions.
///
/// With min(m, n) ≤ 8 (SciPy's exact zone) that allows max(m, n) up to about a million;
/// with m = n, up to about 300. Accurate to about 1e-16 relative (one rounding).
pub(crate) fn cdf(k: u64, m: u64, n: u64) -> Option<f64> {
    let (m, n) = (m.min(n), m.max(n));
    if u128::from(k) >= u128::from(m) * u128::from(n) {
        return Some(1.0);
    }
    // Here k < m·n, so m ≥ 1 and k + 1 ≤ m·n.
    let len = u128::from(k) + 1;
    // Refuse early, before computing the binomial, from a lower bound on its size:
    // (m+n choose m) ≥ ((m+n)/m)^m.
    let min_limbs = ((m as f64 * ((m as f64 + n as f64) / m as f64).log2()) / 64.0) as u128;
    if len * min_limbs.max(1) > MAX_TABLE_LIMBS || u128::from(m) * len * min_limbs.max(1) > MAX_WORK
    {
        return None;
    }
    let total = binomial(m, n)?;
    // Room for values in (−2·total, 2·total) in two's complement.
    let limbs = (bit_length(&total) + 2).div_ceil(64);
    if len * limbs as u128 > MAX_TABLE_LIMBS || u128::from(m) * len * limbs as u128 > MAX_WORK {
        return None;
    }
    // All three are below 2^32 now.
    let (k, m, n) = (k as usize, m as usize, n as usize);
    let mut counts = Counts {
        limbs,
        data: vec![0; (k + 1) * limbs],
    };
    counts.data[0] = 1; // N₀(0) = 1
    for i in 1..=m {
        // Nᵢ is zero above i·n; leave those entries alone.
        let support = (k + 1).min(i * n + 1);
        let shift = n + i;
        // × (1 − q^{n+i}): descending, so entry u − shift still holds Nᵢ₋₁.
        for u in (shift..support).rev() {
            counts.sub_from(u, u - shift);
        }
        // ÷ (1 − q^i): ascending, so entry u − i already holds Nᵢ.
        for u in i..support {
            counts.add_from(u, u - i);
        }
    }
    let mut below = vec![0u64; limbs];
    for u in 0..=k {
        add_limbs(&mut below, counts.entry(u));
    }
    Some(ratio(&below, &total).min(1.0))
}

/// A table of fixed-width integers, `limbs` little-endian 64-bit limbs each.
struct Counts {
    limbs: usize,
    data: Vec<u64>,
}

impl Counts {
    fn entry(&self, u: usize) -> &[u64] {
        &self.data[u * self.limbs..(u + 1) * self.limbs]
    }

    /// Splits out entry `dst` (mutable) and entry `src` < `dst`.
    fn pair(&mut self, dst: usize, src: usize) -> (&mut [u64], &[u64]) {
        let (low, high) = self.data.split_at_mut(dst * self.limbs);
        (
            &mut high[..self.limbs],
            &low[src * self.limbs..(src + 1) * self.limbs],
        )
    }

    /// entry[dst] += entry[src] (wrapping).
    fn add_from(&mut self, dst: usize, src: usize) {
        let (d, s) = self.pair(dst, src);
        add_limbs(d, s);
    }

    /// entry[dst] −= entry[src] (wrapping).
    fn sub_from(&mut self, dst: usize, src: usize) {
        let (d, s) = self.pair(dst, src);
        let mut borrow = false;
        for (d, &s) in d.iter_mut().zip(s) {
            let (r, b1) = d.overflowing_sub(s);
            let (r, b2) = r.overflowing_sub(u64::from(borrow));
            *d = r;
            borrow = b1 || b2;
        }
    }
}

/// d += s, wrapping at d's width (s no wider than d).
fn add_limbs(d: &mut [u64], s: &[u64]) {
    let mut carry = false;
    for (d, &s) in d.iter_mut().zip(s) {
        let (r, c1) = d.overflowing_add(s);
        let (r, c2) = r.overflowing_add(u64::from(carry));
        *d = r;
        carry = c1 || c2;
    }
}

/// (m+n choose m) as little-endian limbs, or `None` if it would take more than the
/// table limit's worth of limbs.
fn binomial(m: u64, n: u64) -> Option<Vec<u64>> {
    let mut c = vec![1u64];
    for i in 1..=m {
        // c = (n+i−1 choose i−1) → (n+i choose i) = c·(n+i)/i, exact at every step.
        mul_small(&mut c, n.checked_add(i)?);
        div_small_exact(&mut c, i);
        if c.len() as u128 > MAX_TABLE_LIMBS {
            return None;
        }
    }
    Some(c)
}

fn mul_small(c: &mut Vec<u64>, factor: u64) {
    let mut carry: u128 = 0;
    for limb in c.iter_mut() {
        let product = u128::from(*limb) * u128::from(factor) + carry;
        *limb = product as u64;
        carry = product >> 64;
    }
    if carry > 0 {
        c.push(carry as u64);
    }
}

fn div_small_exact(c: &mut Vec<u64>, divisor: u64) {
    let mut remainder: u128 = 0;
    for limb in c.iter_mut().rev() {
        let current = (remainder << 64) | u128::from(*limb);
        *limb = (current / u128::from(divisor)) as u64;
        remainder = current % u128::from(divisor);
    }
    while c.len() > 1 && c.last() == Some(&0) {
        c.pop();
    }
}

fn bit_length(c: &[u64]) -> usize {
    match c.iter().rposition(|&limb| limb != 0) {
        Some(top) => top * 64 + (64 - c[top].leading_zeros() as usize),
        None => 0,
    }
}

/// a / b for non-negative multi-limb integers, b > 0, to about 1e-16 relative.
fn ratio(a: &[u64], b: &[u64]) -> f64 {
    let (a_mantissa, a_exponent) = top_bits(a);
    let (b_mantissa, b_exponent) = top_bits(b);
    let quotient = a_mantissa / b_mantissa;
    // The exponent difference is a multiple of 64; apply it in safe pieces.
    let mut difference = a_exponent - b_exponent;
    let mut result = quotient;
    while difference < 0 && result != 0.0 {
        result *= 2f64.powi(-64);
        difference += 64;
    }
    while difference > 0 {
        result *= 2f64.powi(64);
        difference -= 64;
    }
    result
}

/// (mantissa, exponent) with value ≈ mantissa·2^exponent: the top two limbs as `f64`.
fn top_bits(c: &[u64]) -> (f64, i64) {
    match c.iter().rposition(|&limb| limb != 0) {
        None => (0.0, 0),
        Some(top) => {
            let low = if top > 0 { c[top - 1] } else { 0 };
            let mantissa = ((u128::from(c[top]) << 64) | u128::from(low)) as f64;
            (mantissa, 64 * (top as i64 - 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook recurrence of Mann and Whitney (1947) over (m, n), in probabilities,
    /// as an independent check: the largest of the m + n values comes from the first
    /// sample (probability m/(m+n), adding n to U) or from the second. Returns P(U ≤ k)
    /// for every k in 0..=m·n.
    fn textbook_cdfs(m: usize, n: usize) -> Vec<f64> {
        // pmf[i][j][u] = P(U = u) for sample sizes i and j.
        let mut pmf = vec![vec![vec![0.0f64; m * n + 1]; n + 1]; m + 1];
        for i in 0..=m {
            for j in 0..=n {
                if i == 0 || j == 0 {
                    pmf[i][j][0] = 1.0;
                    continue;
                }
                let total = (i + j) as f64;
                for u in 0..=i * j {
                    let from_x = if u >= j { pmf[i - 1][j][u - j] } else { 0.0 };
                    pmf[i][j][u] = i as f64 / total * from_x + j as f64 / total * pmf[i][j - 1][u];
                }
            }
        }
        pmf[m][n]
            .iter()
            .scan(0.0, |acc, p| {
                *acc += p;
                Some(*acc)
            })
            .collect()
    }

    #[test]
    fn matches_textbook_recurrence() {
        for m in 1..=12usize {
            for n in 1..=12usize {
                for (k, &reference) in textbook_cdfs(m, n).iter().enumerate() {
                    let ours = cdf(k as u64, m as u64, n as u64).unwrap();
                    assert!(
                        (ours - reference).abs() <= 1e-14 * reference,
                        "m={m} n={n} k={k}: {ours} vs {reference}"
                    );
                }
            }
        }
    }

    #[test]
    fn large_sizes_stay_accurate() {
        // 40 × 40 through the textbook recurrence (probabilities, no subtraction) …
        let reference = textbook_cdfs(40, 40);
        for k in [0usize, 1, 100, 500, 700, 799, 800] {
            let ours = cdf(k as u64, 40, 40).unwrap();
            assert!((ours / reference[k] - 1.0).abs() < 1e-12, "k={k}");
        }
        // … and symmetry at the centre of a large, many-limb case: P(U ≤ mn/2 − 1) +
        // P(U ≤ mn/2) = 1 for even m·n.
        let (m, n) = (120u64, 120u64);
        let below = cdf(m * n / 2 - 1, m, n).unwrap();
        let at = cdf(m * n / 2, m, n).unwrap();
        assert!((below + at - 1.0).abs() < 1e-15, "{below} {at}");
    }

    #[test]
    fn edges() {
        assert_eq!(cdf(0, 1, 1), Some(0.5));
        assert_eq!(cdf(1, 1, 1), Some(1.0));
        assert_eq!(cdf(0, 3, 4), Some(1.0 / 35.0));
        assert_eq!(cdf(u64::MAX, 3, 4), Some(1.0));
        // 2 / (2008 choose 8): the smallest value of an 8 × 2000 test, below 1e-22.
        let c = binomial(8, 2000).unwrap();
        assert_eq!(c, vec![0x6f0c_81bb_edfc_9897, 0x15e]);
        assert!((cdf(0, 8, 2000).unwrap() * ratio(&c, &[1]) - 1.0).abs() < 1e-15);
        // Tables that are too large are refused, not attempted.
        assert_eq!(cdf(1 << 40, 1 << 21, 1 << 21), None);
        assert_eq!(cdf(2_000_000, 2000, 2000), None);
        assert!(cdf(1_000_000, 8, 250_000).is_some());
    }

    #[test]
    fn big_integer_helpers() {
        let mut c = vec![u64::MAX];
        mul_small(&mut c, 3);
        assert_eq!(c, vec![u64::MAX - 2, 2]);
        div_small_exact(&mut c, 3);
        assert_eq!(c, vec![u64::MAX]);
        assert_eq!(bit_length(&[0, 1]), 65);
        assert_eq!(bit_length(&[0]), 0);
        assert_eq!(ratio(&[1, 0], &[4, 0]), 0.25);
        assert_eq!(ratio(&[0, 1], &[2]), 2f64.powi(63));
        assert_eq!(ratio(&[3], &[0, 0, 6]), 0.5 * 2f64.powi(-128));
    }
}
