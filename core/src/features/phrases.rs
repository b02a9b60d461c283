//! Phrase lists found in a turn's lowercased text: one Aho–Corasick automaton (a
//! table-driven DFA), every occurrence of every phrase reported, overlapping ones
//! included, in the order of the search: by end, the longer first at the same end.
//! Each reader decides which occurrences count (whole words, negation, the longest).

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::text::Text;

/// One occurrence: `(start, end, phrase)`, a byte range of [`Text::lower`] and the
/// index of the phrase in the list the automaton was built from.
pub type Occurrence = (usize, usize, usize);

/// The automaton of a list of phrases; the error says why it could not be built.
pub fn automaton<I, P>(phrases: I) -> Result<AhoCorasick, String>
where
    I: IntoIterator<Item = P>,
    P: AsRef<[u8]>,
{
    AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(phrases)
        .map_err(|e| format!("automaton: {e}"))
}

/// Every occurrence in `text.lower` of the phrases of `automaton`.
pub fn occurrences<'a>(
    automaton: &'a AhoCorasick,
    text: &'a Text,
) -> impl Iterator<Item = Occurrence> + 'a {
    automaton
        .find_overlapping_iter(&text.lower)
        .map(|m| (m.start(), m.end(), m.pattern().as_usize()))
}
