//! The exact distribution of Mann–Whitney's U given the ties of the pooled sample.
//!
//! With ties, SciPy's choice is the normal approximation with a tie-corrected variance.
//! When nearly every value is tied that approximation breaks down: five conversations
//! before (one of them different) against a thousand after, all alike, gives
//! p = 2.6e-45, where the chance that the one different value falls among the five is
//! 5/1005 ≈ 0.005. The distribution of U over every way of dealing the pooled values
//! to the two samples (a permutation test, counted exactly) has no such trouble; this
//! module computes it whenever that is cheap.

/// Entries of the probability table at most (16 Mi × 8 bytes, held twice).
const MAX_TABLE: usize = 1 << 24;

/// Two-sided p-value of U from its exact distribution conditional on the pooled
/// sample's tie groups: every way of dealing the pooled values to samples of sizes m
/// and n equally likely, p = P(|U − m·n/2| ≥ |U_observed − m·n/2|).
///
/// `None` when the pooled sample has no ties (the exact distribution of
/// [`super::mann_whitney_u`] then applies), when a sample is empty or holds a `NaN`,
/// or when it would take more than `budget` steps.
///
/// Counted by groups of equal values, in order: the state is how many of the smaller
/// sample's values have been dealt so far and U (doubled) so far; each group deals
/// `j` of its `t` values to the smaller sample with the hypergeometric probability of
/// doing so. Cost: about Σ min(t, m) · m · 2·m·n steps for the smaller size m.
///
/// ```
/// use undertone_core::stats::exact_with_ties;
///
/// // One value in 1,005 differs, and it is among the five.
/// let five = [0.1314, 0.1314, 0.1314, 0.1314, 0.9];
/// let thousand = [0.1314; 1000];
/// let p = exact_with_ties(&five, &thousand, 1 << 24).unwrap();
/// assert!((p - 5.0 / 1005.0).abs() < 1e-12);
/// ```
pub fn exact_with_ties(x: &[f64], y: &[f64], budget: u64) -> Option<f64> {
    // U is symmetric about m·n/2 in the two samples: count on the smaller one.
    let (small, large) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    let (m, n) = (small.len(), large.len());
    let total = m + n;
    // (size, values of the smaller sample) of each group of equal values, in order.
    let groups = super::rank::tie_groups(small, large)?;
    if groups.len() == total {
        return None;
    }
    // In u64 and checked: on a 32-bit target 2·m·n passes usize long before the caps.
    let width = (m as u64)
        .checked_mul(n as u64)
        .and_then(|p| p.checked_mul(2))
        .and_then(|p| p.checked_add(1))?;
    let steps = groups.iter().fold(0u64, |sum, &(t, _)| {
        let group = (t.min(m) as u64 + 1)
            .saturating_mul(m as u64 + 1)
            .saturating_mul(width);
        sum.saturating_add(group)
    });
    // The table itself is held twice; whatever the budget, it stays under 256 MiB.
    if steps > budget || (m as u64 + 1).saturating_mul(width) > MAX_TABLE as u64 {
        return None;
    }
    // Under MAX_TABLE entries: every count below fits a usize, even on 32 bits.
    let width = width as usize;
    // U doubled of one deal: each value of the smaller sample in a group counts the
    // larger sample's values below the group twice and those tied with it once.
    let gain = |below: usize, dealt_below: usize, t: usize, j: usize| {
        j * (2 * (below - dealt_below) + t - j)
    };
    let mut observed = 0;
    let (mut below, mut dealt) = (0, 0);
    for &(t, j) in &groups {
        observed += gain(below, dealt, t, j);
        below += t;
        dealt += j;
    }
    // ln k! for k ≤ N, for the hypergeometric weights.
    let ln_factorial: Vec<f64> = std::iter::once(0.0)
        .chain((1..=total).scan(0.0, |acc, k| {
            *acc += (k as f64).ln();
            Some(*acc)
        }))
        .collect();
    let ln_binomial = |a: usize, b: usize| ln_factorial[a] - ln_factorial[b] - ln_factorial[a - b];
    // prob[a · width + u]: probability of having dealt `a` values with U doubled `u`.
    let mut prob = vec![0.0f64; (m + 1) * width];
    prob[0] = 1.0;
    let mut below = 0;
    for &(t, _) in &groups {
        let left = total - below; // values not yet dealt, this group's included
        let mut next = vec![0.0f64; (m + 1) * width];
        // At most `below` values can have been dealt before this group.
        for a in 0..=m.min(below) {
            let need = m - a;
            if need > left {
                continue;
            }
            let row = &prob[a * width..(a + 1) * width];
            for j in 0..=t.min(need) {
                if need - j > left - t {
                    continue;
                }
                let weight = (ln_binomial(t, j) + ln_binomial(left - t, need - j)
                    - ln_binomial(left, need))
                .exp();
                let shift = gain(below, a, t, j);
                let to = &mut next[(a + j) * width..(a + j + 1) * width];
                for (u, &p) in row.iter().enumerate() {
                    if p != 0.0 && u + shift < width {
                        to[u + shift] += p * weight;
                    }
                }
            }
        }
        prob = next;
        below += t;
    }
    let mean = (m * n) as i64; // m·n/2, doubled
    let distance = (observed as i64 - mean).abs();
    let p: f64 = prob[m * width..]
        .iter()
        .enumerate()
        .filter(|&(u, _)| (u as i64 - mean).abs() >= distance)
        .map(|(_, &p)| p)
        .sum();
    Some(p.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same p-value by dealing every subset of the pooled values by hand.
    fn brute_force(x: &[f64], y: &[f64]) -> f64 {
        let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
        let (m, total) = (x.len(), pooled.len());
        let u_doubled = |mine: &[f64], theirs: &[f64]| -> i64 {
            let mut u = 0;
            for a in mine {
                for b in theirs {
                    u += if a > b { 2 } else { i64::from(a == b) };
                }
            }
            u
        };
        let mean = (x.len() * y.len()) as i64;
        let observed = (u_doubled(x, y) - mean).abs();
        let (mut hits, mut all) = (0u64, 0u64);
        for mask in 0u32..(1 << total) {
            if mask.count_ones() as usize != m {
                continue;
            }
            let (mine, theirs): (Vec<f64>, Vec<f64>) = {
                let (a, b): (Vec<_>, Vec<_>) = (0..total).partition(|&i| mask & (1 << i) != 0);
                (
                    a.iter().map(|&i| pooled[i]).collect(),
                    b.iter().map(|&i| pooled[i]).collect(),
                )
            };
            all += 1;
            if (u_doubled(&mine, &theirs) - mean).abs() >= observed {
                hits += 1;
            }
        }
        hits as f64 / all as f64
    }

    #[test]
    fn it_is_the_share_of_deals_at_least_as_far_from_the_middle() {
        let cases: [(&[f64], &[f64]); 5] = [
            (&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 3.0, 4.0, 5.0]),
            (&[0.5, 0.5, 0.5], &[0.5, 0.5, 0.9, 0.9, 0.1, 0.5]),
            (
                &[1.0, 1.0, 1.0, 1.0, 2.0],
                &[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
            ),
            (
                &[3.0, 3.0, 1.0, 2.0, 2.0, 2.0],
                &[2.0, 2.0, 1.0, 1.0, 4.0, 4.0, 4.0],
            ),
            (&[7.0, 7.0], &[7.0, 7.0, 7.0, 1.0]),
        ];
        for (x, y) in cases {
            let p = exact_with_ties(x, y, u64::MAX).expect("ties, within budget");
            let q = brute_force(x, y);
            assert!((p - q).abs() < 1e-12, "{x:?} {y:?}: {p} vs {q}");
            // Which sample is given first does not matter.
            let r = exact_with_ties(y, x, u64::MAX).expect("ties");
            assert!((p - r).abs() < 1e-12, "{x:?} {y:?}: {p} vs {r}");
        }
    }

    #[test]
    fn two_large_periods_are_refused_whatever_the_budget() {
        // Two ranges of 10,000 conversations each, with ties: a table of 2·10⁸ × 10⁴
        // entries is not allocated, however large the budget.
        let x: Vec<f64> = (0..10_000).map(|i| f64::from(i % 7)).collect();
        let y: Vec<f64> = (0..10_000).map(|i| f64::from(i % 11)).collect();
        assert_eq!(exact_with_ties(&x, &y, u64::MAX), None);
    }

    #[test]
    fn none_without_ties_past_the_budget_or_for_nan() {
        assert_eq!(
            exact_with_ties(&[1.0, 2.0], &[3.0, 4.0, 5.0], u64::MAX),
            None
        );
        assert_eq!(exact_with_ties(&[1.0, 1.0], &[1.0, 2.0], 10), None);
        assert_eq!(
            exact_with_ties(&[1.0, f64::NAN], &[1.0, 2.0], u64::MAX),
            None
        );
        assert_eq!(exact_with_ties(&[], &[1.0, 1.0], u64::MAX), None);
        // Every value alike: nothing is away from the middle, p = 1.
        assert_eq!(exact_with_ties(&[2.0; 5], &[2.0; 9], u64::MAX), Some(1.0));
    }
}
