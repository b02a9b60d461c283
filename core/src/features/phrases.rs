//! Phrase lists found in a turn's lowercased text: one Aho–Corasick automaton (a
//! table-driven DFA), every occurrence of every phrase reported, overlapping ones
//! included, in the order of the search: by end, the longer first at the same end.
//! Each reader decides which occurrences count (whole words, negation, the longest).
//!
//! The search walks the DFA's transition table itself, one lookup per byte, rather
//! than through the crate's general search loop: the texts are short, the phrases
//! many, and the general loop's bookkeeping per byte cost more than the lookup.

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind};
use smallvec::SmallVec;

use super::text::Text;

/// One occurrence: `(start, end, phrase)`, a byte range of [`Text::lower`] and the
/// index of the phrase in the list the automaton was built from.
pub type Occurrence = (usize, usize, usize);

/// The automaton of a list of phrases.
#[derive(Debug, Clone)]
pub struct PhraseAutomaton {
    dfa: DFA,
    start: StateID,
    /// The longest phrase, in bytes: a search started this many bytes before a position
    /// is in the same state there as one started at the beginning of the text.
    longest: usize,
}

/// The automaton of a list of phrases; the error says why it could not be built.
pub fn automaton<I, P>(phrases: I) -> Result<PhraseAutomaton, String>
where
    I: IntoIterator<Item = P>,
    P: AsRef<[u8]>,
{
    let dfa = DFA::builder()
        .match_kind(MatchKind::Standard)
        .build(phrases)
        .map_err(|e| format!("automaton: {e}"))?;
    let start = dfa
        .start_state(Anchored::No)
        .map_err(|e| format!("automaton: {e}"))?;
    let longest = dfa.max_pattern_len();
    Ok(PhraseAutomaton {
        dfa,
        start,
        longest,
    })
}

/// Calls `each` with every occurrence in `text.lower` of the phrases of `automaton`.
pub fn each(automaton: &PhraseAutomaton, text: &Text, mut each: impl FnMut(Occurrence)) {
    rest(
        automaton,
        text.lower.as_bytes(),
        0,
        automaton.start,
        &mut each,
    );
}

/// [`each`] of two texts at once: `each(0, occurrence)` for those of `first`,
/// `each(1, occurrence)` for those of `second`, each text's in its own order.
///
/// A search is one table lookup per byte that waits on the one before, so most of
/// its time is spent waiting; two searches stepped together wait at the same time.
pub fn each_of_two(
    automaton: &PhraseAutomaton,
    first: &Text,
    second: &Text,
    mut each: impl FnMut(usize, Occurrence),
) {
    let dfa = &automaton.dfa;
    let (a, b) = (first.lower.as_bytes(), second.lower.as_bytes());
    let both = a.len().min(b.len());
    let (state_a, state_b) = two_walks(
        dfa,
        [(a, 0, automaton.start), (b, 0, automaton.start)],
        both,
        &mut |k, o| each(k, o),
    );
    rest(automaton, a, both, state_a, &mut |o| each(0, o));
    rest(automaton, b, both, state_b, &mut |o| each(1, o));
}

/// Steps two searches together for `steps` bytes each: search `k` walks `bytes[at..]`
/// from `state` and reports with `each(k, occurrence)`. Returns their states.
fn two_walks(
    dfa: &DFA,
    [(a, at_a, mut state_a), (b, at_b, mut state_b)]: [(&[u8], usize, StateID); 2],
    steps: usize,
    each: &mut impl FnMut(usize, Occurrence),
) -> (StateID, StateID) {
    for (k, (&byte_a, &byte_b)) in a[at_a..at_a + steps]
        .iter()
        .zip(&b[at_b..at_b + steps])
        .enumerate()
    {
        state_a = dfa.next_state(Anchored::No, state_a, byte_a);
        state_b = dfa.next_state(Anchored::No, state_b, byte_b);
        if dfa.is_special(state_a) | dfa.is_special(state_b) {
            report(dfa, state_a, at_a + k + 1, &mut |o| each(0, o));
            report(dfa, state_b, at_b + k + 1, &mut |o| each(1, o));
        }
    }
    (state_a, state_b)
}

/// Searches `bytes[at..]` from `state`, reporting the occurrences that end there. A
/// long rest is searched as two halves stepped together (see [`each_of_two`]): the
/// second half's search starts [`PhraseAutomaton::longest`] bytes early, from the
/// start state, so that by the half's first byte it is in the state the first
/// search would have reached; what it finds is held back until the first half's
/// occurrences are out, so the order is the same as one search's.
fn rest(
    automaton: &PhraseAutomaton,
    bytes: &[u8],
    at: usize,
    state: StateID,
    each: &mut impl FnMut(Occurrence),
) {
    let dfa = &automaton.dfa;
    let left = bytes.len() - at;
    if left < SPLIT_FROM.max(4 * automaton.longest) {
        walk(dfa, bytes, at, state, each);
        return;
    }
    // The first half ends at `middle`; the second search reads from `early` (the
    // longest phrase before `middle`) to the end, and keeps what ends after `middle`.
    // Both read as many bytes.
    let middle = (at + bytes.len() + automaton.longest) / 2;
    let early = middle - automaton.longest;
    let mut later: SmallVec<[Occurrence; 16]> = SmallVec::new();
    let (_, state_b) = two_walks(
        dfa,
        [(bytes, at, state), (bytes, early, automaton.start)],
        middle - at,
        &mut |k, o| {
            if k == 0 {
                each(o);
            } else if o.1 > middle {
                later.push(o);
            }
        },
    );
    // The second search has read up to `early + (middle - at)`; it reads the rest alone.
    walk(dfa, bytes, early + (middle - at), state_b, &mut |o| {
        if o.1 > middle {
            later.push(o);
        }
    });
    later.into_iter().for_each(each);
}

/// A rest of at least this many bytes is searched as two halves ([`rest`]).
const SPLIT_FROM: usize = 160;

/// Searches `bytes[at..]` from `state`, reporting the occurrences that end there.
fn walk(
    dfa: &DFA,
    bytes: &[u8],
    mut at: usize,
    mut state: StateID,
    each: &mut impl FnMut(Occurrence),
) {
    while at < bytes.len() {
        // The tight loop: one transition per byte until a special state (the start
        // state, or one where phrases end; an unanchored search never dies).
        while at < bytes.len() {
            state = dfa.next_state(Anchored::No, state, bytes[at]);
            at += 1;
            if dfa.is_special(state) {
                break;
            }
        }
        report(dfa, state, at, each);
    }
}

/// Reports the phrases that end at byte `end` when the search is in `state`, if any.
fn report(dfa: &DFA, state: StateID, end: usize, each: &mut impl FnMut(Occurrence)) {
    if dfa.is_match(state) {
        for k in 0..dfa.match_len(state) {
            let phrase = dfa.match_pattern(state, k);
            each((end - dfa.pattern_len(phrase), end, phrase.as_usize()));
        }
    }
}

/// Every occurrence in `text.lower` of the phrases of `automaton`, collected.
pub fn occurrences(automaton: &PhraseAutomaton, text: &Text) -> Vec<Occurrence> {
    let mut out = Vec::new();
    each(automaton, text, |o| out.push(o));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_every_occurrence_as_the_general_search_does() {
        let list = [
            "not",
            "not helpful",
            "helpful",
            "ok",
            "ok",
            "really?",
            "he",
            "help",
        ];
        let reference = aho_corasick::AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(list)
            .unwrap();
        let table = automaton(list).unwrap();
        for raw in [
            "Not helpful, really? ok ok. book okay; he helped",
            "",
            "nothing here",
            "okokok helpful?really?",
        ] {
            let text = Text::new(raw);
            let expected: Vec<Occurrence> = reference
                .find_overlapping_iter(&text.lower)
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
            assert_eq!(occurrences(&table, &text), expected, "{raw}");
        }
        let text = Text::new("ok");
        assert_eq!(occurrences(&table, &text), [(0, 2, 3), (0, 2, 4)]);
    }

    /// The real lists, whole (`score::context` searches them split by script), and the
    /// crate's general search over the same phrases: the reference.
    fn real_lists() -> &'static (PhraseAutomaton, aho_corasick::AhoCorasick) {
        static LISTS: std::sync::LazyLock<(PhraseAutomaton, aho_corasick::AhoCorasick)> =
            std::sync::LazyLock::new(|| {
                let list: Vec<&str> = crate::features::markers::phrases()
                    .chain(crate::score::archetype::term_patterns())
                    .collect();
                let reference = aho_corasick::AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    .build(&list)
                    .unwrap();
                (automaton(&list).unwrap(), reference)
            });
        &LISTS
    }

    proptest::proptest! {
        #[test]
        fn long_texts_searched_in_halves_find_every_occurrence_in_order(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "not", "helpful", "i", "already", "told", "you", "that", "twice", "this",
                    "is", "useless", "thanks", "it", "works", "talk", "to", "a", "human",
                    "don't", "understand", "error:", "main.py", "refund", "?", "!", ",",
                    "really?", "c++", "the", "order", "sorry",
                ]),
                0..240,
            ),
            second in 0usize..400,
        ) {
            let (table, reference) = real_lists();
            let text = Text::new(&words.join(" "));
            let expected: Vec<Occurrence> = reference
                .find_overlapping_iter(&text.lower)
                .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
                .collect();
            proptest::prop_assert_eq!(&occurrences(table, &text), &expected);
            // With a second text of any length stepped alongside, long rests included.
            let other = Text::new(&words.join(" ").chars().take(second).collect::<String>());
            let mut found = [Vec::new(), Vec::new()];
            each_of_two(table, &text, &other, |k, o| found[k].push(o));
            proptest::prop_assert_eq!(&found[0], &expected);
            proptest::prop_assert_eq!(&found[1], &occurrences(table, &other));
        }
    }

    #[test]
    fn a_long_text_is_searched_in_halves() {
        let (table, reference) = real_lists();
        // Long enough to split (the rule in `rest`), with occurrences on both sides of
        // the middle and one across it.
        let raw = "not helpful at all, i already told you twice. ".repeat(8);
        let text = Text::new(&raw);
        assert!(text.lower.len() >= SPLIT_FROM.max(4 * table.longest));
        let expected: Vec<Occurrence> = reference
            .find_overlapping_iter(&text.lower)
            .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
            .collect();
        assert!(expected.len() > 16, "{}", expected.len());
        assert_eq!(occurrences(table, &text), expected);
    }

    #[test]
    fn two_texts_at_once_find_what_each_finds_alone() {
        let list: Vec<&str> = crate::features::markers::phrases()
            .chain(crate::score::archetype::term_patterns())
            .collect();
        let table = automaton(&list).unwrap();
        let texts = [
            "",
            "ok",
            "Not helpful at all, I already told you that twice.",
            "Could you please connect me to a real person? This is not working!!",
            "thanks, that fixed it",
            "Héllo? ça ne marche pas, error: segfault in main.py",
        ];
        let mut pairs = 0;
        for a in texts {
            for b in texts {
                let (a, b) = (Text::new(a), Text::new(b));
                let mut found = [Vec::new(), Vec::new()];
                each_of_two(&table, &a, &b, |k, o| found[k].push(o));
                assert_eq!(found[0], occurrences(&table, &a), "{}", a.lower);
                assert_eq!(found[1], occurrences(&table, &b), "{}", b.lower);
                pairs += usize::from(!found[0].is_empty() && !found[1].is_empty());
            }
        }
        assert!(pairs >= 9, "{pairs}");
    }
}
