//! Lexical similarity between two turns, for repetition and rephrasing signals.
//!
//! A turn becomes a set of content-word stems (function words from
//! `lexicons/stopwords.txt` dropped, simple English suffixes stripped), hashed.
//! Rephrasing usually keeps the content words ("refund", "order", "charged"), so the
//! share of shared stems catches most repeats without a language model.

use std::sync::LazyLock;

use rustc_hash::FxHashSet;

use super::text::{Text, word_hash};

const STOPWORDS_TXT: &str = include_str!("../../lexicons/stopwords.txt");

static STOPWORDS: LazyLock<FxHashSet<&'static str>> = LazyLock::new(|| {
    STOPWORDS_TXT
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect()
});

/// The content-word stems of a turn, hashed, sorted and without duplicates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bag(Vec<u64>);

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
        let v = &mut self.0;
        v.clear();
        for w in text.words() {
            // Single letters ("a", "i") carry nothing; single digits ("2 tickets") do.
            if w.len() == 1 && w.as_bytes()[0].is_ascii_alphabetic() || stop.contains(w) {
                continue;
            }
            v.push(word_hash(stem(w)));
        }
        v.sort_unstable();
        v.dedup();
    }

    /// Number of distinct stems.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the turn has no content words.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of stems the two bags share.
    pub fn shared(&self, other: &Bag) -> usize {
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < self.0.len() && j < other.0.len() {
            match self.0[i].cmp(&other.0[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    n += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        n
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
fn stem(w: &str) -> &str {
    let w = w.strip_suffix("'s").unwrap_or(w);
    for suffix in ["ing", "ed", "es", "s", "ly"] {
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

    #[test]
    fn rephrased_request_is_similar() {
        let a = bag("I was charged twice for my order, I want a refund");
        let b = bag("Again: my order was charged twice. Refund please!");
        assert!(a.dice(&b) >= 0.6, "{}", a.dice(&b));
        let c = bag("How do I reset the password on the app?");
        assert!(a.dice(&c) < 0.1, "{}", a.dice(&c));
    }

    #[test]
    fn function_words_do_not_count() {
        assert!(bag("what is this and why is it there").is_empty());
        assert_eq!(bag("").dice(&bag("")), 0.0);
    }

    #[test]
    fn stems_meet() {
        assert_eq!(bag("refunds").dice(&bag("refunded")), 1.0);
        assert_eq!(stem("is"), "is");
        assert_eq!(stem("crashing"), "crash");
    }

    #[test]
    fn numbers_are_content() {
        let q = bag("Is it 7 or 8?");
        let a = bag("It is 7.");
        assert_eq!(q.covered_by(&a), 0.5);
        assert!(bag("2").len() == 1 && bag("a").is_empty());
    }

    #[test]
    fn covered_by_is_asymmetric() {
        let short = bag("refund order");
        let long = bag("refund order delivery address invoice");
        assert_eq!(short.covered_by(&long), 1.0);
        assert_eq!(long.covered_by(&short), 0.4);
    }
}
