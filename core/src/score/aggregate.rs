//! The request-level Layer Z: every conversation counts once.

use super::conversation::ConversationResult;
use super::layer_z::{
    Dimension, DimensionScore, Evidence, LayerZ, MAX_EVIDENCE, TrustMode, evidence_order,
    sort_evidence,
};
use super::parts::saturate;
use crate::params;

params! {
    /// How the request rolls conversations up (no labels yet).
    pub struct RequestParams ("request", "roll_up") {
        /// Steepness of the request confidence in conversations.
        confidence_steepness,
        /// The request names a trust mode when it carries at least this share of the risk.
        mode_share,
    }
}

static PARAMS: std::sync::LazyLock<RequestParams> = std::sync::LazyLock::new(|| {
    RequestParams::read(&crate::model::TABLES).expect("request roll-up parameters")
});

/// Rolls conversation results up into one Layer Z for the request.
pub fn aggregate(conversations: &[ConversationResult]) -> LayerZ {
    LayerZ::from_fn(|d| dimension(conversations, d))
}

fn dimension(conversations: &[ConversationResult], d: Dimension) -> DimensionScore {
    let scored: Vec<&DimensionScore> = conversations
        .iter()
        .filter(|c| !c.turns.is_empty())
        .map(|c| c.layer_z.get(d))
        .collect();
    if scored.is_empty() {
        let empty = match d.direction() {
            super::layer_z::Direction::HigherIsBetter => 1.0,
            super::layer_z::Direction::HigherIsWorse => 0.0,
        };
        let mut s = DimensionScore::new(d, empty, 0.0, Vec::new());
        if d == Dimension::TrustCalibration {
            s.mode = Some(TrustMode::Calibrated);
        }
        return s;
    }
    let n = scored.len() as f64;
    let score = scored.iter().map(|s| s.score).sum::<f64>() / n;
    let mean_confidence = scored.iter().map(|s| s.confidence).sum::<f64>() / n;
    // More conversations, more confidence (times their own).
    let confidence = mean_confidence * saturate(n, PARAMS.confidence_steepness);
    // The strongest items across conversations, chosen by reference and cloned once.
    let mut all: Vec<&Evidence> = scored.iter().flat_map(|s| &s.evidence).collect();
    let keep = MAX_EVIDENCE.min(all.len());
    if keep > 0 && keep < all.len() {
        all.select_nth_unstable_by(keep - 1, |a, b| evidence_order(a, b));
        all.truncate(keep);
    }
    // Each conversation weighs 1/n in the mean.
    let mut evidence: Vec<Evidence> = all
        .into_iter()
        .map(|e| Evidence {
            contribution: e.contribution / n,
            ..e.clone()
        })
        .collect();
    sort_evidence(&mut evidence);
    let mut out = DimensionScore::new(d, score, confidence, evidence);
    if d == Dimension::TrustCalibration {
        out.mode = Some(trust_mode(&scored));
    }
    out
}

/// The mode of the request: the failure mode that carries more risk across conversations.
fn trust_mode(scored: &[&DimensionScore]) -> TrustMode {
    let (mut over, mut under) = (0.0, 0.0);
    for s in scored {
        match s.mode {
            Some(TrustMode::OverTrust) => over += s.risk,
            Some(TrustMode::UnderTrust) => under += s.risk,
            _ => {}
        }
    }
    let total: f64 = scored.iter().map(|s| s.risk).sum();
    if over.max(under) < PARAMS.mode_share * total.max(f64::MIN_POSITIVE) || over.max(under) == 0.0
    {
        TrustMode::Calibrated
    } else if over >= under {
        TrustMode::OverTrust
    } else {
        TrustMode::UnderTrust
    }
}
