//! Ranking and calibration measures: AUROC, Spearman's rank correlation, expected
//! calibration error (against binary labels or soft targets such as a share of
//! annotators) and the reliability bins a diagram is drawn from.
//!
//! All of them return `None` instead of a number when the input cannot give a meaningful
//! one: mismatched lengths, an empty class, or any `NaN`. They never panic. Ranks are
//! computed by sorting (O(n log n)) and kept as exact integers (doubled, so that average
//! ranks of ties stay whole numbers); the only floating-point steps are the final
//! divisions and square roots, so results do not depend on input order.

/// Area under the ROC curve of `scores` for binary `labels` (true = positive); ties count half. None when either class is empty.
///
/// Computed as the Mann–Whitney U statistic over average ranks: the probability that a
/// random positive scores higher than a random negative, a tie counting one half.
/// Also `None` when the lengths differ or any score is `NaN`; infinite scores are
/// ordinary (extreme) values.
pub fn auroc(scores: &[f64], labels: &[bool]) -> Option<f64> {
    if scores.len() != labels.len() {
        return None;
    }
    let positives = labels.iter().filter(|&&l| l).count() as u128;
    let negatives = labels.len() as u128 - positives;
    if positives == 0 || negatives == 0 {
        return None;
    }
    let ranks = doubled_ranks(scores)?;
    // Sum of doubled ranks of the positives: 2·R₁.
    let rank_sum2: u128 = ranks
        .iter()
        .zip(labels)
        .filter(|&(_, &l)| l)
        .map(|(&r, _)| u128::from(r))
        .sum();
    // 2·U = 2·R₁ − n₁(n₁ + 1); AUC = U / (n₁·n₀).
    let u2 = rank_sum2 - positives * (positives + 1);
    Some(u2 as f64 / (2 * positives * negatives) as f64)
}

/// Spearman rank correlation (average ranks for ties). None when fewer than 3 pairs or a side is constant.
///
/// The Pearson correlation of the average ranks of `x` and `y`. Also `None` when the
/// lengths differ or any value is `NaN`.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 3 {
        return None;
    }
    let rx = doubled_ranks(x)?;
    let ry = doubled_ranks(y)?;
    let n = x.len() as i128;
    let (mut sx, mut sy, mut sxx, mut syy, mut sxy) = (0i128, 0i128, 0i128, 0i128, 0i128);
    for (&a, &b) in rx.iter().zip(&ry) {
        let (a, b) = (i128::from(a), i128::from(b));
        sx += a;
        sy += b;
        sxx += a * a;
        syy += b * b;
        sxy += a * b;
    }
    // Exact integer moments; Pearson's r = cov / (sd_x · sd_y), each scaled by n².
    let cov = n * sxy - sx * sy;
    let var_x = n * sxx - sx * sx;
    let var_y = n * syy - sy * sy;
    if var_x == 0 || var_y == 0 {
        return None;
    }
    let product = var_x.checked_mul(var_y);
    if product.is_some() && cov.checked_mul(cov) == product {
        // Perfect (anti-)correlation, reported exactly.
        return Some(if cov > 0 { 1.0 } else { -1.0 });
    }
    let denominator = match product {
        Some(p) => (p as f64).sqrt(),
        None => (var_x as f64).sqrt() * (var_y as f64).sqrt(),
    };
    Some((cov as f64 / denominator).clamp(-1.0, 1.0))
}

/// Expected calibration error of probabilities `scores` in `[0, 1]` against binary labels, `bins` equal-width bins, weighted by bin size.
///
/// Bin `k` holds scores in `[k/bins, (k+1)/bins)`, the last bin also holding `1.0`. The
/// result is Σ over bins of (bin size / n) · |mean score − share of positives|.
/// `None` when the input is empty, the lengths differ, `bins` is 0, or any score is
/// `NaN` or outside `[0, 1]`.
pub fn ece(scores: &[f64], labels: &[bool], bins: usize) -> Option<f64> {
    if scores.is_empty() || scores.len() != labels.len() || bins == 0 {
        return None;
    }
    if scores.iter().any(|s| !(0.0..=1.0).contains(s)) {
        return None;
    }
    // Per bin: sum of scores and number of positives.
    let mut score_sums = vec![0.0f64; bins];
    let mut positive_counts = vec![0u64; bins];
    for (&s, &l) in scores.iter().zip(labels) {
        // `s` is in [0, 1], so the product is finite and non-negative; the float-to-int
        // cast saturates and `min` folds 1.0 into the last bin.
        let k = ((s * bins as f64) as usize).min(bins - 1);
        score_sums[k] += s;
        positive_counts[k] += u64::from(l);
    }
    // (size/n) · |sum/size − positives/size| = |sum − positives| / n.
    let gap: f64 = score_sums
        .iter()
        .zip(&positive_counts)
        .map(|(&sum, &pos)| (sum - pos as f64).abs())
        .sum();
    Some(gap / scores.len() as f64)
}

/// Expected calibration error of probabilities `scores` against soft targets in `[0, 1]`
/// (e.g. the share of annotators who gave a label), `bins` equal-width bins.
///
/// Binned like [`ece`]: Σ over bins of (bin size / n) · |mean score − mean target|. With
/// 0/1 targets it equals [`ece`]. `None` when the input is empty, the lengths differ,
/// `bins` is 0, or any score or target is `NaN` or outside `[0, 1]`.
pub fn ece_soft(scores: &[f64], targets: &[f64], bins: usize) -> Option<f64> {
    let layout = reliability(scores, targets, bins)?;
    // (size/n) · |score_sum/size − target_sum/size| = |score_sum − target_sum| / n.
    let gap: f64 = layout
        .iter()
        .map(|b| (b.score_sum - b.target_sum).abs())
        .sum();
    Some(gap / scores.len() as f64)
}

/// One bin of a reliability diagram: the items whose score falls in `[lower, upper)`
/// (the last bin also holds 1.0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// Lower edge of the bin.
    pub lower: f64,
    /// Upper edge of the bin.
    pub upper: f64,
    /// Number of items in the bin.
    pub count: usize,
    /// Sum of their scores.
    pub score_sum: f64,
    /// Sum of their targets (the number of positives for binary labels).
    pub target_sum: f64,
}

impl Bin {
    /// Mean score of the bin (the predicted probability), `None` when it is empty.
    pub fn mean_score(&self) -> Option<f64> {
        (self.count > 0).then(|| self.score_sum / self.count as f64)
    }

    /// Mean target of the bin (the observed share), `None` when it is empty.
    pub fn mean_target(&self) -> Option<f64> {
        (self.count > 0).then(|| self.target_sum / self.count as f64)
    }
}

/// The `bins` equal-width bins of scores in `[0, 1]` with their targets in `[0, 1]`
/// (0/1 for binary labels, or shares): what a reliability diagram plots and what
/// [`ece_soft`] sums.
///
/// Bin `k` holds scores in `[k/bins, (k+1)/bins)`, the last bin also holding `1.0`;
/// every bin is returned, empty ones with a count of 0. `None` under the same
/// conditions as [`ece_soft`].
pub fn reliability(scores: &[f64], targets: &[f64], bins: usize) -> Option<Vec<Bin>> {
    if scores.is_empty() || scores.len() != targets.len() || bins == 0 {
        return None;
    }
    let unit = |v: &f64| (0.0..=1.0).contains(v);
    if !scores.iter().all(unit) || !targets.iter().all(unit) {
        return None;
    }
    let mut layout: Vec<Bin> = (0..bins)
        .map(|k| Bin {
            lower: k as f64 / bins as f64,
            upper: (k + 1) as f64 / bins as f64,
            count: 0,
            score_sum: 0.0,
            target_sum: 0.0,
        })
        .collect();
    for (&s, &t) in scores.iter().zip(targets) {
        // As in `ece`: the cast saturates and `min` folds 1.0 into the last bin.
        let b = &mut layout[((s * bins as f64) as usize).min(bins - 1)];
        b.count += 1;
        b.score_sum += s;
        b.target_sum += t;
    }
    Some(layout)
}

/// Twice the 1-based average rank of each value (so tied averages stay integers), or
/// `None` when a value is `NaN`.
fn doubled_ranks(values: &[f64]) -> Option<Vec<u64>> {
    if values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let mut order: Vec<usize> = (0..values.len()).collect();
    // Stable sort with a total order: deterministic for equal values (and ±0.0 are
    // kept apart by `total_cmp`, so compare with `==` when grouping below).
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut ranks = vec![0u64; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Positions start+1 ..= end (1-based) share the rank (start + 1 + end) / 2.
        let doubled = (start + 1 + end) as u64;
        for &i in &order[start..end] {
            ranks[i] = doubled;
        }
        start = end;
    }
    Some(ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fixed 20-element vectors with ties, shared by the reference tests below.
    const SCORES: [f64; 20] = [
        0.12, 0.85, 0.40, 0.40, 0.93, 0.05, 0.67, 0.40, 0.71, 0.22, 0.85, 0.58, 0.33, 0.67, 0.90,
        0.15, 0.49, 0.22, 0.76, 0.61,
    ];
    const LABELS: [u8; 20] = [0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1];
    const Y: [f64; 20] = [
        3.0, 9.0, 5.0, 4.0, 10.0, 1.0, 7.0, 5.0, 6.0, 2.0, 8.0, 7.0, 3.0, 6.0, 9.0, 1.0, 4.0, 2.0,
        8.0, 6.0,
    ];

    fn labels() -> Vec<bool> {
        LABELS.iter().map(|&l| l == 1).collect()
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() <= 1e-12)
    }

    #[test]
    fn auroc_hand_checkable_cases() {
        let labels = [false, false, true, true];
        assert_eq!(auroc(&[0.1, 0.2, 0.8, 0.9], &labels), Some(1.0));
        assert_eq!(auroc(&[0.9, 0.8, 0.2, 0.1], &labels), Some(0.0));
        assert_eq!(auroc(&[0.5; 4], &labels), Some(0.5));
        // One of four pairs tied (0.5 vs 0.5), three ordered correctly: 3.5 / 4.
        assert_eq!(auroc(&[0.1, 0.5, 0.5, 0.9], &labels), Some(0.875));
        // Order of the input does not matter.
        assert_eq!(
            auroc(&[0.8, 0.1, 0.9, 0.2], &[true, false, true, false]),
            Some(1.0)
        );
    }

    #[test]
    fn auroc_rejects_degenerate_input() {
        assert_eq!(auroc(&[0.1, 0.2], &[true, true]), None);
        assert_eq!(auroc(&[0.1, 0.2], &[false, false]), None);
        assert_eq!(auroc(&[], &[]), None);
        assert_eq!(auroc(&[0.1, 0.2], &[true]), None);
        assert_eq!(auroc(&[0.1, f64::NAN], &[true, false]), None);
        assert_eq!(
            auroc(&[f64::NEG_INFINITY, f64::INFINITY], &[false, true]),
            Some(1.0)
        );
    }

    #[test]
    fn auroc_matches_scikit_learn() {
        // sklearn.metrics.roc_auc_score(LABELS, SCORES) = 0.78,
        // computed with scikit-learn 1.9.1.
        assert!(close(auroc(&SCORES, &labels()), 0.78));
    }

    #[test]
    fn spearman_hand_checkable_cases() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), Some(1.0));
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        // Monotone transforms do not change ranks.
        assert_eq!(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 8.0, 27.0, 64.0]),
            Some(1.0)
        );
        // Ranks x = 1,2,3,4 and y = 1.5,1.5,3.5,3.5: r = 4 / √(5·4) = 2/√5.
        assert!(close(
            spearman(&[1.0, 2.0, 3.0, 4.0], &[1.0, 1.0, 2.0, 2.0]),
            2.0 / 5f64.sqrt()
        ));
    }

    #[test]
    fn spearman_rejects_degenerate_input() {
        assert_eq!(spearman(&[1.0, 2.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[4.0, 4.0, 4.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[1.0, 2.0]), None);
        assert_eq!(spearman(&[1.0, f64::NAN, 3.0], &[1.0, 2.0, 3.0]), None);
    }

    #[test]
    fn spearman_matches_scipy() {
        // scipy.stats.spearmanr(SCORES, Y).statistic = 0.9583508276909788 and
        // scipy.stats.spearmanr(SCORES, LABELS).statistic = 0.4868644955601477,
        // computed with scipy 1.17.1.
        assert!(close(spearman(&SCORES, &Y), 0.958_350_827_690_978_8));
        let l: Vec<f64> = LABELS.iter().map(|&l| f64::from(l)).collect();
        assert!(close(spearman(&SCORES, &l), 0.486_864_495_560_147_7));
    }

    #[test]
    fn ece_hand_computed() {
        // Two bins. [0, 0.5): 0.1, 0.3 with labels F, T -> |0.4 − 1| = 0.6.
        // [0.5, 1]: 0.6, 0.8, 1.0 with labels T, T, F -> |2.4 − 2| = 0.4.
        // ECE = (0.6 + 0.4) / 5 = 0.2.
        let scores = [0.1, 0.3, 0.6, 0.8, 1.0];
        let labels = [false, true, true, true, false];
        assert!(close(ece(&scores, &labels, 2), 0.2));
        // One bin: |2.8 − 3| / 5 = 0.04.
        assert!(close(ece(&scores, &labels, 1), 0.04));
        // Perfectly calibrated extremes.
        assert_eq!(ece(&[0.0, 1.0], &[false, true], 10), Some(0.0));
    }

    #[test]
    fn ece_rejects_degenerate_input() {
        assert_eq!(ece(&[], &[], 10), None);
        assert_eq!(ece(&[0.5], &[true], 0), None);
        assert_eq!(ece(&[0.5], &[true, false], 10), None);
        assert_eq!(ece(&[1.5], &[true], 10), None);
        assert_eq!(ece(&[-0.1], &[true], 10), None);
        assert_eq!(ece(&[f64::NAN], &[true], 10), None);
    }

    #[test]
    fn ece_soft_hand_computed() {
        // Two bins. [0, 0.5): scores 0.1, 0.3 (sum 0.4), targets 0.2, 0.6 (sum 0.8):
        // |0.4 − 0.8| = 0.4. [0.5, 1]: 0.6, 1.0 (sum 1.6), targets 0.5, 0.9 (sum 1.4):
        // |1.6 − 1.4| = 0.2. ECE = (0.4 + 0.2) / 4 = 0.15.
        let scores = [0.1, 0.3, 0.6, 1.0];
        let targets = [0.2, 0.6, 0.5, 0.9];
        assert!(close(ece_soft(&scores, &targets, 2), 0.15));
        // One bin: |2.0 − 2.2| / 4 = 0.05.
        assert!(close(ece_soft(&scores, &targets, 1), 0.05));
        // A score equal to its target in every bin is perfectly calibrated.
        assert_eq!(ece_soft(&[0.25, 0.75], &[0.25, 0.75], 10), Some(0.0));
    }

    #[test]
    fn ece_soft_equals_ece_on_binary_targets() {
        let l = labels();
        let t: Vec<f64> = LABELS.iter().map(|&l| f64::from(l)).collect();
        for bins in [1, 2, 5, 10, 20] {
            assert_eq!(ece_soft(&SCORES, &t, bins), ece(&SCORES, &l, bins));
        }
    }

    #[test]
    fn ece_soft_rejects_degenerate_input() {
        assert_eq!(ece_soft(&[], &[], 10), None);
        assert_eq!(ece_soft(&[0.5], &[0.5], 0), None);
        assert_eq!(ece_soft(&[0.5], &[0.5, 0.1], 10), None);
        assert_eq!(ece_soft(&[1.5], &[0.5], 10), None);
        assert_eq!(ece_soft(&[0.5], &[-0.1], 10), None);
        assert_eq!(ece_soft(&[0.5], &[f64::NAN], 10), None);
        assert_eq!(ece_soft(&[f64::NAN], &[0.5], 10), None);
    }

    #[test]
    fn reliability_bins_hold_their_items() {
        let bins = reliability(&[0.05, 0.15, 0.15, 1.0], &[0.0, 1.0, 0.0, 1.0], 10).unwrap();
        assert_eq!(bins.len(), 10);
        assert_eq!((bins[0].count, bins[0].mean_score()), (1, Some(0.05)));
        assert_eq!(bins[0].mean_target(), Some(0.0));
        assert_eq!((bins[1].count, bins[1].mean_target()), (2, Some(0.5)));
        assert_eq!(bins[1].mean_score(), Some(0.15));
        // 1.0 goes to the last bin; the others are empty.
        assert_eq!((bins[9].count, bins[9].mean_score()), (1, Some(1.0)));
        assert_eq!(bins[5].mean_score(), None);
        assert_eq!((bins[3].lower, bins[3].upper), (0.3, 0.4));
    }
}
