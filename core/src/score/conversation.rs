//! One conversation: its turns scored in order, then rolled up into the conversation's
//! own Layer Z, resolution and abandonment.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::context::{TurnSignals, conversation_signals};
use crate::assembly::{Conversation, Grouping};

use crate::features::language::{LanguageCounts, mostly_outside_latin};
use crate::features::markers::Category;
use crate::schema::serialize_utc;

use std::sync::{Arc, LazyLock};

use crate::model::tables::LinearDim;
use crate::params;

use super::archetype::ArchetypeDetector;
use super::inputs::{CONVERSATION_INPUTS, ConversationInput};
use super::layer_z::{
    Dimension, DimensionScore, Evidence, LayerZ, MAX_EVIDENCE, TrustMode, emits_zero,
    evidence_order,
};
use super::parts::saturate;
use super::turn::{ArcState, score_turn, trust_params};

/// One scored human turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TurnResult {
    /// Position of the event in the request's `events`.
    pub event_index: usize,
    /// The conversation the turn belongs to (shared by its turns).
    pub conversation_id: Arc<str>,
    /// Who wrote it.
    pub actor_id: Arc<str>,
    /// When it was written.
    #[serde(serialize_with = "serialize_utc")]
    pub timestamp: DateTime<Utc>,
    /// The six dimensions on this turn, with the arc so far.
    pub layer_z: LayerZ,
}

/// How a conversation's resolution was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ResolutionSource {
    /// `metadata.resolved` or `metadata.status` said so.
    Metadata,
    /// Read from the last turns (thanks, "that worked", no open complaint).
    Detected,
}

/// One scored conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConversationResult {
    /// The conversation id (given, or implicit `auto:…`).
    pub conversation_id: Arc<str>,
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
    /// The abandonment model's parts so far (logit units), before deployment context.
    pub abandonment_parts: Vec<Evidence>,
    /// Scored human turns written mostly outside the Latin alphabet, or read as another
    /// language than English ([`crate::features::language`]), counted while their
    /// texts are still in the cache.
    pub languages: LanguageCounts,
}

params! {
    /// How a conversation's values are rolled up where no labels exist yet.
    pub struct RollUpParams ("conversation", "roll_up") {
        /// Trust: weight of the mean turn score (the rest is the lowest turn).
        trust_mean,
        /// Escalation friction: weight of the peak turn (the rest is the mean).
        escalation_peak,
        /// Confidence of a conversation with one human turn, before `confidence_span`.
        confidence_floor,
        /// What more human turns add to the confidence.
        confidence_span,
        /// Steepness of the confidence in human turns.
        confidence_steepness,
        /// Share of the conversation confidence that dependency keeps.
        dependency_confidence_share,
    }
}

params! {
    /// How resolution is detected when metadata does not say (no labels yet).
    pub struct ResolutionParams ("conversation", "resolution") {
        /// Thanks or "that worked" at least this strong in one of the last two turns.
        min_relief,
        /// No complaint marker at least this strong at or after it.
        max_complaint,
        /// And the final turn's frustration below this.
        max_final_frustration,
    }
}

params! {
    /// When a conversation counts as abandoned.
    pub struct AbandonmentParams ("conversation", "abandonment") {
        /// Abandonment risk from which an unresolved conversation is flagged abandoned.
        flag_threshold,
    }
}

params! {
    /// Deployment context of abandonment risk (no labels yet).
    pub struct DeploymentParams ("conversation", "deployment") {
        /// A conversation shorter than this share of the deployment's median is short.
        short_share,
    }
}

/// The learned conversation values (frustration, comprehension gap, abandonment risk).
struct Learned {
    frustration: LinearDim,
    comprehension: LinearDim,
    abandonment: LinearDim,
}

static LEARNED: LazyLock<Learned> = LazyLock::new(|| {
    let t = &*crate::model::TABLES;
    let read = |d: Dimension| {
        LinearDim::read(t, d.as_str(), "conversation", &ConversationInput::NAMES)
            .expect("core/models/dimensions.tsv has every learned conversation dimension")
    };
    Learned {
        frustration: read(Dimension::FrustrationBuildup),
        comprehension: read(Dimension::ComprehensionGap),
        abandonment: read(Dimension::SilentAbandonmentRisk),
    }
});

/// The parameters set by design, loaded once.
struct Set {
    roll_up: RollUpParams,
    resolution: ResolutionParams,
    deployment: DeploymentParams,
    abandonment: AbandonmentParams,
}

static SET: LazyLock<Set> = LazyLock::new(|| {
    let t = &*crate::model::TABLES;
    Set {
        roll_up: RollUpParams::read(t).expect("roll-up parameters"),
        resolution: ResolutionParams::read(t).expect("resolution parameters"),
        deployment: DeploymentParams::read(t).expect("deployment parameters"),
        abandonment: AbandonmentParams::read(t).expect("abandonment parameters"),
    }
});

/// Scores every human turn of `conversation` in context and rolls them up.
pub fn score_conversation(conversation: &Conversation, detector: &mut ArchetypeDetector) -> Draft {
    score(conversation, false, detector)
}

/// Scores every human turn on its own (the `reviews` pipeline): no AI context, no
/// carry-over between texts, no repetition across texts.
pub fn score_standalone(conversation: &Conversation, detector: &mut ArchetypeDetector) -> Draft {
    score(conversation, true, detector)
}

/// The signals and scored turns of a conversation, before they are rolled up.
pub fn scored_turns(
    conversation: &Conversation,
    standalone: bool,
    detector: &mut ArchetypeDetector,
) -> (Vec<TurnSignals>, Vec<TurnResult>) {
    let mut signals = conversation_signals(conversation, |seen| {
        detector.add_matches(seen.text, seen.role, seen.terms)
    });
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
            s.next_ai_failure = None;
        }
    }
    let mut state = ArcState::default();
    let mut turns: Vec<TurnResult> = Vec::with_capacity(signals.len());
    let conversation_id: Arc<str> = conversation.conversation_id.as_str().into();
    let human_turns = conversation
        .turns
        .iter()
        .filter(|t| t.role == crate::Role::Human);
    for (s, t) in signals.iter().zip(human_turns) {
        if standalone {
            state = ArcState::default();
        }
        // A conversation's turns share the id, and each run of one actor the actor's.
        let actor_id = match turns.last() {
            Some(p) if *p.actor_id == *t.event.actor_id => p.actor_id.clone(),
            _ => t.event.actor_id.as_str().into(),
        };
        turns.push(TurnResult {
            event_index: s.event_index,
            conversation_id: conversation_id.clone(),
            actor_id,
            timestamp: t.event.timestamp,
            layer_z: score_turn(s, &t.event.content, &mut state),
        });
    }
    (signals, turns)
}

fn score(conversation: &Conversation, standalone: bool, detector: &mut ArchetypeDetector) -> Draft {
    let tables = &*LEARNED;
    let r = &SET.roll_up;
    let (signals, turns) = scored_turns(conversation, standalone, detector);
    let (resolved, resolution_source) = resolution(conversation, &signals, &turns);
    // One scored turn per human turn, in order; only a text that is not ASCII (kept
    // lowercased in its signals) can be written outside the Latin alphabet.
    let mut languages = LanguageCounts::default();
    for (s, t) in signals.iter().zip(
        conversation
            .turns
            .iter()
            .filter(|t| t.role == crate::Role::Human),
    ) {
        if s.lowered.is_some() && mostly_outside_latin(&t.event.content) {
            languages.outside_latin += 1;
        } else if s.other_language {
            languages.other_language += 1;
        }
    }
    let id: Arc<str> = match turns.first() {
        Some(t) => t.conversation_id.clone(),
        None => conversation.conversation_id.as_str().into(),
    };
    let id = &id;
    let n = turns.len();
    let confidence = if n == 0 {
        0.0
    } else {
        r.confidence_floor + r.confidence_span * saturate(n as f64, r.confidence_steepness)
    };
    let x = |d: Dimension| conversation_inputs(d, conversation, &signals, &turns, resolved);
    let frustration = roll_up(
        &turns,
        Dimension::FrustrationBuildup,
        id,
        confidence,
        |_| {
            tables.frustration.calibrated(linear(
                &tables.frustration,
                &x(Dimension::FrustrationBuildup),
            ))
        },
    );
    let mut trust = roll_up(&turns, Dimension::TrustCalibration, id, confidence, |v| {
        r.trust_mean * mean(v) + (1.0 - r.trust_mean) * v.iter().copied().fold(1.0, f64::min)
    });
    trust.mode = Some(trust_mode(&turns));
    let dependency_level = mean(&values(&turns, Dimension::DependencyDrift));
    let dependency = roll_up(
        &turns,
        Dimension::DependencyDrift,
        id,
        confidence * r.dependency_confidence_share,
        mean,
    );
    let escalation = roll_up(&turns, Dimension::EscalationFriction, id, confidence, |v| {
        r.escalation_peak * max(v) + (1.0 - r.escalation_peak) * mean(v)
    });
    let comprehension = roll_up(&turns, Dimension::ComprehensionGap, id, confidence, |_| {
        tables.comprehension.calibrated(linear(
            &tables.comprehension,
            &x(Dimension::ComprehensionGap),
        ))
    });
    let abandonment_parts = if standalone {
        standalone_abandonment(id, &turns)
    } else {
        abandonment_parts(conversation, id, &x(Dimension::SilentAbandonmentRisk))
    };
    let abandonment = if standalone {
        let score = turns
            .iter()
            .map(|t| t.layer_z.silent_abandonment_risk.score)
            .fold(0.0, f64::max);
        DimensionScore::new(
            Dimension::SilentAbandonmentRisk,
            score,
            confidence,
            abandonment_parts.clone(),
        )
    } else {
        abandonment_score(&abandonment_parts, confidence)
    };
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
            conversation_id: id.clone(),
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
        languages,
    }
}

/// The inputs of the learned conversation values (frustration, comprehension gap,
/// abandonment risk, in that order) of one conversation read on its own, as the
/// training script's feature dump needs them.
pub fn learned_inputs(conversation: &Conversation) -> [(Dimension, [f64; CONVERSATION_INPUTS]); 3] {
    let mut detector = ArchetypeDetector::new();
    let (signals, turns) = scored_turns(conversation, false, &mut detector);
    let (resolved, _) = resolution(conversation, &signals, &turns);
    [
        Dimension::FrustrationBuildup,
        Dimension::ComprehensionGap,
        Dimension::SilentAbandonmentRisk,
    ]
    .map(|d| {
        (
            d,
            conversation_inputs(d, conversation, &signals, &turns, resolved),
        )
    })
}

/// The logit of a learned conversation value.
fn linear(t: &LinearDim, x: &[f64; CONVERSATION_INPUTS]) -> f64 {
    t.intercept + t.weights.iter().zip(x).map(|(w, v)| w * v).sum::<f64>()
}

/// The inputs of dimension `d`'s conversation value.
pub fn conversation_inputs(
    d: Dimension,
    conversation: &Conversation,
    signals: &[TurnSignals],
    turns: &[TurnResult],
    resolved: bool,
) -> [f64; CONVERSATION_INPUTS] {
    let mut x = [0.0; CONVERSATION_INPUTS];
    let own = values(turns, d);
    let frustration = values(turns, Dimension::FrustrationBuildup);
    x[ConversationInput::PeakTurn as usize] = max(&own);
    x[ConversationInput::FinalTurn as usize] = own.last().copied().unwrap_or(0.0);
    x[ConversationInput::MeanTurn as usize] = mean(&own);
    x[ConversationInput::FinalFrustration as usize] = frustration.last().copied().unwrap_or(0.0);
    x[ConversationInput::PeakFrustration as usize] = max(&frustration);
    x[ConversationInput::Unresolved as usize] = f64::from(u8::from(!resolved));
    let answered: Vec<f64> = signals
        .iter()
        .filter_map(|s| s.prior_ai.map(|a| a.failure))
        .collect();
    x[ConversationInput::MeanAiFailure as usize] = mean(&answered);
    if let Some(last) = signals.last() {
        let ends_on_ai = conversation
            .turns
            .last()
            .is_some_and(|t| t.role == crate::Role::Ai);
        if ends_on_ai {
            x[ConversationInput::LeftAfterAiFailure as usize] = last.next_ai_failure.unwrap_or(0.0);
        }
        x[ConversationInput::UnansweredLastQuestion as usize] =
            f64::from(u8::from(last.is_question && !last.answered));
        x[ConversationInput::LastGivingUp as usize] =
            last.reading.get(crate::model::text::Head::GivingUp);
    }
    x
}
/// The abandonment flag: unresolved and abandonment risk at least the flag threshold
/// (fitted to the annotated outcomes: a calibrated probability of abandoning is rarely
/// above one half, so the broken band would flag almost nothing).
pub fn is_abandoned(result: &ConversationResult) -> bool {
    !result.resolved
        && result.layer_z.silent_abandonment_risk.score >= SET.abandonment.flag_threshold
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
    conversation_id: &Arc<str>,
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
    // The turns' items are all read for the selection; only the kept few are copied.
    // (Sized once: a filtered iterator would grow the list by doubling.)
    let all = turns.iter().map(|t| t.layer_z.get(d).evidence.len()).sum();
    let mut items: Vec<&Evidence> = Vec::with_capacity(all);
    items.extend(
        turns
            .iter()
            .flat_map(|t| t.layer_z.get(d).evidence.iter())
            .filter(|e| e.names_a_signal() && !e.signal.starts_with("carried_"))
            .filter(|e| !emits_zero(e.contribution)),
    );
    if items.len() > MAX_EVIDENCE {
        items.select_nth_unstable_by(MAX_EVIDENCE - 1, |a, b| evidence_order(a, b));
        items.truncate(MAX_EVIDENCE);
    }
    let evidence = items
        .into_iter()
        .map(|e| Evidence {
            conversation_id: Some(conversation_id.clone()),
            ..e.clone()
        })
        .collect();
    DimensionScore::new(d, score, confidence, evidence)
}

fn trust_mode(turns: &[TurnResult]) -> TrustMode {
    let worst = turns
        .iter()
        .map(|t| &t.layer_z.trust_calibration)
        .min_by(|a, b| a.score.total_cmp(&b.score));
    match worst {
        Some(w) if w.mode != Some(TrustMode::Calibrated) && w.risk >= trust_params().mode_risk => {
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
    let p = &SET.resolution;
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
        good >= p.min_relief && tail[k..].iter().all(|later| bad(later) < p.max_complaint)
    });
    (
        satisfied && final_frustration < p.max_final_frustration,
        ResolutionSource::Detected,
    )
}

/// What an input of the abandonment model saw, for its evidence item.
fn abandonment_detail(input: ConversationInput) -> Option<Arc<str>> {
    match input {
        ConversationInput::Unresolved => Some("no thanks or confirmation at the end".into()),
        ConversationInput::LeftAfterAiFailure => {
            Some("the last AI reply failed and the person did not answer".into())
        }
        ConversationInput::UnansweredLastQuestion => Some("the last question got no reply".into()),
        _ => None,
    }
}

/// The conversation-level abandonment parts in logit units (deployment context is
/// added later): one per input the model reads.
fn abandonment_parts(
    conversation: &Conversation,
    id: &Arc<str>,
    x: &[f64; CONVERSATION_INPUTS],
) -> Vec<Evidence> {
    let t = &LEARNED.abandonment;
    let Some(last) = conversation
        .turns
        .iter()
        .rev()
        .find(|t| t.role == crate::Role::Human)
        .map(|t| t.event_index)
    else {
        return Vec::new();
    };
    let id = Some(id.clone());
    ConversationInput::ALL
        .iter()
        .zip(t.weights.iter().zip(x))
        .filter(|(_, (w, v))| **w * **v != 0.0)
        .map(|(input, (w, v))| Evidence {
            signal: input.as_str(),
            event_index: last,
            conversation_id: id.clone(),
            contribution: w * v,
            detail: abandonment_detail(*input),
        })
        .collect()
}

/// The abandonment value from its parts (logit units): the calibrated probability,
/// with the parts scaled as on a turn so that they and the baseline add up to it.
fn abandonment_score(parts: &[Evidence], confidence: f64) -> DimensionScore {
    let t = &LEARNED.abandonment;
    let moved: f64 = parts.iter().map(|e| e.contribution).sum();
    let score = t.calibrated(t.intercept + moved);
    let baseline = t.baseline();
    let factor = if moved.abs() > 1e-12 {
        (score - baseline) / moved
    } else {
        0.0
    };
    let mut evidence: Vec<Evidence> = parts
        .iter()
        .cloned()
        .map(|mut e| {
            e.contribution *= factor;
            e
        })
        .collect();
    if let Some(first) = parts.first() {
        evidence.push(Evidence {
            signal: "baseline",
            event_index: first.event_index,
            conversation_id: first.conversation_id.clone(),
            contribution: baseline,
            detail: None,
        });
    }
    DimensionScore::new(
        Dimension::SilentAbandonmentRisk,
        score,
        confidence,
        evidence,
    )
}

/// Abandonment of standalone texts: the strongest single text (churn words, low rating).
fn standalone_abandonment(id: &Arc<str>, turns: &[TurnResult]) -> Vec<Evidence> {
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
                    e.conversation_id = Some(id.clone());
                    e
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Adds what only the whole deployment shows to each conversation's abandonment risk:
/// conversations much shorter than the deployment's median, and people whose return
/// visits slow down. Then sets the abandonment flags.
pub fn apply_deployment_context(drafts: &mut [Draft], standalone: bool) {
    let mut lengths: Vec<usize> = drafts
        .iter()
        .map(|d| d.result.human_turn_count)
        .filter(|&n| n > 0)
        .collect();
    lengths.sort_unstable();
    // The deployment's median length needs a handful of conversations to mean anything.
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
    let weight = |input: ConversationInput| LEARNED.abandonment.weights[input as usize];
    for (i, d) in drafts.iter_mut().enumerate() {
        let r = &mut d.result;
        if r.turns.is_empty() {
            continue;
        }
        if !standalone {
            let at = r.turns.last().map_or(0, |t| t.event_index);
            let mut parts = d.abandonment_parts.clone();
            if let Some(m) = median
                && !r.resolved
                && (r.human_turn_count as f64) < SET.deployment.short_share * m
            {
                parts.push(Evidence {
                    signal: ConversationInput::ShortConversation.as_str(),
                    event_index: at,
                    conversation_id: Some(r.conversation_id.clone()),
                    contribution: weight(ConversationInput::ShortConversation),
                    detail: Some(
                        format!(
                            "{} human turns; the deployment's median is {m}",
                            r.human_turn_count
                        )
                        .into(),
                    ),
                });
            }
            if slowing[i] {
                parts.push(Evidence {
                    signal: ConversationInput::ReturnVisitsSlowing.as_str(),
                    event_index: at,
                    conversation_id: Some(r.conversation_id.clone()),
                    contribution: weight(ConversationInput::ReturnVisitsSlowing),
                    detail: Some("this person's gap between visits more than doubled".into()),
                });
            }
            let confidence = r.layer_z.silent_abandonment_risk.confidence;
            r.layer_z.silent_abandonment_risk = abandonment_score(&parts, confidence);
        }
        r.abandoned = is_abandoned(r);
    }
}
