//! Findings in plain words: a summary, recommendations tied to evidence, and a
//! measurable prediction a later drift comparison can confirm or refute.
//!
//! Findings describe the deployment (what the AI does to people), never an individual.

use std::collections::BTreeMap;

use serde::Serialize;

use super::archetype::Environment;
use super::conversation::ConversationResult;
use super::layer_z::{Band, Dimension, Evidence, LayerZ, TrustMode};
use crate::features::language::LanguageCounts;

/// What a product manager reads first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Findings {
    /// 3–5 sentences with numbers.
    pub plain_summary: String,
    /// Specific actions, each tied to a conversation and turn.
    pub plain_recommendations: Vec<String>,
    /// The most important finding.
    pub key_finding: String,
    /// Whether `prediction` states a measurable claim.
    pub falsifiable: bool,
    /// The measurable claim, when there is a finding to act on.
    pub prediction: Option<String>,
    /// The first recommendation.
    pub recommendation: String,
}

/// The summary sentence on the `count` of `turns` human turns that are `what` (a
/// description that may name `{its}`); `None` when there are none.
fn not_english(count: usize, turns: usize, what: &str) -> Option<String> {
    if count == 0 {
        return None;
    }
    let one = count == 1;
    let which = match (count == turns, one) {
        (true, true) => "The one human turn is".to_owned(),
        (true, false) => format!("All {turns} human turns are"),
        (false, _) => format!(
            "{count} of the {turns} human turns {}",
            if one { "is" } else { "are" }
        ),
    };
    let (it, is, its) = if one {
        ("it", "is", "its")
    } else {
        ("they", "are", "their")
    };
    let what = what.replace("{its}", its);
    Some(format!(
        "{which} {what}, so {it} {is} scored mostly on {its} context (repetition, AI failures, punctuation, timing) and may read calmer than {it} {is}.",
    ))
}

/// Writes the findings for a scored request; `languages` counts its human turns that
/// the English readers cannot read ([`crate::features::language`]).
pub fn findings(
    reviews: bool,
    deployment_id: &str,
    environment: &Environment,
    layer_z: &LayerZ,
    conversations: &[ConversationResult],
    languages: LanguageCounts,
) -> Findings {
    let scored: Vec<&ConversationResult> = conversations
        .iter()
        .filter(|c| !c.turns.is_empty())
        .collect();
    let n = scored.len();
    let turns: usize = scored.iter().map(|c| c.turns.len()).sum();
    if turns == 0 {
        return nothing_scored(deployment_id, conversations.len());
    }
    let resolved = scored.iter().filter(|c| c.resolved).count();
    let abandoned = scored.iter().filter(|c| c.abandoned).count();
    let broken = |d: Dimension| {
        scored
            .iter()
            .filter(|c| c.layer_z.get(d).band == Band::Broken)
            .count()
    };

    // Dimensions by risk, worst first; dependency only counts with enough confidence.
    let mut ranked: Vec<Dimension> = Dimension::ALL
        .into_iter()
        .filter(|&d| {
            d != Dimension::DependencyDrift
                || layer_z.get(d).confidence >= PARAMS.dependency_min_confidence
        })
        .collect();
    ranked.sort_by(|a, b| {
        let (ra, rb) = (layer_z.get(*a).risk, layer_z.get(*b).risk);
        let (ba, bb) = (broken(*a), broken(*b));
        bb.cmp(&ba).then(rb.total_cmp(&ra)).then(a.cmp(b))
    });
    let concerns: Vec<Dimension> = ranked
        .iter()
        .copied()
        .filter(|&d| layer_z.get(d).band != Band::Healthy || broken(d) > 0)
        .collect();
    // Off the healthy band, but on too little evidence to be a concern (dependency
    // with one conversation per person): said so, never passed over in silence.
    let unsure: Vec<Dimension> = Dimension::ALL
        .into_iter()
        .filter(|d| !ranked.contains(d) && layer_z.get(*d).band != Band::Healthy)
        .collect();

    let mut summary = vec![format!(
        "Undertone scored {turns} human {} in {n} {} of deployment {deployment_id} (looks like {} deployment, confidence {:.2}).",
        plural(turns, "turn", "turns"),
        plural(n, "conversation", "conversations"),
        article(&environment.archetype.as_str().replace('_', " ")),
        environment.confidence,
    )];
    summary.push(format!(
        "{resolved} of {n} {} ended resolved and {abandoned} {} abandoned.",
        plural(n, "conversation", "conversations"),
        if abandoned == 1 { "looks" } else { "look" },
    ));
    summary.extend(not_english(
        languages.outside_latin,
        turns,
        "written mostly outside the Latin alphabet: the text model and lexicons read English (the phrase lists also some Chinese and Japanese)",
    ));
    summary.extend(not_english(
        languages.other_language,
        turns,
        "written in another language than English, by {its} function words (Spanish, French, German and seven more): the text model, lexicons and phrase lists read English",
    ));
    let f = &layer_z.frustration_buildup;
    let t = &layer_z.trust_calibration;
    summary.push(format!(
        "Frustration buildup is {:.2} ({}), trust calibration {:.2} ({}{}), silent-abandonment risk {:.2} ({}).",
        f.score,
        f.band.as_str(),
        t.score,
        t.band.as_str(),
        match t.mode {
            Some(TrustMode::OverTrust) => ", leaning to over-trust",
            Some(TrustMode::UnderTrust) => ", leaning to under-trust",
            _ => "",
        },
        layer_z.silent_abandonment_risk.score,
        layer_z.silent_abandonment_risk.band.as_str(),
    ));

    // One recommendation per action: two dimensions driven by the same signal ask
    // for the same fix, which is said once, for the first of them.
    let mut recommendations = Vec::new();
    let mut actions = Vec::new();
    for &d in concerns.iter().take(3) {
        if let Some(e) = layer_z
            .get(d)
            .evidence
            .iter()
            .find(|e| e.contribution > 0.0 && e.names_a_signal())
        {
            let act = action(d, e, reviews);
            if !actions.contains(&act) {
                actions.push(act);
                recommendations.push(recommend(d, e, reviews));
            }
        }
    }

    let (key_finding, falsifiable, prediction) = match concerns.first() {
        Some(&d) => {
            let s = layer_z.get(d);
            let k = broken(d);
            let driver = s
                .evidence
                .iter()
                .find(|e| e.contribution > 0.0 && e.names_a_signal())
                .map(|e| format!("; the strongest driver is {}", describe(e)))
                .unwrap_or_default();
            summary.push(if k == 0 {
                format!(
                    "The biggest concern is {} at {:.2} ({}), though no conversation is in the broken band.",
                    d.as_str().replace('_', " "),
                    s.score,
                    s.band.as_str(),
                )
            } else {
                format!(
                    "The biggest concern is {}: {k} of {n} {} in the broken band.",
                    d.as_str().replace('_', " "),
                    if k == 1 {
                        "conversations is"
                    } else {
                        "conversations are"
                    },
                )
            });
            let key = format!(
                "{} is {:.2} ({}) across {n} {}, with {k} in the broken band{driver}.",
                capitalise(&d.as_str().replace('_', " ")),
                s.score,
                s.band.as_str(),
                plural(n, "conversation", "conversations"),
            );
            let share = if n == 0 {
                0.0
            } else {
                100.0 * k as f64 / n as f64
            };
            let target = (share / 2.0).floor();
            let broken_clause = if k > 0 {
                format!(
                    " and the share of conversations in the broken band falls from {share:.0}% to {target:.0}% or less"
                )
            } else {
                " and no conversation enters the broken band".to_owned()
            };
            let prediction = format!(
                "If the first recommendation is applied, a drift comparison on the same flows will show {} {} (median per-conversation score {} than {:.2}){broken_clause}.",
                d.as_str(),
                match d.direction() {
                    super::layer_z::Direction::HigherIsBetter => "improving",
                    super::layer_z::Direction::HigherIsWorse => "falling",
                },
                match d.direction() {
                    super::layer_z::Direction::HigherIsBetter => "higher",
                    super::layer_z::Direction::HigherIsWorse => "lower",
                },
                s.score,
            );
            (key, true, Some(prediction))
        }
        None => {
            let worst = ranked
                .first()
                .copied()
                .unwrap_or(Dimension::FrustrationBuildup);
            let (none, all) = match unsure.is_empty() {
                true => ("No dimension is", "All dimensions are"),
                false => (
                    "No dimension with enough evidence behind it is",
                    "All dimensions with enough evidence behind them are",
                ),
            };
            summary.push(format!(
                "{none} in the watch or broken band; the highest risk is {} at {:.2}.",
                worst.as_str().replace('_', " "),
                layer_z.get(worst).risk,
            ));
            (
                format!(
                    "{all} healthy across {n} {}; the highest risk is {} at {:.2}.",
                    plural(n, "conversation", "conversations"),
                    worst.as_str(),
                    layer_z.get(worst).risk
                ),
                false,
                None,
            )
        }
    };
    for &d in &unsure {
        let s = layer_z.get(d);
        summary.push(format!(
            "{} reads {:.2} ({}) at confidence {:.2}: too little evidence to call it a concern yet (one person's conversations say little about dependency over time).",
            capitalise(&d.as_str().replace('_', " ")),
            s.score,
            s.band.as_str(),
            s.confidence,
        ));
    }
    if recommendations.is_empty() {
        recommendations.push(match unsure.is_empty() {
            true => "Keep this deployment as the baseline: compare the next model or prompt version against it with a drift run."
                .to_owned(),
            false => format!(
                "Keep this deployment as the baseline, and score more of each person's conversations before acting on {}: it is off the healthy band on too little evidence.",
                unsure
                    .iter()
                    .map(|d| d.as_str().replace('_', " "))
                    .collect::<Vec<_>>()
                    .join(" and "),
            ),
        });
    }
    Findings {
        plain_summary: summary.join(" "),
        recommendation: recommendations[0].clone(),
        plain_recommendations: recommendations,
        key_finding,
        falsifiable,
        prediction,
    }
}

/// The findings of a request in which no event reads as a person's turn: nothing was
/// scored, so they say so and how turns are told apart, instead of calling the default
/// scores healthy and the deployment a baseline.
fn nothing_scored(deployment_id: &str, conversations: usize) -> Findings {
    let all = plural(conversations, "conversation", "conversations");
    let recommendation = format!(
        "Check how the events tell people from the AI: an event is an AI turn when its \
         metadata.role (or metadata.speaker) is assistant, ai, bot, agent_ai, model, system \
         or tool, or else when its actor_id is the deployment id ({deployment_id}) or starts \
         with ai:, bot: or assistant; send the people's turns too, with their own actor_id \
         or metadata.role user."
    );
    Findings {
        plain_summary: format!(
            "Undertone found no human turn to score in the {conversations} {all} of \
             deployment {deployment_id}: every event reads as an AI turn. Nothing was scored; \
             the scores are the defaults, with confidence 0."
        ),
        key_finding: format!(
            "No human turn to score: the {conversations} {all} hold AI turns only."
        ),
        falsifiable: false,
        prediction: None,
        recommendation: recommendation.clone(),
        plain_recommendations: vec![recommendation],
    }
}

/// Where a piece of evidence was seen, for a reader.
fn locate(e: &Evidence) -> String {
    match &e.conversation_id {
        Some(c) => format!("conversation {c}, event {}", e.event_index),
        None => format!("event {}", e.event_index),
    }
}

fn describe(e: &Evidence) -> String {
    let label = signal_label(e.signal);
    match &e.detail {
        Some(d) => format!("{label} ({d}; {})", locate(e)),
        None => format!("{label} ({})", locate(e)),
    }
}

crate::params! {
    /// What the findings report (`findings` in the tables).
    pub struct FindingsParams ("findings", "report") {
        /// Dependency counts as a concern only from this confidence (one person's trend
        /// needs several conversations).
        dependency_min_confidence,
    }
}

static PARAMS: std::sync::LazyLock<FindingsParams> = std::sync::LazyLock::new(|| {
    FindingsParams::read(&crate::model::TABLES).expect("findings parameters")
});

/// A reader's name for a signal.
pub fn signal_label(signal: &str) -> &str {
    SIGNAL_LABELS
        .iter()
        .find(|(s, _)| *s == signal)
        .map_or(signal, |(_, l)| l)
}

const SIGNAL_LABELS: [(&str, &str); 59] = [
    ("baseline", "the base rate"),
    ("other_signals", "smaller signals together"),
    (
        "carried_frustration",
        "frustration carried from earlier turns",
    ),
    (
        "carried_comprehension_gap",
        "confusion carried from earlier turns",
    ),
    (
        "carried_abandonment_risk",
        "abandonment risk carried from earlier turns",
    ),
    (
        "carried_over_trust",
        "over-trust carried from earlier turns",
    ),
    (
        "carried_under_trust",
        "under-trust carried from earlier turns",
    ),
    ("annoyance", "annoyed wording"),
    ("confusion", "confused wording"),
    ("gratitude", "thanks and relief"),
    ("giving_up", "people giving up"),
    ("correction", "people correcting the AI"),
    ("vader_negative", "negative wording"),
    ("question", "questions"),
    ("frustration", "frustration so far"),
    ("final_frustration", "frustration at the end"),
    ("peak_frustration", "the peak of frustration"),
    ("peak_turn", "the worst turn"),
    ("final_turn", "the last turn"),
    ("mean_turn", "the turns on average"),
    ("mean_ai_failure", "AI failures through the conversation"),
    ("last_giving_up", "people giving up at the end"),
    ("unresolved", "conversations ending without resolution"),
    ("trust_risk", "trust already strained"),
    ("last_reply_failed", "the last AI reply failing"),
    ("shrinking_replies", "replies getting shorter"),
    ("short_conversation", "very short conversations"),
    ("return_visits_slowing", "return visits slowing down"),
    ("dependency_level", "earlier delegation by the same person"),
    (
        "earlier_escalation_unmet",
        "an earlier request for a person not met",
    ),
    ("question_after_long_answer", "questions after long answers"),
    ("high_rating", "high star ratings"),
    ("verification_after_hedge", "checking a hedged answer"),
    ("self_efficacy", "people doing the work themselves"),
    ("low_rating", "low star ratings"),
    ("clarification_request", "people asking what the AI meant"),
    ("shouting", "writing in capitals"),
    ("exclamation", "exclamation marks"),
    ("repeated_question_marks", "repeated question marks"),
    ("repetition", "people repeating an earlier request"),
    ("repetition_claim", "people saying they already asked"),
    ("problem_persists", "suggested fixes not working"),
    ("escalation_request", "requests for a person"),
    ("ai_failure", "the AI failing in the turn before"),
    ("ai_failure_history", "repeated AI failures"),
    (
        "acceptance_after_hedge",
        "accepting a hedged or failed answer without checking",
    ),
    (
        "skipped_check",
        "people saying they will not check the AI's output",
    ),
    (
        "delegation_after_error",
        "handing work to the AI right after it erred",
    ),
    (
        "dismissal_without_failure",
        "dismissing answers that showed no failure",
    ),
    (
        "premature_escalation",
        "asking for a person before the AI had a chance",
    ),
    ("delegation", "handing the work to the AI"),
    (
        "dependency_trend",
        "delegation growing over a person's conversations",
    ),
    (
        "escalation_not_offered",
        "no person offered after a request for one",
    ),
    (
        "escalation_unanswered",
        "a request for a person left unanswered",
    ),
    (
        "repeated_escalation_request",
        "repeated requests for a person",
    ),
    (
        "left_after_ai_failure",
        "people leaving after a failed AI reply",
    ),
    ("unanswered_last_question", "last questions left unanswered"),
    ("bare_question", "bare \"?\" replies"),
    ("asks_again", "people asking again after an answer"),
];

/// The recommendation for one piece of evidence of dimension `d` (used by drift too).
pub(crate) fn recommend(d: Dimension, e: &Evidence, reviews: bool) -> String {
    let seen = e
        .detail
        .as_ref()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    // The evidence is the dimension's strongest item, not its first occurrence.
    format!(
        "{} — seen most strongly in {}{seen} [{}].",
        action(d, e, reviews),
        locate(e),
        d.as_str()
    )
}

/// What to do about one piece of evidence of dimension `d`.
fn action(d: Dimension, e: &Evidence, reviews: bool) -> &'static str {
    match e.signal {
        // Standalone feedback has no AI reply to fix: point at what people complain about.
        _ if reviews => match d {
            Dimension::EscalationFriction => {
                "Reviewers ask for a person: make the human channel easy to find from this product"
            }
            Dimension::ComprehensionGap => {
                "Reviewers find the product hard to understand: fix the instructions and wording they quote"
            }
            _ => {
                "Read the low-rated reviews behind this finding and fix the complaint they share first"
            }
        },
        "ai_failure" | "ai_failure_history" | "left_after_ai_failure" | "mean_ai_failure" => {
            "Review the AI replies that apologise, refuse or say they cannot help; fill the gap or hand over to a person at the first failure instead of the second"
        }
        "repetition" | "repetition_claim" | "asks_again" => {
            "People repeat their request: have the AI acknowledge what was already asked and answer it directly instead of restarting"
        }
        "correction" => {
            "The AI misreads requests: ask one clarifying question when a request is ambiguous, and restate the request before answering"
        }
        "problem_persists" => {
            "Suggested fixes are not working: check the troubleshooting steps for this flow and stop repeating a fix the person reports as failed"
        }
        "escalation_request"
        | "escalation_not_offered"
        | "escalation_unanswered"
        | "repeated_escalation_request"
        | "earlier_escalation_unmet" => {
            "Offer a handoff to a person (or a concrete channel) the first time someone asks for one"
        }
        "confusion" | "clarification_request" | "bare_question" | "question_after_long_answer" => {
            "Answers are not understood: shorten them, define terms, and check understanding before moving on"
        }
        "acceptance_after_hedge" | "delegation_after_error" | "skipped_check" => {
            "People accept hedged or failed answers without checking: show sources and say plainly when an answer needs verifying"
        }
        "dismissal_without_failure" | "premature_escalation" => {
            "People dismiss answers that showed no sign of failure: show sources and reasoning so trust can be earned"
        }
        "delegation" | "dependency_trend" | "dependency_level" => {
            "Delegation is growing: offer explain-first or step-by-step modes and invite people to try the next step themselves"
        }
        "giving_up" | "last_giving_up" | "unresolved" | "unanswered_last_question" => {
            "Conversations end unresolved: follow up on open questions and confirm resolution before closing"
        }
        _ => {
            "Review this flow's AI replies where people react negatively and fix the first reply that goes wrong"
        }
    }
}

/// `one` for a count of 1, else `many`.
pub fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// "a cx chatbot", "an ai tutor".
fn article(noun: &str) -> String {
    let an = noun.starts_with(|c: char| "aeiou".contains(c));
    format!("{} {noun}", if an { "an" } else { "a" })
}

/// The text with its first letter in upper case.
pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Counts of the strongest signal per dimension across conversations (for docs and tests).
pub fn top_signals(
    conversations: &[ConversationResult],
    d: Dimension,
) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for c in conversations {
        if let Some(e) = c
            .layer_z
            .get(d)
            .evidence
            .iter()
            .find(|e| e.names_a_signal())
        {
            *m.entry(e.signal).or_insert(0) += 1;
        }
    }
    m
}
