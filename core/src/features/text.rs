//! One pass over a turn's text: lowercase copy, word spans, shouting and punctuation counts.
//!
//! Every other signal reads this instead of re-scanning the text, which keeps scoring
//! at a few microseconds per turn.

use std::hash::{Hash, Hasher};

use rustc_hash::FxHasher;

/// A turn's text prepared for the signal functions.
#[derive(Debug, Clone, Default)]
pub struct Text {
    /// The text lowercased, with typographic apostrophes (’ ‘) turned into `'`.
    pub lower: String,
    /// Byte ranges of the words in `lower`: runs of letters, digits and inner apostrophes.
    pub spans: Vec<(u32, u32)>,
    /// For each word, whether it was written in capitals (two or more letters, none lower).
    pub shouted: Vec<bool>,
    /// Number of `!` characters.
    pub exclamations: u32,
    /// Number of `?` characters.
    pub questions: u32,
    /// Whether the text, ignoring trailing spaces and emoji, ends with `?`.
    pub ends_with_question: bool,
    /// Characters in the original text.
    pub chars: u32,
}

impl Text {
    /// Prepares `raw` for the signal functions.
    pub fn new(raw: &str) -> Text {
        let mut t = Text::default();
        t.fill(raw);
        t
    }

    /// Prepares `raw` in place, reusing this value's buffers.
    pub fn fill(&mut self, raw: &str) {
        self.lower.clear();
        self.spans.clear();
        self.shouted.clear();
        self.lower.reserve(raw.len());
        self.spans.reserve(raw.len() / 5 + 1);
        self.shouted.reserve(raw.len() / 5 + 1);
        self.exclamations = 0;
        self.questions = 0;
        self.chars = 0;
        if raw.is_ascii() {
            self.fill_ascii(raw.as_bytes());
        } else {
            self.fill_unicode(raw);
        }
        self.ends_with_question = raw
            .trim_end_matches(|c: char| c.is_whitespace() || !c.is_ascii() && !c.is_alphanumeric())
            .ends_with('?');
    }

    /// The common case: same rules as [`Text::fill_unicode`] on ASCII, in one pass over
    /// the bytes with a table of their classes (the lowercase copy is made apart, over
    /// the whole text at once).
    fn fill_ascii(&mut self, raw: &[u8]) {
        let mut lower = std::mem::take(&mut self.lower).into_bytes();
        lower.extend_from_slice(raw);
        lower.make_ascii_lowercase();
        // Only ASCII bytes were copied.
        self.lower = String::from_utf8(lower).unwrap_or_default();
        self.chars = raw.len() as u32;
        let (mut exclamations, mut questions) = (0u32, 0u32);
        // The word being read: its start, letters and capitals.
        let mut word: Option<(usize, u32, u32)> = None;
        for (i, &b) in raw.iter().enumerate() {
            let class = ASCII_CLASS[usize::from(b)];
            if class & WORD != 0 {
                let (_, letters, uppers) = word.get_or_insert((i, 0, 0));
                *letters += u32::from(class & LETTER != 0);
                *uppers += u32::from(class & UPPER != 0);
                continue;
            }
            exclamations += u32::from(b == b'!');
            questions += u32::from(b == b'?');
            if let Some((start, letters, uppers)) = word {
                // An apostrophe is part of a word only between two word characters.
                let inner = b == b'\''
                    && raw
                        .get(i + 1)
                        .is_some_and(|&n| ASCII_CLASS[usize::from(n)] & WORD != 0);
                if !inner {
                    self.push_span(start, i, letters, uppers);
                    word = None;
                }
            }
        }
        if let Some((start, letters, uppers)) = word {
            self.push_span(start, raw.len(), letters, uppers);
        }
        self.exclamations = exclamations;
        self.questions = questions;
    }

    fn fill_unicode(&mut self, raw: &str) {
        let mut word_start: Option<usize> = None;
        let mut letters = 0u32;
        let mut uppers = 0u32;
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            self.chars += 1;
            let c = if c == '\u{2019}' || c == '\u{2018}' {
                '\''
            } else {
                c
            };
            match c {
                '!' => self.exclamations += 1,
                '?' => self.questions += 1,
                _ => {}
            }
            // An apostrophe is part of a word only between two word characters ("don't").
            let inner_apostrophe = c == '\''
                && word_start.is_some()
                && chars.peek().is_some_and(|n| n.is_alphanumeric());
            if c.is_alphanumeric() || inner_apostrophe {
                if word_start.is_none() {
                    word_start = Some(self.lower.len());
                    letters = 0;
                    uppers = 0;
                }
                if c.is_alphabetic() {
                    letters += 1;
                    if c.is_uppercase() {
                        uppers += 1;
                    }
                }
            } else if let Some(start) = word_start.take() {
                self.push_span(start, self.lower.len(), letters, uppers);
            }
            if c.is_uppercase() {
                self.lower.extend(c.to_lowercase());
            } else {
                self.lower.push(c);
            }
        }
        if let Some(start) = word_start {
            self.push_span(start, self.lower.len(), letters, uppers);
        }
    }

    fn push_span(&mut self, start: usize, end: usize, letters: u32, uppers: u32) {
        // Offsets fit in u32: content is at most 32 KiB by contract, and longer CLI
        // input is still far below 4 GiB per turn.
        self.spans.push((start as u32, end as u32));
        self.shouted.push(letters >= 2 && uppers == letters);
    }

    /// The `i`-th word, lowercased.
    pub fn word(&self, i: usize) -> &str {
        let (s, e) = self.spans[i];
        &self.lower[s as usize..e as usize]
    }

    /// The words, lowercased, in order.
    pub fn words(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|&(s, e)| &self.lower[s as usize..e as usize])
    }

    /// Number of words.
    pub fn word_count(&self) -> usize {
        self.spans.len()
    }

    /// Share of words (of at least two letters) written in capitals, when there are at
    /// least three words; shorter texts ("OK", "NO") are not shouting.
    pub fn shouting_share(&self) -> f64 {
        if self.spans.len() < 3 {
            return 0.0;
        }
        let shouted = self.shouted.iter().filter(|&&s| s).count();
        shouted as f64 / self.spans.len() as f64
    }

    /// Whether the byte range `start..end` of `lower` starts and ends on word boundaries.
    pub fn on_word_boundaries(&self, start: usize, end: usize) -> bool {
        let before = self.lower[..start].chars().next_back();
        let after = self.lower[end..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    }
}

/// [`ASCII_CLASS`] bit: a letter or digit.
const WORD: u8 = 1;
/// [`ASCII_CLASS`] bit: a letter.
const LETTER: u8 = 2;
/// [`ASCII_CLASS`] bit: a capital letter.
const UPPER: u8 = 4;

/// The class bits of each byte (0 outside ASCII, which this table is not used for).
static ASCII_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() {
            t[b] |= WORD;
        }
        if c.is_ascii_alphabetic() {
            t[b] |= LETTER;
        }
        if c.is_ascii_uppercase() {
            t[b] |= UPPER;
        }
        b += 1;
    }
    t
};

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// A fast, deterministic hash of a word, for set comparisons between turns.
pub fn word_hash(word: &str) -> u64 {
    let mut h = FxHasher::default();
    word.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lowercased_with_inner_apostrophes() {
        let t = Text::new("I DON’T want THIS, 'ok'?");
        let words: Vec<&str> = t.words().collect();
        assert_eq!(words, ["i", "don't", "want", "this", "ok"]);
        assert_eq!(t.shouted, [false, true, false, true, false]);
        assert_eq!(t.questions, 1);
        assert!(t.ends_with_question);
        assert_eq!(t.lower, "i don't want this, 'ok'?");
    }

    #[test]
    fn shouting_needs_three_words() {
        assert_eq!(Text::new("NO").shouting_share(), 0.0);
        assert_eq!(Text::new("WHY IS THIS BROKEN").shouting_share(), 1.0);
        assert_eq!(Text::new("why is THIS broken").shouting_share(), 0.25);
    }

    #[test]
    fn question_at_end_ignores_trailing_emoji() {
        assert!(Text::new("really? 🙄 ").ends_with_question);
        assert!(!Text::new("why? fine.").ends_with_question);
    }

    #[test]
    fn word_boundaries() {
        let t = Text::new("unhelpful help");
        assert!(!t.on_word_boundaries(2, 6));
        assert!(t.on_word_boundaries(10, 14));
    }

    fn unicode_path(raw: &str) -> Text {
        let mut t = Text::default();
        t.fill_unicode(raw);
        t.ends_with_question = Text::new(raw).ends_with_question;
        t
    }

    proptest::proptest! {
        #[test]
        fn ascii_fast_path_agrees_with_the_unicode_path(raw in "[ -~\\t\\n]{0,80}") {
            let fast = Text::new(&raw);
            let slow = unicode_path(&raw);
            proptest::prop_assert_eq!(&fast.lower, &slow.lower);
            proptest::prop_assert_eq!(&fast.spans, &slow.spans);
            proptest::prop_assert_eq!(&fast.shouted, &slow.shouted);
            proptest::prop_assert_eq!(
                (fast.exclamations, fast.questions, fast.chars),
                (slow.exclamations, slow.questions, slow.chars)
            );
        }
    }

    #[test]
    fn refilling_reuses_buffers_without_leftovers() {
        let mut t = Text::new("A LONG first TEXT with many words!!");
        t.fill("ok?");
        assert_eq!(t.lower, "ok?");
        assert_eq!(t.word_count(), 1);
        assert_eq!((t.exclamations, t.questions, t.chars), (0, 1, 3));
        assert!(t.ends_with_question);
    }

    #[test]
    fn non_ascii_case_folding_keeps_spans_aligned() {
        let t = Text::new("İSTANBUL ÇOK güzel");
        assert_eq!(t.word_count(), 3);
        assert_eq!(t.word(2), "güzel");
    }
}
