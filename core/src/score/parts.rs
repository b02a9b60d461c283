//! Collecting a score's parts so that the evidence adds up to the score.

use std::sync::Arc;

use smallvec::SmallVec;

use super::layer_z::{Evidence, select_evidence};

/// The signed parts of one dimension's value on one turn, kept on the stack: only the
/// few that become evidence are moved to the heap.
#[derive(Debug, Default, Clone)]
pub struct Parts {
    items: SmallVec<[Evidence; 16]>,
}

impl Parts {
    /// Adds a part when it is not zero.
    pub fn add(
        &mut self,
        signal: &'static str,
        event_index: usize,
        value: f64,
        detail: Option<Arc<str>>,
    ) {
        if value != 0.0 && value.is_finite() {
            self.items.push(Evidence {
                signal,
                event_index,
                conversation_id: None,
                contribution: value,
                detail,
            });
        }
    }

    /// Sum of the positive parts.
    pub fn push_total(&self) -> f64 {
        self.items.iter().map(|e| e.contribution.max(0.0)).sum()
    }

    /// Sum of the negative parts, as a positive number.
    pub fn relief_total(&self) -> f64 {
        self.items.iter().map(|e| (-e.contribution).max(0.0)).sum()
    }

    /// Multiplies the negative parts (relief) by `factor`.
    pub fn scale_relief(&mut self, factor: f64) {
        for e in &mut self.items {
            if e.contribution < 0.0 {
                e.contribution *= factor;
            }
        }
    }

    /// Sum of all parts.
    pub fn total(&self) -> f64 {
        self.items.iter().map(|e| e.contribution).sum()
    }

    /// The parts that are kept as evidence, each scaled by `factor` so they are in the
    /// score's units, strongest first (`layer_z::sort_evidence`).
    pub fn into_evidence(mut self, factor: f64) -> Vec<Evidence> {
        for e in &mut self.items {
            e.contribution *= factor;
        }
        let kept = select_evidence(&mut self.items);
        self.items.truncate(kept);
        let mut out = Vec::with_capacity(kept);
        out.extend(self.items.drain(..));
        out
    }
}

/// Saturates a non-negative level into [0, 1): `1 - exp(-k·level)`.
pub fn saturate(level: f64, k: f64) -> f64 {
    1.0 - (-k * level.max(0.0)).exp()
}

/// The factor that turns level-unit parts into score-unit contributions.
pub fn scale(score: f64, level: f64) -> f64 {
    if level > 1e-12 { score / level } else { 0.0 }
}
