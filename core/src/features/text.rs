//! One pass over a turn's text: lowercase copy, word spans, shouting and punctuation counts.
//!
//! Every other signal reads this instead of re-scanning the text, which keeps scoring
//! at a few microseconds per turn.

/// A turn's text prepared for the signal functions.
#[derive(Debug, Clone, Default)]
pub struct Text {
    /// The text lowercased, with typographic apostrophes (’ ‘) turned into `'` and the
    /// question, exclamation and clause marks of other scripts into their ASCII ones
    /// (see [`ascii_form`]).
    pub lower: String,
    /// Byte ranges of the words in `lower`: runs of letters, digits and inner apostrophes.
    pub spans: Vec<(u32, u32)>,
    /// For each word, whether it was written in capitals (two or more letters, none lower).
    pub shouted: Vec<bool>,
    /// Number of `!` characters (`！` included).
    pub exclamations: u32,
    /// Number of `?` characters (`？` and `؟` included).
    pub questions: u32,
    /// Whether the text, ignoring trailing spaces and emoji, ends with `?` (or `？`, `؟`).
    pub ends_with_question: bool,
    /// Characters in the original text.
    pub chars: u32,
    /// How many of the words are one Chinese or Japanese character each
    /// ([`one_word_per_character`]): words the learned models read nothing of.
    pub character_words: u32,
    /// Whether the original text is ASCII (`lower` can be ASCII when it is not: ’ is
    /// written `'`).
    pub ascii: bool,
    /// For a text read as ASCII is (see [`Text::fill`]), which bytes of `lower` belong
    /// to letters or digits: bit `j` of entry `k` for byte `64k + j` (empty for any
    /// other text). Boundary tests read it.
    alnum: Vec<u64>,
    /// A text that is not ASCII, rewritten to be read as ASCII is (see [`Text::fill`]).
    plain: Plain,
}

/// A text that is not ASCII, made ready to be read as ASCII is when each of its
/// capitals outside ASCII lowercases to one character of the same length (É, Ü, Σ, Ж,
/// not İ): its typographic apostrophes written as `'`, those capitals written in
/// lowercase, and which bytes belong to its other letters and digits, and which of
/// those letters were capitals (the class tests of a block only know ASCII).
#[derive(Debug, Clone, Default)]
struct Plain {
    text: String,
    /// Bytes of non-ASCII letters and digits, by 64-byte block as in [`Text::alnum`].
    alnum: Vec<u64>,
    /// The first byte of each non-ASCII letter (one bit per letter, so that a word's
    /// letters are counted as characters, as the character path counts them).
    letter: Vec<u64>,
    /// The first byte of each non-ASCII letter that was a capital.
    upper: Vec<u64>,
}

impl Plain {
    /// Rewrites `raw` (not ASCII) to be read as ASCII is: typographic apostrophes and
    /// other scripts' marks become ASCII ([`ascii_form`]), capitals outside ASCII their
    /// lowercase, and the bytes of the other
    /// letters and digits are marked. Returns its number of characters, or `None` for a
    /// text with a capital whose lowercase is not one character of the same length, or
    /// with a character that is a word on its own ([`one_word_per_character`]): then the
    /// marks are partial, and only the character path can read it.
    fn fill(&mut self, raw: &str) -> Option<u32> {
        self.text.clear();
        self.alnum.clear();
        self.letter.clear();
        self.upper.clear();
        let mut chars = 0;
        let mut rest = raw;
        while let Some(at) = rest.bytes().position(|b| !b.is_ascii()) {
            let c = rest[at..].chars().next()?;
            if one_word_per_character(c) {
                return None;
            }
            self.text.push_str(&rest[..at]);
            if let Some(ascii) = ascii_form(c) {
                self.text.push(ascii);
            } else {
                let capital = c.is_uppercase();
                let written = if capital {
                    same_length_lowercase(c)?
                } else {
                    c
                };
                if c.is_alphanumeric() {
                    self.mark(self.text.len(), c.len_utf8(), c.is_alphabetic(), capital);
                }
                self.text.push(written);
            }
            chars += at + 1;
            rest = &rest[at + c.len_utf8()..];
        }
        self.text.push_str(rest);
        u32::try_from(chars + rest.len()).ok()
    }

    /// Marks the `len` bytes from `at` as a letter or digit; the first of them as a
    /// letter if `letter`, and as a capital if `capital` too.
    fn mark(&mut self, at: usize, len: usize, letter: bool, capital: bool) {
        let blocks = (at + len).div_ceil(64);
        if self.alnum.len() < blocks {
            self.alnum.resize(blocks, 0);
            self.letter.resize(blocks, 0);
            self.upper.resize(blocks, 0);
        }
        for i in at..at + len {
            self.alnum[i / 64] |= 1 << (i % 64);
        }
        self.letter[at / 64] |= u64::from(letter) << (at % 64);
        self.upper[at / 64] |= u64::from(letter && capital) << (at % 64);
    }

    /// The marks of block `k`: (letters or digits, letters, capitals).
    fn marks(&self, k: usize) -> (u64, u64, u64) {
        let get = |v: &[u64]| v.get(k).copied().unwrap_or(0);
        (get(&self.alnum), get(&self.letter), get(&self.upper))
    }
}

/// The ASCII character that `c` is read as, if it is read as one: typographic
/// apostrophes (’ ‘) as `'`, and the punctuation marks of other scripts as their
/// ASCII marks: the fullwidth and ideographic marks of Chinese, Japanese and Korean
/// text (`？ ！ ， 、 。 ． ： ；`) and the Arabic question mark, comma and semicolon
/// (`؟ ، ؛`). Read so, they count as questions and exclamations and end clauses (for
/// negation and word pairs), as in English text.
pub fn ascii_form(c: char) -> Option<char> {
    Some(match c {
        '\u{2019}' | '\u{2018}' => '\'',
        '\u{FF1F}' | '\u{061F}' => '?',
        '\u{FF01}' => '!',
        '\u{FF0C}' | '\u{3001}' | '\u{060C}' => ',',
        '\u{3002}' | '\u{FF0E}' => '.',
        '\u{FF1A}' => ':',
        '\u{FF1B}' | '\u{061B}' => ';',
        _ => return None,
    })
}

/// Whether `c` is written in a script that puts no space between words, so that each
/// of its characters is read as one word: Chinese characters (the CJK ideographs, with
/// the iteration and closing marks 々 〆 〇) and Japanese kana (ひらがな, カタカナ, ｶﾀｶﾅ).
/// A sentence of them is then as many words as characters, not one long word, and
/// the similarity of two turns reads pairs of neighbouring characters (see
/// `similarity::bag_stems`). Korean is written with spaces between words, and read as
/// other scripts are.
pub fn one_word_per_character(c: char) -> bool {
    matches!(c,
        '\u{3005}'..='\u{3007}'       // 々 〆 〇
        | '\u{3040}'..='\u{30FF}'     // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}'     // katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}'     // CJK ideographs, extension A
        | '\u{4E00}'..='\u{9FFF}'     // CJK unified ideographs
        | '\u{F900}'..='\u{FAFF}'     // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}'     // halfwidth katakana
        | '\u{20000}'..='\u{323AF}'   // CJK ideographs, extensions B to H
    ) && c.is_alphanumeric()
}

/// The lowercase of capital `c` when it is one character as long as `c` in UTF-8
/// (É → é, Σ → σ, Ж → ж); `None` otherwise (İ → i̇, ẞ → ß, K → k).
fn same_length_lowercase(c: char) -> Option<char> {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) if l.len_utf8() == c.len_utf8() => Some(l),
        _ => None,
    }
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
        self.alnum.clear();
        self.lower.reserve(raw.len());
        self.spans.reserve(raw.len() / 5 + 1);
        self.shouted.reserve(raw.len() / 5 + 1);
        self.exclamations = 0;
        self.questions = 0;
        self.chars = 0;
        self.character_words = 0;
        self.ascii = raw.is_ascii();
        if self.ascii {
            self.fill_ascii(raw, None);
        } else {
            // Most text that is not ASCII (typographic apostrophes and quotes, dashes,
            // emoji, accented letters, Greek or Cyrillic) reads as ASCII does, once its
            // apostrophes and capitals are rewritten and the bytes of its other letters
            // and digits marked. Only a capital whose lowercase changes length (İ), or
            // Chinese or Japanese (a word per character), sends a text character by
            // character.
            let mut plain = std::mem::take(&mut self.plain);
            match plain.fill(raw) {
                Some(chars) => {
                    self.fill_ascii(&plain.text, Some(&plain));
                    self.chars = chars;
                }
                None => self.fill_unicode(raw),
            }
            self.plain = plain;
        }
        // Read on the lowercased text, where other scripts' question marks are `?`.
        self.ends_with_question = self
            .lower
            .trim_end_matches(|c: char| c.is_whitespace() || !c.is_ascii() && !c.is_alphanumeric())
            .ends_with('?');
    }

    /// The common case: same rules as [`Text::fill_unicode`] on ASCII, eight bytes at a
    /// time. Each 64-byte block becomes bit masks (one bit per byte: letter or digit,
    /// letter, capital, apostrophe, `!`, `?`), and the words are read off the masks:
    /// no branch per byte, one per word edge. With `other`, the text may also hold
    /// non-ASCII characters: their bytes are in no class but those `other` marks.
    fn fill_ascii(&mut self, text: &str, other: Option<&Plain>) {
        // Lowercasing ASCII in place keeps the text valid UTF-8: no check needed.
        self.lower.push_str(text);
        self.lower.make_ascii_lowercase();
        let raw = text.as_bytes();
        self.chars = raw.len() as u32;
        // Counted over the whole text, a loop the compiler vectorises; the blocks need
        // no masks of their own for them.
        self.exclamations = count_byte(raw, b'!');
        self.questions = count_byte(raw, b'?');
        // Most texts have no apostrophe: then no block looks for one.
        let apostrophes = memchr::memchr(b'\'', raw).is_some();
        // The word being read: its start, its letters so far (counted up to 2) and
        // whether one was lowercase; capitals need two letters and no lowercase one.
        let mut open: Option<(usize, u32, bool)> = None;
        // Whether the last byte of the previous block was a letter or digit, and whether
        // it was in a word.
        let (mut alnum_carry, mut word_carry) = (0u64, 0u64);
        let mut next = Block::read(raw, 0, apostrophes, other);
        for at in (0..raw.len()).step_by(64) {
            let block = next;
            next = Block::read(raw, at + 64, apostrophes, other);
            // An apostrophe is part of a word only between two word characters.
            let before = (block.alnum << 1) | alnum_carry;
            let after = (block.alnum >> 1) | (next.alnum << 63);
            let word = block.alnum | (block.apostrophe & before & after);
            // Where a word starts or ends: the byte differs from the one before it.
            let mut edges = word ^ ((word << 1) | word_carry);
            // Where the open word's part in this block starts.
            let mut from = 0;
            while edges != 0 {
                let j = edges.trailing_zeros();
                match open.take() {
                    None => open = Some((at + j as usize, 0, false)),
                    Some((start, letters, lowercase)) => {
                        let (letters, lowercase) = block.letters_in(from, j, letters, lowercase);
                        self.push_span(start, at + j as usize, letters >= 2 && !lowercase);
                    }
                }
                from = j;
                edges &= edges - 1;
            }
            if let Some((start, letters, lowercase)) = open {
                let (letters, lowercase) = block.letters_in(from, 64, letters, lowercase);
                open = Some((start, letters, lowercase));
            }
            self.alnum.push(block.alnum);
            alnum_carry = block.alnum >> 63;
            word_carry = word >> 63;
        }
        if let Some((start, letters, lowercase)) = open {
            self.push_span(start, raw.len(), letters >= 2 && !lowercase);
        }
    }

    /// Any text, character by character (a text with a capital whose lowercase is not
    /// one character of the same length, which changes the text's length, or with
    /// characters that are words on their own, comes here).
    fn fill_unicode(&mut self, raw: &str) {
        let bytes = raw.as_bytes();
        // The word being read: where it starts in `lower`, its letters, its capitals.
        let mut word: Option<(usize, u32, u32)> = None;
        let mut at = 0;
        while at < bytes.len() {
            // An ASCII byte is its character: only the others are decoded.
            let c = match bytes[at] {
                b if b.is_ascii() => char::from(b),
                _ => match raw[at..].chars().next() {
                    Some(c) => c,
                    None => break,
                },
            };
            at += c.len_utf8();
            self.chars += 1;
            let c = ascii_form(c).unwrap_or(c);
            if one_word_per_character(c) {
                // A word of its own: it ends the word being read, and no other joins it.
                if let Some((start, letters, uppers)) = word.take() {
                    self.push_span(start, self.lower.len(), letters >= 2 && uppers == letters);
                }
                let start = self.lower.len();
                self.lower.push(c);
                self.push_span(start, self.lower.len(), false);
                self.character_words += 1;
                continue;
            }
            match c {
                '!' => self.exclamations += 1,
                '?' => self.questions += 1,
                _ => {}
            }
            // Letter or digit, letter, capital: by byte tests for an ASCII character.
            let (alnum, letter, capital) = if c.is_ascii() {
                let b = c as u8;
                (
                    b.is_ascii_alphanumeric(),
                    b.is_ascii_alphabetic(),
                    b.is_ascii_uppercase(),
                )
            } else {
                (c.is_alphanumeric(), c.is_alphabetic(), c.is_uppercase())
            };
            // An apostrophe is part of a word only between two word characters ("don't").
            let in_word = alnum || c == '\'' && word.is_some() && starts_word_char(&raw[at..]);
            if in_word {
                let (_, letters, uppers) = word.get_or_insert((self.lower.len(), 0, 0));
                if letter {
                    *letters += 1;
                    *uppers += u32::from(capital);
                }
            } else if let Some((start, letters, uppers)) = word.take() {
                self.push_span(start, self.lower.len(), letters >= 2 && uppers == letters);
            }
            if !capital {
                self.lower.push(c);
            } else if c.is_ascii() {
                self.lower.push(c.to_ascii_lowercase());
            } else {
                self.lower.extend(c.to_lowercase());
            }
        }
        if let Some((start, letters, uppers)) = word {
            self.push_span(start, self.lower.len(), letters >= 2 && uppers == letters);
        }
    }

    /// Adds a word and whether it was written in capitals (two or more letters, none
    /// lower).
    fn push_span(&mut self, start: usize, end: usize, shouted: bool) {
        // Offsets fit in u32: content is at most 32 KiB by contract, and longer CLI
        // input is still far below 4 GiB per turn.
        self.spans.push((start as u32, end as u32));
        self.shouted.push(shouted);
    }

    /// The `i`-th word, lowercased.
    pub fn word(&self, i: usize) -> &str {
        let (s, e) = self.spans[i];
        &self.lower[s as usize..e as usize]
    }

    /// The words, lowercased, in order.
    pub fn words(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|&(s, e)| &self.lower[s as usize..e as usize])
    }

    /// Number of words.
    pub fn word_count(&self) -> usize {
        self.spans.len()
    }

    /// Number of words the learned models read: those that are not one Chinese or
    /// Japanese character each (their length features count these, as the models
    /// learned length in English words).
    pub fn read_word_count(&self) -> usize {
        self.spans.len() - self.character_words as usize
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
        if !self.alnum.is_empty() {
            // ASCII: the bytes either side, read off the letter-or-digit bits.
            let alnum = |at: usize| {
                self.alnum
                    .get(at / 64)
                    .is_some_and(|bits| bits >> (at % 64) & 1 == 1)
            };
            let before = start.checked_sub(1).is_some_and(alnum);
            return !before && !alnum(end);
        }
        let before = self.lower[..start].chars().next_back();
        let after = self.lower[end..].chars().next();
        !before.is_some_and(joins_words) && !after.is_some_and(joins_words)
    }
}

/// A word of at most eight bytes as one integer: its bytes, little-endian, zero
/// padded. No byte of a word is zero, so two words never pack alike; comparing packed
/// words is one integer comparison.
pub fn packed(word: &[u8]) -> Option<u64> {
    (word.len() <= 8).then(|| {
        word.iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
    })
}

/// [`packed`] of the word `text[start..end]`, read as one 8-byte load where the text
/// goes on for 8 bytes (the bytes after the word masked off): no loop over the word.
pub fn packed_in(text: &[u8], start: usize, end: usize) -> Option<u64> {
    let len = end - start;
    if len == 0 || len > 8 {
        return packed(&text[start..end]);
    }
    match text.get(start..start + 8) {
        Some(eight) => {
            let mut b = [0u8; 8];
            b.copy_from_slice(eight);
            Some(u64::from_le_bytes(b) & (u64::MAX >> (64 - 8 * len)))
        }
        None => packed(&text[start..end]),
    }
}

/// A fixed list of short words, packed ([`packed`]), in a table of 256 buckets of four
/// slots: testing a word is one multiplication, one load and four comparisons, with no
/// branch per word of the list and no jump per length.
#[derive(Debug, Clone)]
pub struct ShortWords {
    multiplier: u64,
    buckets: Box<[[u64; WAYS]; 256]>,
}

/// Slots per bucket of a [`ShortWords`] table.
const WAYS: usize = 4;

/// Multipliers a [`ShortWords`] table tries before it gives up.
const TRIES: usize = 10_000;

impl ShortWords {
    /// The table of `words`; `None` when a word is empty or longer than eight bytes, or
    /// there are more than 256 (then no multiplier spreads them out well enough).
    pub fn new(words: &[&str]) -> Option<ShortWords> {
        if words.len() > 256 {
            return None;
        }
        let keys: Vec<u64> = words
            .iter()
            .map(|w| packed(w.as_bytes()).filter(|&x| x != 0))
            .collect::<Option<_>>()?;
        // Odd multipliers from a fixed sequence until one puts at most `WAYS` words in
        // every bucket (for a few dozen words the first one does; the 156 stop words take
        // two).
        let mut multiplier = 0x9e37_79b9_7f4a_7c15u64;
        let mut buckets = Box::new([[0u64; WAYS]; 256]);
        for _ in 0..TRIES {
            buckets.fill([0; WAYS]);
            let placed = keys.iter().all(|&k| {
                let bucket = &mut buckets[Self::bucket(multiplier, k)];
                if bucket.contains(&k) {
                    return true;
                }
                match bucket.iter_mut().find(|slot| **slot == 0) {
                    Some(slot) => {
                        *slot = k;
                        true
                    }
                    None => false,
                }
            });
            if placed {
                return Some(ShortWords {
                    multiplier,
                    buckets,
                });
            }
            multiplier = multiplier
                .wrapping_mul(0x5851_f42d_4c95_7f2d)
                .wrapping_add(2)
                | 1;
        }
        None
    }

    fn bucket(multiplier: u64, x: u64) -> usize {
        (x.wrapping_mul(multiplier) >> 56) as usize
    }

    /// Whether the packed word `x` is in the list.
    #[inline]
    pub fn contains(&self, x: u64) -> bool {
        let b = &self.buckets[Self::bucket(self.multiplier, x)];
        // Every comparison is made: `|`, not `||`, so no branch depends on the word.
        (x != 0) & ((b[0] == x) | (b[1] == x) | (b[2] == x) | (b[3] == x))
    }

    /// Whether `word` is in the list.
    pub fn contains_word(&self, word: &[u8]) -> bool {
        packed(word).is_some_and(|x| self.contains(x))
    }

    /// Whether the word `text[start..end]` is in the list, read with [`packed_in`].
    #[inline]
    pub fn contains_in(&self, text: &[u8], start: usize, end: usize) -> bool {
        packed_in(text, start, end).is_some_and(|x| self.contains(x))
    }
}

/// One 64-byte block of an ASCII text as bit masks: bit `j` describes byte `j`.
#[derive(Debug, Clone, Copy, Default)]
struct Block {
    alnum: u64,
    letter: u64,
    upper: u64,
    apostrophe: u64,
}

/// `0x01` in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte: a packed word `x` is ASCII when `x & HIGH == 0`.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (all below `0x80`) that is at least `c`.
fn at_least(x: u64, c: u8) -> u64 {
    ((x | HIGH) - ONES * u64::from(c)) & HIGH
}

/// The high bit of each byte of `x` (all below `0x80`) from `lo` to `hi`.
fn within(x: u64, lo: u8, hi: u8) -> u64 {
    at_least(x, lo) & !at_least(x, hi + 1)
}

/// The high bit of each byte of `x` that equals `c`.
fn equal(x: u64, c: u8) -> u64 {
    let t = x ^ (ONES * u64::from(c));
    !(((t & !HIGH) + !HIGH) | t) & HIGH
}

/// How many bytes of `raw` are `b`.
fn count_byte(raw: &[u8], b: u8) -> u32 {
    // Summed as bytes in chunks of 255 (no byte sum can overflow), which the compiler
    // turns into byte-wide vector compares.
    raw.chunks(255)
        .map(|chunk| {
            u32::from(
                chunk
                    .iter()
                    .fold(0u8, |n, &x| n.wrapping_add(u8::from(x == b))),
            )
        })
        .sum()
}

/// The high bits of the eight bytes as eight bits, byte `i` to bit `i`.
fn gather(high: u64) -> u64 {
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

impl Block {
    /// A word's `letters` (counted up to 2) and whether one is `lowercase`, updated with
    /// the bytes `from..to` of this block.
    fn letters_in(&self, from: u32, to: u32, letters: u32, lowercase: bool) -> (u32, bool) {
        // Bits `from..to` (`from` < 64, `to` ≤ 64).
        let below_to = if to == 64 { u64::MAX } else { (1u64 << to) - 1 };
        let range = below_to & !((1u64 << from) - 1);
        let l = self.letter & range;
        let more = u32::from(l != 0) + u32::from(l & l.wrapping_sub(1) != 0);
        ((letters + more).min(2), lowercase || l & !self.upper != 0)
    }

    /// The block of `raw` that starts at byte `at` (empty past the end; bytes past the
    /// end read as zero, which is in no class); its apostrophes only if `apostrophes`
    /// (the text has one). With `other`, the text may hold non-ASCII characters: their
    /// bytes are in no class but the letters and digits `other` marks.
    fn read(raw: &[u8], at: usize, apostrophes: bool, other: Option<&Plain>) -> Block {
        let mut b = Block::default();
        if let Some(p) = other {
            (b.alnum, b.letter, b.upper) = p.marks(at / 64);
        }
        let Some(rest) = raw.get(at..at + 64).or_else(|| raw.get(at..)) else {
            return b;
        };
        let other = other.is_some();
        let mut words = rest.chunks_exact(8);
        for (k, eight) in (&mut words).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(eight);
            b.add(k, u64::from_le_bytes(bytes), apostrophes, other);
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            let x = match raw.len().checked_sub(8) {
                // The text's last eight bytes, shifted so the tail's bytes come first
                // and zeros follow: one load instead of a loop.
                Some(from) => {
                    let mut bytes = [0u8; 8];
                    bytes.copy_from_slice(&raw[from..]);
                    u64::from_le_bytes(bytes) >> (8 * (8 - tail.len()))
                }
                // A text shorter than eight bytes: the tail is the whole text.
                None => packed(tail).unwrap_or(0),
            };
            b.add(rest.len() / 8, x, apostrophes, other);
        }
        b
    }

    /// Adds the eight bytes `x` as the `k`-th eight of the block, looking for
    /// apostrophes only if `apostrophes`; bytes from `0x80` up (only if `other`) are in
    /// no class.
    fn add(&mut self, k: usize, x: u64, apostrophes: bool, other: bool) {
        // The class tests below need every byte below `0x80`: the others become 0.
        let x = if other {
            x & !((x & HIGH) >> 7).wrapping_mul(0xff)
        } else {
            x
        };
        let upper = within(x, b'A', b'Z');
        let letter = within(x | (ONES * 0x20), b'a', b'z');
        let digit = within(x, b'0', b'9');
        let shift = 8 * k;
        self.alnum |= gather(letter | digit) << shift;
        self.letter |= gather(letter) << shift;
        self.upper |= gather(upper) << shift;
        if apostrophes {
            self.apostrophe |= gather(equal(x, b'\'')) << shift;
        }
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// Whether `c` can be part of a word with other characters: a letter or digit that is
/// not a word of its own ([`one_word_per_character`]).
fn joins_words(c: char) -> bool {
    is_word_char(c) && !one_word_per_character(c)
}

/// Whether `word` (a word of a [`Text`]) is a Chinese or Japanese character, a word of
/// its own ([`one_word_per_character`]).
pub fn is_character_word(word: &[u8]) -> bool {
    std::str::from_utf8(word)
        .ok()
        .and_then(|w| w.chars().next())
        .is_some_and(one_word_per_character)
}

/// Whether `rest` starts with a letter or digit that an apostrophe before it can join
/// to the word before (not a character that is a word of its own).
fn starts_word_char(rest: &str) -> bool {
    match rest.as_bytes().first() {
        Some(b) if b.is_ascii() => b.is_ascii_alphanumeric(),
        _ => rest.chars().next().is_some_and(joins_words),
    }
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
    fn byte_classes_eight_at_a_time() {
        let all: Vec<u8> = (0u8..128).collect();
        for chunk in all.chunks(8) {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(chunk);
            let x = u64::from_le_bytes(bytes);
            let bits = |m: u64| gather(m);
            for (i, &c) in chunk.iter().enumerate() {
                let bit = |m: u64| (bits(m) >> i) & 1 == 1;
                assert_eq!(bit(within(x, b'A', b'Z')), c.is_ascii_uppercase(), "{c}");
                assert_eq!(
                    bit(within(x | (ONES * 0x20), b'a', b'z')),
                    c.is_ascii_alphabetic(),
                    "{c}"
                );
                assert_eq!(bit(within(x, b'0', b'9')), c.is_ascii_digit(), "{c}");
                assert_eq!(bit(equal(x, b'?')), c == b'?', "{c}");
            }
        }
    }

    #[test]
    fn long_ascii_texts_cross_blocks() {
        // Words across the 64-byte block edges, an apostrophe on an edge.
        let raw = format!(
            "{}don't {} STOP!! ok? {}",
            "ab ".repeat(20),
            "x".repeat(70),
            "y'".repeat(40)
        );
        let fast = Text::new(&raw);
        let slow = unicode_path(&raw);
        assert_eq!(fast.spans, slow.spans);
        assert_eq!(fast.shouted, slow.shouted);
        assert_eq!(
            (fast.exclamations, fast.questions),
            (slow.exclamations, slow.questions)
        );
    }

    #[test]
    fn short_words_pack_exactly() {
        assert_eq!(packed(b"ab"), Some(0x6261));
        assert_eq!(packed(b"ninechars"), None);
        let text = b"no way, yourself ok";
        assert_eq!(packed_in(text, 8, 16), packed(b"yourself"));
        assert_eq!(packed_in(text, 0, 2), packed(b"no"));
        assert_eq!(packed_in(text, 17, 19), packed(b"ok"));
        let list = ShortWords::new(&["no", "not", "don't"]).unwrap();
        assert!(list.contains_word(b"no") && list.contains_word(b"don't"));
        assert!(!list.contains_word(b"n") && !list.contains_word(b"nota"));
        assert!(!list.contains_word(b"") && !list.contains(0));
        assert!(list.contains(packed_in(text, 0, 2).unwrap_or(0)));
        assert!(list.contains_in(text, 0, 2) && !list.contains_in(text, 3, 6));
        assert!(ShortWords::new(&["ninechars"]).is_none());
        assert!(ShortWords::new(&[""]).is_none());
        // As many words as a table takes (some given twice): each found, nothing else.
        let many: Vec<String> = (0..200).map(|i| format!("w{i:03}")).collect();
        let words: Vec<&str> = many.iter().chain(&many[..56]).map(String::as_str).collect();
        let list = ShortWords::new(&words).unwrap();
        assert!(many.iter().all(|w| list.contains_word(w.as_bytes())));
        assert!(!list.contains_word(b"w200") && !list.contains_word(b"w00"));
        let more: Vec<&str> = many.iter().chain(&many[..57]).map(String::as_str).collect();
        assert!(ShortWords::new(&more).is_none());
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

    /// What [`by_characters`] reads: the lowercased text, the word spans, whether each
    /// word is in capitals, and the counts of `!`, `?` and characters.
    type Reading = (String, Vec<(u32, u32)>, Vec<bool>, [u32; 3]);

    /// The rules of [`Text`] read the plain way, one decoded character at a time, with
    /// each word's letters kept: the reference the byte-wise reading must match.
    fn by_characters(raw: &str) -> Reading {
        let chars: Vec<char> = raw.chars().collect();
        let (mut lower, mut spans, mut shouted) = (String::new(), Vec::new(), Vec::new());
        let mut word: Option<(usize, Vec<char>)> = None;
        let mut counts = [0, 0, chars.len() as u32];
        let mut close = |word: Option<(usize, Vec<char>)>, end: usize| {
            if let Some((start, letters)) = word {
                spans.push((start as u32, end as u32));
                shouted.push(letters.len() >= 2 && letters.iter().all(|l| l.is_uppercase()));
            }
        };
        for (i, &original) in chars.iter().enumerate() {
            let c = ascii_form(original).unwrap_or(original);
            counts[0] += u32::from(c == '!');
            counts[1] += u32::from(c == '?');
            // A Chinese or Japanese character is a word of its own.
            if one_word_per_character(c) {
                close(word.take(), lower.len());
                let start = lower.len();
                lower.push(c);
                close(Some((start, Vec::new())), lower.len());
                continue;
            }
            let next_is_word = chars
                .get(i + 1)
                .is_some_and(|&n| n.is_alphanumeric() && !one_word_per_character(n));
            if c.is_alphanumeric() || c == '\'' && word.is_some() && next_is_word {
                let (_, letters) = word.get_or_insert((lower.len(), Vec::new()));
                letters.extend(c.is_alphabetic().then_some(c));
            } else {
                close(word.take(), lower.len());
            }
            // Only capitals change ("ǅ", a title-case letter, stays as it is).
            if c.is_uppercase() {
                lower.extend(c.to_lowercase());
            } else {
                lower.push(c);
            }
        }
        close(word, lower.len());
        (lower, spans, shouted, counts)
    }

    /// Whether `t`, a reading of `raw`, is what [`by_characters`] reads: the same
    /// lowercase, words, capitals and counts.
    fn reads_as_by_characters(
        t: &Text,
        raw: &str,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let (lower, spans, shouted, counts) = by_characters(raw);
        proptest::prop_assert_eq!(&t.lower, &lower);
        proptest::prop_assert_eq!(&t.spans, &spans);
        proptest::prop_assert_eq!(&t.shouted, &shouted);
        proptest::prop_assert_eq!([t.exclamations, t.questions, t.chars], counts);
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn unicode_path_reads_as_character_by_character(
            raw in proptest::prop_oneof![
                "[a-zA-Z0-9 '!?.,\\-’‘éÉİıǅßΣς😡\u{301}？！，、。؟،]{0,60}",
                "\\PC{0,40}",
                "[订单还没到ありがとうｶﾅ주문 ok'’!?？！，。 ]{0,40}",
            ],
        ) {
            reads_as_by_characters(&unicode_path(&raw), &raw)?;
        }
    }

    #[test]
    fn chinese_and_japanese_characters_are_words_of_their_own() {
        let t = Text::new("订单12345还没到，OK吗？");
        assert_eq!(
            t.words().collect::<Vec<_>>(),
            ["订", "单", "12345", "还", "没", "到", "ok", "吗"]
        );
        assert_eq!((t.character_words, t.read_word_count()), (6, 2));
        assert!(t.ends_with_question);
        assert_eq!(
            t.shouted,
            [false, false, false, false, false, false, true, false]
        );
        // Kanji and kana alike; Korean keeps the words its spaces make.
        assert_eq!(Text::new("注文がまだ届きません").word_count(), 10);
        assert_eq!(Text::new("ｶﾀｶﾅ").word_count(), 4);
        let t = Text::new("주문이 아직 안 왔어요");
        assert_eq!(
            t.words().collect::<Vec<_>>(),
            ["주문이", "아직", "안", "왔어요"]
        );
        assert_eq!((t.character_words, t.read_word_count()), (0, 4));
        // A Latin word beside them ends where they start, and an apostrophe joins none
        // of them to it.
        let t = Text::new("ok谢谢 it's 好'的");
        assert!(t.on_word_boundaries(0, 2));
        assert_eq!(
            t.words().collect::<Vec<_>>(),
            ["ok", "谢", "谢", "it's", "好", "的"]
        );
    }

    #[test]
    fn other_scripts_marks_read_as_ascii_ones() {
        // Chinese: full-width question and exclamation marks, an ideographic comma.
        let t = Text::new("订单在哪里？我等了三天了！！");
        assert_eq!((t.questions, t.exclamations), (1, 2));
        assert!(!t.ends_with_question);
        assert_eq!(t.lower, "订单在哪里?我等了三天了!!");
        let t = Text::new("还没到吗？ ");
        assert!(t.ends_with_question);
        assert_eq!(t.chars, 6);
        // Arabic: its question mark and comma.
        let t = Text::new("أين طلبي، من فضلك؟");
        assert_eq!(t.questions, 1);
        assert!(t.ends_with_question);
        assert!(t.lower.contains(',') && t.lower.ends_with('?'));
        // The character path (a capital whose lowercase changes length) reads them too.
        let t = Text::new("İ？");
        assert_eq!((t.questions, t.ends_with_question), (1, true));
        // Everything else stays as written.
        assert_eq!(ascii_form('¿'), None);
        assert_eq!(ascii_form('a'), None);
        assert_eq!(Text::new("¿qué?").questions, 1);
    }

    #[test]
    fn unicode_words_apostrophes_and_capitals() {
        let t = Text::new("İ DON’T ǅ get it’ CAFÉ’s 😡 ok");
        assert_eq!(t.lower, "i\u{307} don't ǅ get it' café's 😡 ok");
        assert_eq!(
            t.words().collect::<Vec<_>>(),
            ["i\u{307}", "don't", "ǅ", "get", "it", "café's", "ok"]
        );
        assert_eq!(t.shouted, [false, true, false, false, false, false, false]);
        assert_eq!(t.chars, 29);
    }

    /// Whether `fast` (read off the masks) and `slow` (read character by character) of
    /// the same text find the same word boundaries on every range of whole characters.
    fn same_boundaries(
        fast: &Text,
        slow: &Text,
    ) -> Result<(), proptest::test_runner::TestCaseError> {
        let lower = &fast.lower;
        for start in (0..=lower.len()).filter(|&i| lower.is_char_boundary(i)) {
            for end in (start..=lower.len()).filter(|&i| lower.is_char_boundary(i)) {
                proptest::prop_assert_eq!(
                    fast.on_word_boundaries(start, end),
                    slow.on_word_boundaries(start, end),
                    "{:?} {}..{}",
                    lower,
                    start,
                    end
                );
            }
        }
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn texts_read_as_ascii_does_unless_a_capital_changes_length(
            raw in proptest::prop_oneof![
                "[a-zA-Z0-9 '!?.,\\-’‘“”—…😡©€\u{a0}\u{301}éüßςǅ²½ñøı]{0,80}",
                "[a-zA-Z0-9 '’!?éÉİΣ？！，、。؟،؛：；．好吗]{0,40}",
                "[a-zA-Z '’!?.éÉÜüÀÇΣσςΩЖжⅧⓐⒶǅẞİ\u{212a}\u{301}😡]{0,60}",
            ],
        ) {
            let fast = Text::new(&raw);
            reads_as_by_characters(&fast, &raw)?;
            // Read off the masks (the boundary bits exist) unless a capital whose
            // lowercase changes length, or a character that is a word of its own, sent
            // it character by character, with the same boundaries.
            let slow = raw.chars().any(|c| {
                !c.is_ascii() && c.is_uppercase() && same_length_lowercase(c).is_none()
                    || one_word_per_character(c)
            });
            proptest::prop_assert_eq!(fast.alnum.is_empty(), slow || raw.is_empty());
            same_boundaries(&fast, &unicode_path(&raw))?;
        }
    }

    #[test]
    fn only_capitals_whose_lowercase_changes_length_go_character_by_character() {
        // Quotes, dashes, emoji, small accented letters: read off the masks.
        let t = Text::new("DON’T “fix” the café’s ²nd één — 😡 NOW!!");
        assert_eq!(t.lower, "don't “fix” the café's ²nd één — 😡 now!!");
        assert_eq!(
            t.words().collect::<Vec<_>>(),
            ["don't", "fix", "the", "café's", "²nd", "één", "now"]
        );
        assert_eq!(t.shouted, [true, false, false, false, false, false, true]);
        assert_eq!((t.chars, t.exclamations), (40, 2));
        assert!(!t.alnum.is_empty());
        // A title-case letter is no capital; a capital outside ASCII is read off the
        // masks too, written in lowercase and counted as one capital letter.
        for raw in ["ǅ", "CAFÉ", "Ⅷ", "Σ", "ЖУК", "Ⓐ"] {
            assert!(!Text::new(raw).alnum.is_empty(), "{raw}");
        }
        let t = Text::new("CAFÉ ÜBER Éa ÉÉ É ЖУК ok");
        assert_eq!(t.lower, "café über éa éé é жук ok");
        assert_eq!(t.shouted, [true, true, false, true, false, true, false]);
        assert!(!t.alnum.is_empty());
        // Unless its lowercase changes length: İ (i and a combining dot), ẞ (ß, two
        // bytes for three), the Kelvin sign (k, one byte).
        for raw in ["İ", "ẞ", "\u{212a}", "CAFÉ İ"] {
            assert!(Text::new(raw).alnum.is_empty(), "{raw}");
        }
    }

    proptest::proptest! {
        #[test]
        fn ascii_fast_path_agrees_with_the_unicode_path(raw in "[ -~\\t\\n]{0,200}") {
            let fast = Text::new(&raw);
            let slow = unicode_path(&raw);
            proptest::prop_assert_eq!(&fast.lower, &slow.lower);
            proptest::prop_assert_eq!(&fast.spans, &slow.spans);
            proptest::prop_assert_eq!(&fast.shouted, &slow.shouted);
            proptest::prop_assert_eq!(
                (fast.exclamations, fast.questions, fast.chars),
                (slow.exclamations, slow.questions, slow.chars)
            );
            // Boundaries read off the bits agree with the character test, everywhere.
            proptest::prop_assert!(!fast.alnum.is_empty() || raw.is_empty());
            proptest::prop_assert!(slow.alnum.is_empty());
            same_boundaries(&fast, &slow)?;
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
