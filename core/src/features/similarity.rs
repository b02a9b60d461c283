//! Lexical similarity between two turns, for repetition and rephrasing signals.
//!
//! A turn becomes a set of content-word stems (function words from
//! `lexicons/stopwords.txt` dropped, simple English suffixes stripped), hashed.
//! Rephrasing usually keeps the content words ("refund", "order", "charged"), so the
//! share of shared stems catches most repeats without a language model. Chinese and
//! Japanese, written without spaces, are read by pairs of neighbouring characters
//! ([`bag_stems`]); Korean words lose the particles at their end ("주문을" is
//! "주문").

use std::sync::LazyLock;

use xxhash_rust::xxh3::xxh3_64;

use super::text::{ShortWords, Text, is_character_word, packed_in};

const STOPWORDS_TXT: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/stopwords.txt"));

/// The stop words, in a [`ShortWords`] table: every one is at most eight bytes long
/// (checked in a test), so a longer word is never one.
static STOPWORDS: LazyLock<ShortWords> = LazyLock::new(|| {
    let words: Vec<&str> = STOPWORDS_TXT
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect();
    ShortWords::new(&words).expect("lexicons/stopwords.txt: at most 256 words of 1 to 8 bytes")
});

/// Whether `word` (as [`Text`] lowercases it) is one of the stop words.
pub fn is_stop_word(word: &[u8]) -> bool {
    STOPWORDS.contains_word(word)
}

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

/// The hash of the stem of `word` (as [`Text`] lowercases it), or `None` for a function
/// word: a stop word, or a single letter ("a", "i"; single digits, as in "2 tickets",
/// carry content).
pub fn stem(word: &[u8]) -> Option<u64> {
    let function = (word.len() == 1) & word.first().is_some_and(u8::is_ascii_alphabetic)
        | STOPWORDS.contains_word(word);
    // The stem is a prefix of the word.
    let len = if ends_in_hangul(word) {
        korean_stem_len(word)
    } else {
        stem_len(word, 0, word.len())
    };
    (!function).then(|| stem_hash(word, 0, len))
}

/// Korean particles, one a line, the longer ones first (checked in a test).
const KOREAN_PARTICLES_TXT: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/korean_particles.txt"));

/// Whether the last character of `bytes` is a Hangul syllable (가 to 힣, U+AC00 to
/// U+D7A3: three bytes of UTF-8).
fn ends_in_hangul(bytes: &[u8]) -> bool {
    match bytes {
        [.., a, b, c] if (0xEA..=0xED).contains(a) => {
            let code =
                (u32::from(a & 0x0F) << 12) | (u32::from(b & 0x3F) << 6) | u32::from(c & 0x3F);
            (0xAC00..=0xD7A3).contains(&code)
        }
        _ => false,
    }
}

/// The length of the stem of a word that ends in a Hangul syllable: the word without
/// the particles at its end (`lexicons/korean_particles.txt`), taken off one after
/// another while a syllable is left before them. Stripping to the end makes a noun's
/// forms meet: 고양이가 and 고양이 ("cat", with and without a subject particle) are
/// both 고양, since the noun's own last syllable reads as a particle too. A word that
/// does not end in Hangul keeps its whole length.
fn korean_stem_len(word: &[u8]) -> usize {
    let mut stem = word;
    while ends_in_hangul(stem) {
        let shorter = KOREAN_PARTICLES_TXT
            .lines()
            .filter(|p| !p.is_empty())
            .find_map(|p| {
                stem.strip_suffix(p.as_bytes())
                    .filter(|rest| ends_in_hangul(rest))
            });
        match shorter {
            Some(rest) => stem = rest,
            None => break,
        }
    }
    stem.len()
}

/// The stems a bag keeps of `text`'s words, given each word's [`stem`] hash and whether
/// it is a content word (`stems`, one per word, in order). A run of Chinese or Japanese
/// characters, each a word of its own (see [`Text`]), is kept as its pairs of
/// neighbours, each hashed as a two-character word: 订单还没到 as 订单, 单还, 还没,
/// 没到. One character says little (的, 了 and 我 are in most sentences), two in a row
/// as much as an English word; a character with no neighbour of its script is kept
/// alone.
pub fn bag_stems<'t, I>(text: &'t Text, stems: I) -> impl ExactSizeIterator<Item = (u64, bool)> + 't
where
    I: ExactSizeIterator<Item = (u64, bool)> + 't,
{
    let (lower, spans, ascii) = (text.lower.as_str(), &text.spans, text.ascii);
    let own_word = move |k: usize| {
        spans.get(k).is_some_and(|&(start, end)| {
            is_character_word(&lower.as_bytes()[start as usize..end as usize])
        })
    };
    stems.enumerate().map(move |(i, given)| {
        if ascii || !own_word(i) {
            return given;
        }
        let (start, end) = spans[i];
        if i > 0 && spans[i - 1].1 == start && own_word(i - 1) {
            let pair = stem_hash(lower.as_bytes(), spans[i - 1].0 as usize, end as usize);
            (pair, true)
        } else if spans.get(i + 1).is_some_and(|next| next.0 == end) && own_word(i + 1) {
            (0, false)
        } else {
            given
        }
    })
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
        self.fill_stems(bag_stems(
            text,
            text.words()
                .map(|w| stem(w.as_bytes()).map_or((0, false), |h| (h, true))),
        ));
    }

    /// Makes this bag the given words' stems, reusing its buffer: for each word, its
    /// [`stem`] hash and whether it is a content word (the hash of a function word is
    /// not read).
    pub fn fill_stems<I>(&mut self, stems: I)
    where
        I: IntoIterator<Item = (u64, bool)>,
        I::IntoIter: ExactSizeIterator,
    {
        let stems = stems.into_iter();
        let v = &mut self.stems;
        v.clear();
        v.resize(stems.len(), 0);
        // Every word's stem is written; the count only moves past a content word. So
        // whether a word is a function word, as good as random to the processor, is
        // never a branch.
        let mut kept = 0;
        for (hash, content) in stems {
            v[kept] = hash;
            kept += usize::from(content);
        }
        v.truncate(kept);
        sort_stems(v);
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

/// Sorts a turn's stem hashes. A turn has a few dozen at most: up to 32 go through a
/// sorting network (Batcher's odd–even merge sort), whose comparisons are `min` and
/// `max` in an order fixed in advance, so no branch depends on the values; more go to
/// the standard sort.
fn sort_stems(v: &mut [u64]) {
    if v.len() <= 16 {
        network_sort::<16>(v, &NETWORK_16);
    } else if v.len() <= 32 {
        network_sort::<32>(v, &NETWORK_32);
    } else {
        v.sort_unstable();
    }
}

/// The comparisons of Batcher's odd–even merge sort of 16 values.
static NETWORK_16: [(u8, u8); comparisons(16)] = network(16);
/// The comparisons of Batcher's odd–even merge sort of 32 values.
static NETWORK_32: [(u8, u8); comparisons(32)] = network(32);

/// Sorts `v` (at most `N` values) with `network` over `N` slots, the unused ones
/// holding `u64::MAX` so that they sort last.
fn network_sort<const N: usize>(v: &mut [u64], network: &[(u8, u8)]) {
    let mut x = [u64::MAX; N];
    x[..v.len()].copy_from_slice(v);
    for &(i, j) in network {
        let (a, b) = (x[usize::from(i)], x[usize::from(j)]);
        x[usize::from(i)] = a.min(b);
        x[usize::from(j)] = a.max(b);
    }
    let n = v.len();
    v.copy_from_slice(&x[..n]);
}

/// Writes the comparisons of Batcher's odd–even merge sort of `n` values (`n` a power
/// of two), in order, into `out` (as many as fit); returns how many there are.
const fn batcher<const M: usize>(n: usize, out: &mut [(u8, u8); M]) -> usize {
    let mut count = 0;
    let mut p = 1;
    while p < n {
        let mut k = p;
        while k >= 1 {
            let mut j = k % p;
            while j + k < n {
                let mut i = 0;
                while i < k && i + j + k < n {
                    if (i + j) / (2 * p) == (i + j + k) / (2 * p) {
                        if count < M {
                            out[count] = ((i + j) as u8, (i + j + k) as u8);
                        }
                        count += 1;
                    }
                    i += 1;
                }
                j += 2 * k;
            }
            k /= 2;
        }
        p *= 2;
    }
    count
}

/// Number of comparisons in Batcher's odd–even merge sort of `n` values.
const fn comparisons(n: usize) -> usize {
    batcher::<0>(n, &mut [])
}

/// The comparisons of Batcher's odd–even merge sort of `n` values.
const fn network<const M: usize>(n: usize) -> [(u8, u8); M] {
    let mut out = [(0, 0); M];
    batcher(n, &mut out);
    out
}

/// The suffixes a stem drops, each as [`last_bytes`] packs it with its length, in the
/// order they are tried.
const SUFFIXES: [(u64, usize); 5] = [
    (last_bytes(b"ing"), 3),
    (last_bytes(b"ed"), 2),
    (last_bytes(b"es"), 2),
    (last_bytes(b"s"), 1),
    (last_bytes(b"ly"), 2),
];

/// Up to the last eight bytes of `s`, the last one lowest.
const fn last_bytes(s: &[u8]) -> u64 {
    let mut x = 0u64;
    let mut i = s.len().saturating_sub(8);
    while i < s.len() {
        x = (x << 8) | s[i] as u64;
        i += 1;
    }
    x
}

/// The length of the stem of the word `text[start..end]`: a possessive `'s` dropped,
/// then the first of `ing`, `ed`, `es`, `s`, `ly` that ends it, if at least four
/// bytes are left. Worked out from the word's last bytes, read in one load, with
/// comparisons and selections only: which suffix a word has is as good as random to
/// the processor.
fn stem_len(text: &[u8], start: usize, end: usize) -> usize {
    let n = end - start;
    let tail = match text.get(end.wrapping_sub(8)..end) {
        Some(eight) if end >= 8 => u64::from_be_bytes(eight.try_into().unwrap_or([0; 8])),
        _ => last_bytes(&text[..end]),
    };
    // Only the word's own bytes.
    let tail = tail & u64::MAX.checked_shr(64 - 8 * n.min(8) as u32).unwrap_or(0);
    let possessive = (n >= 2) & (tail & 0xffff == last_bytes(b"'s"));
    let n = n - 2 * usize::from(possessive);
    let tail = if possessive { tail >> 16 } else { tail };
    // The first suffix that applies wins: tried last to first, each overriding.
    let mut cut = 0;
    for &(suffix, len) in SUFFIXES.iter().rev() {
        let applies = (n >= len + 4) & (tail & ((1 << (8 * len)) - 1) == suffix);
        cut = if applies { len } else { cut };
    }
    n - cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::text::packed;

    fn bag(s: &str) -> Bag {
        Bag::of(&Text::new(s))
    }

    #[test]
    fn korean_nouns_lose_their_particles() {
        fn stem_of(w: &str) -> &str {
            &w[..korean_stem_len(w.as_bytes())]
        }
        for (word, expected) in [
            // "the order" as subject, object, topic, and with "from", "to", "also".
            ("주문이", "주문"),
            ("주문을", "주문"),
            ("주문은", "주문"),
            ("주문에서", "주문"),
            ("주문으로", "주문"),
            ("주문도", "주문"),
            ("주문", "주문"),
            // A noun whose last syllable reads as a particle meets its own forms.
            ("고양이", "고양"),
            ("고양이가", "고양"),
            ("고양이를", "고양"),
            // One syllable is always left; a verb ending is not a particle.
            ("이", "이"),
            ("가", "가"),
            ("왔어요", "왔어요"),
            // Words that do not end in Hangul are left whole.
            ("주문id", "주문id"),
            ("订单", "订单"),
        ] {
            assert_eq!(stem_of(word), expected, "{word}");
        }
        // The longer particles come first, so that 에서 is taken whole, not as 서 after 에.
        let lengths: Vec<usize> = KOREAN_PARTICLES_TXT
            .lines()
            .filter(|p| !p.is_empty())
            .map(str::len)
            .collect();
        assert!(
            lengths.len() > 20 && lengths.windows(2).all(|w| w[0] >= w[1]),
            "{lengths:?}"
        );
        let hash = |w: &str| super::stem(w.as_bytes());
        assert_eq!(hash("주문이"), hash("주문을"));
        assert_ne!(hash("주문이"), hash("환불을"));
    }

    #[test]
    fn a_korean_turn_asked_again_with_other_particles_is_a_repeat() {
        // "My order hasn't arrived yet, please check the delivery" asked twice, the
        // nouns with other particles the second time.
        let asked = bag("제 주문이 아직 도착하지 않았어요 배송을 확인해 주세요");
        let again = bag("주문은 아직 도착하지 않았어요 배송 확인해 주세요");
        assert!(asked.dice(&again) >= 0.8, "{}", asked.dice(&again));
        assert!(asked.dice(&bag("환불은 언제 되나요")) == 0.0);
    }

    #[test]
    fn chinese_is_compared_by_pairs_of_characters() {
        // 我的 的订 订单 单还 还没 没有 有到.
        let asked = bag("我的订单还没有到");
        assert_eq!(asked.len(), 7);
        // The same seven pairs and 订单 单号 号是 and the number.
        let again = bag("订单号是12345，我的订单还没有到");
        assert_eq!(again.len(), 10);
        assert_eq!(asked.dice(&again), 14.0 / 17.0);
        // 的 is in both, but no pair is.
        assert_eq!(asked.dice(&bag("请问你们的营业时间是什么")), 0.0);
        // A character alone is kept alone; two alone are two.
        assert_eq!(bag("好").len(), 1);
        assert_eq!(bag("好 的").len(), 2);
        assert_eq!(bag("好的").len(), 1);
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
                .all(|w| packed(w.as_bytes()).is_some_and(|x| STOPWORDS.contains(x)))
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
    fn the_sorting_network_sorts_as_the_standard_sort() {
        // Every length it takes, with repeats, extremes and values in every order.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for n in 0..=40 {
            for round in 0..50 {
                let v: Vec<u64> = (0..n)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        match round % 3 {
                            0 => state,
                            1 => state % 5,
                            _ => [0, u64::MAX, state][(state % 3) as usize],
                        }
                    })
                    .collect();
                let mut expected = v.clone();
                expected.sort_unstable();
                let mut got = v;
                sort_stems(&mut got);
                assert_eq!(got, expected, "{n} values");
            }
        }
    }

    fn stem(w: &[u8]) -> &[u8] {
        &w[..stem_len(w, 0, w.len())]
    }

    /// The stem as the suffix list reads, one suffix after the other.
    fn stem_by_the_list(w: &[u8]) -> &[u8] {
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

    #[test]
    fn stems_are_the_suffix_lists() {
        let words = [
            "",
            "s",
            "'s",
            "is",
            "ing",
            "ring",
            "sings",
            "singing",
            "things",
            "making",
            "makes",
            "chess",
            "boxes",
            "boxed",
            "lately",
            "early",
            "bus's",
            "boss's",
            "reading's",
            "tables's",
            "ed",
            "fed",
            "needed",
            "it's",
            "dogs'",
            "café's",
            "überlings",
            "internationalising",
            "abcdefgh's",
            "abcdefghing",
            "xxxxly",
            "xxxly",
            "xxxxes",
            "xxxes",
            "xxxxs",
            "xxxs",
        ];
        for w in words {
            assert_eq!(stem(w.as_bytes()), stem_by_the_list(w.as_bytes()), "{w}");
        }
        // Every word of up to six bytes over a small alphabet that holds the suffixes.
        let alphabet = b"'seindlgx";
        let mut word = Vec::new();
        for len in 0..=6 {
            let count = alphabet.len().pow(len as u32);
            for mut k in 0..count {
                word.clear();
                for _ in 0..len {
                    word.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                let expected = stem_by_the_list(&word).len();
                assert_eq!(
                    stem(&word).len(),
                    expected,
                    "{:?}",
                    String::from_utf8_lossy(&word)
                );
                // Inside a text, after bytes that could pass for a suffix.
                let text = [b"xing'sly ".as_slice(), &word].concat();
                assert_eq!(stem_len(&text, 9, text.len()), expected);
            }
        }
        // Long words inside a text.
        for w in words {
            let text = format!("ab's; {w}");
            let expected = stem_by_the_list(w.as_bytes()).len();
            assert_eq!(stem_len(text.as_bytes(), 6, text.len()), expected, "{w}");
        }
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
