//! The learned AI-failure reading: the probability that an AI turn broke the
//! conversation down, from its own n-grams, the n-grams of the human turn it answers,
//! and what it did (apologised, refused, repeated itself, ignored the question…).
//!
//! Weights: `core/models/ai_failure.tsv`, written by `scripts/train-scorer` from the
//! DBDC3 breakdown labels (core/models/manifest.json names the data, splits and metrics).

use super::linear::Linear;
use crate::features::grams::{Gram, as_question};
use crate::features::markers::{Category, Markers};
use crate::features::text::Text;

/// The AI-turn marker categories the model reads: the last seven of [`Category::ALL`].
pub const AI_MARKERS: &[Category] = Category::ALL.split_at(16).1;

/// Names of the dense features, in the order [`Context::dense`] writes them.
pub const DENSE: [&str; 15] = [
    "marker:ai_apology",
    "marker:ai_refusal",
    "marker:ai_unknown",
    "marker:ai_hedge",
    "marker:ai_escalation_offer",
    "marker:ai_deflection",
    "marker:ai_closing",
    "repeats_itself",
    "answers_a_question",
    "covers_question",
    "ignores_question",
    "short_reply",
    "asks_question",
    "log_words",
    "first_reply",
];

/// What an AI turn did relative to the conversation before it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Context {
    /// Dice similarity of content stems to the AI's previous turn (both ≥ 3 stems).
    pub repeats_itself: f64,
    /// The human turn it answers asked something.
    pub answers_a_question: bool,
    /// Share of the question's content stems the reply uses (1 when there is no question).
    pub covers_question: f64,
    /// The reply shares no content word with the question and asks nothing back.
    pub ignores_question: bool,
    /// The reply has at most three words.
    pub short_reply: bool,
    /// The reply asks the person something.
    pub asks_question: bool,
    /// This is the conversation's first AI turn.
    pub first_reply: bool,
}

impl Context {
    /// The dense features, in [`DENSE`] order.
    pub fn dense(&self, text: &Text, markers: &Markers) -> [f64; DENSE.len()] {
        let mut d = [0.0; DENSE.len()];
        for (k, c) in AI_MARKERS.iter().enumerate() {
            d[k] = markers.get(*c);
        }
        let b = |x: bool| f64::from(u8::from(x));
        d[7] = self.repeats_itself;
        d[8] = b(self.answers_a_question);
        d[9] = self.covers_question;
        d[10] = b(self.ignores_question);
        d[11] = b(self.short_reply);
        d[12] = b(self.asks_question);
        d[13] = (1.0 + text.read_word_count() as f64).ln() / 64f64.ln();
        d[14] = b(self.first_reply);
        d
    }
}

/// Probability that the AI turn is a breakdown, and the AI n-gram that pushed it most
/// (a byte range of the AI turn's lowercased text, `(0, 0)` when none did).
///
/// The n-grams of the AI turn carry `ai_value` and those of the question
/// `question_value` ([`crate::features::grams::grams`]' return values).
pub fn failure(
    model: &Linear,
    text: &Text,
    ai: &[Gram],
    ai_value: f64,
    question: &[Gram],
    question_value: f64,
    dense: &[f64],
) -> (f64, (u32, u32)) {
    let mut push = model.dense_push(dense)[0];
    // One lookup per n-gram: the sum, and the AI n-gram that pushed most.
    let mut best = (0.0f32, None);
    for g in ai {
        // Zeros for a bucket the model has no weight for: they add nothing and never
        // beat `best`, which starts at 0.
        let w = model.weights(g.bucket)[0];
        push += f64::from(w) * ai_value;
        if w > best.0 {
            best = (w, Some(*g));
        }
    }
    for g in question {
        push += model.gram_weight(as_question(g.bucket), 0) * question_value;
    }
    let p = model.probability(0, model.bias()[0] + push);
    let best = (
        best.0,
        best.1.map_or((0, 0), |g| {
            (
                text.spans[g.first as usize].0,
                text.spans[g.last as usize].1,
            )
        }),
    );
    (p, best.1)
}
