//! One conversation: its turns scored in order, then rolled up into the conversation's
//! own Layer Z, resolution and abandonment.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::assembly::{Conversation, Grouping};
use crate::features::context::{TurnSignals, conversation_signals};
use crate::features::markers::Category;
use crate::schema::serialize_utc;

use super::archetype::ArchetypeDetector;
use super::layer_z::{Dimension, DimensionScore, Evidence, LayerZ, TrustMode, clamp01};
use super::parts::saturate;
use super::turn::{ArcState, score_turn};

/// One scored human turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnResult {
    /// Position of the event in the request's `events`.
    pub event_index: usize,
    /// The conversation the turn belongs to.
    pub conversation_id: String,
    /// Who wrote it.
    pub actor_id: String,
    /// When it was written.
    #[serde(serialize_with = "serialize_utc")]
    pub timestamp: DateTime<Utc>,
    /// The six dimensions on this turn, with the arc so far.
    pub layer_z: LayerZ,
}

/// How a conversation's resolution was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionSource {
    /// `metadata.resolved` or `metadata.status` said so.
    Metadata,
    /// Read from the last turns (thanks, "that worked", no open complaint).
    Detected,
}

/// One scored conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConversationResult {
    /// The conversation id (given, or implicit `auto:…`).
    pub conversation_id: String,
    /// How its turns were grouped.
    pub grouping: Grouping,
    /// Distinct human actors, in order of appearance.
    pub human_actor_ids: Vec<String>,
    /// First turn.
    #[serde(serialize_with = "serialize_utc")]
    pub started_at: DateTime<Utc>,
    /// Last turn.
    #[serde(serialize_with = "serialize_utc")]
    pub ended_at: DateTime<Utc>,
    /// Human turns.
    pub human_turn_count: usize,
    /// AI turns.
    pub ai_turn_count: usize,
    /// Whether the person's need was met.
    pub resolved: bool,
    /// Where `resolved` came from.
    pub resolution_source: ResolutionSource,
    /// Whether the person left unresolved with high abandonment risk.
    pub abandoned: bool,
    /// The conversation's six dimensions.
    pub layer_z: LayerZ,
    /// One entry per human turn, in conversation order.
    pub turns: Vec<TurnResult>,
}

/// A conversation scored on its own, before deployment-wide context is added.
#[derive(Debug, Clone)]
pub struct Draft {
    /// The result so far.
    pub result: ConversationResult,
    /// Mean per-turn dependency, the input of the actor trend.
    pub dependency_level: f64,
    /// Raw abandonment value before deployment context (unclamped sum of parts).
    pub abandonment_parts: Vec<Evidence>,
}

/// Scores every human turn of `conversation` in context and rolls them up.
pub fn score_conversation(conversation: &Conversation, detector: &mut ArchetypeDetector) -> Draft {
    score(conversation, false, detector)
}

/// Scores every human turn on its own (the `reviews` pipeline): no AI context, no
/// carry-over between texts, no repetition across texts.
pub fn score_standalone(conversation: &Conversation, detector: &mut ArchetypeDetector) -> Draft {
    score(conversation, true, detector)
}

fn score(conversation: &Conversation, standalone: bool, detector: &mut ArchetypeDetector) -> Draft {
    let mut signals =
        conversation_signals(conversation, |text, role| detector.add_turn(text, role));
    if standalone {
        for s in &mut signals {
            s.prior_ai = None;
            s.ai_failure_history = 0.0;
            s.repetition = 0.0;
            s.repeated_event = None;
            s.human_position = 0;
            s.length_ratio = 1.0;
            s.answered = true;
            s.is_last_human_turn = false;
        }
    }
    let mut state = ArcState::default();
    let mut turns = Vec::with_capacity(signals.len());
    let human_turns = conversation
        .turns
        .iter()
        .filter(|t| t.role == crate::Role::Human);
    for (s, t) in signals.iter().zip(human_turns) {
        if standalone {
            state = ArcState::default();
        }
        turns.push(TurnResult {
            event_index: s.event_index,
            conversation_id: conversation.conversation_id.clone(),
            actor_id: t.event.actor_id.clone(),
            timestamp: t.event.timestamp,
            layer_z: score_turn(s, &mut state),
        });
    }
    let (resolved, resolution_source) = resolution(conversation, &signals, &turns);
    let id = &conversation.conversation_id;
    let n = turns.len();
    let confidence = if n == 0 {
        0.0
    } else {
        0.35 + 0.6 * saturate(n as f64, 0.35)
    };

    let frustration = roll_up(&turns, Dimension::FrustrationBuildup, id, confidence, |v| {
        // Buildup: the peak and where the arc ended both matter.
        0.5 * max(v) + 0.5 * v.last().copied().unwrap_or(0.0)
    });
    let mut trust = roll_up(&turns, Dimension::TrustCalibration, id, confidence, |v| {
        0.5 * mean(v) + 0.5 * v.iter().copied().fold(1.0, f64::min)
    });
    trust.mode = Some(trust_mode(&turns));
    let dependency_level = mean(&values(&turns, Dimension::DependencyDrift));
    let dependency = roll_up(
        &turns,
        Dimension::DependencyDrift,
        id,
        confidence * 0.3,
        mean,
    );
    let escalation = roll_up(&turns, Dimension::EscalationFriction, id, confidence, |v| {
        0.6 * max(v) + 0.4 * mean(v)
    });
    let comprehension = roll_up(&turns, Dimension::ComprehensionGap, id, confidence, |v| {
        0.5 * max(v) + 0.5 * mean(v)
    });
    let abandonment_parts = if standalone {
        standalone_abandonment(conversation, &turns)
    } else {
        abandonment_parts(conversation, &signals, &turns, frustration.score, resolved)
    };
    let abandonment_score = clamp01(abandonment_parts.iter().map(|e| e.contribution).sum());
    let abandonment = DimensionScore::new(
        Dimension::SilentAbandonmentRisk,
        abandonment_score,
        confidence,
        abandonment_parts.clone(),
    );
    let layer_z = LayerZ {
        trust_calibration: trust,
        frustration_buildup: frustration,
        dependency_drift: dependency,
        silent_abandonment_risk: abandonment,
        escalation_friction: escalation,
        comprehension_gap: comprehension,
    };
    Draft {
        result: ConversationResult {
            conversation_id: conversation.conversation_id.clone(),
            grouping: conversation.grouping,
            human_actor_ids: conversation.human_actor_ids.clone(),
            started_at: conversation.started_at,
            ended_at: conversation.ended_at,
            human_turn_count: conversation.human_turn_count,
            ai_turn_count: conversation.ai_turn_count,
            resolved,
            resolution_source,
            abandoned: false,
            layer_z,
            turns,
        },
        dependency_level,
        abandonment_parts,
    }
}

/// The abandonment flag: unresolved and risk in the broken band.
pub fn is_abandoned(result: &ConversationResult) -> bool {
    !result.resolved && result.layer_z.silent_abandonment_risk.score > super::layer_z::WATCH_MAX
}

fn values(turns: &[TurnResult], d: Dimension) -> Vec<f64> {
    turns.iter().map(|t| t.layer_z.get(d).score).collect()
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

/// A conversation-level value from per-turn scores, with the strongest turn evidence.
fn roll_up(
    turns: &[TurnResult],
    d: Dimension,
    conversation_id: &str,
    confidence: f64,
    combine: impl Fn(&[f64]) -> f64,
) -> DimensionScore {
    let v = values(turns, d);
    let score = if v.is_empty() {
        match d.direction() {
            super::layer_z::Direction::HigherIsBetter => 1.0,
            super::layer_z::Direction::HigherIsWorse => 0.0,
        }
    } else {
        combine(&v)
    };
    let mut evidence: Vec<Evidence> = turns
        .iter()
        .flat_map(|t| t.layer_z.get(d).evidence.iter().cloned())
        .filter(|e| e.signal != "baseline" && !e.signal.starts_with("carried_"))
        .map(|mut e| {
            e.conversation_id = Some(conversation_id.to_owned());
            e
        })
        .collect();
    super::layer_z::sort_evidence(&mut evidence);
    DimensionScore::new(d, score, confidence, evidence)
}

fn trust_mode(turns: &[TurnResult]) -> TrustMode {
    let worst = turns
        .iter()
        .map(|t| &t.layer_z.trust_calibration)
        .min_by(|a, b| a.score.total_cmp(&b.score));
    match worst {
        Some(w) if w.mode != Some(TrustMode::Calibrated) && w.risk >= 0.3 => {
            w.mode.unwrap_or(TrustMode::Calibrated)
        }
        _ => TrustMode::Calibrated,
    }
}

/// Resolution from metadata when given, else from the last two human turns.
fn resolution(
    conversation: &Conversation,
    signals: &[TurnSignals],
    turns: &[TurnResult],
) -> (bool, ResolutionSource) {
    let mut given = None;
    for t in &conversation.turns {
        if let Some(meta) = &t.event.metadata {
            match meta.get("resolved") {
                Some(Value::Bool(b)) => given = Some(*b),
                _ => {
                    if let Some(Value::String(s)) = meta.get("status") {
                        match s.to_ascii_lowercase().as_str() {
                            "solved" | "resolved" => given = Some(true),
                            "unresolved" | "unsolved" | "abandoned" => given = Some(false),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    if let Some(b) = given {
        return (b, ResolutionSource::Metadata);
    }
    let final_frustration = turns
        .last()
        .map_or(0.0, |t| t.layer_z.frustration_buildup.score);
    // The last two human turns: one must say the need was met, and nothing at or after
    // it may take that back ("thanks! … but it still fails", "thanks for nothing").
    let tail = &signals[signals.len().saturating_sub(2)..];
    let bad = |s: &TurnSignals| {
        let m = &s.markers;
        m.get(Category::ProblemPersists)
            .max(m.get(Category::Correction))
            .max(m.get(Category::GivingUp))
            .max(m.get(Category::Dismissal))
            .max(m.get(Category::Frustration))
            .max(m.get(Category::Insult))
    };
    let satisfied = tail.iter().enumerate().any(|(k, s)| {
        let m = &s.markers;
        let good = m.get(Category::Resolution).max(m.get(Category::Gratitude));
        good >= 0.6 && tail[k..].iter().all(|later| bad(later) < 0.5)
    });
    (
        satisfied && final_frustration < 0.45,
        ResolutionSource::Detected,
    )
}

/// The conversation-level abandonment parts (deployment context is added later).
fn abandonment_parts(
    conversation: &Conversation,
    signals: &[TurnSignals],
    turns: &[TurnResult],
    frustration: f64,
    resolved: bool,
) -> Vec<Evidence> {
    let id = Some(conversation.conversation_id.clone());
    let Some(last) = signals.last() else {
        return Vec::new();
    };
    let at = last.event_index;
    let mut out = Vec::new();
    let mut add = |signal: &'static str, value: f64, detail: Option<String>| {
        if value != 0.0 {
            out.push(Evidence {
                signal,
                event_index: at,
                conversation_id: id.clone(),
                contribution: value,
                detail,
            });
        }
    };
    add("baseline", 0.05, None);
    let final_frustration = turns
        .last()
        .map_or(0.0, |t| t.layer_z.frustration_buildup.score);
    add("final_frustration", 0.25 * final_frustration, None);
    add("frustration_buildup", 0.15 * frustration, None);
    if !resolved {
        add(
            "unresolved_ending",
            0.2,
            Some("no thanks or confirmation at the end".to_owned()),
        );
    }
    // The conversation ends on an AI turn that failed, and the person said nothing more.
    let ends_on_ai = conversation
        .turns
        .last()
        .is_some_and(|t| t.role == crate::Role::Ai);
    if ends_on_ai && let Some(f) = last.next_ai_failure {
        add(
            "left_after_ai_failure",
            0.3 * f,
            Some("the last AI reply failed and the person did not answer".to_owned()),
        );
    }
    if last.is_question && !last.answered {
        add(
            "unanswered_last_question",
            0.25,
            Some("the last question got no reply".to_owned()),
        );
    }
    let giving_up = last.markers.get(Category::GivingUp);
    add(
        "giving_up",
        0.35 * giving_up,
        last.markers
            .phrase(Category::GivingUp)
            .map(|p| format!("\"{p}\"")),
    );
    if resolved {
        add("resolved", -0.35, None);
    }
    out
}

/// Abandonment of standalone texts: the strongest single text (churn words, low rating).
fn standalone_abandonment(conversation: &Conversation, turns: &[TurnResult]) -> Vec<Evidence> {
    let worst = turns.iter().max_by(|a, b| {
        a.layer_z
            .silent_abandonment_risk
            .score
            .total_cmp(&b.layer_z.silent_abandonment_risk.score)
            .then(b.event_index.cmp(&a.event_index))
    });
    worst
        .map(|t| {
            t.layer_z
                .silent_abandonment_risk
                .evidence
                .iter()
                .cloned()
                .map(|mut e| {
                    e.conversation_id = Some(conversation.conversation_id.clone());
                    e
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Adds what only the whole deployment shows to each conversation's abandonment risk:
/// conversations much shorter than the deployment's median, and people whose return
/// visits slow down. Then sets the abandonment flags.
pub fn apply_deployment_context(drafts: &mut [Draft]) {
    let mut lengths: Vec<usize> = drafts
        .iter()
        .map(|d| d.result.human_turn_count)
        .filter(|&n| n > 0)
        .collect();
    lengths.sort_unstable();
    let median = (lengths.len() >= 5).then(|| lengths[lengths.len() / 2] as f64);

    let mut by_actor: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, d) in drafts.iter().enumerate() {
        if let Some(a) = d.result.human_actor_ids.first() {
            by_actor.entry(a.clone()).or_default().push(i);
        }
    }
    let mut slowing = vec![false; drafts.len()];
    for idx in by_actor.values_mut() {
        idx.sort_by_key(|&i| (drafts[i].result.started_at, i));
        if idx.len() >= 3 {
            let gap = |a: usize, b: usize| {
                (drafts[b].result.started_at - drafts[a].result.started_at).num_seconds()
            };
            let first = gap(idx[0], idx[1]);
            let last = gap(idx[idx.len() - 2], idx[idx.len() - 1]);
            if first > 0 && last > 2 * first {
                slowing[idx[idx.len() - 1]] = true;
            }
        }
    }
    for (i, d) in drafts.iter_mut().enumerate() {
        let r = &mut d.result;
        if r.turns.is_empty() {
            continue;
        }
        let at = r.turns.last().map_or(0, |t| t.event_index);
        let mut parts = d.abandonment_parts.clone();
        if let Some(m) = median
            && !r.resolved
            && (r.human_turn_count as f64) < 0.5 * m
        {
            parts.push(Evidence {
                signal: "short_conversation",
                event_index: at,
                conversation_id: Some(r.conversation_id.clone()),
                contribution: 0.1,
                detail: Some(format!(
                    "{} human turns; the deployment's median is {m}",
                    r.human_turn_count
                )),
            });
        }
        if slowing[i] {
            parts.push(Evidence {
                signal: "return_visits_slowing",
                event_index: at,
                conversation_id: Some(r.conversation_id.clone()),
                contribution: 0.1,
                detail: Some("this person's gap between visits more than doubled".to_owned()),
            });
        }
        let score = clamp01(parts.iter().map(|e| e.contribution).sum());
        let confidence = r.layer_z.silent_abandonment_risk.confidence;
        r.layer_z.silent_abandonment_risk =
            DimensionScore::new(Dimension::SilentAbandonmentRisk, score, confidence, parts);
        r.abandoned = is_abandoned(r);
    }
}
