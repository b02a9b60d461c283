//! Hashed word n-grams of a text: the sparse input of the learned text and AI-turn models.
//!
//! A text becomes its words (as [`Text`] splits them), normalised: apostrophes dropped
//! ("don't" and "dont" are one word) and any word with a digit read as the number token.
//! Each word is one unigram and each pair of neighbours in the same clause one bigram.
//! A word within three words after a negator ("not", "never", "don't", …) in the same
//! clause is a different unigram from the plain word ("not helpful" is not "helpful").
//! A Chinese or Japanese character (a word of its own: [`Text`]) is in no n-gram and
//! ends the clause: the models learned English, and a hashed feature they never saw
//! would only add the weight of whatever English n-gram shares its bucket.
//!
//! Every n-gram is hashed (XXH3, 64 bits, stable on every platform including wasm32)
//! with a seed that names the text's role, so the same word in a human turn and in an
//! AI turn are different features, and folded into [`BUCKETS`] buckets. All n-grams of
//! a text share the value `1 / sqrt(n)` (n: the text's n-gram count), so a long text
//! does not outweigh a short one by length alone.

use std::sync::LazyLock;

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::features::text::{ShortWords, Text, is_character_word};

/// Bits of the bucket index.
pub const BUCKET_BITS: u32 = 18;
/// Number of hash buckets.
pub const BUCKETS: usize = 1 << BUCKET_BITS;

/// Words after a negator that are read as negated.
const NEGATION_REACH: usize = 3;

/// Words that negate the words after them (apostrophes already dropped), tested in one
/// step: this runs for every word of every turn.
static NEGATORS: LazyLock<ShortWords> = LazyLock::new(|| {
    ShortWords::new(&[
        "not", "no", "never", "dont", "doesnt", "didnt", "isnt", "wasnt", "arent", "werent",
        "cant", "cannot", "wont", "wouldnt", "shouldnt", "couldnt", "havent", "hasnt", "aint",
        "nothing", "without", "nor", "neither", "hardly",
    ])
    .expect("negators are short words")
});

/// Whose text the n-grams come from: each role hashes into its own feature space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A human turn.
    Human,
    /// An AI turn.
    Ai,
}

impl Source {
    /// Position of the source in per-source arrays.
    fn index(self) -> usize {
        match self {
            Source::Human => 0,
            Source::Ai => 1,
        }
    }

    fn seeds(self) -> (u64, u64, u64) {
        // (unigram, negated unigram, bigram): arbitrary distinct seeds per role.
        match self {
            Source::Human => (0x11, 0x12, 0x13),
            Source::Ai => (0x21, 0x22, 0x23),
        }
    }
}

/// Folds a human turn's bucket into the space of "the human turn this AI turn
/// answers", read by the AI-turn model: a fixed permutation of the buckets, so the
/// human turn's n-grams need not be hashed twice.
pub fn as_question(bucket: u32) -> u32 {
    bucket ^ QUESTION_SALT
}

/// Any fixed pattern of `BUCKET_BITS` bits other than 0.
const QUESTION_SALT: u32 = 0x2_d5a3;

/// One hashed n-gram: its bucket and the words it spans (indices into the text's words).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gram {
    /// Bucket in `0..BUCKETS`.
    pub bucket: u32,
    /// First word.
    pub first: u32,
    /// Last word (equal to `first` for a unigram).
    pub last: u32,
}

impl Gram {
    /// The n-gram as written in the lowercased text ("not working").
    pub fn text<'t>(&self, text: &'t Text) -> &'t str {
        let start = text.spans[self.first as usize].0 as usize;
        let end = text.spans[self.last as usize].1 as usize;
        &text.lower[start..end]
    }
}

/// What the n-grams need of one word, worked out from the word alone (so that it can
/// be worked out once per distinct word and kept: `features::words`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WordHashes {
    /// Hash of the normalised word, per source ([`Source::index`]): its unigram, and
    /// the input of the bigrams it is part of.
    unigram: [u64; 2],
    /// Bucket of the word read as negated, per source.
    negated: [u32; 2],
    /// Whether the word negates the words after it.
    negates: bool,
    /// Whether the word is read at all (see the module documentation).
    read: bool,
}

impl WordHashes {
    /// The hashes of `word` (as [`Text`] lowercases it).
    pub fn of(word: &[u8]) -> WordHashes {
        let mut buf = Vec::new();
        let w = normalise(word, &mut buf);
        let hash = |source: Source| {
            let (uni, neg, _) = source.seeds();
            (xxh3_64_with_seed(w, uni), bucket(xxh3_64_with_seed(w, neg)))
        };
        let (human, human_negated) = hash(Source::Human);
        let (ai, ai_negated) = hash(Source::Ai);
        WordHashes {
            unigram: [human, ai],
            negated: [human_negated, ai_negated],
            negates: NEGATORS.contains_word(w),
            read: !is_character_word(word),
        }
    }
}

/// The hashed n-grams of `text`, written into `out` (cleared first); returns the value
/// every n-gram carries (`1 / sqrt(n)`, 0 for a text without n-grams).
pub fn grams(text: &Text, source: Source, out: &mut Vec<Gram>) -> f64 {
    let words: Vec<WordHashes> = text.words().map(|w| WordHashes::of(w.as_bytes())).collect();
    grams_of(text, &words, source, out)
}

/// [`grams`] from the [`WordHashes`] of `text`'s words, in order (one per word).
pub fn grams_of<'w>(
    text: &Text,
    words: impl IntoIterator<Item = &'w WordHashes>,
    source: Source,
    out: &mut Vec<Gram>,
) -> f64 {
    out.clear();
    let n = text.word_count();
    if n == 0 {
        return 0.0;
    }
    // Room for a unigram and a bigram per word: each is written, and the count moves
    // past a bigram only when the word has a neighbour in its clause, so whether it
    // has one (as good as random to the processor) is never a branch.
    out.resize(2 * n, Gram::default());
    let mut kept = 0;
    let (_, _, bi) = source.seeds();
    let side = source.index();
    let lower = text.lower.as_bytes();
    // The previous word's hash, when it is in the same clause.
    let (mut previous, mut has_previous) = (0u64, false);
    let mut negated_left = 0usize;
    let mut prev_end = 0usize;
    for (i, (&(start, end), w)) in text.spans.iter().zip(words).enumerate() {
        let (start, end) = (start as usize, end as usize);
        if (i > 0 && clause_break(&lower[prev_end..start])) || !w.read {
            has_previous = false;
            negated_left = 0;
        }
        prev_end = end;
        let h = w.unigram[side];
        let unigram = if negated_left > 0 {
            negated_left -= 1;
            w.negated[side]
        } else {
            bucket(h)
        };
        let i32_ = i as u32;
        out[kept] = Gram {
            bucket: unigram,
            first: i32_,
            last: i32_,
        };
        kept += usize::from(w.read);
        let mut pair = [0u8; 16];
        pair[..8].copy_from_slice(&previous.to_le_bytes());
        pair[8..].copy_from_slice(&h.to_le_bytes());
        out[kept] = Gram {
            bucket: bucket(xxh3_64_with_seed(&pair, bi)),
            first: i32_.wrapping_sub(1),
            last: i32_,
        };
        kept += usize::from(has_previous);
        (previous, has_previous) = (h, w.read);
        if w.negates {
            negated_left = NEGATION_REACH;
        }
    }
    out.truncate(kept);
    if out.is_empty() {
        return 0.0;
    }
    1.0 / (out.len() as f64).sqrt()
}

fn bucket(h: u64) -> u32 {
    (h >> (64 - BUCKET_BITS)) as u32
}

/// `word` as a feature: apostrophes dropped, any word with a digit as `0`.
fn normalise<'a>(word: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
    if word.iter().any(u8::is_ascii_digit) {
        return b"0";
    }
    if word.contains(&b'\'') {
        buf.clear();
        buf.extend(word.iter().copied().filter(|&b| b != b'\''));
        return buf;
    }
    word
}

/// Whether punctuation that ends a clause is in `gap`, the text between two words.
fn clause_break(gap: &[u8]) -> bool {
    // Most gaps are one space.
    gap != b" "
        && gap
            .iter()
            .any(|b| matches!(b, b'.' | b',' | b';' | b':' | b'!' | b'?' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(s: &str) -> (Text, Vec<Gram>, f64) {
        let t = Text::new(s);
        let mut g = Vec::new();
        let v = grams(&t, Source::Human, &mut g);
        (t, g, v)
    }

    #[test]
    fn chinese_and_japanese_characters_are_in_no_n_gram() {
        let (_, g, v) = of("订单还没到");
        assert!(g.is_empty());
        assert_eq!(v, 0.0);
        // They end the clause: no bigram reaches across them.
        let (t, g, v) = of("still broken 还没 again");
        let texts: Vec<&str> = g.iter().map(|g| g.text(&t)).collect();
        assert_eq!(texts, ["still", "broken", "still broken", "again"]);
        assert_eq!(v, 0.5);
    }

    #[test]
    fn unigrams_and_bigrams_within_a_clause() {
        let (t, g, v) = of("It still fails. Thanks");
        let texts: Vec<&str> = g.iter().map(|x| x.text(&t)).collect();
        assert_eq!(
            texts,
            ["it", "still", "it still", "fails", "still fails", "thanks"]
        );
        assert!((v - 1.0 / 6f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn negation_changes_the_unigram_for_three_words_in_the_clause() {
        let (_, plain, _) = of("helpful");
        let (_, negated, _) = of("not helpful");
        let (_, later, _) = of("not, helpful");
        assert_ne!(negated[1].bucket, plain[0].bucket);
        assert_eq!(later[1].bucket, plain[0].bucket);
        // The fourth word after the negator is plain again.
        let (_, fourth, _) = of("no a b c helpful");
        let unigrams: Vec<u32> = fourth
            .iter()
            .filter(|g| g.first == g.last)
            .map(|g| g.bucket)
            .collect();
        assert_eq!(unigrams[4], plain[0].bucket);
    }

    #[test]
    fn apostrophes_and_digits_are_normalised() {
        let (_, a, _) = of("don't");
        let (_, b, _) = of("dont");
        assert_eq!(a, b);
        let (_, c, _) = of("order 8812");
        let (_, d, _) = of("order 77");
        assert_eq!(c, d);
        // Long words, and words whose UTF-8 bytes fall in the digits' range once the
        // top bit is set ("ű" is C5 B1), are read byte by byte.
        let (_, number, _) = of("5");
        for word in [
            "tű",
            "ű",
            "internationalisation",
            "x1y2z3w4v5u6",
            "rock'n'roll'n'more",
        ] {
            let (_, g, _) = of(word);
            assert_eq!(g.len(), 1, "{word}");
            let expect_number = word.bytes().any(|b| b.is_ascii_digit());
            assert_eq!(g[0].bucket == number[0].bucket, expect_number, "{word}");
        }
        let (_, e, _) = of("rock'n'roll'n'more");
        let (_, f, _) = of("rocknrollnmore");
        assert_eq!(e, f);
    }

    #[test]
    fn sources_hash_apart_and_buckets_are_in_range() {
        let t = Text::new("refund please");
        let (mut h, mut a) = (Vec::new(), Vec::new());
        grams(&t, Source::Human, &mut h);
        grams(&t, Source::Ai, &mut a);
        assert_ne!(h[0].bucket, a[0].bucket);
        assert!(h.iter().chain(&a).all(|g| (g.bucket as usize) < BUCKETS));
    }

    #[test]
    fn hashes_are_fixed_across_platforms() {
        // XXH3 is specified bit for bit; these buckets must never change without a
        // retrained model (scripts/train-scorer).
        let (_, g, _) = of("useless");
        assert_eq!(g[0].bucket, bucket(xxh3_64_with_seed(b"useless", 0x11)));
    }

    #[test]
    fn empty_text_has_no_grams() {
        let (_, g, v) = of("  ?! ");
        assert!(g.is_empty());
        assert_eq!(v, 0.0);
    }
}
