//! The six dimensions of one human turn, from its signals and the arc so far.
//!
//! Each dimension collects signed parts (signal, weight × strength); the parts become
//! the turn's evidence, scaled so that they add up to the score. Weights were set by
//! reasoning about what each signal shows and checked on the DBDC3 development split
//! (docs/scoring.md); they are not fitted to the labelled measurement set.

use crate::features::context::TurnSignals;
use crate::features::markers::Category;

use super::layer_z::{Band, Dimension, DimensionScore, LayerZ, TrustMode};
use super::parts::{Parts, saturate, scale};

/// Frustration carried from one human turn to the next (the rest decays).
pub const FRUSTRATION_CARRY: f64 = 0.6;
/// Steepness of the frustration level → score curve.
pub const FRUSTRATION_K: f64 = 1.1;
/// Comprehension trouble carried to the next turn.
const COMPREHENSION_CARRY: f64 = 0.5;
/// Trust penalty carried to the next turn.
const TRUST_CARRY: f64 = 0.5;

/// What one turn leaves for the next: the levels that compound across the arc.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArcState {
    /// Frustration level (before saturation).
    pub frustration: f64,
    /// Comprehension-trouble level.
    pub comprehension: f64,
    /// Over-trust penalty level.
    pub over_trust: f64,
    /// Under-trust penalty level.
    pub under_trust: f64,
    /// Escalation requests so far.
    pub escalation_requests: u32,
    /// Escalation requests not followed by an offer of a person.
    pub unmet_escalations: u32,
}

/// Scores one human turn and advances the arc.
pub fn score_turn(s: &TurnSignals, state: &mut ArcState) -> LayerZ {
    let frustration = frustration(s, state);
    let trust = trust(s, state);
    let dependency = dependency(s);
    let comprehension = comprehension(s, state);
    let abandonment = abandonment(s, frustration.score);
    let escalation = escalation(s, state, frustration.score, trust.risk);
    LayerZ {
        trust_calibration: trust,
        frustration_buildup: frustration,
        dependency_drift: dependency,
        silent_abandonment_risk: abandonment,
        escalation_friction: escalation,
        comprehension_gap: comprehension,
    }
}

/// "1 star", "4.5 stars".
fn stars_detail(stars: f64) -> String {
    if stars == 1.0 {
        "1 star".to_owned()
    } else {
        format!("{stars} stars")
    }
}

fn phrase(s: &TurnSignals, c: Category) -> Option<String> {
    s.markers.phrase(c).map(|p| format!("\"{p}\""))
}

fn ai_failure_detail(s: &TurnSignals) -> Option<String> {
    let a = s.prior_ai?;
    let what = if a.markers.has(Category::AiRefusal) {
        a.markers
            .phrase(Category::AiRefusal)
            .map(|p| format!("AI refused: \"{p}\""))
    } else if a.markers.has(Category::AiUnknown) {
        a.markers
            .phrase(Category::AiUnknown)
            .map(|p| format!("AI did not know: \"{p}\""))
    } else if a.repeats_itself >= 0.5 {
        Some("AI repeated its previous answer".to_owned())
    } else if a.ignores_question > 0.0 {
        Some("AI reply did not address the question".to_owned())
    } else if a.markers.has(Category::AiApology) {
        a.markers
            .phrase(Category::AiApology)
            .map(|p| format!("AI apologised: \"{p}\""))
    } else if a.short_non_answer > 0.0 {
        Some("AI gave a short non-answer".to_owned())
    } else {
        a.markers
            .phrase(Category::AiDeflection)
            .map(|p| format!("AI deflected: \"{p}\""))
    };
    what.map(|w| format!("{w} (event {})", a.event_index))
}

/// Marker strength of `c`.
fn m(s: &TurnSignals, c: Category) -> f64 {
    s.markers.get(c)
}

/// Frustration: what this turn adds, plus what the arc carries, minus relief.
fn frustration(s: &TurnSignals, state: &mut ArcState) -> DimensionScore {
    let i = s.event_index;
    let mut p = Parts::default();
    let neg = (-s.affect.compound).max(0.0);
    let pos = s.affect.compound.max(0.0);
    let prior_failure = s.prior_ai.map_or(0.0, |a| a.failure);
    p.add(
        "negative_affect",
        i,
        0.5 * neg,
        s.affect.strongest_negative.map(|(w, _)| format!("\"{w}\"")),
    );
    p.add(
        "frustration_markers",
        i,
        0.55 * m(s, Category::Frustration),
        phrase(s, Category::Frustration),
    );
    p.add(
        "insult",
        i,
        0.7 * m(s, Category::Insult),
        phrase(s, Category::Insult),
    );
    if s.shouting >= 0.5 {
        p.add(
            "shouting",
            i,
            0.4 * s.shouting,
            Some(format!("{:.0}% of words in capitals", s.shouting * 100.0)),
        );
    }
    let negative_tone =
        neg > 0.0 || m(s, Category::Frustration) > 0.0 || m(s, Category::Insult) > 0.0;
    if negative_tone {
        p.add("exclamation", i, 0.15 * s.exclamation, None);
    }
    if s.repeated_question_marks {
        p.add(
            "repeated_question_marks",
            i,
            0.15,
            Some("\"??\"".to_owned()),
        );
    }
    if s.repetition >= 0.5 {
        p.add(
            "repetition",
            i,
            0.45 * s.repetition,
            s.repeated_event
                .map(|e| format!("repeats the request of event {e}")),
        );
    }
    p.add(
        "repetition_claim",
        i,
        0.3 * m(s, Category::RepetitionClaim),
        phrase(s, Category::RepetitionClaim),
    );
    p.add(
        "correction",
        i,
        0.4 * m(s, Category::Correction),
        phrase(s, Category::Correction),
    );
    p.add(
        "problem_persists",
        i,
        0.4 * m(s, Category::ProblemPersists),
        phrase(s, Category::ProblemPersists),
    );
    p.add(
        "escalation_request",
        i,
        0.3 * m(s, Category::Escalation),
        phrase(s, Category::Escalation),
    );
    p.add(
        "dismissal",
        i,
        0.45 * m(s, Category::Dismissal),
        phrase(s, Category::Dismissal),
    );
    p.add(
        "giving_up",
        i,
        0.35 * m(s, Category::GivingUp),
        phrase(s, Category::GivingUp),
    );
    p.add(
        "comprehension_trouble",
        i,
        0.1 * m(s, Category::Comprehension),
        phrase(s, Category::Comprehension),
    );
    if s.clarification_request {
        p.add("clarification_request", i, 0.15, None);
    }
    if let Some(stars) = s.rating
        && stars < 3.0
    {
        p.add(
            "low_rating",
            i,
            0.6 * (3.0 - stars) / 2.0,
            Some(stars_detail(stars)),
        );
    }
    p.add("ai_failure", i, 0.3 * prior_failure, ai_failure_detail(s));
    p.add(
        "ai_failure_history",
        i,
        0.1 * s.ai_failure_history.min(1.0),
        None,
    );
    // Thanks right after a failure, in a turn that also complains, is often sarcasm
    // ("great, thanks a lot"): it relieves less.
    let complaint = p.push_total();
    let sincerity = 1.0 - 0.7 * prior_failure.min(1.0) * (complaint > 0.2) as u8 as f64;
    p.add(
        "gratitude",
        i,
        -0.45 * m(s, Category::Gratitude) * sincerity,
        phrase(s, Category::Gratitude),
    );
    p.add(
        "resolution",
        i,
        -0.5 * m(s, Category::Resolution) * sincerity,
        phrase(s, Category::Resolution),
    );
    p.add(
        "positive_affect",
        i,
        -0.25 * pos * sincerity,
        s.affect.strongest_positive.map(|(w, _)| format!("\"{w}\"")),
    );
    if let Some(stars) = s.rating
        && stars > 3.0
    {
        p.add(
            "high_rating",
            i,
            -0.3 * (stars - 3.0) / 2.0,
            Some(stars_detail(stars)),
        );
    }
    let push = p.push_total();
    let relief = p.relief_total();
    // Relief first drains what was carried over, then offsets this turn's push at half.
    let carry = state.frustration * FRUSTRATION_CARRY;
    let carried = (carry - relief).max(0.0);
    let in_turn = (push - 0.5 * relief).max(0.0);
    let mut level = carried + in_turn;
    // Evidence in level units: the full carry, the push, and the relief items scaled to
    // what relief actually removed, so that the items add up to the level.
    let applied = (carry - carried) + (push - in_turn);
    if relief > 0.0 {
        p.scale_relief(applied / relief);
    }
    p.add("carried_frustration", i, carry, None);
    // A turn that complains and offers no relief never lowers the level: saturation
    // and decay must not make a hostile turn read calmer than the one before.
    if relief == 0.0 && push >= 0.5 && level < state.frustration {
        p.add("carried_frustration", i, state.frustration - level, None);
        level = state.frustration;
    }
    state.frustration = level;
    let score = saturate(level, FRUSTRATION_K);
    let confidence = turn_confidence(s);
    DimensionScore::new(
        Dimension::FrustrationBuildup,
        score,
        confidence,
        p.into_evidence(scale(score, level)),
    )
}

/// Trust calibration: over-trust and under-trust penalties; the larger sets the mode.
fn trust(s: &TurnSignals, state: &mut ArcState) -> DimensionScore {
    let i = s.event_index;
    let failure = s.prior_ai.map_or(0.0, |a| a.failure);
    let hedge = s.prior_ai.map_or(0.0, |a| a.markers.get(Category::AiHedge));
    // Accepting a refusal or an "I don't know" is not trusting an answer: there was
    // none. Doubt about the answer comes from hedges and from other failures.
    let gave_no_answer = s
        .prior_ai
        .is_some_and(|a| a.markers.has(Category::AiRefusal) || a.markers.has(Category::AiUnknown));
    let doubt = if gave_no_answer {
        hedge
    } else {
        failure.max(hedge)
    };
    let checked = m(s, Category::Verification)
        .max(m(s, Category::Correction))
        .max(m(s, Category::ProblemPersists));
    let mut over = Parts::default();
    let mut under = Parts::default();
    if checked == 0.0 {
        over.add(
            "acceptance_after_hedge",
            i,
            0.6 * m(s, Category::Acceptance) * doubt,
            phrase(s, Category::Acceptance),
        );
    }
    // Declining to check at all is over-trust even after a confident answer, more so
    // after a hedged or failed one.
    over.add(
        "skipped_check",
        i,
        0.6 * m(s, Category::SkippedCheck) * (0.6 + 0.4 * doubt),
        phrase(s, Category::SkippedCheck),
    );
    over.add(
        "delegation_after_error",
        i,
        0.3 * m(s, Category::Delegation) * failure,
        phrase(s, Category::Delegation),
    );
    let clean = 1.0 - failure.max(s.ai_failure_history.min(1.0));
    under.add(
        "dismissal_without_failure",
        i,
        0.5 * m(s, Category::Dismissal) * clean,
        phrase(s, Category::Dismissal),
    );
    let early = if s.human_position < 2 { 1.0 } else { 0.5 };
    under.add(
        "premature_escalation",
        i,
        0.45 * m(s, Category::Escalation) * clean * early,
        phrase(s, Category::Escalation),
    );
    let calibrated = 0.3 * m(s, Category::Verification) * doubt;
    if calibrated > 0.0 {
        over.add(
            "verification_after_hedge",
            i,
            -calibrated,
            phrase(s, Category::Verification),
        );
    }
    over.add(
        "carried_over_trust",
        i,
        state.over_trust * TRUST_CARRY,
        None,
    );
    under.add(
        "carried_under_trust",
        i,
        state.under_trust * TRUST_CARRY,
        None,
    );
    state.over_trust = over.total().max(0.0);
    state.under_trust = under.total().max(0.0);
    let (level, mode, parts) = if state.over_trust >= state.under_trust {
        (state.over_trust, TrustMode::OverTrust, over)
    } else {
        (state.under_trust, TrustMode::UnderTrust, under)
    };
    // Healthy trust sits at 0.9; the penalty saturates towards 0.
    let penalty = 0.1 + 0.9 * saturate(level, 1.2);
    let score = 1.0 - penalty;
    let mut d = DimensionScore::new(
        Dimension::TrustCalibration,
        score,
        turn_confidence(s),
        parts.into_evidence(scale(penalty - 0.1, level)),
    );
    // A mode names which way trust is off, so only outside the healthy band.
    d.mode = Some(if d.band == Band::Healthy {
        TrustMode::Calibrated
    } else {
        mode
    });
    d
}

/// Dependency on one turn: delegation raises it, self-efficacy lowers it, from 0.15.
fn dependency(s: &TurnSignals) -> DimensionScore {
    let i = s.event_index;
    let mut p = Parts::default();
    p.add("baseline", i, 0.15, None);
    p.add(
        "delegation",
        i,
        0.6 * m(s, Category::Delegation),
        phrase(s, Category::Delegation),
    );
    p.add(
        "self_efficacy",
        i,
        -0.4 * m(s, Category::SelfEfficacy),
        phrase(s, Category::SelfEfficacy),
    );
    let (push, relief) = (p.push_total(), p.relief_total());
    if relief > push {
        // The level stops at 0: show only the relief that was used.
        p.scale_relief(push / relief);
    }
    let score = p.total().clamp(0.0, 1.0);
    // One turn says little about a trend over time.
    DimensionScore::new(
        Dimension::DependencyDrift,
        score,
        0.2 * turn_confidence(s),
        p.into_evidence(1.0),
    )
}

/// Comprehension gap: trouble markers, bare "?" turns, asking again after an answer.
fn comprehension(s: &TurnSignals, state: &mut ArcState) -> DimensionScore {
    let i = s.event_index;
    let failure = s.prior_ai.map_or(0.0, |a| a.failure);
    let mut p = Parts::default();
    p.add(
        "comprehension_trouble",
        i,
        0.7 * m(s, Category::Comprehension),
        phrase(s, Category::Comprehension),
    );
    if s.clarification_request {
        p.add("clarification_request", i, 0.35, None);
    } else if s.is_question && s.words <= 2 {
        p.add("bare_question", i, 0.25, None);
    }
    if s.repeated_question_marks {
        p.add("repeated_question_marks", i, 0.1, None);
    }
    if s.is_question && s.repetition >= 0.5 && failure < 0.5 {
        p.add(
            "asks_again_after_answer",
            i,
            0.25 * s.repetition,
            s.repeated_event
                .map(|e| format!("asks again what event {e} asked")),
        );
    }
    if let Some(a) = s.prior_ai
        && a.words > 120
        && s.is_question
    {
        p.add(
            "question_after_long_answer",
            i,
            0.1,
            Some(format!("AI answer of {} words", a.words)),
        );
    }
    p.add(
        "understood",
        i,
        -0.3 * m(s, Category::Resolution),
        phrase(s, Category::Resolution),
    );
    let relief = p.relief_total();
    let push = p.push_total();
    // Relief drains the carried gap and this turn's push; evidence as in frustration.
    let carry = state.comprehension * COMPREHENSION_CARRY;
    let carried = (carry - relief).max(0.0);
    let in_turn = (push - relief).max(0.0);
    let level = carried + in_turn;
    let applied = (carry - carried) + (push - in_turn);
    if relief > 0.0 {
        p.scale_relief(applied / relief);
    }
    p.add("carried_comprehension_gap", i, carry, None);
    state.comprehension = level;
    let score = saturate(level, 1.3);
    DimensionScore::new(
        Dimension::ComprehensionGap,
        score,
        turn_confidence(s),
        p.into_evidence(scale(score, level)),
    )
}

/// Abandonment risk after this turn: frustration, the AI failing, giving up, shrinking replies.
fn abandonment(s: &TurnSignals, frustration: f64) -> DimensionScore {
    let i = s.event_index;
    let prior_failure = s.prior_ai.map_or(0.0, |a| a.failure);
    let mut p = Parts::default();
    p.add("baseline", i, 0.05, None);
    p.add("frustration", i, 0.35 * frustration, None);
    p.add("ai_failure", i, 0.2 * prior_failure, ai_failure_detail(s));
    p.add(
        "giving_up",
        i,
        0.35 * m(s, Category::GivingUp),
        phrase(s, Category::GivingUp),
    );
    p.add(
        "dismissal",
        i,
        0.15 * m(s, Category::Dismissal),
        phrase(s, Category::Dismissal),
    );
    if s.human_position >= 2 && s.length_ratio < 0.5 {
        p.add(
            "shrinking_replies",
            i,
            0.1,
            Some(format!(
                "{} words, {:.0}% of this person's earlier average",
                s.words,
                s.length_ratio * 100.0
            )),
        );
    }
    if s.is_last_human_turn {
        if s.is_question && !s.answered {
            p.add("unanswered_last_question", i, 0.25, None);
        }
        if let Some(f) = s.next_ai_failure {
            p.add("last_reply_failed", i, 0.25 * f, None);
        }
    }
    if let Some(stars) = s.rating
        && stars < 3.0
    {
        p.add(
            "low_rating",
            i,
            0.2 * (3.0 - stars) / 2.0,
            Some(stars_detail(stars)),
        );
    }
    let relief = m(s, Category::Resolution).max(m(s, Category::Gratitude)) * (1.0 - prior_failure);
    p.add(
        "resolution",
        i,
        -0.35 * relief,
        phrase(s, Category::Resolution).or_else(|| phrase(s, Category::Gratitude)),
    );
    let score = p.total().clamp(0.0, 1.0);
    DimensionScore::new(
        Dimension::SilentAbandonmentRisk,
        score,
        turn_confidence(s),
        p.into_evidence(1.0),
    )
}

/// Escalation friction: asking for a person and not being offered one, on top of
/// frustration and broken trust.
fn escalation(
    s: &TurnSignals,
    state: &mut ArcState,
    frustration: f64,
    trust_risk: f64,
) -> DimensionScore {
    let i = s.event_index;
    let asked = m(s, Category::Escalation);
    let mut p = Parts::default();
    if asked > 0.0 {
        p.add(
            "escalation_request",
            i,
            0.3 * asked,
            phrase(s, Category::Escalation),
        );
        if state.escalation_requests > 0 {
            p.add(
                "repeated_escalation_request",
                i,
                0.2 * asked,
                Some(format!("request number {}", state.escalation_requests + 1)),
            );
        }
        match s.next_ai_offers_escalation {
            Some(offer) if offer >= 0.5 => p.add("escalation_offered", i, -0.15 * asked, None),
            Some(_) => {
                state.unmet_escalations += 1;
                p.add(
                    "escalation_not_offered",
                    i,
                    0.35 * asked,
                    Some("the next AI reply offered no person or channel".to_owned()),
                );
            }
            None => {
                state.unmet_escalations += 1;
                p.add(
                    "escalation_unanswered",
                    i,
                    0.25 * asked,
                    Some("no AI reply followed".to_owned()),
                );
            }
        }
        state.escalation_requests += 1;
    } else if state.unmet_escalations > 0 {
        p.add(
            "earlier_escalation_unmet",
            i,
            0.15 * f64::from(state.unmet_escalations.min(3)),
            None,
        );
    }
    p.add("frustration", i, 0.25 * frustration, None);
    p.add("trust_risk", i, 0.1 * trust_risk, None);
    let score = p.total().clamp(0.0, 1.0);
    DimensionScore::new(
        Dimension::EscalationFriction,
        score,
        turn_confidence(s),
        p.into_evidence(1.0),
    )
}

/// Confidence of one turn's reading: more words, more to go on (4 words ≈ 0.5, 20+ ≈ 0.9).
fn turn_confidence(s: &TurnSignals) -> f64 {
    0.3 + 0.6 * saturate(s.words as f64, 0.12)
}
