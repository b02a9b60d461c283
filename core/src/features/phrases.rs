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

use super::text::Text;

/// One occurrence: `(start, end, phrase)`, a byte range of [`Text::lower`] and the
/// index of the phrase in the list the automaton was built from.
pub type Occurrence = (usize, usize, usize);

/// The automaton of a list of phrases.
#[derive(Debug, Clone)]
pub struct PhraseAutomaton {
    dfa: DFA,
    start: StateID,
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
    Ok(PhraseAutomaton { dfa, start })
}

/// Calls `each` with every occurrence in `text.lower` of the phrases of `automaton`.
pub fn each(automaton: &PhraseAutomaton, text: &Text, mut each: impl FnMut(Occurrence)) {
    walk(
        &automaton.dfa,
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
    let (mut state_a, mut state_b) = (automaton.start, automaton.start);
    for (k, (&byte_a, &byte_b)) in a[..both].iter().zip(&b[..both]).enumerate() {
        state_a = dfa.next_state(Anchored::No, state_a, byte_a);
        state_b = dfa.next_state(Anchored::No, state_b, byte_b);
        if dfa.is_special(state_a) | dfa.is_special(state_b) {
            report(dfa, state_a, k + 1, &mut |o| each(0, o));
            report(dfa, state_b, k + 1, &mut |o| each(1, o));
        }
    }
    walk(dfa, a, both, state_a, &mut |o| each(0, o));
    walk(dfa, b, both, state_b, &mut |o| each(1, o));
}

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
