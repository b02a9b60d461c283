//! Signals of each human turn read in context: what the AI just did, what the person
//! already asked, how fast they answered and whether anyone answered them.

use crate::assembly::{Conversation, Role};

use super::affect::{Affect, affect};
use super::markers::{Category, Markers};
use super::similarity::Bag;
use super::text::Text;

/// `metadata.responder` of an answering-side turn a person wrote (a helpdesk's human
/// agent): the handoff a human asked for has happened.
pub const HUMAN_AGENT: &str = "human_agent";

/// What one AI turn did, as far as the person reading it is concerned.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AiTurn {
    /// Position of the AI event in the request.
    pub event_index: usize,
    /// Phrase markers found in the AI text.
    pub markers: Markers,
    /// Similarity (Dice of content stems) to the AI's previous turn, when both have
    /// at least three content words: the AI repeating itself.
    pub repeats_itself: f64,
    /// 1 when the person's last turn asked something and this reply shares none of its
    /// content words and asks nothing back; 0.5 when it shares under a tenth.
    pub ignores_question: f64,
    /// 1 when this reply has at most three words and answers a question.
    pub short_non_answer: f64,
    /// Whether the reply itself asks the person something.
    pub asks_question: bool,
    /// Word count of the reply.
    pub words: usize,
    /// Combined failure strength in [0, 1]: noisy-or of apology (×0.6), refusal (×0.9),
    /// not knowing (×0.9), repeating itself, ignoring the question (×0.6), a short
    /// non-answer (×0.5) and deflection (×0.5).
    pub failure: f64,
}

/// Signals of one human turn, each in [0, 1] unless said otherwise.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnSignals {
    /// Position of the event in the request.
    pub event_index: usize,
    /// Zero-based position among the conversation's human turns.
    pub human_position: usize,
    /// Phrase markers found in the text.
    pub markers: Markers,
    /// Lexicon affect of the text.
    pub affect: Affect,
    /// Share of words written in capitals (texts of three words or more).
    pub shouting: f64,
    /// Exclamation marks, three or more counting as 1.
    pub exclamation: f64,
    /// Two or more question marks in a row ("??").
    pub repeated_question_marks: bool,
    /// The turn asks something (ends with `?`).
    pub is_question: bool,
    /// A short question about what the AI just said ("which plan?", "what do you mean
    /// by escrow?"): at most five words, asking, after an AI turn, and either reusing
    /// one of the AI turn's content words or opening with who/what/which/where/huh.
    pub clarification_request: bool,
    /// Highest similarity to an earlier human turn of the same conversation, when both
    /// have at least three content words (else 0).
    pub repetition: f64,
    /// The earlier human turn this one repeats most.
    pub repeated_event: Option<usize>,
    /// The AI turn just before this one, if any.
    pub prior_ai: Option<AiTurn>,
    /// Failures of the AI turns before this one in the conversation, decayed by half per
    /// AI turn: a conversation where the AI keeps failing.
    pub ai_failure_history: f64,
    /// Whether the AI answered this turn at all (an AI turn follows it).
    pub answered: bool,
    /// The AI turn right after this one offered a person or channel.
    pub next_ai_offers_escalation: Option<f64>,
    /// Failure strength of the AI turn right after this one.
    pub next_ai_failure: Option<f64>,
    /// Word count.
    pub words: usize,
    /// Words relative to the mean of this person's earlier turns (1 for the first turn).
    pub length_ratio: f64,
    /// Seconds since the previous turn, when there is one.
    pub latency_secs: Option<f64>,
    /// This is the conversation's last human turn.
    pub is_last_human_turn: bool,
    /// Star rating from `metadata.rating` / `stars` / `star_rating` on a 1–5 scale
    /// (a 0–10 value is halved), when present.
    pub rating: Option<f64>,
}

/// A star rating in `metadata`, on a 1–5 scale.
fn rating(metadata: Option<&serde_json::Map<String, serde_json::Value>>) -> Option<f64> {
    let m = metadata?;
    let v = ["rating", "stars", "star_rating"]
        .iter()
        .find_map(|k| m.get(*k))?;
    let x = match v {
        serde_json::Value::Number(n) => n.as_f64()?,
        serde_json::Value::String(s) => s.trim().parse().ok()?,
        _ => return None,
    };
    match x {
        x if (0.0..=5.0).contains(&x) => Some(x.max(1.0)),
        x if (5.0..=10.0).contains(&x) => Some(x / 2.0),
        _ => None,
    }
}

/// Reads every human turn of `conversation` in context; `on_text` sees every turn's
/// prepared text once (so other readers, like archetype detection, need not re-scan it).
pub fn conversation_signals(
    conversation: &Conversation,
    mut on_text: impl FnMut(&Text, Role),
) -> Vec<TurnSignals> {
    let mut out: Vec<TurnSignals> = Vec::with_capacity(conversation.human_turn_count);
    let mut human_bags: Vec<(usize, Bag)> = Vec::new();
    let mut human_words_total = 0usize;
    let mut last_ai: Option<(AiTurn, Bag)> = None;
    // The last human turn since the last AI turn: its index in `human_bags`, and
    // whether it asked something.
    let mut last_human: Option<(usize, bool)> = None;
    let mut text = Text::default();
    let mut failure_history = 0.0f64;
    let mut prev_time: Option<chrono::DateTime<chrono::Utc>> = None;
    for turn in &conversation.turns {
        text.fill(&turn.event.content);
        on_text(&text, turn.role);
        let latency =
            prev_time.map(|t| (turn.event.timestamp - t).num_milliseconds() as f64 / 1000.0);
        prev_time = Some(turn.event.timestamp);
        match turn.role {
            Role::Ai => {
                let markers = Markers::find(&text);
                let bag = Bag::of(&text);
                let repeats_itself = match &last_ai {
                    Some((_, prev)) if prev.len() >= 3 && bag.len() >= 3 => prev.dice(&bag),
                    _ => 0.0,
                };
                let (ignores_question, short_non_answer) = match last_human {
                    Some((q, true)) => {
                        let q = &human_bags[q].1;
                        let shared = if q.is_empty() {
                            1.0
                        } else {
                            q.covered_by(&bag)
                        };
                        let ignores = if text.questions > 0 || q.len() < 2 {
                            0.0
                        } else if shared == 0.0 {
                            1.0
                        } else if shared < 0.1 {
                            0.5
                        } else {
                            0.0
                        };
                        let short = if text.word_count() <= 3 { 1.0 } else { 0.0 };
                        (ignores, short)
                    }
                    _ => (0.0, 0.0),
                };
                let failure = noisy_or(&[
                    0.6 * markers.get(Category::AiApology),
                    0.9 * markers.get(Category::AiRefusal),
                    0.9 * markers.get(Category::AiUnknown),
                    if repeats_itself >= 0.5 {
                        repeats_itself
                    } else {
                        0.0
                    },
                    0.6 * ignores_question,
                    0.5 * short_non_answer,
                    0.5 * markers.get(Category::AiDeflection),
                ]);
                let ai = AiTurn {
                    event_index: turn.event_index,
                    markers,
                    repeats_itself,
                    ignores_question,
                    short_non_answer,
                    asks_question: text.questions > 0,
                    words: text.word_count(),
                    failure,
                };
                if let Some(prev) = out.last_mut()
                    && !prev.answered
                {
                    prev.answered = true;
                    // A reply a human agent wrote (`metadata.responder`, as the helpdesk
                    // connectors mark it) is the person the human asked for.
                    let by_person = turn.event.metadata.as_ref().is_some_and(|m| {
                        m.get("responder").and_then(serde_json::Value::as_str) == Some(HUMAN_AGENT)
                    });
                    prev.next_ai_offers_escalation = Some(if by_person {
                        1.0
                    } else {
                        markers.get(Category::AiEscalationOffer)
                    });
                    prev.next_ai_failure = Some(failure);
                }
                failure_history = failure_history * 0.5 + failure;
                last_ai = Some((ai, bag));
                last_human = None;
            }
            Role::Human => {
                let markers = Markers::find(&text);
                let bag = Bag::of(&text);
                let (mut repetition, mut repeated_event) = (0.0, None);
                if bag.len() >= 3 {
                    for (idx, earlier) in &human_bags {
                        if earlier.len() >= 3 {
                            let sim = bag.dice(earlier);
                            if sim > repetition {
                                repetition = sim;
                                repeated_event = Some(*idx);
                            }
                        }
                    }
                }
                let words = text.word_count();
                let position = out.len();
                let length_ratio = if position == 0 || human_words_total == 0 {
                    1.0
                } else {
                    words as f64 / (human_words_total as f64 / position as f64)
                };
                let prior_ai = last_ai.as_ref().map(|(a, _)| *a);
                let is_question = text.ends_with_question;
                let clarification_request = is_question
                    && words <= 5
                    && last_ai.as_ref().is_some_and(|(_, ai_bag)| {
                        bag.shared(ai_bag) > 0
                            || text.word_count() > 0
                                && matches!(
                                    text.word(0),
                                    "who" | "what" | "which" | "where" | "huh" | "what's"
                                )
                    });
                let signals = TurnSignals {
                    event_index: turn.event_index,
                    human_position: position,
                    affect: affect(&text),
                    shouting: text.shouting_share(),
                    exclamation: (f64::from(text.exclamations) / 3.0).min(1.0),
                    repeated_question_marks: text.lower.contains("??"),
                    is_question,
                    clarification_request,
                    repetition,
                    repeated_event,
                    prior_ai,
                    // The failure of the turn right before is in `prior_ai`; history is what came earlier.
                    ai_failure_history: prior_ai
                        .map_or(failure_history, |a| (failure_history - a.failure).max(0.0)),
                    answered: false,
                    next_ai_offers_escalation: None,
                    next_ai_failure: None,
                    words,
                    length_ratio,
                    latency_secs: latency,
                    is_last_human_turn: false,
                    rating: rating(turn.event.metadata.as_ref()),
                    markers,
                };
                human_words_total += words;
                last_human = Some((human_bags.len(), is_question || text.questions > 0));
                human_bags.push((turn.event_index, bag));
                out.push(signals);
            }
        }
    }
    if let Some(last) = out.last_mut() {
        last.is_last_human_turn = true;
    }
    out
}

/// Combines independent pieces of evidence: 1 − Π(1 − pᵢ), each clamped to [0, 1].
pub fn noisy_or(parts: &[f64]) -> f64 {
    1.0 - parts
        .iter()
        .fold(1.0, |acc, p| acc * (1.0 - p.clamp(0.0, 1.0)))
}
