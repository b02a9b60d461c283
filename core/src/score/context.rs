//! Signals of each human turn read in context: what the AI just did (and how likely it
//! broke the conversation down, by the learned AI-failure model), how the learned text
//! model reads the turn, what the person already asked, how fast they answered and
//! whether anyone answered them.

use std::sync::LazyLock;

use smallvec::SmallVec;

use crate::assembly::{Conversation, Role};
use crate::features::affect::{Affect, affect_with};
use crate::features::grams::{Gram, Source, grams_of};
use crate::features::language::reads_as_other_language;
use crate::features::markers::{Category, Markers};
use crate::features::phrases::{self, Occurrence};
use crate::features::similarity::Bag;
use crate::features::text::Text;
use crate::features::words::Words;
use crate::model::text::{Reading, read};
use crate::model::{AI_FAILURE, TEXT, ai_turn};
use crate::params;
use crate::schema::HUMAN_AGENT;

params! {
    /// How the context signals are read (`signals` in the tables).
    pub struct SignalParams ("signals", "turn") {
        /// Share of the earlier AI failures kept per AI turn (`ai_failure_history`).
        failure_history_decay,
        /// Lowest Dice similarity that counts as the person (or the AI) repeating a turn.
        repetition_floor,
        /// How many of the person's most recent turns a repeat is looked for among.
        repetition_window,
        /// Fewest words of a turn read as another language than English.
        other_language_min_words,
        /// Fewest function words of another language in such a turn.
        other_language_min_function_words,
    }
}

/// What one AI turn did, as far as the person reading it is concerned.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AiTurn {
    /// Position of the AI event in the request.
    pub event_index: usize,
    /// Phrase markers found in the AI text.
    pub markers: Markers,
    /// What the turn did relative to the conversation before it.
    pub context: ai_turn::Context,
    /// Word count of the reply.
    pub words: usize,
    /// Probability that this turn broke the conversation down (the AI-failure model).
    pub failure: f64,
    /// The n-gram of the AI text that pushed `failure` up most: a byte range of the
    /// lowercased text, `(0, 0)` when none did.
    pub failure_words: (u32, u32),
    /// Whether the whole AI text is ASCII (then `failure_words` is also a byte range
    /// of the original text).
    pub ascii: bool,
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
    /// The learned text model's reading of the turn.
    pub reading: Reading,
    /// The lowercased text of a turn that is not ASCII, which `reading`'s byte ranges
    /// index (kept so that evidence can quote its words without preparing the text
    /// again). `None` for an ASCII text: its ranges are ranges of the original.
    pub lowered: Option<Box<str>>,
    /// Written in the Latin alphabet but read as another language than English
    /// ([`crate::features::language::reads_as_other_language`]).
    pub other_language: bool,
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
    /// have at least three content words and it reaches the repetition floor (else 0).
    pub repetition: f64,
    /// The earlier human turn this one repeats most.
    pub repeated_event: Option<usize>,
    /// The AI turn just before this one, if any.
    pub prior_ai: Option<AiTurn>,
    /// Failures of the AI turns before this one in the conversation, decayed per AI
    /// turn: a conversation where the AI keeps failing.
    pub ai_failure_history: f64,
    /// Whether the AI answered this turn at all (an AI turn follows it).
    pub answered: bool,
    /// The AI turn right after this one offered a person or channel.
    pub next_ai_offers_escalation: Option<f64>,
    /// Failure probability of the AI turn right after this one.
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

/// What a reader of the conversation sees of one turn as it is read: its text, its
/// n-grams and the dense features the learned models read (the training script's
/// feature dump and archetype detection both watch this).
#[derive(Debug)]
pub struct Seen<'a> {
    /// The turn's prepared text.
    pub text: &'a Text,
    /// Who wrote it.
    pub role: Role,
    /// Its n-grams, each carrying `value`.
    pub grams: &'a [Gram],
    /// The value of each n-gram.
    pub value: f64,
    /// For an AI turn: the n-grams of the human turn it answers and their value.
    pub question: Option<(&'a [Gram], f64)>,
    /// The dense features of the model that reads this turn (text model for a human
    /// turn, AI-failure model for an AI turn).
    pub dense: &'a [f64],
    /// Position of the event in the request.
    pub event_index: usize,
    /// For an AI turn, the AI-failure model's probability.
    pub failure: Option<f64>,
    /// Every occurrence of an archetype term pattern in the text (for
    /// [`super::archetype::ArchetypeDetector::add_matches`]).
    pub terms: &'a [Occurrence],
}

/// Marker phrases and archetype term patterns in one automaton, so that a turn is
/// searched for both at once. In the whole list, marker phrase `i` is pattern `i` and
/// term pattern `j` is pattern `markers + j`; an automaton of part of the list (the
/// list is split by script: [`ASCII_PHRASES`], [`OTHER_PHRASES`]) maps its own
/// pattern numbers back with `ids`.
struct Phrases {
    automaton: phrases::PhraseAutomaton,
    /// For each pattern of `automaton`, its number in the whole list.
    ids: Vec<usize>,
    markers: usize,
}

/// Every marker phrase, then every archetype term pattern.
fn whole_list() -> (Vec<&'static str>, usize) {
    let markers = crate::features::markers::phrases().count();
    let list = crate::features::markers::phrases()
        .chain(super::archetype::term_patterns())
        .collect();
    (list, markers)
}

/// The automaton of the patterns of the whole list that `keep` keeps.
fn phrases_where(keep: impl Fn(&str) -> bool) -> Phrases {
    let (list, markers) = whole_list();
    let ids: Vec<usize> = (0..list.len()).filter(|&i| keep(list[i])).collect();
    let automaton = phrases::automaton(ids.iter().map(|&i| list[i]))
        .unwrap_or_else(|e| panic!("marker phrases and archetype terms: {e}"));
    Phrases {
        automaton,
        ids,
        markers,
    }
}

/// The ASCII patterns: every text is searched for them. The patterns in other
/// scripts (Chinese, Japanese, accented words) are kept apart: in the same automaton
/// they would more than double its table (5.5 MB against 2.2 MB) and crowd the
/// caches for every English turn.
static ASCII_PHRASES: LazyLock<Phrases> = LazyLock::new(|| phrases_where(|p| p.is_ascii()));

/// The other patterns: a text that is not ASCII is searched for them too. Built on
/// first use.
static OTHER_PHRASES: LazyLock<Phrases> = LazyLock::new(|| phrases_where(|p| !p.is_ascii()));

/// Whether `text` can hold a pattern that is not ASCII.
fn needs_other_phrases(text: &Text) -> bool {
    !(text.ascii || text.lower.is_ascii())
}

/// The marker phrases one search found, before [`Markers::from_matches`] reads them.
type MarkerMatches = SmallVec<[Occurrence; 16]>;

/// Files one occurrence of a search as a marker phrase or as a term (renumbered
/// among the terms).
fn file(
    p: &Phrases,
    (start, end, id): Occurrence,
    markers: &mut MarkerMatches,
    terms: &mut Vec<Occurrence>,
) {
    let id = p.ids[id];
    if id < p.markers {
        markers.push((start, end, id));
    } else {
        terms.push((start, end, id - p.markers));
    }
}

/// Adds the occurrences of the patterns that are not ASCII to those of the ASCII
/// ones, when `text` can hold any, and puts them in the order one search of the
/// whole list gives: by end, the longer first, then by pattern. Each search gives its
/// own in that order, so the two runs are merged.
fn add_other_phrases(text: &Text, markers: &mut MarkerMatches, terms: &mut Vec<Occurrence>) {
    if !needs_other_phrases(text) {
        return;
    }
    let p = &*OTHER_PHRASES;
    let (m, t) = (markers.len(), terms.len());
    phrases::each(&p.automaton, text, |o| file(p, o, markers, terms));
    merge_in_search_order(markers, m);
    merge_in_search_order(terms, t);
}

/// Merges the two runs `list[..split]` and `list[split..]`, each in search order (by
/// end, the longer first, then by pattern), into one, in linear time: a text may hold
/// thousands of occurrences of both kinds.
fn merge_in_search_order(list: &mut [Occurrence], split: usize) {
    let key = |&(start, end, id): &Occurrence| (end, start, id);
    if split == 0 || split == list.len() || key(&list[split - 1]) <= key(&list[split]) {
        return;
    }
    // The first run is set aside; the merged list is written from the front, never
    // past the next unread item of the second run.
    let first: SmallVec<[Occurrence; 16]> = SmallVec::from_slice(&list[..split]);
    let (mut i, mut j) = (0, split);
    for k in 0..list.len() {
        let from_second = i == first.len() || (j < list.len() && key(&list[j]) < key(&first[i]));
        list[k] = if from_second {
            j += 1;
            list[j - 1]
        } else {
            i += 1;
            first[i - 1]
        };
    }
}

/// Searches `text` once for the marker phrases and the archetype terms: its markers,
/// and the term occurrences written into `terms` (cleared first).
fn find_phrases(text: &Text, terms: &mut Vec<Occurrence>) -> Markers {
    let p = &*ASCII_PHRASES;
    terms.clear();
    let mut markers = MarkerMatches::new();
    phrases::each(&p.automaton, text, |o| file(p, o, &mut markers, terms));
    add_other_phrases(text, &mut markers, terms);
    // Read in place: the list itself (a few hundred bytes on the stack) is not moved.
    Markers::from_matches(text, markers.iter().copied())
}

/// [`find_phrases`] of two turns in one search (see [`phrases::each_of_two`]).
fn find_phrases_of_two(texts: [&Text; 2], mut terms: [&mut Vec<Occurrence>; 2]) -> [Markers; 2] {
    let p = &*ASCII_PHRASES;
    for t in terms.iter_mut() {
        t.clear();
    }
    let mut markers: [MarkerMatches; 2] = Default::default();
    phrases::each_of_two(&p.automaton, texts[0], texts[1], |k, o| {
        file(p, o, &mut markers[k], terms[k]);
    });
    for (k, text) in texts.iter().enumerate() {
        add_other_phrases(text, &mut markers[k], terms[k]);
    }
    [
        Markers::from_matches(texts[0], markers[0].iter().copied()),
        Markers::from_matches(texts[1], markers[1].iter().copied()),
    ]
}

/// The AI-failure probability of every AI turn of `conversation`, by event index.
pub fn ai_failures(conversation: &Conversation) -> Vec<(usize, f64)> {
    let mut out = Vec::new();
    conversation_signals(conversation, |seen| {
        if let Some(f) = seen.failure {
            out.push((seen.event_index, f));
        }
    });
    out
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
    // Ratings are 1–5 stars, or 0–10 points read as half stars.
    let (stars, points) = (5.0, 10.0);
    match x {
        x if (0.0..=stars).contains(&x) => Some(x.max(1.0)),
        x if (stars..=points).contains(&x) => Some(x * stars / points),
        _ => None,
    }
}

/// Reads every human turn of `conversation` in context; `on_turn` sees every turn as
/// it is read (so other readers, like archetype detection, need not re-scan it).
pub fn conversation_signals(
    conversation: &Conversation,
    mut on_turn: impl FnMut(&Seen<'_>),
) -> Vec<TurnSignals> {
    // The buffers of the last conversation this thread read, reused (taken out, so a
    // reader that reads another conversation from `on_turn` just gets fresh ones).
    let mut scratch = SCRATCH.with(|s| s.take()).unwrap_or_default();
    let out = read_conversation(conversation, &mut scratch, &mut on_turn);
    SCRATCH.with(|s| s.set(Some(scratch)));
    out
}

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

/// Buffers [`conversation_signals`] reuses from one conversation to the next.
#[derive(Default)]
struct Scratch {
    text: Text,
    /// The next turn's text, prepared with this one's so that their phrases are searched
    /// together, and its term occurrences.
    ahead: Text,
    ahead_terms: Vec<Occurrence>,
    /// The facts of the words of `text`.
    words: Words,
    grams: Vec<Gram>,
    question: Vec<Gram>,
    terms: Vec<Occurrence>,
    /// The person's most recent turns (event index, content stems).
    human_bags: std::collections::VecDeque<(usize, Bag)>,
    /// Bags no longer in use.
    spare: Vec<Bag>,
}

fn read_conversation(
    conversation: &Conversation,
    scratch: &mut Scratch,
    on_turn: &mut impl FnMut(&Seen<'_>),
) -> Vec<TurnSignals> {
    let p = &*SIGNALS;
    let text_model = &*TEXT;
    let ai_model = &*AI_FAILURE;
    let mut out: Vec<TurnSignals> = Vec::with_capacity(conversation.human_turn_count);
    let Scratch {
        text,
        ahead,
        ahead_terms,
        words: facts,
        grams: gram_buf,
        question,
        terms,
        human_bags,
        spare,
    } = scratch;
    // A repeat is looked for among the person's last `repetition_window` turns, so a
    // long conversation costs linear time.
    let window = p.repetition_window.max(1.0) as usize;
    spare.extend(human_bags.drain(..).map(|(_, b)| b));
    let mut human_words_total = 0usize;
    let mut last_ai: Option<(AiTurn, Bag)> = None;
    // The last human turn since the last AI turn: its index in `human_bags` (the
    // back), whether it asked something, and its n-grams (in `question`) with their
    // value.
    let mut last_human: Option<(usize, bool, f64)> = None;
    let mut failure_history = 0.0f64;
    let mut prev_time: Option<chrono::DateTime<chrono::Utc>> = None;
    // The markers of the turn read ahead (in `ahead`, its terms in `ahead_terms`).
    let mut read_ahead: Option<Markers> = None;
    for (k, turn) in conversation.turns.iter().enumerate() {
        let markers = match (read_ahead.take(), conversation.turns.get(k + 1)) {
            (Some(markers), _) => {
                std::mem::swap(text, ahead);
                std::mem::swap(terms, ahead_terms);
                markers
            }
            (None, Some(next)) => {
                text.fill(&turn.event.content);
                ahead.fill(&next.event.content);
                let [this, next] = find_phrases_of_two([text, ahead], [terms, ahead_terms]);
                read_ahead = Some(next);
                this
            }
            (None, None) => {
                text.fill(&turn.event.content);
                find_phrases(text, terms)
            }
        };
        let latency =
            prev_time.map(|t| (turn.event.timestamp - t).num_milliseconds() as f64 / 1000.0);
        prev_time = Some(turn.event.timestamp);
        facts.fill(text);
        let mut bag = spare.pop().unwrap_or_default();
        bag.fill_stems(facts.stems(text));
        let ascii = text.ascii;
        match turn.role {
            Role::Ai => {
                let repeats_itself = match &last_ai {
                    Some((_, prev)) if prev.len() >= 3 && bag.len() >= 3 => {
                        let d = prev.dice(&bag);
                        if d >= p.repetition_floor { d } else { 0.0 }
                    }
                    _ => 0.0,
                };
                let asked = last_human.filter(|&(_, asked, _)| asked);
                let (covers_question, ignores_question) = match asked {
                    Some((q, _, _)) => {
                        let q = &human_bags[q.min(human_bags.len().saturating_sub(1))].1;
                        let covered = if q.is_empty() {
                            1.0
                        } else {
                            q.covered_by(&bag)
                        };
                        (
                            covered,
                            text.questions == 0 && q.len() >= 2 && covered == 0.0,
                        )
                    }
                    None => (1.0, false),
                };
                let context = ai_turn::Context {
                    repeats_itself,
                    answers_a_question: asked.is_some(),
                    covers_question,
                    ignores_question,
                    short_reply: text.word_count() <= 3,
                    asks_question: text.questions > 0,
                    first_reply: last_ai.is_none(),
                };
                let value = grams_of(text, facts.hashes(), Source::Ai, gram_buf);
                let dense = context.dense(text, &markers);
                let (q_grams, q_value): (&[Gram], f64) = match last_human {
                    Some((_, _, v)) => (question, v),
                    None => (&[], 0.0),
                };
                let (failure, failure_words) =
                    ai_turn::failure(ai_model, text, gram_buf, value, q_grams, q_value, &dense);
                on_turn(&Seen {
                    text,
                    role: Role::Ai,
                    grams: gram_buf,
                    value,
                    question: Some((q_grams, q_value)),
                    dense: &dense,
                    event_index: turn.event_index,
                    failure: Some(failure),
                    terms,
                });
                let ai = AiTurn {
                    event_index: turn.event_index,
                    markers,
                    context,
                    words: text.word_count(),
                    failure,
                    failure_words,
                    ascii,
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
                failure_history = failure_history * p.failure_history_decay + failure;
                if let Some((_, old)) = last_ai.replace((ai, bag)) {
                    spare.push(old);
                }
                last_human = None;
            }
            Role::Human => {
                let (mut repetition, mut repeated_event) = (0.0, None);
                if bag.len() >= 3 {
                    for (idx, earlier) in human_bags.iter() {
                        // Only a turn that could beat the best so far, and reach the
                        // floor, is compared stem by stem.
                        let bound = bag.dice_bound(earlier);
                        if earlier.len() >= 3 && bound > repetition && bound >= p.repetition_floor {
                            let sim = bag.dice(earlier);
                            if sim > repetition {
                                repetition = sim;
                                repeated_event = Some(*idx);
                            }
                        }
                    }
                }
                if repetition < p.repetition_floor {
                    (repetition, repeated_event) = (0.0, None);
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
                            || words > 0
                                && matches!(
                                    text.word(0),
                                    "who" | "what" | "which" | "where" | "huh" | "what's"
                                )
                    });
                let affect = affect_with(text, |i| facts.lexicon(i));
                let value = grams_of(text, facts.hashes(), Source::Human, gram_buf);
                let dense = crate::model::text::dense(text, &affect, &markers);
                let reading = read(text_model, text, gram_buf, value, &dense);
                on_turn(&Seen {
                    text,
                    role: Role::Human,
                    grams: gram_buf,
                    value,
                    question: None,
                    dense: &dense,
                    event_index: turn.event_index,
                    failure: None,
                    terms,
                });
                // The n-grams stay for the AI turn that answers this one.
                std::mem::swap(question, gram_buf);
                let signals = TurnSignals {
                    event_index: turn.event_index,
                    human_position: position,
                    affect,
                    reading,
                    lowered: (!ascii).then(|| text.lower.as_str().into()),
                    other_language: {
                        let (english, other) = facts.function_words();
                        reads_as_other_language(
                            words,
                            english,
                            other,
                            p.other_language_min_words,
                            p.other_language_min_function_words,
                        )
                    },
                    shouting: text.shouting_share(),
                    exclamation: dense[4],
                    repeated_question_marks: dense[3] > 0.0,
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
                if human_bags.len() == window
                    && let Some((_, old)) = human_bags.pop_front()
                {
                    spare.push(old);
                }
                last_human = Some((human_bags.len(), is_question || text.questions > 0, value));
                human_bags.push_back((turn.event_index, bag));
                out.push(signals);
            }
        }
    }
    if let Some(last) = out.last_mut() {
        last.is_last_human_turn = true;
    }
    spare.extend(last_ai.map(|(_, b)| b));
    out
}

/// The signal parameters, read once from the tables.
pub static SIGNALS: LazyLock<SignalParams> = LazyLock::new(|| {
    SignalParams::read(&crate::model::TABLES)
        .expect("core/models/dimensions.tsv has the signal parameters")
});

#[cfg(test)]
mod tests {
    use super::*;

    /// What reading `text` finds, filed: (marker occurrences, terms).
    fn found(text: &Text) -> (Vec<Occurrence>, Vec<Occurrence>) {
        let mut terms = Vec::new();
        let mut markers = MarkerMatches::new();
        let p = &*ASCII_PHRASES;
        phrases::each(&p.automaton, text, |o| file(p, o, &mut markers, &mut terms));
        add_other_phrases(text, &mut markers, &mut terms);
        (markers.into_vec(), terms)
    }

    /// What one search of the whole list finds, filed the same way: the reference.
    fn found_by_one_search(text: &Text) -> (Vec<Occurrence>, Vec<Occurrence>) {
        static WHOLE: LazyLock<Phrases> = LazyLock::new(|| phrases_where(|_| true));
        let p = &*WHOLE;
        let (mut markers, mut terms) = (MarkerMatches::new(), Vec::new());
        phrases::each(&p.automaton, text, |o| file(p, o, &mut markers, &mut terms));
        (markers.into_vec(), terms)
    }

    #[test]
    fn the_two_searches_split_the_list_by_script() {
        let (list, markers) = whole_list();
        let ascii: Vec<usize> = (0..list.len()).filter(|&i| list[i].is_ascii()).collect();
        let other: Vec<usize> = (0..list.len()).filter(|&i| !list[i].is_ascii()).collect();
        assert_eq!(ASCII_PHRASES.ids, ascii);
        assert_eq!(OTHER_PHRASES.ids, other);
        assert_eq!(
            (ASCII_PHRASES.markers, OTHER_PHRASES.markers),
            (markers, markers)
        );
        // Chinese and Japanese alone are hundreds of patterns.
        assert!(other.len() > 300, "{}", other.len());
    }

    #[test]
    fn texts_in_any_script_find_what_one_search_of_the_whole_list_finds() {
        let texts = [
            "Not helpful, I already told you twice. Talk to a human!",
            // ’ is lowercased to ': searched as ASCII.
            "That don’t work, I already told you",
            "我已经说过了，还是不行，转人工",
            "I already told you 我已经说过了 talk to a human 人工客服 thanks 谢谢",
            "分かりません。オペレーターと話したい、ありがとう",
            "ça ne marche pas, not helpful 🙁 still broken",
            "",
        ];
        for raw in texts {
            let text = Text::new(raw);
            assert_eq!(found(&text), found_by_one_search(&text), "{raw}");
        }
        // Hundreds of occurrences of both kinds, interleaved: the runs are merged.
        let long = Text::new(&"i already told you 谢谢 没用过 not helpful 转人工 ".repeat(200));
        let (markers, terms) = found(&long);
        assert!(markers.len() > 1000, "{}", markers.len());
        assert_eq!((markers, terms), found_by_one_search(&long));
        let chinese = Text::new(texts[2]);
        let list = whole_list().0;
        let phrases: Vec<&str> = found(&chinese)
            .0
            .iter()
            .map(|&(_, _, id)| list[id])
            .collect();
        for p in ["我已经说过", "还是不行", "转人工"] {
            assert!(phrases.contains(&p), "{p} in {phrases:?}");
        }
        assert!(!needs_other_phrases(&Text::new(texts[1])));
        assert!(needs_other_phrases(&chinese));
    }

    proptest::proptest! {
        #[test]
        fn any_text_finds_what_one_search_of_the_whole_list_finds(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "not", "helpful", "i", "already", "told", "you", "that", "twice", "this",
                    "is", "useless", "thanks", "it", "still", "doesn't", "work", "talk", "to",
                    "a", "human", "agent", "don't", "understand", "what", "mean", "error:",
                    "main.py", "?", "!", ",", "sorry", "can't", "help", "just", "answer",
                    "不", "是", "垃圾", "我已经说过", "了", "还是不行", "人工", "客服", "谢谢",
                    "，", "？", "分かりません", "ありがとう", "ça", "marche", "pas", "🙁", "é",
                ]),
                0..60,
            ),
            spaced in proptest::bool::ANY,
        ) {
            let text = Text::new(&words.join(if spaced { " " } else { "" }));
            proptest::prop_assert_eq!(found(&text), found_by_one_search(&text));
        }
    }
}
