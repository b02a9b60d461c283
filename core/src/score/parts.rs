//! Collecting a score's parts so that the evidence adds up to the score.

use std::cmp::Ordering;
use std::fmt::Write;
use std::sync::Arc;

use smallvec::SmallVec;

use super::layer_z::{Evidence, MAX_EVIDENCE, OTHER_SIGNALS, emits_zero, evidence_order};

/// The signed parts of one dimension's value on one turn, kept on the stack. Each
/// part's detail is described by a small `D` and written out only for the few
/// parts kept as evidence.
#[derive(Debug, Clone)]
pub struct Parts<D> {
    items: SmallVec<[(&'static str, f64, D); 32]>,
}

impl<D> Default for Parts<D> {
    fn default() -> Self {
        Parts {
            items: SmallVec::new(),
        }
    }
}

impl<D: Copy> Parts<D> {
    /// Adds a part when it is not zero.
    pub fn add(&mut self, signal: &'static str, value: f64, detail: D) {
        if value != 0.0 && value.is_finite() {
            self.items.push((signal, value, detail));
        }
    }

    /// Shrinks the negative parts (relief) to the sum of the positive ones when they
    /// are larger: a level stops at 0, so only the relief that was used shows.
    pub fn keep_used_relief(&mut self) {
        let push: f64 = self.items.iter().map(|p| p.1.max(0.0)).sum();
        let relief: f64 = self.items.iter().map(|p| (-p.1).max(0.0)).sum();
        if relief > push {
            let factor = push / relief;
            for p in &mut self.items {
                if p.1 < 0.0 {
                    p.1 *= factor;
                }
            }
        }
    }

    /// Sum of all parts.
    pub fn total(&self) -> f64 {
        self.items.iter().map(|p| p.1).sum()
    }

    /// The parts kept as evidence of turn `event_index`, each scaled by `factor` so
    /// they are in the score's units, in `layer_z::sort_evidence`'s order and number
    /// (on one turn: strongest first, then by signal; none that rounds to 0), with
    /// `detail` writing out the details of those kept. When more parts moved the score
    /// than [`MAX_EVIDENCE`] items can show, four are shown (the `baseline` and the
    /// strongest others) and one [`OTHER_SIGNALS`] item holds the rest, so that the
    /// items add up all the same. The parts are used up: taken
    /// by reference, so that the kilobyte they fill on the stack is not copied on the
    /// way in.
    ///
    /// Always inlined: in its caller the `detail` closure is called directly, not
    /// through the trait object. Whether the compiler chose to inline it on its own
    /// changed with unrelated edits elsewhere in the crate, and scoring the first
    /// 10 000 bench events three times cost 13 million more instructions when it did
    /// not (cachegrind; `docs/benchmarks.md`, 2026-11-27 15:23 UTC).
    #[inline(always)]
    pub fn drain_evidence(
        &mut self,
        factor: f64,
        event_index: usize,
        detail: &mut dyn FnMut(D) -> Option<Arc<str>>,
    ) -> Vec<Evidence> {
        // Worked on as a plain slice: every access through the SmallVec would ask again
        // whether it has spilled to the heap.
        let items = self.items.as_mut_slice();
        // Scaled, and those that round to 0 dropped: the others moved to the front, in
        // order.
        let mut live = 0;
        for i in 0..items.len() {
            let mut p = items[i];
            p.1 *= factor;
            if !emits_zero(p.1) {
                items[live] = p;
                live += 1;
            }
        }
        // Strongest first, then by signal: no two parts share a signal, so the order
        // is total. Picking the first MAX_EVIDENCE one by one costs a few comparisons
        // of a handful of parts and no sort code of its own.
        // When more parts moved the score than can be shown, one item holds the
        // smaller ones together, so that the items still add up to the score; the
        // `baseline`, where every turn starts, is shown whatever its size.
        let folding = live > MAX_EVIDENCE;
        let shown = if folding { MAX_EVIDENCE - 1 } else { live };
        let picked_before = |a: &(&'static str, f64, D), b: &(&'static str, f64, D)| {
            let (a_base, b_base) = (folding && a.0 == "baseline", folding && b.0 == "baseline");
            (a_base && !b_base) || (a_base == b_base && stronger(a, b))
        };
        let mut out = Vec::with_capacity(live.min(MAX_EVIDENCE));
        while out.len() < shown {
            let best = (1..live).fold(0, |best, k| {
                if picked_before(&items[k], &items[best]) {
                    k
                } else {
                    best
                }
            });
            let (signal, contribution, d) = items[best];
            // Taken out: the last live part takes its place.
            items[best] = items[live - 1];
            live -= 1;
            out.push(Evidence {
                signal,
                event_index,
                conversation_id: None,
                contribution,
                detail: detail(d),
            });
        }
        if live > 0 {
            other_signals(&mut items[..live], event_index, &mut out);
            out.sort_by(evidence_order);
        }
        self.items.clear();
        out
    }
}

/// Whether part `a` comes before part `b` as evidence: larger in size, then by signal
/// (no two parts of a dimension share a signal, so the order is total).
fn stronger<D>(a: &(&'static str, f64, D), b: &(&'static str, f64, D)) -> bool {
    b.1.abs().total_cmp(&a.1.abs()).then_with(|| a.0.cmp(b.0)) == Ordering::Less
}

/// Adds to `out` the item that holds `rest`, the parts not shown, together
/// ([`OTHER_SIGNALS`]); its detail names them, strongest first. None when they add up
/// to what rounds to 0.
fn other_signals<D>(
    rest: &mut [(&'static str, f64, D)],
    event_index: usize,
    out: &mut Vec<Evidence>,
) {
    let contribution: f64 = rest.iter().map(|p| p.1).sum();
    if emits_zero(contribution) {
        return;
    }
    // Written once, at its final size; the names strongest first, picked one by one
    // (a handful, and no sort code of its own for each kind of part).
    let names: usize = rest.iter().map(|p| p.0.len() + 2).sum();
    let mut detail = String::with_capacity(names + 24);
    let _ = write!(detail, "{} smaller signals:", rest.len());
    let mut left = rest.len();
    while left > 0 {
        let best = (1..left).fold(0, |best, k| {
            if stronger(&rest[k], &rest[best]) {
                k
            } else {
                best
            }
        });
        detail.push_str(if left == rest.len() { " " } else { ", " });
        detail.push_str(rest[best].0);
        rest.swap(best, left - 1);
        left -= 1;
    }
    let other = Evidence {
        signal: OTHER_SIGNALS,
        event_index,
        conversation_id: None,
        contribution,
        detail: Some(detail.into()),
    };
    out.push(other);
}

/// Saturates a non-negative level into [0, 1): `1 - exp(-k·level)`.
pub fn saturate(level: f64, k: f64) -> f64 {
    1.0 - (-k * level.max(0.0)).exp()
}

/// The factor that turns level-unit parts into score-unit contributions.
pub fn scale(score: f64, level: f64) -> f64 {
    if level > 1e-12 { score / level } else { 0.0 }
}
