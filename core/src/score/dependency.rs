//! Dependency drift over time: the slope of each person's delegation across their
//! conversations, oldest first (DESIGN.md §3).

use std::collections::BTreeMap;

use super::conversation::Draft;
use super::layer_z::{Dimension, DimensionScore, Evidence, clamp01};

use crate::params;

params! {
    /// Dependency across a person's conversations (no labels yet).
    pub struct TrendParams ("dependency_drift", "conversation") {
        /// Weight of the person's average dependency level.
        level_weight,
        /// Weight of the change across the person's conversations (slope × span).
        change_weight,
        /// Share of the conversation confidence with one conversation.
        confidence_first,
        /// What more conversations add to that share.
        confidence_more,
        /// Conversations for the confidence to grow by 63% of `confidence_more`.
        confidence_steepness,
    }
}

static PARAMS: std::sync::LazyLock<TrendParams> = std::sync::LazyLock::new(|| {
    TrendParams::read(&crate::model::TABLES).expect("dependency trend parameters")
});

/// Replaces each conversation's dependency with its person's trend up to and including
/// that conversation. With one conversation the level alone counts, at low confidence.
pub fn apply(drafts: &mut [Draft]) {
    let p = &*PARAMS;
    // Conversations by their first human actor, in time order (then input order).
    let mut by_actor: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let actors: Vec<Option<String>> = drafts
        .iter()
        .map(|d| d.result.human_actor_ids.first().cloned())
        .collect();
    for (i, a) in actors.iter().enumerate() {
        if let Some(a) = a {
            by_actor.entry(a.as_str()).or_default().push(i);
        }
    }
    let mut updates = Vec::new();
    for (actor, mut idx) in by_actor {
        idx.sort_by_key(|&i| (drafts[i].result.started_at, i));
        for k in 0..idx.len() {
            let history: Vec<f64> = idx[..=k]
                .iter()
                .map(|&i| drafts[i].dependency_level)
                .collect();
            let i = idx[k];
            let level = history.iter().sum::<f64>() / history.len() as f64;
            let slope = slope(&history);
            let change = slope * (history.len() as f64 - 1.0);
            let score = clamp01(p.level_weight * level + p.change_weight * change);
            let id = drafts[i].result.conversation_id.clone();
            let at = drafts[i].result.turns.first().map_or(0, |t| t.event_index);
            // Evidence in score units: this conversation's own turn items count for their
            // share of the mean level, the earlier conversations as one item, then the trend.
            let n = history.len() as f64;
            let mut evidence = own_evidence(&drafts[i], p.level_weight / n);
            if history.len() > 1 {
                let earlier = &history[..history.len() - 1];
                evidence.push(Evidence {
                    signal: "dependency_level",
                    event_index: at,
                    conversation_id: Some(id.clone()),
                    contribution: p.level_weight * earlier.iter().sum::<f64>() / n,
                    detail: Some(
                        format!(
                            "mean delegation level {:.2} in {} earlier conversation(s) of {actor}",
                            earlier.iter().sum::<f64>() / earlier.len() as f64,
                            earlier.len()
                        )
                        .into(),
                    ),
                });
            }
            if history.len() > 1 {
                evidence.push(Evidence {
                    signal: "dependency_trend",
                    event_index: at,
                    conversation_id: Some(id),
                    contribution: p.change_weight * change,
                    detail: Some(format!("slope {slope:+.3} per conversation").into()),
                });
            }
            // Confidence grows with the number of conversations.
            let base = drafts[i].result.layer_z.frustration_buildup.confidence;
            let more = 1.0 - (-(history.len() as f64 - 1.0) / p.confidence_steepness).exp();
            let confidence = base * (p.confidence_first + p.confidence_more * more);
            updates.push((
                i,
                DimensionScore::new(Dimension::DependencyDrift, score, confidence, evidence),
            ));
        }
    }
    for (i, d) in updates {
        drafts[i].result.layer_z.dependency_drift = d;
    }
}

/// This conversation's turn evidence as parts of its mean level, times `factor`: each
/// turn item divided by the number of turns, the per-turn baselines as one item.
fn own_evidence(draft: &Draft, factor: f64) -> Vec<Evidence> {
    let turns = &draft.result.turns;
    let per_turn = factor / turns.len().max(1) as f64;
    let id = &draft.result.conversation_id;
    let mut out: Vec<Evidence> = Vec::new();
    let mut baseline = 0.0;
    for t in turns {
        for e in &t.layer_z.dependency_drift.evidence {
            if e.signal == "baseline" {
                baseline += e.contribution * per_turn;
            } else {
                out.push(Evidence {
                    conversation_id: Some(id.clone()),
                    contribution: e.contribution * per_turn,
                    ..e.clone()
                });
            }
        }
    }
    if let Some(first) = turns.first() {
        out.push(Evidence {
            signal: "baseline",
            event_index: first.event_index,
            conversation_id: Some(id.clone()),
            contribution: baseline,
            detail: Some("every turn starts from a low dependency level".into()),
        });
    }
    out
}

/// Least-squares slope of `y` against 0, 1, 2, …; 0 for fewer than two points.
pub fn slope(y: &[f64]) -> f64 {
    let n = y.len() as f64;
    if y.len() < 2 {
        return 0.0;
    }
    let mx = (n - 1.0) / 2.0;
    let my = y.iter().sum::<f64>() / n;
    let (mut num, mut den) = (0.0, 0.0);
    for (x, v) in y.iter().enumerate() {
        let dx = x as f64 - mx;
        num += dx * (v - my);
        den += dx * dx;
    }
    num / den
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_line() {
        assert_eq!(slope(&[0.1]), 0.0);
        assert!((slope(&[0.1, 0.3, 0.5]) - 0.2).abs() < 1e-12);
        assert!((slope(&[0.5, 0.3, 0.1]) + 0.2).abs() < 1e-12);
    }
}
