//! Which language a turn is written in, as far as scoring needs to know: whether the
//! text model, the lexicons and the phrase lists, all English (the phrase lists also
//! with some Chinese and Japanese), can read it.
//!
//! Two checks, both of one turn's text alone, and both only reported (the summary says
//! how many human turns each caught); neither changes a score:
//!
//! - [`mostly_outside_latin`]: most letters are outside the Latin alphabet (Chinese,
//!   Arabic, Cyrillic …);
//! - [`reads_as_other_language`]: written in the Latin alphabet, but more of its words
//!   are common function words of Spanish, Portuguese, French, Italian, German, Dutch,
//!   Swedish, Indonesian, Polish or Turkish (`lexicons/function_words.tsv`) than
//!   English ones (`lexicons/stopwords.txt`).

use std::sync::LazyLock;

use rustc_hash::FxHashSet;

use super::similarity::is_stop_word;

const FUNCTION_WORDS_TSV: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/function_words.tsv"));

/// The function words of the other languages, all lines together.
static OTHER_FUNCTION_WORDS: LazyLock<FxHashSet<&'static str>> = LazyLock::new(|| {
    FUNCTION_WORDS_TSV
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .flat_map(|(_, words)| words.split_whitespace())
        .collect()
});

/// How many scored human turns each check caught (a turn mostly outside the Latin
/// alphabet is counted there only).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LanguageCounts {
    /// Turns written mostly outside the Latin alphabet ([`mostly_outside_latin`]).
    pub outside_latin: usize,
    /// Turns in the Latin alphabet read as another language
    /// ([`reads_as_other_language`]).
    pub other_language: usize,
}

impl std::ops::AddAssign for LanguageCounts {
    fn add_assign(&mut self, other: LanguageCounts) {
        self.outside_latin += other.outside_latin;
        self.other_language += other.other_language;
    }
}

/// Whether a word is a function word, and of which language.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FunctionWord {
    /// A content word, or a word of no listed language.
    #[default]
    Neither,
    /// An English function word (`lexicons/stopwords.txt`).
    English,
    /// A function word of one of the other languages (`lexicons/function_words.tsv`).
    Other,
}

impl FunctionWord {
    /// What `word` (as [`super::text::Text`] lowercases it) is.
    pub fn of(word: &str) -> FunctionWord {
        if is_stop_word(word.as_bytes()) {
            FunctionWord::English
        } else if OTHER_FUNCTION_WORDS.contains(word) {
            FunctionWord::Other
        } else {
            FunctionWord::Neither
        }
    }
}

/// Whether a turn of `words` words, `english` of them English function words and
/// `other` function words of the other languages, reads as written in one of those
/// languages: at least `min_words` words, at least `min_other` such function words, and
/// more of them than English ones. (On English text this is rare: `docs/scoring.md`
/// gives the share of GoEmotions, CLINC150, HWU64 and DBDC3 texts it catches.)
pub fn reads_as_other_language(
    words: usize,
    english: usize,
    other: usize,
    min_words: f64,
    min_other: f64,
) -> bool {
    words as f64 >= min_words && other as f64 >= min_other && other > english
}

/// Whether most letters of `raw` are outside the Latin alphabet (Chinese, Arabic,
/// Cyrillic, …): text that the text model, the lexicons and the phrase lists, all
/// English, cannot read. A text with no letter is not.
pub fn mostly_outside_latin(raw: &str) -> bool {
    if raw.is_ascii() {
        return false;
    }
    let (mut letters, mut latin) = (0usize, 0usize);
    for c in raw.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        // Basic Latin to Latin Extended-B, and Latin Extended Additional (ạ, ẞ).
        latin += usize::from(c <= '\u{024F}' || ('\u{1E00}'..='\u{1EFF}').contains(&c));
    }
    2 * latin < letters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_word_is_a_function_word_of_english_and_of_another_language() {
        // Such a word counts as English (`FunctionWord::of` asks the stop words
        // first); the file must not pretend otherwise.
        let mut lines = 0;
        for line in FUNCTION_WORDS_TSV.lines().filter(|l| !l.is_empty()) {
            let (lang, words) = line.split_once('\t').expect("language, tab, words");
            assert_eq!(lang.len(), 2, "{line}");
            for w in words.split_whitespace() {
                assert!(
                    !is_stop_word(w.as_bytes()),
                    "{lang}: {w} is an English stop word"
                );
                assert_eq!(w, w.to_lowercase(), "{lang}: {w} is not lowercase");
                assert!(w.chars().all(char::is_alphabetic), "{lang}: {w}");
            }
            lines += 1;
        }
        assert_eq!(lines, 10);
    }

    #[test]
    fn function_words_are_told_apart() {
        assert_eq!(FunctionWord::of("the"), FunctionWord::English);
        assert_eq!(FunctionWord::of("no"), FunctionWord::English);
        assert_eq!(FunctionWord::of("que"), FunctionWord::Other);
        assert_eq!(FunctionWord::of("für"), FunctionWord::Other);
        assert_eq!(FunctionWord::of("dziękuję"), FunctionWord::Other);
        assert_eq!(FunctionWord::of("refund"), FunctionWord::Neither);
        assert_eq!(FunctionWord::of(""), FunctionWord::Neither);
    }

    #[test]
    fn the_rule_wants_enough_words_and_more_other_function_words() {
        assert!(reads_as_other_language(8, 1, 3, 4.0, 2.0));
        assert!(!reads_as_other_language(3, 0, 3, 4.0, 2.0));
        assert!(!reads_as_other_language(8, 0, 1, 4.0, 2.0));
        assert!(!reads_as_other_language(8, 3, 3, 4.0, 2.0));
    }

    #[test]
    fn texts_mostly_outside_latin_are_told_apart() {
        for other in [
            "订单在哪里？",
            "أين طلبي؟",
            "Где мой заказ?",
            "ok 订单在哪里",
        ] {
            assert!(mostly_outside_latin(other), "{other}");
        }
        for latin in [
            "Where is my order?",
            "¿Dónde está mi pedido?",
            "Straße ẞ",
            "🙄 ok",
            "?!",
            "",
            "ok ok 订",
        ] {
            assert!(!mostly_outside_latin(latin), "{latin}");
        }
    }
}
