//! Phrase markers: one Aho-Corasick pass over a turn finds every lexicon phrase.
//!
//! The phrases live in `lexicons/markers.tsv` (weight and phrase, under a `[category]`
//! line). A match counts only on whole words, and not when a negator ("not", "never",
//! "don't", …) stands within the three words before it ("not helpful" is not praise).
//! The lines of the pseudo-category `[mask]` name phrases that hide every marker
//! inside them: "no need to be sorry" and "sorry to hear that" are not the AI
//! apologising for a failure.

use std::sync::LazyLock;

use smallvec::SmallVec;

use super::phrases::{self, Occurrence};
use super::text::{ShortWords, Text};

/// A family of phrases that shows one thing about a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// Exasperation, impatience, complaint ("ridiculous", "waste of time").
    Frustration,
    /// Insults and profanity aimed at the AI or the service.
    Insult,
    /// Asking for a person ("talk to a human", "supervisor").
    Escalation,
    /// Saying the request was made before ("like I said", "again").
    RepetitionClaim,
    /// Telling the AI it got it wrong ("that's not what I asked").
    Correction,
    /// The problem is still there after the AI's suggestion ("didn't work").
    ProblemPersists,
    /// Asking the AI to back up a claim ("are you sure?", "source?").
    Verification,
    /// Thanks.
    Gratitude,
    /// The need was met ("that worked", "makes sense").
    Resolution,
    /// Writing the AI off ("you're useless", "forget it").
    Dismissal,
    /// About to leave ("I give up", "bye", "switching to").
    GivingUp,
    /// Handing the work or the thinking to the AI ("just do it for me").
    Delegation,
    /// Doing the work or the thinking oneself ("let me try", "explain why").
    SelfEfficacy,
    /// Not understanding the AI ("what do you mean", "I'm lost").
    Comprehension,
    /// Going along with the AI ("ok", "will do", "if you say so").
    Acceptance,
    /// Saying the AI's output will not be checked ("no need to review it", "I trust you").
    SkippedCheck,
    /// The AI apologises or concedes an error.
    AiApology,
    /// The AI refuses or says it cannot.
    AiRefusal,
    /// The AI does not know or did not understand.
    AiUnknown,
    /// The AI hedges ("might", "I'm not certain").
    AiHedge,
    /// The AI offers a person or another channel.
    AiEscalationOffer,
    /// The AI points elsewhere instead of answering ("see our FAQ").
    AiDeflection,
    /// The AI closes the conversation ("anything else?", "glad I could help").
    AiClosing,
}

impl Category {
    /// Every category, in index order.
    pub const ALL: [Category; 23] = [
        Category::Frustration,
        Category::Insult,
        Category::Escalation,
        Category::RepetitionClaim,
        Category::Correction,
        Category::ProblemPersists,
        Category::Verification,
        Category::Gratitude,
        Category::Resolution,
        Category::Dismissal,
        Category::GivingUp,
        Category::Delegation,
        Category::SelfEfficacy,
        Category::Comprehension,
        Category::Acceptance,
        Category::SkippedCheck,
        Category::AiApology,
        Category::AiRefusal,
        Category::AiUnknown,
        Category::AiHedge,
        Category::AiEscalationOffer,
        Category::AiDeflection,
        Category::AiClosing,
    ];

    /// The category's name in `markers.tsv`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Frustration => "frustration",
            Category::Insult => "insult",
            Category::Escalation => "escalation",
            Category::RepetitionClaim => "repetition_claim",
            Category::Correction => "correction",
            Category::ProblemPersists => "problem_persists",
            Category::Verification => "verification",
            Category::Gratitude => "gratitude",
            Category::Resolution => "resolution",
            Category::Dismissal => "dismissal",
            Category::GivingUp => "giving_up",
            Category::Delegation => "delegation",
            Category::SelfEfficacy => "self_efficacy",
            Category::Comprehension => "comprehension",
            Category::Acceptance => "acceptance",
            Category::SkippedCheck => "skipped_check",
            Category::AiApology => "ai_apology",
            Category::AiRefusal => "ai_refusal",
            Category::AiUnknown => "ai_unknown",
            Category::AiHedge => "ai_hedge",
            Category::AiEscalationOffer => "ai_escalation_offer",
            Category::AiDeflection => "ai_deflection",
            Category::AiClosing => "ai_closing",
        }
    }

    fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == s)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Number of categories.
pub const CATEGORY_COUNT: usize = Category::ALL.len();

/// The marker lexicon, compiled in.
const MARKERS_TSV: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/markers.tsv"));

/// Words that cancel a marker when they stand within three words before it.
static NEGATORS: LazyLock<ShortWords> = LazyLock::new(|| {
    ShortWords::new(&[
        "not", "no", "never", "don't", "doesn't", "didn't", "isn't", "wasn't", "aren't", "can't",
        "cannot", "won't", "hardly", "nothing", "without", "nor",
    ])
    .expect("negators are short words")
});

struct Lexicon {
    /// Per pattern: whether it is a mask (hides the markers inside its span).
    mask: Vec<bool>,
    /// Per pattern: the phrase and every (category, weight) it belongs to.
    patterns: Vec<(&'static str, Vec<(Category, f32)>)>,
    /// Per pattern: whether the phrase itself contains a negator, so it is not cancelled.
    self_negated: Vec<bool>,
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(|| {
    let mut patterns: Vec<(&'static str, Vec<(Category, f32)>)> = Vec::new();
    let mut masks: Vec<&'static str> = Vec::new();
    // The category of the lines being read: `None` for `[mask]`, and before any.
    let mut section: Option<Option<Category>> = None;
    for (n, line) in MARKERS_TSV.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(match name {
                "mask" => None,
                _ => Some(Category::parse(name).unwrap_or_else(|| {
                    panic!("markers.tsv line {}: unknown category {name}", n + 1)
                })),
            });
            continue;
        }
        let cat = match section {
            None => panic!("markers.tsv line {}: a phrase before any [category]", n + 1),
            Some(None) => {
                masks.push(line);
                continue;
            }
            Some(Some(cat)) => cat,
        };
        let Some((weight, phrase)) = line.split_once('\t') else {
            panic!("markers.tsv line {}: expected weight<TAB>phrase", n + 1);
        };
        let weight: f32 = weight
            .parse()
            .unwrap_or_else(|_| panic!("markers.tsv line {}: bad weight {weight}", n + 1));
        match patterns.iter_mut().find(|(p, _)| *p == phrase) {
            Some((_, cats)) => cats.push((cat, weight)),
            None => patterns.push((phrase, vec![(cat, weight)])),
        }
    }
    let mask: Vec<bool> = patterns
        .iter()
        .map(|_| false)
        .chain(masks.iter().map(|_| true))
        .collect();
    patterns.extend(masks.into_iter().map(|p| (p, Vec::new())));
    let self_negated = patterns
        .iter()
        .map(|(p, _)| {
            p.split(|c: char| !c.is_alphanumeric() && c != '\'')
                .any(|w| NEGATORS.contains_word(w.as_bytes()))
        })
        .collect();
    Lexicon {
        mask,
        patterns,
        self_negated,
    }
});

/// The automaton of [`Markers::find`], built on first use (reading a conversation
/// searches for the markers with the archetype terms instead: `score::context`).
static AUTOMATON: LazyLock<phrases::PhraseAutomaton> = LazyLock::new(|| {
    phrases::automaton(phrases()).unwrap_or_else(|e| panic!("marker phrases: {e}"))
});

/// What the marker lexicon found in one text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Markers {
    /// Per category: combined strength in [0, 1] (noisy-or of the matched phrases' weights).
    strength: [f32; CATEGORY_COUNT],
    /// Per category: the lexicon index of the strongest matched phrase, or [`NO_PHRASE`].
    phrase: [u16; CATEGORY_COUNT],
}

/// No phrase of the category matched.
const NO_PHRASE: u16 = u16::MAX;

impl Default for Markers {
    fn default() -> Markers {
        Markers {
            strength: [0.0; CATEGORY_COUNT],
            phrase: [NO_PHRASE; CATEGORY_COUNT],
        }
    }
}

impl Markers {
    /// Finds every marker phrase in `text`.
    pub fn find(text: &Text) -> Markers {
        Markers::from_matches(text, phrases::occurrences(&AUTOMATON, text))
    }

    /// The markers of `text` from every occurrence of the phrases of [`phrases()`], in
    /// the order `features::phrases` finds them. A reader that searches for other
    /// phrases too finds them all in one pass this way.
    pub fn from_matches(text: &Text, matches: impl IntoIterator<Item = Occurrence>) -> Markers {
        let lex = &*LEXICON;
        let mut m = Markers::default();
        let mut phrase_weight = [0.0f32; CATEGORY_COUNT];
        // Matches on whole words, in the automaton's order; masks kept apart.
        let mut hits: SmallVec<[(usize, usize, usize); 16]> = SmallVec::new();
        let mut masks: SmallVec<[(usize, usize); 4]> = SmallVec::new();
        for (start, end, id) in matches {
            if !text.on_word_boundaries(start, end) {
                continue;
            }
            if lex.mask[id] {
                masks.push((start, end));
            } else if lex.self_negated[id] || !negated_before(text, start) {
                hits.push((start, end, id));
            }
        }
        let mut hidden = Hidden::new(&masks);
        for (start, end, id) in hits {
            // A mask hides what lies inside it, not a marker phrase with the same span.
            if hidden.covers(start, end) {
                continue;
            }
            for &(cat, w) in &lex.patterns[id].1 {
                let i = cat.index();
                let before = m.strength[i];
                m.strength[i] = 1.0 - (1.0 - before) * (1.0 - w);
                if w > phrase_weight[i] {
                    // The lexicon has far fewer than 65 535 phrases (checked in a test).
                    m.phrase[i] = id as u16;
                    phrase_weight[i] = w;
                }
            }
        }
        m
    }

    /// Combined strength of `category` in [0, 1]; 0 when nothing matched.
    pub fn get(&self, category: Category) -> f64 {
        f64::from(self.strength[category.index()])
    }

    /// The strongest phrase of `category` that matched.
    pub fn phrase(&self, category: Category) -> Option<&'static str> {
        match self.phrase[category.index()] {
            NO_PHRASE => None,
            id => LEXICON.patterns.get(usize::from(id)).map(|(p, _)| *p),
        }
    }

    /// The strongest phrase of `category` that matched, as its index in [`phrases()`].
    pub fn phrase_index(&self, category: Category) -> Option<usize> {
        match self.phrase[category.index()] {
            NO_PHRASE => None,
            id => Some(usize::from(id)),
        }
    }

    /// Whether any phrase of `category` matched.
    pub fn has(&self, category: Category) -> bool {
        self.strength[category.index()] > 0.0
    }
}

/// Which spans the masks of a text hide, asked of the phrases in the order of the
/// search (by end, the longer first at the same end), in time linear in both: a text
/// of 32 KB can hold thousands of masks and of phrases inside them.
struct Hidden<'m> {
    /// The masks, in the same order.
    masks: &'m [(usize, usize)],
    /// Per mask `k`, the smallest start of `masks[k..]`.
    first_start: SmallVec<[usize; 4]>,
    /// The first mask that does not end before the phrase asked about last.
    from: usize,
}

impl<'m> Hidden<'m> {
    fn new(masks: &'m [(usize, usize)]) -> Self {
        let mut first_start: SmallVec<[usize; 4]> = SmallVec::from_elem(usize::MAX, masks.len());
        let mut least = usize::MAX;
        for (k, &(s, _)) in masks.iter().enumerate().rev() {
            least = least.min(s);
            first_start[k] = least;
        }
        Hidden {
            masks,
            first_start,
            from: 0,
        }
    }

    /// Whether a mask holds `start..end` without being that very span. The spans asked
    /// about come in the order of the search.
    fn covers(&mut self, start: usize, end: usize) -> bool {
        let masks = self.masks;
        while self.from < masks.len() && masks[self.from].1 < end {
            self.from += 1;
        }
        // Masks that end where the phrase ends come first, the longest first: one that
        // starts before the phrase holds it.
        let mut k = self.from;
        if k < masks.len() && masks[k].1 == end {
            if masks[k].0 < start {
                return true;
            }
            while k < masks.len() && masks[k].1 == end {
                k += 1;
            }
        }
        // Any mask that ends after the phrase and starts no later holds it.
        k < masks.len() && self.first_start[k] <= start
    }
}

/// Every marker phrase (masks included), in the order [`Markers::from_matches`]
/// numbers them.
pub fn phrases() -> impl Iterator<Item = &'static str> {
    LEXICON.patterns.iter().map(|(p, _)| *p)
}

/// Whether a negator is among the three words that end before byte `start`, in the
/// same clause: punctuation ends a negation's reach ("no, it still fails" is not
/// negated; "not really helpful" is).
fn negated_before(text: &Text, start: usize) -> bool {
    let first_after = text.spans.partition_point(|&(s, _)| (s as usize) < start);
    let from = first_after.saturating_sub(3);
    (from..first_after).any(|i| {
        let (s, e) = text.spans[i];
        NEGATORS.contains_in(text.lower.as_bytes(), s as usize, e as usize)
            && !text.lower[text.spans[i].1 as usize..start].contains([',', '.', ';', ':', '!', '?'])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(s: &str) -> Markers {
        Markers::find(&Text::new(s))
    }

    /// Spans in the order of a search: by end, the longer first.
    fn in_search_order(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
        spans.sort_by_key(|&(s, e)| (e, s));
        spans
    }

    proptest::proptest! {
        #[test]
        fn hidden_spans_are_those_a_mask_holds(
            masks in proptest::collection::vec((0usize..40, 1usize..12), 0..12),
            phrases in proptest::collection::vec((0usize..40, 1usize..12), 0..24),
        ) {
            let spans = |v: Vec<(usize, usize)>| in_search_order(v.into_iter().map(|(s, n)| (s, s + n)).collect());
            let (masks, phrases) = (spans(masks), spans(phrases));
            let mut hidden = Hidden::new(&masks);
            for &(start, end) in &phrases {
                let expected = masks.iter().any(|&(s, e)| s <= start && end <= e && (s, e) != (start, end));
                proptest::prop_assert_eq!(hidden.covers(start, end), expected, "{:?} in {:?}", (start, end), masks);
            }
        }
    }

    #[test]
    fn thousands_of_masks_each_hide_the_phrase_inside_them() {
        // 没用 ("useless") inside every 没用过 ("never used"): each is hidden.
        assert!(!find(&"没用过".repeat(3000)).has(Category::Dismissal));
        assert!(find(&format!("{} 没用", "没用过".repeat(3000))).has(Category::Dismissal));
    }

    #[test]
    fn every_lexicon_line_parses_and_categories_round_trip() {
        assert!(LEXICON.patterns.len() > 400);
        assert!(LEXICON.patterns.len() < usize::from(NO_PHRASE));
        for c in Category::ALL {
            assert_eq!(Category::parse(c.as_str()), Some(c));
            assert!(
                LEXICON
                    .patterns
                    .iter()
                    .any(|(_, cats)| cats.iter().any(|(k, _)| *k == c)),
                "{} has no phrases",
                c.as_str()
            );
        }
    }

    #[test]
    fn escalation_request_is_found_case_insensitively() {
        let m = find("Let me TALK TO A HUMAN now");
        assert_eq!(m.get(Category::Escalation), 1.0);
        assert_eq!(m.phrase(Category::Escalation), Some("talk to a human"));
        assert!(!m.has(Category::Gratitude));
    }

    #[test]
    fn negation_cancels_praise_but_not_self_negated_phrases() {
        let m = find("that was not helpful");
        assert!(!m.has(Category::Resolution));
        assert!(m.has(Category::ProblemPersists));
        let m = find("I don't understand");
        assert_eq!(m.get(Category::Comprehension), 1.0);
    }

    #[test]
    fn negation_stops_at_punctuation() {
        assert!(find("no, it still fails").has(Category::ProblemPersists));
        assert!(!find("it was not really helpful").has(Category::Resolution));
        assert!(find("Not what I wanted. Thanks anyway").has(Category::Gratitude));
    }

    #[test]
    fn chinese_and_japanese_phrases_are_found_between_any_characters() {
        // Written without spaces: a phrase stands wherever its characters stand together.
        let m = find("我已经说过了！答非所问，转人工");
        assert_eq!(m.phrase(Category::RepetitionClaim), Some("我已经说过"));
        assert_eq!(m.phrase(Category::Correction), Some("答非所问"));
        assert_eq!(m.get(Category::Escalation), 1.0);
        assert!(find("好的，可以了，谢谢！").has(Category::Gratitude));
        assert!(find("ありがとうございます").has(Category::Gratitude));
        assert!(find("很抱歉，我无法为您处理").has(Category::AiRefusal));
        // Beside a Latin word too.
        assert!(find("ok谢谢").has(Category::Acceptance));
        // Masks: "have not used" is not "useless", "worked it out" not "forget it",
        // "spam" no insult.
        assert!(!find("我没用过这个功能").has(Category::Dismissal));
        assert!(find("这个功能没用").has(Category::Dismissal));
        assert!(!find("我算了一下运费").has(Category::GivingUp));
        assert!(find("算了，不用了").has(Category::GivingUp));
        assert!(!find("垃圾邮件太多").has(Category::Insult));
        assert!(find("怎么还没发货？快点").has(Category::ProblemPersists));
        assert!(!find("请尽快点击链接").has(Category::Frustration));
    }

    #[test]
    fn whole_words_only() {
        assert!(!find("the border is open").has(Category::Acceptance));
        assert!(!find("mythanks").has(Category::Gratitude));
        assert!(find("ok!").has(Category::Acceptance));
    }

    #[test]
    fn strengths_combine_as_noisy_or() {
        let one = find("thanks").get(Category::Gratitude);
        let two = find("thanks, I appreciate it").get(Category::Gratitude);
        assert_eq!(one, 1.0);
        assert!(two <= 1.0);
        let f1 = find("this is annoying").get(Category::Frustration);
        let f2 = find("this is annoying and ridiculous").get(Category::Frustration);
        assert!(f2 > f1, "{f2} > {f1}");
        assert!((f1 - 0.7).abs() < 1e-6);
    }

    #[test]
    fn masks_hide_the_markers_inside_them() {
        assert!(!find("No need to be sorry, happy to help.").has(Category::AiApology));
        assert!(!find("I'm sorry to hear that.").has(Category::AiApology));
        let m = find("Sorry to hear that. Sorry, I can't do refunds.");
        assert!(m.has(Category::AiApology), "the second sorry is an apology");
        assert!(m.has(Category::AiRefusal));
        let m = find("fine, whatever you think");
        assert!(!m.has(Category::Dismissal));
        assert!(m.has(Category::Acceptance));
        assert!(find("whatever, forget it").has(Category::Dismissal));
    }

    #[test]
    fn curly_apostrophes_match() {
        assert!(find("that’s not what I asked").has(Category::Correction));
    }

    #[test]
    fn ai_markers() {
        let m = find("I'm sorry, I can't help with that. Let me connect you with a human agent.");
        assert!(m.has(Category::AiApology));
        assert!(m.has(Category::AiRefusal));
        assert!(m.has(Category::AiEscalationOffer));
    }
}
