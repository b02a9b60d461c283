//! The six dimensions of one human turn, from its signals and the arc so far.
//!
//! Frustration, comprehension gap and abandonment risk are learned: a logistic model
//! over the turn's named inputs ([`super::inputs`]) with an arc carried from turn to
//! turn, calibrated (`model::tables::LinearDim`). Trust calibration, dependency and
//! escalation friction have no labels yet: their formulas read parameters set by design
//! in the same tables. Every number comes from `core/models/dimensions.tsv`; the parts
//! of each score become its evidence, scaled so that they add up to the score.

use std::sync::{Arc, LazyLock};

use crate::decimal::push_fixed;
use crate::features::markers::{self, Category, Markers};
use crate::model::TABLES;
use crate::model::tables::LinearDim;
use crate::params;

use super::context::TurnSignals;
use super::inputs::{INPUTS, Input, inputs};
use super::layer_z::{Band, Dimension, DimensionScore, LayerZ, TrustMode};
use super::parts::{Parts, saturate, scale};

params! {
    /// Trust calibration (no labels yet).
    pub struct TrustParams ("trust_calibration", "turn") {
        /// Over-trust: accepting right after a hedged or failed answer, per unit of doubt.
        acceptance_after_hedge,
        /// Over-trust: declining to check the AI's output.
        skipped_check,
        /// Share of `skipped_check` that counts even after a confident answer.
        skipped_check_floor,
        /// Over-trust: delegating right after an AI error, per unit of failure.
        delegation_after_error,
        /// Under-trust: writing the AI off when it showed no failure.
        dismissal_without_failure,
        /// Under-trust: asking for a person before the AI had a chance.
        premature_escalation,
        /// Share of `premature_escalation` from the third human turn on.
        late_escalation_share,
        /// Relief from verifying after a hedge, per unit of doubt.
        verification_after_hedge,
        /// Penalty carried to the next turn.
        carry,
        /// Score with no penalty.
        healthy_score,
        /// Steepness of the penalty curve.
        steepness,
        /// Risk from which a conversation names its trust mode.
        mode_risk,
    }
}

params! {
    /// Dependency drift on one turn (no labels yet).
    pub struct DependencyParams ("dependency_drift", "turn") {
        /// Level of a turn with neither delegation nor self-efficacy.
        baseline,
        /// Delegating ("just do it for me").
        delegation,
        /// Doing it oneself ("let me try"): lowers the level.
        self_efficacy,
        /// Share of the turn confidence a single turn's dependency gets.
        confidence_share,
    }
}

params! {
    /// Escalation friction (no labels yet).
    pub struct EscalationParams ("escalation_friction", "turn") {
        /// Asking for a person.
        request,
        /// Asking again.
        repeated_request,
        /// The next AI reply offered no person or channel.
        not_offered,
        /// No AI reply followed the request.
        unanswered,
        /// A person or channel was offered: lowers friction.
        offered,
        /// Offer strength from which a reply counts as offering a person.
        offer_threshold,
        /// Per earlier unmet request, on later turns.
        earlier_unmet,
        /// Earlier unmet requests counted at most.
        earlier_unmet_cap,
        /// Share of the turn's frustration that adds friction.
        frustration,
        /// Share of the turn's trust risk that adds friction.
        trust_risk,
    }
}

params! {
    /// How sure one turn's reading is (no labels: a function of length).
    pub struct ConfidenceParams ("confidence", "turn") {
        /// Confidence of a turn without words.
        floor,
        /// What enough words add on top.
        span,
        /// Steepness in words.
        steepness,
    }
}

/// Every table a turn reads, loaded once.
struct Turn {
    frustration: LinearDim,
    comprehension: LinearDim,
    abandonment: LinearDim,
    trust: TrustParams,
    dependency: DependencyParams,
    escalation: EscalationParams,
    confidence: ConfidenceParams,
}

static TURN: LazyLock<Turn> = LazyLock::new(|| {
    let t = &*TABLES;
    let learned = |d: Dimension| {
        LinearDim::read(t, d.as_str(), "turn", &Input::NAMES)
            .expect("core/models/dimensions.tsv has every learned turn dimension")
    };
    Turn {
        frustration: learned(Dimension::FrustrationBuildup),
        comprehension: learned(Dimension::ComprehensionGap),
        abandonment: learned(Dimension::SilentAbandonmentRisk),
        trust: TrustParams::read(t).expect("trust parameters"),
        dependency: DependencyParams::read(t).expect("dependency parameters"),
        escalation: EscalationParams::read(t).expect("escalation parameters"),
        confidence: ConfidenceParams::read(t).expect("confidence parameters"),
    }
});

/// The trust parameters (read by the conversation roll-up too).
pub fn trust_params() -> &'static TrustParams {
    &TURN.trust
}

/// What one turn leaves for the next: the levels that compound across the arc.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ArcState {
    /// Frustration level (logit units above the baseline, never below 0).
    pub frustration: f64,
    /// Comprehension-gap level.
    pub comprehension: f64,
    /// Abandonment level.
    pub abandonment: f64,
    /// Over-trust penalty level.
    pub over_trust: f64,
    /// Under-trust penalty level.
    pub under_trust: f64,
    /// Escalation requests so far.
    pub escalation_requests: u32,
    /// Escalation requests not followed by an offer of a person.
    pub unmet_escalations: u32,
}

/// Scores one human turn (whose text is `content`) and advances the arc.
pub fn score_turn(s: &TurnSignals, content: &str, state: &mut ArcState) -> LayerZ {
    let t = &*TURN;
    let x = inputs(s);
    let present = present(&x);
    let confidence = turn_confidence(s);
    let details = &mut Details::new(s, content);
    let frustration = learned(
        Dimension::FrustrationBuildup,
        &t.frustration,
        (&x, present),
        details,
        &mut state.frustration,
        confidence,
    );
    let comprehension = learned(
        Dimension::ComprehensionGap,
        &t.comprehension,
        (&x, present),
        details,
        &mut state.comprehension,
        confidence,
    );
    let abandonment = learned(
        Dimension::SilentAbandonmentRisk,
        &t.abandonment,
        (&x, present),
        details,
        &mut state.abandonment,
        confidence,
    );
    let trust = trust(s, state, confidence);
    let dependency = dependency(s, confidence);
    let escalation = escalation(s, state, frustration.score, trust.risk, confidence);
    LayerZ {
        trust_calibration: trust,
        frustration_buildup: frustration,
        dependency_drift: dependency,
        silent_abandonment_risk: abandonment,
        escalation_friction: escalation,
        comprehension_gap: comprehension,
    }
}

/// The inputs that are not zero, as bits (bit `k` for input `k`): only they can make a
/// part of a learned dimension (a zero input's part is zero, and a part of zero is
/// not kept), so the three dimensions of a turn look at these alone.
fn present(x: &[f64; INPUTS]) -> u32 {
    const { assert!(INPUTS <= 32) };
    x.iter()
        .enumerate()
        .fold(0, |bits, (k, &v)| bits | (u32::from(v != 0.0) << k))
}

/// The name of the carried-arc evidence item of a learned dimension.
fn carried_signal(d: Dimension) -> &'static str {
    match d {
        Dimension::FrustrationBuildup => "carried_frustration",
        Dimension::ComprehensionGap => "carried_comprehension_gap",
        _ => "carried_abandonment_risk",
    }
}

/// A learned dimension on one turn. The parts (weight × input, and the carried level)
/// are in logit units; the score is the calibrated probability. Evidence: a `baseline`
/// item (the score with no input and nothing carried) plus each part scaled by
/// `(score − baseline) / Σ parts`, so the items add up to the score exactly.
fn learned(
    d: Dimension,
    table: &LinearDim,
    (x, present): (&[f64; INPUTS], u32),
    details: &mut Details<'_>,
    level: &mut f64,
    confidence: f64,
) -> DimensionScore {
    let i = details.s.event_index;
    let (mut impulse, mut above_typical) = (0.0, 0.0);
    for (k, (&w, &v)) in table.weights.iter().zip(x.iter()).enumerate() {
        above_typical += w * (v - table.centers[k]);
        impulse += w * v;
    }
    let carried = table.carry_weight * table.carry_rate * *level;
    // Only what this turn pushes above a typical turn carries on.
    *level = (above_typical + carried).max(0.0);
    let logit = table.intercept + impulse + carried;
    let score = table.calibrated(logit);
    let baseline = table.baseline();
    let moved = logit - table.intercept;
    let factor = if moved.abs() > 1e-12 {
        (score - baseline) / moved
    } else {
        0.0
    };
    // The parts in the score's units; the kept few become evidence.
    let mut parts: Parts<Option<Input>> = Parts::default();
    let mut bits = present;
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let input = Input::ALL[k];
        parts.add(
            input.as_str(),
            table.weights[k] * x[k] * factor,
            Some(input),
        );
    }
    parts.add(carried_signal(d), carried * factor, None);
    parts.add("baseline", baseline, None);
    let evidence = parts.drain_evidence(1.0, i, &mut |input| {
        input.and_then(|input| details.get(input))
    });
    DimensionScore::from_selected(d, score, confidence, evidence)
}

/// One turn as its learned dimensions read it: its signals, its text, and the
/// evidence details of its inputs, each written once however many dimensions keep it,
/// and shared by them.
struct Details<'a> {
    s: &'a TurnSignals,
    content: &'a str,
    written: [Option<Option<Arc<str>>>; INPUTS],
}

impl<'a> Details<'a> {
    fn new(s: &'a TurnSignals, content: &'a str) -> Self {
        Details {
            s,
            content,
            written: Default::default(),
        }
    }

    fn get(&mut self, input: Input) -> Option<Arc<str>> {
        let (s, content) = (self.s, self.content);
        self.written[input as usize]
            .get_or_insert_with(|| detail(input, s, content))
            .clone()
    }
}

/// What an input saw, for its evidence item.
fn detail(input: Input, s: &TurnSignals, content: &str) -> Option<Arc<str>> {
    // A quoted marker phrase or a fixed text is shared, not written again.
    if let Some(c) = input.marker() {
        return quoted_phrase(&s.markers, c);
    }
    match input {
        Input::RepeatedQuestionMarks => return Some(Fixed::RepeatedQuestionMarks.shared()),
        Input::LastReplyFailed => return Some(Fixed::LastReplyFailed.shared()),
        Input::UnansweredLastQuestion => return Some(Fixed::UnansweredLastQuestion.shared()),
        _ => {}
    }
    // Written into one buffer reused from turn to turn, then copied once into the
    // shared string the evidence keeps.
    thread_local! {
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUF.with(|buf| {
        let out = &mut *buf.borrow_mut();
        out.clear();
        write_detail(out, input, s, content).then(|| Arc::from(out.as_str()))
    })
}

/// Writes what `input` saw into `out`; false when there is nothing to say.
fn write_detail(out: &mut String, input: Input, s: &TurnSignals, content: &str) -> bool {
    if let Some(h) = input.head() {
        // "annoyance 0.81: \"useless\", \"not working\"".
        out.push_str(h.as_str());
        out.push(' ');
        push_fixed(out, s.reading.get(h), 2);
        let mut first = true;
        for &(a, b) in s.reading.top[h.index()]
            .iter()
            .filter(|span| span.1 > span.0)
        {
            let (a, b) = (a as usize, b as usize);
            let Some(words) = s.lowered.as_deref().unwrap_or(content).get(a..b) else {
                continue;
            };
            out.push_str(if first { ": \"" } else { ", \"" });
            first = false;
            // Copied whole, then lowercased in place (a non-ASCII text's words come
            // from its lowercased text already).
            let from = out.len();
            out.push_str(words);
            if let Some(copied) = out.get_mut(from..) {
                copied.make_ascii_lowercase();
            }
            out.push('"');
        }
        return true;
    }
    match input {
        Input::AiFailure => ai_failure_detail(out, s),
        Input::VaderNegative => s
            .affect
            .strongest_negative
            .is_some_and(|(w, _)| push_quoted(out, w)),
        Input::Repetition | Input::AsksAgain => s.repeated_event.is_some_and(|e| {
            out.push_str("repeats the request of event ");
            push_int(out, e);
            true
        }),
        Input::Shouting => {
            push_fixed(out, s.shouting * 100.0, 0);
            out.push_str("% of words in capitals");
            true
        }
        Input::QuestionAfterLongAnswer => s.prior_ai.is_some_and(|a| {
            out.push_str("AI answer of ");
            push_words(out, a.words);
            true
        }),
        Input::ShrinkingReplies => {
            push_words(out, s.words);
            out.push_str(", ");
            push_fixed(out, s.length_ratio * 100.0, 0);
            out.push_str("% of this person's earlier average");
            true
        }
        Input::LowRating | Input::HighRating => s.rating.is_some_and(|stars| {
            out.push_str(&stars_detail(stars));
            true
        }),
        _ => false,
    }
}

/// Appends `"text"`; always true.
fn push_quoted(out: &mut String, text: &str) -> bool {
    out.push('"');
    out.push_str(text);
    out.push('"');
    true
}

/// Appends an integer.
fn push_int(out: &mut String, n: usize) {
    crate::decimal::push_digits(out, n as u64, 1);
}

/// "1 word", "4 words".
fn push_words(out: &mut String, n: usize) {
    push_int(out, n);
    out.push_str(if n == 1 { " word" } else { " words" });
}

/// "1 star", "4.5 stars".
fn stars_detail(stars: f64) -> String {
    if stars == 1.0 {
        "1 star".to_owned()
    } else {
        format!("{stars} stars")
    }
}

/// What a part of a hand-set dimension saw, written out only if the part is kept.
#[derive(Debug, Clone, Copy)]
enum Said {
    /// Nothing worth saying.
    Nothing,
    /// The strongest phrase of a marker category.
    Phrase(Category),
    /// A fixed description.
    Text(Fixed),
    /// "request number N".
    RequestNumber(u32),
}

/// The detail of a kept part.
fn said(s: &TurnSignals, d: Said) -> Option<Arc<str>> {
    match d {
        Said::Nothing => None,
        Said::Phrase(c) => quoted_phrase(&s.markers, c),
        Said::Text(t) => Some(t.shared()),
        Said::RequestNumber(n) => Some(format!("request number {n}").into()),
    }
}

/// `"phrase"`, as evidence shows a matched phrase.
fn quoted(p: &str) -> Arc<str> {
    let mut out = String::with_capacity(p.len() + 2);
    push_quoted(&mut out, p);
    out.into()
}

/// Every marker phrase quoted, by its index in [`markers::phrases`]: written once and
/// shared by every evidence item that quotes it (a reference count, not a string).
static QUOTED_PHRASES: LazyLock<Vec<Arc<str>>> =
    LazyLock::new(|| markers::phrases().map(quoted).collect());

/// The strongest phrase of `category` that matched, quoted.
fn quoted_phrase(m: &Markers, category: Category) -> Option<Arc<str>> {
    QUOTED_PHRASES.get(m.phrase_index(category)?).cloned()
}

/// The details that are always the same words, each written once and shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fixed {
    NotOffered,
    NoReply,
    RepeatedQuestionMarks,
    LastReplyFailed,
    UnansweredLastQuestion,
}

impl Fixed {
    const ALL: [Fixed; 5] = [
        Fixed::NotOffered,
        Fixed::NoReply,
        Fixed::RepeatedQuestionMarks,
        Fixed::LastReplyFailed,
        Fixed::UnansweredLastQuestion,
    ];

    fn text(self) -> &'static str {
        match self {
            Fixed::NotOffered => "the next AI reply offered no person or channel",
            Fixed::NoReply => "no AI reply followed",
            Fixed::RepeatedQuestionMarks => "\"??\"",
            Fixed::LastReplyFailed => "the AI's reply to the last turn failed",
            Fixed::UnansweredLastQuestion => "the last question got no reply",
        }
    }

    fn shared(self) -> Arc<str> {
        static SHARED: LazyLock<[Arc<str>; 5]> =
            LazyLock::new(|| Fixed::ALL.map(|f| f.text().into()));
        SHARED[self as usize].clone()
    }
}

/// Writes what the AI turn before did that reads as a failure; false when there was
/// no AI turn before.
fn ai_failure_detail(out: &mut String, s: &TurnSignals) -> bool {
    let Some(a) = s.prior_ai else {
        return false;
    };
    let marker = |c: Category, what: &'static str| a.markers.phrase(c).map(|p| (what, Some(p)));
    let what = marker(Category::AiRefusal, "AI refused")
        .or_else(|| marker(Category::AiUnknown, "AI did not know"))
        .or_else(|| {
            (a.context.repeats_itself > 0.0).then_some(("AI repeated its previous answer", None))
        })
        .or_else(|| {
            a.context
                .ignores_question
                .then_some(("AI reply did not address the question", None))
        })
        .or_else(|| marker(Category::AiApology, "AI apologised"))
        .or_else(|| marker(Category::AiDeflection, "AI deflected"));
    match what {
        Some((w, phrase)) => {
            out.push_str(w);
            if let Some(p) = phrase {
                out.push_str(": ");
                push_quoted(out, p);
            }
            out.push_str(", ");
        }
        None => out.push_str("AI turn "),
    }
    out.push_str("breakdown ");
    push_fixed(out, a.failure, 2);
    out.push_str(" (event ");
    push_int(out, a.event_index);
    out.push(')');
    true
}

/// Marker strength of `c`.
fn m(s: &TurnSignals, c: Category) -> f64 {
    s.markers.get(c)
}

/// Trust calibration: over-trust and under-trust penalties; the larger sets the mode.
fn trust(s: &TurnSignals, state: &mut ArcState, confidence: f64) -> DimensionScore {
    let p = &TURN.trust;
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
            p.acceptance_after_hedge * m(s, Category::Acceptance) * doubt,
            Said::Phrase(Category::Acceptance),
        );
    }
    // Declining to check at all is over-trust even after a confident answer, more so
    // after a hedged or failed one.
    over.add(
        "skipped_check",
        p.skipped_check
            * m(s, Category::SkippedCheck)
            * (p.skipped_check_floor + (1.0 - p.skipped_check_floor) * doubt),
        Said::Phrase(Category::SkippedCheck),
    );
    over.add(
        "delegation_after_error",
        p.delegation_after_error * m(s, Category::Delegation) * failure,
        Said::Phrase(Category::Delegation),
    );
    let clean = 1.0 - failure.max(s.ai_failure_history.min(1.0));
    under.add(
        "dismissal_without_failure",
        p.dismissal_without_failure * m(s, Category::Dismissal) * clean,
        Said::Phrase(Category::Dismissal),
    );
    let early = if s.human_position < 2 {
        1.0
    } else {
        p.late_escalation_share
    };
    under.add(
        "premature_escalation",
        p.premature_escalation * m(s, Category::Escalation) * clean * early,
        Said::Phrase(Category::Escalation),
    );
    let calibrated = p.verification_after_hedge * m(s, Category::Verification) * doubt;
    if calibrated > 0.0 {
        over.add(
            "verification_after_hedge",
            -calibrated,
            Said::Phrase(Category::Verification),
        );
    }
    over.add(
        "carried_over_trust",
        state.over_trust * p.carry,
        Said::Nothing,
    );
    under.add(
        "carried_under_trust",
        state.under_trust * p.carry,
        Said::Nothing,
    );
    state.over_trust = over.total().max(0.0);
    state.under_trust = under.total().max(0.0);
    let (level, mode, parts) = if state.over_trust >= state.under_trust {
        (state.over_trust, TrustMode::OverTrust, &mut over)
    } else {
        (state.under_trust, TrustMode::UnderTrust, &mut under)
    };
    // Healthy trust sits at `healthy_score`; the penalty saturates towards 0.
    let unhealthy = 1.0 - p.healthy_score;
    let penalty = unhealthy + p.healthy_score * saturate(level, p.steepness);
    let score = 1.0 - penalty;
    // The evidence adds up to the risk, `1 − score`: a `baseline` item (the risk of
    // healthy trust) plus the parts, scaled into the penalty they caused.
    parts.keep_used_relief();
    let factor = match level > 1e-12 {
        true => scale(penalty - unhealthy, level),
        false => 1.0,
    };
    parts.add("baseline", unhealthy / factor, Said::Nothing);
    let mut d = DimensionScore::from_selected(
        Dimension::TrustCalibration,
        score,
        confidence,
        parts.drain_evidence(factor, i, &mut |d| said(s, d)),
    );
    // A mode names which way trust is off, so only outside the healthy band.
    d.mode = Some(if d.band == Band::Healthy {
        TrustMode::Calibrated
    } else {
        mode
    });
    d
}

/// Dependency on one turn: delegation raises it, self-efficacy lowers it.
fn dependency(s: &TurnSignals, confidence: f64) -> DimensionScore {
    let q = &TURN.dependency;
    let i = s.event_index;
    let mut p = Parts::default();
    p.add("baseline", q.baseline, Said::Nothing);
    p.add(
        "delegation",
        q.delegation * m(s, Category::Delegation),
        Said::Phrase(Category::Delegation),
    );
    p.add(
        "self_efficacy",
        -q.self_efficacy * m(s, Category::SelfEfficacy),
        Said::Phrase(Category::SelfEfficacy),
    );
    let (score, factor) = bounded(&mut p);
    // One turn says little about a trend over time.
    DimensionScore::from_selected(
        Dimension::DependencyDrift,
        score,
        q.confidence_share * confidence,
        p.drain_evidence(factor, i, &mut |d| said(s, d)),
    )
}

/// Escalation friction: asking for a person and not being offered one, on top of
/// frustration and broken trust.
fn escalation(
    s: &TurnSignals,
    state: &mut ArcState,
    frustration: f64,
    trust_risk: f64,
    confidence: f64,
) -> DimensionScore {
    let q = &TURN.escalation;
    let i = s.event_index;
    let asked = m(s, Category::Escalation);
    let mut p = Parts::default();
    if asked > 0.0 {
        p.add(
            "escalation_request",
            q.request * asked,
            Said::Phrase(Category::Escalation),
        );
        if state.escalation_requests > 0 {
            p.add(
                "repeated_escalation_request",
                q.repeated_request * asked,
                Said::RequestNumber(state.escalation_requests + 1),
            );
        }
        match s.next_ai_offers_escalation {
            Some(offer) if offer >= q.offer_threshold => {
                p.add("escalation_offered", -q.offered * asked, Said::Nothing)
            }
            Some(_) => {
                state.unmet_escalations += 1;
                p.add(
                    "escalation_not_offered",
                    q.not_offered * asked,
                    Said::Text(Fixed::NotOffered),
                );
            }
            None => {
                state.unmet_escalations += 1;
                p.add(
                    "escalation_unanswered",
                    q.unanswered * asked,
                    Said::Text(Fixed::NoReply),
                );
            }
        }
        state.escalation_requests += 1;
    } else if state.unmet_escalations > 0 {
        p.add(
            "earlier_escalation_unmet",
            q.earlier_unmet * f64::from(state.unmet_escalations).min(q.earlier_unmet_cap),
            Said::Nothing,
        );
    }
    p.add("frustration", q.frustration * frustration, Said::Nothing);
    p.add("trust_risk", q.trust_risk * trust_risk, Said::Nothing);
    let (score, factor) = bounded(&mut p);
    DimensionScore::from_selected(
        Dimension::EscalationFriction,
        score,
        confidence,
        p.drain_evidence(factor, i, &mut |d| said(s, d)),
    )
}

/// A sum of parts held to [0, 1], and the factor that scales the parts to add up to
/// it: below 0 only the relief that was used is kept, above 1 every part shrinks.
fn bounded<D: Copy>(p: &mut Parts<D>) -> (f64, f64) {
    p.keep_used_relief();
    let total = p.total();
    match total > 1.0 {
        true => (1.0, 1.0 / total),
        false => (total.max(0.0), 1.0),
    }
}

/// Confidence of one turn's reading: more words, more to go on.
fn turn_confidence(s: &TurnSignals) -> f64 {
    let c = &TURN.confidence;
    c.floor + c.span * saturate(s.words as f64, c.steepness)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::text::Text;
    use crate::model::text::Head;

    #[test]
    fn shared_fixed_details_are_their_texts() {
        for f in Fixed::ALL {
            assert_eq!(&*f.shared(), f.text(), "{f:?}");
            // Shared: the same string each time, not a copy.
            assert!(Arc::ptr_eq(&f.shared(), &f.shared()));
        }
        assert_eq!(&*Fixed::RepeatedQuestionMarks.shared(), "\"??\"");
    }

    #[test]
    fn a_quoted_phrase_is_the_matched_phrase_in_quotes() {
        let m = Markers::find(&Text::new(
            "Like I said, it still doesn't work. Get me a human!",
        ));
        for c in [
            Category::RepetitionClaim,
            Category::ProblemPersists,
            Category::Escalation,
        ] {
            let phrase = m.phrase(c).expect("the text has a phrase of each category");
            let quoted = quoted_phrase(&m, c).expect("quoted");
            assert_eq!(&*quoted, format!("\"{phrase}\""), "{c:?}");
        }
        assert_eq!(quoted_phrase(&m, Category::Gratitude), None);
    }

    #[test]
    fn text_model_details_quote_the_words_of_the_lowercased_text() {
        // The same words, once in ASCII and once with a typographic apostrophe and
        // capitals whose lowercase is longer ("İ" is two characters lowercased), so the
        // byte ranges of the reading are not ranges of the original text.
        let texts = [
            "I can't BELIEVE this is STILL broken, this is USELESS and WRONG",
            "İ can’t BELİEVE this is STİLL broken, this is USELESS and WRONG",
        ];
        let body = serde_json::json!({"deployment_id": "bot", "events": texts.iter().enumerate().map(|(k, t)| serde_json::json!({
            "actor_id": "u1", "content": t, "conversation_id": format!("c{k}"),
            "timestamp": "2026-11-01T09:00:00Z",
        })).collect::<Vec<_>>()});
        let request = crate::validate::ingest_request_bytes(
            body.to_string().as_bytes(),
            &crate::validate::Options::default(),
        )
        .unwrap();
        let assembly = crate::assembly::assemble(&request.events, Some("bot"));
        let mut quoted_words = 0;
        for conversation in &assembly.conversations {
            let content = &conversation.turns[0].event.content;
            let s = &super::super::context::conversation_signals(conversation, |_| {})[0];
            assert_eq!(s.lowered.is_some(), !content.is_ascii(), "{content}");
            let lower = Text::new(content).lower;
            for h in Head::ALL {
                let input = Input::ALL[h.index()];
                let mut out = String::new();
                assert!(write_detail(&mut out, input, s, content), "{h:?}");
                let expected: Vec<String> = s.reading.top[h.index()]
                    .iter()
                    .filter(|span| span.1 > span.0)
                    .map(|&(a, b)| format!("\"{}\"", &lower[a as usize..b as usize]))
                    .collect();
                quoted_words += expected.len();
                let written = out.split_once(": ").map_or("", |(_, words)| words);
                assert_eq!(written, expected.join(", "), "{h:?} of {content}");
            }
        }
        // The non-ASCII text's words include the two-character lowercase of "İ".
        assert!(quoted_words >= 4, "{quoted_words}");
    }
}
