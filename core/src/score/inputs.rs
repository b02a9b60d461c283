//! The named inputs of the learned dimensions: one number per signal of a human turn
//! read in context. The tables (`core/models/dimensions.tsv`) weigh them by name, and
//! the training script fits those weights to the same numbers (dumped by
//! `core/examples/train_features.rs`), so scoring and training cannot read a turn
//! differently.

use crate::features::markers::Category;
use crate::model::text::Head;

use super::context::TurnSignals;

/// One input of a learned dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Input {
    /// Text model: anger, annoyance, disappointment, disapproval or disgust.
    Annoyance,
    /// Text model: not understanding; asking to explain or repeat.
    Confusion,
    /// Text model: thanks, relief or praise.
    Gratitude,
    /// Text model: cancelling, stopping, not caring any more.
    GivingUp,
    /// Text model: saying no; telling the AI it got it wrong.
    Correction,
    /// VADER negative valence of the text.
    VaderNegative,
    /// Failure probability of the AI turn just before.
    AiFailure,
    /// Earlier AI failures in the conversation, decayed (at most 1).
    AiFailureHistory,
    /// Similarity to an earlier human turn: asking again.
    Repetition,
    /// "like I said", "again".
    RepetitionClaim,
    /// "still doesn't work".
    ProblemPersists,
    /// Asking for a person.
    EscalationRequest,
    /// Share of words in capitals.
    Shouting,
    /// Exclamation marks.
    Exclamation,
    /// "??".
    RepeatedQuestionMarks,
    /// The turn ends with a question mark.
    Question,
    /// A short question about what the AI just said.
    ClarificationRequest,
    /// A question of at most two words that is not a clarification request.
    BareQuestion,
    /// Asking again (a question that repeats an earlier turn).
    AsksAgain,
    /// A question right after a long AI answer.
    QuestionAfterLongAnswer,
    /// Replies shrinking: 1 − length relative to the person's earlier turns (third turn on).
    ShrinkingReplies,
    /// The last human turn asked something and got no reply.
    UnansweredLastQuestion,
    /// The last human turn's reply from the AI failed (probability).
    LastReplyFailed,
    /// Star rating below 3: (3 − stars) / 2.
    LowRating,
    /// Star rating above 3: (stars − 3) / 2.
    HighRating,
}

impl Input {
    /// Every input, in table order.
    pub const ALL: [Input; 25] = [
        Input::Annoyance,
        Input::Confusion,
        Input::Gratitude,
        Input::GivingUp,
        Input::Correction,
        Input::VaderNegative,
        Input::AiFailure,
        Input::AiFailureHistory,
        Input::Repetition,
        Input::RepetitionClaim,
        Input::ProblemPersists,
        Input::EscalationRequest,
        Input::Shouting,
        Input::Exclamation,
        Input::RepeatedQuestionMarks,
        Input::Question,
        Input::ClarificationRequest,
        Input::BareQuestion,
        Input::AsksAgain,
        Input::QuestionAfterLongAnswer,
        Input::ShrinkingReplies,
        Input::UnansweredLastQuestion,
        Input::LastReplyFailed,
        Input::LowRating,
        Input::HighRating,
    ];

    /// Names, in [`Input::ALL`] order: the `input:NAME` keys of the tables.
    pub const NAMES: [&'static str; 25] = [
        "annoyance",
        "confusion",
        "gratitude",
        "giving_up",
        "correction",
        "vader_negative",
        "ai_failure",
        "ai_failure_history",
        "repetition",
        "repetition_claim",
        "problem_persists",
        "escalation_request",
        "shouting",
        "exclamation",
        "repeated_question_marks",
        "question",
        "clarification_request",
        "bare_question",
        "asks_again",
        "question_after_long_answer",
        "shrinking_replies",
        "unanswered_last_question",
        "last_reply_failed",
        "low_rating",
        "high_rating",
    ];

    /// The input's name in the tables and in evidence.
    pub fn as_str(self) -> &'static str {
        Input::NAMES[self as usize]
    }

    /// The text-model head this input reads, if it is one.
    pub fn head(self) -> Option<Head> {
        match self {
            Input::Annoyance => Some(Head::Annoyance),
            Input::Confusion => Some(Head::Confusion),
            Input::Gratitude => Some(Head::Gratitude),
            Input::GivingUp => Some(Head::GivingUp),
            Input::Correction => Some(Head::Correction),
            _ => None,
        }
    }

    /// The marker category this input reads (its strength), if it is one.
    pub fn marker(self) -> Option<Category> {
        match self {
            Input::RepetitionClaim => Some(Category::RepetitionClaim),
            Input::ProblemPersists => Some(Category::ProblemPersists),
            Input::EscalationRequest => Some(Category::Escalation),
            _ => None,
        }
    }
}

/// Number of inputs.
pub const INPUTS: usize = Input::ALL.len();

/// Words above which an AI answer counts as long.
pub const LONG_ANSWER_WORDS: usize = 120;
/// Words up to which a question counts as bare.
pub const BARE_QUESTION_WORDS: usize = 2;
/// Human position from which shrinking replies count (the third turn).
pub const SHRINKING_FROM: usize = 2;

/// The inputs of one human turn, in [`Input::ALL`] order.
pub fn inputs(s: &TurnSignals) -> [f64; INPUTS] {
    let mut x = [0.0; INPUTS];
    let b = |v: bool| f64::from(u8::from(v));
    for h in Head::ALL {
        x[h.index()] = s.reading.get(h);
    }
    let prior_failure = s.prior_ai.map_or(0.0, |a| a.failure);
    x[Input::VaderNegative as usize] = (-s.affect.compound).max(0.0);
    x[Input::AiFailure as usize] = prior_failure;
    x[Input::AiFailureHistory as usize] = s.ai_failure_history.min(1.0);
    x[Input::Repetition as usize] = s.repetition;
    for input in Input::ALL {
        if let Some(c) = input.marker() {
            x[input as usize] = s.markers.get(c);
        }
    }
    x[Input::Shouting as usize] = s.shouting;
    x[Input::Exclamation as usize] = s.exclamation;
    x[Input::RepeatedQuestionMarks as usize] = b(s.repeated_question_marks);
    x[Input::Question as usize] = b(s.is_question);
    x[Input::ClarificationRequest as usize] = b(s.clarification_request);
    x[Input::BareQuestion as usize] =
        b(!s.clarification_request && s.is_question && s.words <= BARE_QUESTION_WORDS);
    x[Input::AsksAgain as usize] = if s.is_question { s.repetition } else { 0.0 };
    x[Input::QuestionAfterLongAnswer as usize] =
        b(s.is_question && s.prior_ai.is_some_and(|a| a.words > LONG_ANSWER_WORDS));
    x[Input::ShrinkingReplies as usize] = if s.human_position >= SHRINKING_FROM {
        (1.0 - s.length_ratio).max(0.0)
    } else {
        0.0
    };
    x[Input::UnansweredLastQuestion as usize] =
        b(s.is_last_human_turn && s.is_question && !s.answered);
    x[Input::LastReplyFailed as usize] = if s.is_last_human_turn {
        s.next_ai_failure.unwrap_or(0.0)
    } else {
        0.0
    };
    // Ratings are on a 1–5 scale around a neutral 3, each side spanning two stars.
    let (neutral, span) = (3.0, 2.0);
    if let Some(stars) = s.rating {
        x[Input::LowRating as usize] = ((neutral - stars) / span).max(0.0);
        x[Input::HighRating as usize] = ((stars - neutral) / span).max(0.0);
    }
    x
}

/// One input of a learned dimension's conversation value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ConversationInput {
    /// The dimension's highest turn score.
    PeakTurn,
    /// The dimension's score on the last human turn.
    FinalTurn,
    /// The dimension's mean turn score.
    MeanTurn,
    /// Frustration on the last human turn.
    FinalFrustration,
    /// The highest turn frustration.
    PeakFrustration,
    /// No thanks or confirmation at the end (and no `resolved` in metadata).
    Unresolved,
    /// The conversation ends on an AI turn that failed (its failure probability).
    LeftAfterAiFailure,
    /// The last human turn asked something and got no reply.
    UnansweredLastQuestion,
    /// The text model's giving-up probability of the last human turn.
    LastGivingUp,
    /// Mean failure probability of the AI turns the person answered.
    MeanAiFailure,
    /// Much shorter than the deployment's median conversation, and unresolved.
    ShortConversation,
    /// This person's gap between visits more than doubled.
    ReturnVisitsSlowing,
}

impl ConversationInput {
    /// Every conversation input, in table order.
    pub const ALL: [ConversationInput; 12] = [
        ConversationInput::PeakTurn,
        ConversationInput::FinalTurn,
        ConversationInput::MeanTurn,
        ConversationInput::FinalFrustration,
        ConversationInput::PeakFrustration,
        ConversationInput::Unresolved,
        ConversationInput::LeftAfterAiFailure,
        ConversationInput::UnansweredLastQuestion,
        ConversationInput::LastGivingUp,
        ConversationInput::MeanAiFailure,
        ConversationInput::ShortConversation,
        ConversationInput::ReturnVisitsSlowing,
    ];

    /// Names, in [`ConversationInput::ALL`] order: the `input:NAME` keys of the
    /// `conversation` sections of the tables.
    pub const NAMES: [&'static str; 12] = [
        "peak_turn",
        "final_turn",
        "mean_turn",
        "final_frustration",
        "peak_frustration",
        "unresolved",
        "left_after_ai_failure",
        "unanswered_last_question",
        "last_giving_up",
        "mean_ai_failure",
        "short_conversation",
        "return_visits_slowing",
    ];

    /// The input's name in the tables and in evidence.
    pub fn as_str(self) -> &'static str {
        ConversationInput::NAMES[self as usize]
    }
}

/// Number of conversation inputs.
pub const CONVERSATION_INPUTS: usize = ConversationInput::ALL.len();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_enum_and_heads_come_first() {
        for (i, input) in Input::ALL.iter().enumerate() {
            assert_eq!(*input as usize, i);
            assert_eq!(input.as_str(), Input::NAMES[i]);
        }
        for h in Head::ALL {
            assert_eq!(Input::ALL[h.index()].head(), Some(h));
            assert_eq!(Input::ALL[h.index()].as_str(), h.as_str());
        }
        for (i, input) in ConversationInput::ALL.iter().enumerate() {
            assert_eq!(*input as usize, i);
            assert_eq!(input.as_str(), ConversationInput::NAMES[i]);
        }
    }
}
