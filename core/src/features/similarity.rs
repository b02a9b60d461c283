//! Lexical similarity between two turns, for repetition and rephrasing signals.
//!
//! A turn becomes a set of content-word stems (function words from
//! `lexicons/stopwords.txt` dropped, simple English suffixes stripped), hashed.
//! Rephrasing usually keeps the content words ("refund", "order", "charged"), so the
//! share of shared stems catches most repeats without a language model.

use std::sync::LazyLock;

use rustc_hash::FxHashSet;
use xxhash_rust::xxh3::xxh3_64;

use super::text::{Text, packed, packed_in};

const STOPWORDS_TXT: &str = include_str!("../../lexicons/stopwords.txt");

/// The stop words, each packed into one integer ([`packed`]): every one is at most
/// eight bytes long (checked in a test), so a longer word is never one.
static STOPWORDS: LazyLock<FxHashSet<u64>> = LazyLock::new(|| {
    STOPWORDS_TXT
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(str::split_whitespace)
        .filter_map(|w| packed(w.as_bytes()))
        .collect()
});

/// The hash of the stem `text[start..end]`: the packed stem, mixed (an invertible mix,
/// so short stems never collide), or a 64-bit hash of a longer one.
fn stem_hash(text: &[u8], start: usize, end: usize) -> u64 {
    match packed_in(text, start, end) {
        Some(x) => {
            let x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^ (x >> 31)
        }
        None => xxh3_64(&text[start..end]),
    }
}

/// The content-word stems of a turn, hashed, sorted and without duplicates, with a
/// 64-bit signature (one bit per stem) that bounds what two bags can share before
/// their stems are compared.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bag {
    stems: Vec<u64>,
    signature: u64,
}

/// The signature bit of a stem's hash (its top six bits choose it).
fn bit(stem: u64) -> u64 {
    1 << (stem >> 58)
}

impl Bag {
    /// Content-word stems of `text`.
    pub fn of(text: &Text) -> Bag {
        let mut bag = Bag::default();
        bag.fill(text);
        bag
    }

    /// Makes this bag the content-word stems of `text`, reusing its buffer.
    pub fn fill(&mut self, text: &Text) {
        let stop = &*STOPWORDS;
        let lower = text.lower.as_bytes();
        let v = &mut self.stems;
        v.clear();
        for &(s, e) in &text.spans {
            let (s, e) = (s as usize, e as usize);
            let w = &lower[s..e];
            // Single letters ("a", "i") carry nothing; single digits ("2 tickets") do.
            if w.len() == 1 && w[0].is_ascii_alphabetic()
                || packed_in(lower, s, e).is_some_and(|x| stop.contains(&x))
            {
                continue;
            }
            // The stem is a prefix of the word, so of the text.
            v.push(stem_hash(lower, s, s + stem(w).len()));
        }
        v.sort_unstable();
        v.dedup();
        self.signature = v.iter().fold(0, |sig, &h| sig | bit(h));
    }

    /// Number of distinct stems.
    pub fn len(&self) -> usize {
        self.stems.len()
    }

    /// Whether the turn has no content words.
    pub fn is_empty(&self) -> bool {
        self.stems.is_empty()
    }

    /// Number of stems the two bags share.
    pub fn shared(&self, other: &Bag) -> usize {
        let (a, b) = (self.stems.as_slice(), other.stems.as_slice());
        let (mut i, mut j, mut n) = (0, 0, 0);
        // A merge without branches on the values: which side advances is data, not a
        // jump, so unrelated turns do not cost a mispredicted branch per stem.
        while i < a.len() && j < b.len() {
            let (x, y) = (a[i], b[j]);
            n += usize::from(x == y);
            i += usize::from(x <= y);
            j += usize::from(y <= x);
        }
        n
    }

    /// The highest Dice coefficient this bag could reach with `other`: every stem of
    /// this bag whose bit is in the other's signature counted as shared (a shared stem
    /// always is), without comparing the stems.
    pub fn dice_bound(&self, other: &Bag) -> f64 {
        let total = self.len() + other.len();
        if total == 0 {
            return 0.0;
        }
        let possible = self
            .stems
            .iter()
            .filter(|&&h| other.signature & bit(h) != 0)
            .count();
        2.0 * possible as f64 / total as f64
    }

    /// Dice coefficient: 2·shared / (|a| + |b|), in [0, 1]; 0 when both are empty.
    pub fn dice(&self, other: &Bag) -> f64 {
        let total = self.len() + other.len();
        if total == 0 {
            return 0.0;
        }
        2.0 * self.shared(other) as f64 / total as f64
    }

    /// Share of this bag's stems that also occur in `other`, in [0, 1]; 0 when empty.
    pub fn covered_by(&self, other: &Bag) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        self.shared(other) as f64 / self.len() as f64
    }
}

/// Strips a few English suffixes so "refunds", "refunded" and "refunding" meet.
fn stem(w: &[u8]) -> &[u8] {
    let w = w.strip_suffix(b"'s").unwrap_or(w);
    for suffix in [&b"ing"[..], b"ed", b"es", b"s", b"ly"] {
        if let Some(s) = w.strip_suffix(suffix)
            && s.len() >= 4
        {
            return s;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bag(s: &str) -> Bag {
        Bag::of(&Text::new(s))
    }

    /// A bag of the given stem hashes.
    fn of(mut stems: Vec<u64>) -> Bag {
        stems.sort_unstable();
        stems.dedup();
        let signature = stems.iter().fold(0, |sig, &h| sig | bit(h));
        Bag { stems, signature }
    }

    #[test]
    fn rephrased_request_is_similar() {
        let a = bag("I was charged twice for my order, I want a refund");
        let b = bag("Again: my order was charged twice. Refund please!");
        assert!(a.dice(&b) >= 0.6, "{}", a.dice(&b));
        let c = bag("How do I reset the password on the app?");
        assert!(a.dice(&c) < 0.1, "{}", a.dice(&c));
    }

    #[test]
    fn every_stop_word_packs_and_stems_hash_apart() {
        let words: Vec<&str> = STOPWORDS_TXT
            .lines()
            .filter(|l| !l.starts_with('#'))
            .flat_map(str::split_whitespace)
            .collect();
        assert!(
            words.iter().all(|w| w.len() <= 8),
            "a stop word is longer than 8 bytes"
        );
        assert!(
            words
                .iter()
                .all(|w| packed(w.as_bytes()).is_some_and(|x| STOPWORDS.contains(&x)))
        );
        assert_eq!(packed(b"yourself!"), None);
        let t = b"refunds internationalisation";
        assert_ne!(stem_hash(t, 0, 6), stem_hash(t, 0, 7));
        assert_ne!(stem_hash(t, 8, 28), stem_hash(t, 8, 27));
        assert_eq!(stem_hash(t, 0, 6), stem_hash(b"refund", 0, 6));
    }

    #[test]
    fn function_words_do_not_count() {
        assert!(bag("what is this and why is it there").is_empty());
        assert_eq!(bag("").dice(&bag("")), 0.0);
    }

    #[test]
    fn stems_meet() {
        assert_eq!(bag("refunds").dice(&bag("refunded")), 1.0);
        assert_eq!(stem(b"is"), b"is");
        assert_eq!(stem(b"crashing"), b"crash");
    }

    #[test]
    fn numbers_are_content() {
        let q = bag("Is it 7 or 8?");
        let a = bag("It is 7.");
        assert_eq!(q.covered_by(&a), 0.5);
        assert!(bag("2").len() == 1 && bag("a").is_empty());
    }

    #[test]
    fn shared_counts_common_stems_and_the_bound_holds() {
        let a = of(vec![1, 3, 5, 7, 9]);
        let b = of(vec![2, 3, 4, 9, 10, 11]);
        assert_eq!(a.shared(&b), 2);
        assert_eq!(b.shared(&a), 2);
        assert_eq!(a.shared(&Bag::default()), 0);
        assert!((a.dice(&b) - 4.0 / 11.0).abs() < 1e-12);
        // The small numbers all have signature bit 0: nothing rules a stem out.
        assert!((a.dice_bound(&b) - 10.0 / 11.0).abs() < 1e-12);
        let c = of(vec![1 << 60, 3 << 60]);
        let d = of(vec![2 << 60, 5 << 60]);
        assert_eq!(c.dice_bound(&d), 0.0);
        assert_eq!(Bag::default().dice_bound(&Bag::default()), 0.0);
    }

    proptest::proptest! {
        #[test]
        fn dice_never_exceeds_its_bound(
            x in proptest::collection::vec(0u64..40, 0..20),
            y in proptest::collection::vec(0u64..40, 0..20),
        ) {
            // Small numbers spread over all 64 bits, so the signature bits differ.
            let spread = |v: Vec<u64>| of(v.into_iter().map(|h| h.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect());
            let (a, b) = (spread(x), spread(y));
            let naive = a.stems.iter().filter(|v| b.stems.contains(v)).count();
            proptest::prop_assert_eq!(a.shared(&b), naive);
            proptest::prop_assert!(a.dice(&b) <= a.dice_bound(&b) + 1e-12);
        }
    }

    #[test]
    fn covered_by_is_asymmetric() {
        let short = bag("refund order");
        let long = bag("refund order delivery address invoice");
        assert_eq!(short.covered_by(&long), 1.0);
        assert_eq!(long.covered_by(&short), 0.4);
    }
}
