//! Joint ranking of two samples, kept in exact integers.
//!
//! Average ranks of tied values are half-integers, so the code works with doubled ranks
//! (always whole numbers) and doubled U statistics; nothing is rounded until the caller
//! converts to `f64`.

/// What the Mann–Whitney family of functions needs from the joint ranking of `x` and `y`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ranking {
    /// Size of `x`.
    pub m: u64,
    /// Size of `y`.
    pub n: u64,
    /// 2·U₁, where U₁ = #{(i, j): xᵢ > yⱼ} + ½·#{(i, j): xᵢ = yⱼ} is U of `x`.
    pub u1_doubled: u128,
    /// Σ (t³ − t) over the groups of tied values of the pooled sample (t = group size).
    pub tie_term: u128,
    /// Whether any value of the pooled sample occurs more than once.
    pub has_ties: bool,
    /// Whether every value of the pooled sample is the same.
    pub all_tied: bool,
}

impl Ranking {
    /// m·n, the number of (xᵢ, yⱼ) pairs.
    pub fn pairs(&self) -> u128 {
        u128::from(self.m) * u128::from(self.n)
    }

    /// 2·U₂ = 2·m·n − 2·U₁, U of `y`.
    pub fn u2_doubled(&self) -> u128 {
        2 * self.pairs() - self.u1_doubled
    }

    /// U₁ − U₂ = #{xᵢ > yⱼ} − #{xᵢ < yⱼ}, exact.
    pub fn u_difference(&self) -> i128 {
        // 2·U₁ − m·n = (2·gt + ties) − (gt + lt + ties) = gt − lt; both terms < 2^127.
        self.u1_doubled as i128 - self.pairs() as i128
    }
}

/// The groups of equal values of `x` and `y` pooled, in ascending order: each
/// group's size and how many of its values are `x`'s. `None` when either is empty or
/// holds a `NaN`.
///
/// `-0.0` and `0.0` are the same value (a tie), as are two equal infinities.
pub(crate) fn tie_groups(x: &[f64], y: &[f64]) -> Option<Vec<(usize, usize)>> {
    if x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    let mut pooled: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    // total_cmp puts -0.0 right before 0.0, so equal values stay adjacent.
    pooled.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let mut groups = Vec::new();
    let mut start = 0;
    while start < pooled.len() {
        let value = pooled[start].0;
        let mut end = start + 1;
        while end < pooled.len() && pooled[end].0 == value {
            end += 1;
        }
        let in_x = pooled[start..end].iter().filter(|p| p.1).count();
        groups.push((end - start, in_x));
        start = end;
    }
    Some(groups)
}

/// Ranks `x` and `y` jointly. `None` when either is empty or holds a `NaN`.
///
/// `-0.0` and `0.0` are the same value (a tie), as are two equal infinities.
pub(crate) fn rank_two(x: &[f64], y: &[f64]) -> Option<Ranking> {
    let groups = tie_groups(x, y)?;
    let mut rank_sum_x_doubled: u128 = 0;
    let mut tie_term: u128 = 0;
    let mut start: u128 = 0;
    for &(t, in_x) in &groups {
        let (t, in_x) = (t as u128, in_x as u128);
        // Positions start..start+t hold ranks start+1 ..= start+t; twice their
        // average is 2·start + t + 1.
        rank_sum_x_doubled += in_x * (2 * start + t + 1);
        tie_term += t * t * t - t;
        start += t;
    }
    let m = x.len() as u64;
    let n = y.len() as u64;
    let m128 = u128::from(m);
    Some(Ranking {
        m,
        n,
        // 2·U₁ = 2·R₁ − m(m + 1); the smallest possible 2·R₁ is m(m + 1).
        u1_doubled: rank_sum_x_doubled - m128 * (m128 + 1),
        tie_term,
        has_ties: groups.len() < x.len() + y.len(),
        all_tied: groups.len() == 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u_counts_pairs_and_half_ties() {
        let x = [3.0, 5.0];
        let y = [1.0, 2.0, 3.0];
        // pairs (x, y): (3,1) >, (3,2) >, (3,3) =, (5,1) >, (5,2) >, (5,3) >
        let r = rank_two(&x, &y).unwrap();
        assert_eq!(r.u1_doubled, 2 * 5 + 1);
        assert_eq!(r.u2_doubled(), 1);
        assert_eq!(r.u_difference(), 5);
        assert_eq!(r.tie_term, 6);
        assert!(r.has_ties);
        assert!(!r.all_tied);
    }

    #[test]
    fn signed_zeros_and_infinities_tie() {
        let r = rank_two(&[-0.0, f64::INFINITY], &[0.0, f64::INFINITY]).unwrap();
        assert_eq!(r.u1_doubled, 4); // U₁ = ½ (−0 vs 0) + 1 (∞ > 0) + ½ (∞ vs ∞)
        assert_eq!(r.tie_term, 12);
        let all = rank_two(&[2.0, 2.0], &[2.0]).unwrap();
        assert!(all.all_tied);
    }

    #[test]
    fn rejects_empty_and_nan() {
        assert!(rank_two(&[], &[1.0]).is_none());
        assert!(rank_two(&[1.0], &[]).is_none());
        assert!(rank_two(&[1.0, f64::NAN], &[1.0]).is_none());
        assert!(rank_two(&[1.0], &[f64::NAN]).is_none());
    }
}
