//! What the readers of a turn need of each of its words, worked out once per distinct
//! word and kept.
//!
//! Similarity bags want a word's stem ([`similarity::stem`]), the n-grams its hashes
//! ([`WordHashes`]), lexicon affect its entry in the lexicons ([`Lookup`]). All are
//! functions of the word alone, and the words of a conversation repeat (in English
//! text, a few thousand distinct words make up most of what people write), so each
//! thread keeps them in a table keyed by the word: one lookup per word replaces a
//! stop-word test, a stemmer, three hashes and a lexicon lookup. The table only caches,
//! so what a reader gets never depends on what was read before; it is emptied when it
//! reaches [`MEMO_WORDS`] words, which bounds its memory.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use super::affect::Lookup;
use super::grams::WordHashes;
use super::language::FunctionWord;
use super::similarity;
use super::text::{Text, packed_in};

/// Distinct words a thread keeps before it empties its table. The facts of a word take
/// 56 bytes, in a table at most half full: at the limit a thread holds about 9 MB
/// (enough for the vocabulary of most deployments; a table that fills up with one-off
/// words, such as order numbers, empties and refills).
pub const MEMO_WORDS: usize = 1 << 16;

/// What the readers need of one word.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts {
    /// [`similarity::stem`] of the word (0 for a function word).
    pub stem: u64,
    /// Whether it is a content word (`similarity::stem` is not `None`).
    pub content: bool,
    /// [`WordHashes`] of the word.
    pub hashes: WordHashes,
    /// The word's entry in the affect lexicons.
    pub lexicon: Lookup,
    /// Whether it is a function word of English or of another language.
    pub function: FunctionWord,
}

impl Facts {
    fn of(word: &str) -> Facts {
        let stem = similarity::stem(word.as_bytes());
        Facts {
            stem: stem.unwrap_or(0),
            content: stem.is_some(),
            hashes: WordHashes::of(word.as_bytes()),
            lexicon: Lookup::of(word),
            function: FunctionWord::of(word),
        }
    }
}

/// The per-thread table of words already seen.
#[derive(Default)]
struct Memo {
    /// Words of one to eight bytes, keyed by their packed bytes.
    short: ShortTable,
    /// Longer words.
    long: FxHashMap<Box<str>, Facts>,
}

impl Memo {
    /// The facts of the word `lower[start..end]`.
    #[inline]
    fn get(&mut self, lower: &str, start: usize, end: usize) -> &Facts {
        match packed_in(lower.as_bytes(), start, end) {
            // The common case, kept inline: a short word seen before.
            Some(key) => match self.short.find(key) {
                Some(i) => &self.short.facts[i],
                None => self.add_short(key, &lower[start..end]),
            },
            None => self.get_long(&lower[start..end]),
        }
    }

    #[cold]
    fn add_short(&mut self, key: u64, word: &str) -> &Facts {
        let f = Facts::of(word);
        self.make_room();
        let i = self.short.insert(key, f);
        &self.short.facts[i]
    }

    fn get_long(&mut self, word: &str) -> &Facts {
        if !self.long.contains_key(word) {
            let f = Facts::of(word);
            self.make_room();
            self.long.insert(word.into(), f);
        }
        &self.long[word]
    }

    /// Empties the table when it holds [`MEMO_WORDS`] words.
    fn make_room(&mut self) {
        if self.short.len + self.long.len() >= MEMO_WORDS {
            self.short = ShortTable::default();
            self.long.clear();
        }
    }
}

/// Words of one to eight bytes by their packed bytes (never 0), in open addressing
/// with linear probing: the common case, a word seen before, is one multiplication
/// and, most of the time, one comparison. (A general hash map spends several times
/// that per lookup, and this runs for every word of every turn.)
#[derive(Default)]
struct ShortTable {
    /// Packed words; 0 marks an empty slot. The length is a power of two (or 0).
    keys: Vec<u64>,
    facts: Vec<Facts>,
    len: usize,
}

/// Slots of a [`ShortTable`]'s first allocation.
const FIRST_SLOTS: usize = 1 << 10;

impl ShortTable {
    /// The slot where the search for `key` starts.
    fn home(&self, key: u64) -> usize {
        // The top bits of a Fibonacci hash; `keys.len()` is a power of two ≥ 2.
        let bits = self.keys.len().trailing_zeros();
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
    }

    /// The slot of `key`, if it is in the table.
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        if self.keys.is_empty() {
            return None;
        }
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.keys[i] {
                k if k == key => return Some(i),
                0 => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `key`, which is not in the table; returns its slot.
    fn insert(&mut self, key: u64, facts: Facts) -> usize {
        // At most half full, so every search meets an empty slot.
        if 2 * (self.len + 1) > self.keys.len() {
            let slots = (2 * self.keys.len()).max(FIRST_SLOTS);
            let old = std::mem::replace(
                self,
                ShortTable {
                    keys: vec![0; slots],
                    facts: vec![Facts::default(); slots],
                    len: 0,
                },
            );
            for (k, f) in old.keys.into_iter().zip(old.facts) {
                if k != 0 {
                    self.place(k, f);
                }
            }
        }
        self.place(key, facts)
    }

    fn place(&mut self, key: u64, facts: Facts) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        while self.keys[i] != 0 {
            i = (i + 1) & mask;
        }
        self.keys[i] = key;
        self.facts[i] = facts;
        self.len += 1;
        i
    }
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The facts of each word of one text, in order.
#[derive(Debug, Clone, Default)]
pub struct Words {
    /// One per word of the text.
    pub facts: Vec<Facts>,
}

impl Words {
    /// The facts of `text`'s words, reusing this value's buffer.
    pub fn fill(&mut self, text: &Text) {
        self.facts.clear();
        let lower = text.lower.as_str();
        MEMO.with_borrow_mut(|memo| {
            self.facts.extend(
                text.spans
                    .iter()
                    .map(|&(s, e)| *memo.get(lower, s as usize, e as usize)),
            );
        });
    }

    /// The stems a bag keeps of `text`'s words (these are its words' facts), as
    /// [`similarity::Bag::fill_stems`] reads them: [`similarity::bag_stems`] of each
    /// word's stem and whether it is a content word.
    pub fn stems<'a>(&'a self, text: &'a Text) -> impl ExactSizeIterator<Item = (u64, bool)> + 'a {
        similarity::bag_stems(text, self.facts.iter().map(|f| (f.stem, f.content)))
    }

    /// The affect lexicon's entry of word `i` (as [`crate::features::affect::affect_with`]
    /// reads it).
    pub fn lexicon(&self, i: usize) -> Lookup {
        self.facts[i].lexicon
    }

    /// How many words are English function words, and how many function words of the
    /// other languages ([`FunctionWord`]).
    pub fn function_words(&self) -> (usize, usize) {
        self.facts.iter().fold((0, 0), |(english, other), f| {
            (
                english + usize::from(f.function == FunctionWord::English),
                other + usize::from(f.function == FunctionWord::Other),
            )
        })
    }

    /// The n-gram hashes of each word.
    pub fn hashes(&self) -> impl Iterator<Item = &WordHashes> + '_ {
        self.facts.iter().map(|f| &f.hashes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::affect::{Affect, affect, affect_with};
    use crate::features::grams::{Gram, Source, grams, grams_of};
    use crate::features::similarity::Bag;

    /// What a reader makes of `raw`: its bag, its n-grams as a human and as an AI turn,
    /// and its affect.
    type Reading = (Bag, Vec<Gram>, Vec<Gram>, Affect);

    /// The reading of `raw` through the table, and worked out directly.
    fn both_ways(raw: &str) -> [Reading; 2] {
        let text = Text::new(raw);
        let mut words = Words::default();
        words.fill(&text);
        let (mut h, mut a) = (Vec::new(), Vec::new());
        grams_of(&text, words.hashes(), Source::Human, &mut h);
        grams_of(&text, words.hashes(), Source::Ai, &mut a);
        let mut bag = Bag::default();
        bag.fill_stems(words.stems(&text));
        let kept = (bag, h, a, affect_with(&text, |i| words.lexicon(i)));
        let (mut h, mut a) = (Vec::new(), Vec::new());
        grams(&text, Source::Human, &mut h);
        grams(&text, Source::Ai, &mut a);
        [kept, (Bag::of(&text), h, a, affect(&text))]
    }

    #[test]
    fn kept_facts_are_the_facts() {
        for raw in [
            "I was charged twice, not refunded. Don't tell me to wait!",
            "internationalisation of the TICKETS isn't working 4 me",
            "Straße größer ÇOK güzel don’t",
            "not bad at all, but the app is VERY slow and I hate it :(",
            "",
        ] {
            // Twice: the second reading comes from the table.
            for _ in 0..2 {
                let [kept, direct] = both_ways(raw);
                assert_eq!(kept, direct, "{raw}");
            }
        }
    }

    #[test]
    fn facts_take_the_room_the_limit_is_documented_for() {
        assert!(size_of::<Facts>() <= 56);
    }

    #[test]
    fn a_full_table_is_emptied_and_still_answers() {
        let mut words = Words::default();
        let many: String = (0..MEMO_WORDS + 10)
            .map(|i| format!("w{i} longerword{i} "))
            .collect();
        let text = Text::new(&many);
        words.fill(&text);
        MEMO.with_borrow(|m| assert!(m.short.len + m.long.len() <= MEMO_WORDS));
        assert_eq!(words.facts.len(), text.word_count());
        let last = text.word_count() - 1;
        assert_eq!(words.facts[last], Facts::of(text.word(last)));
    }

    proptest::proptest! {
        #[test]
        fn any_text_reads_the_same_through_the_table(
            raw in proptest::prop_oneof![
                "\\PC{0,120}",
                // Chinese and Japanese beside Latin words, digits and marks: pairs of
                // characters in the bag, no n-gram of them.
                "[订单还没到好的谢転人工ありがとうカナ ok not 5512'，。！？,.]{0,60}",
            ]
        ) {
            let [kept, direct] = both_ways(&raw);
            proptest::prop_assert_eq!(kept, direct);
        }
    }
}
