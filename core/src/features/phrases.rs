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
    let dfa = &automaton.dfa;
    let bytes = text.lower.as_bytes();
    let mut state = automaton.start;
    let mut at = 0;
    loop {
        // The tight loop: one transition per byte until a special state (the start
        // state, or one where phrases end; an unanchored search never dies).
        while at < bytes.len() {
            state = dfa.next_state(Anchored::No, state, bytes[at]);
            at += 1;
            if dfa.is_special(state) {
                break;
            }
        }
        if !dfa.is_special(state) {
            return;
        }
        if dfa.is_match(state) {
            for k in 0..dfa.match_len(state) {
                let phrase = dfa.match_pattern(state, k);
                each((at - dfa.pattern_len(phrase), at, phrase.as_usize()));
            }
        }
        if at >= bytes.len() {
            return;
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
}
