//! Affect: how positive or negative one turn's text reads, from a valence lexicon.
//!
//! Word and emoticon valences come from the VADER 3.3.2 lexicon (C.J. Hutto, MIT licence;
//! see `core/lexicons/`). The emoji valences, the modifier lists and the rules below are
//! Undertone's own:
//!
//! - every word (or listed phrase) found in the lexicon contributes its valence;
//! - an intensifier or dampener among the three previous words of the same clause adds to or
//!   takes from the magnitude, less the further away it is;
//! - a word written in capitals inside otherwise lower-case text gains magnitude;
//! - a negator among the three previous words of the same clause flips the sign and damps;
//! - with "but" or "however", what comes before counts half and what comes after counts
//!   one and a half;
//! - emoticons (whitespace-separated tokens) and emoji add their own valence;
//! - exclamation marks (up to four) push the sum further in its direction;
//! - the sum is squashed into `[-1, 1]` with `x / sqrt(x² + 15)`.
//!
//! A clause ends at `. , ; : ! ?` or a line break: a negator does not reach across it.

use std::sync::LazyLock;

use rustc_hash::FxHashMap;

use super::text::Text;

const VADER_VALENCE: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/vader_valence.tsv"));
const MODIFIERS: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/affect_modifiers.tsv"));
const EMOJI_VALENCE: &str =
    crate::data_file::data_file!(include_bytes!("../../lexicons/emoji_valence.tsv"));

/// Factor applied to a negated valence: flips the sign and damps.
const NEGATION: f64 = -0.74;
/// Magnitude added to a word written in capitals inside mixed-case text.
const SHOUT: f64 = 0.733;
/// Emphasis added to the sum per exclamation mark.
const EXCLAMATION: f64 = 0.292;
/// Exclamation marks beyond this many add nothing.
const MAX_EXCLAMATIONS: u32 = 4;
/// Weight of sentiment before the last contrast word.
const BEFORE_CONTRAST: f64 = 0.5;
/// Weight of sentiment after the last contrast word.
const AFTER_CONTRAST: f64 = 1.5;
/// How many previous words a modifier reaches.
const REACH: usize = 3;
/// Weight of an intensifier one, two and three words back.
const DECAY: [f64; REACH] = [1.0, 0.95, 0.9];
/// Normalisation constant of the compound score.
const ALPHA: f64 = 15.0;
/// Emoticons and emoji counted per turn; more add nothing.
const MAX_EXTRAS: usize = 32;
/// Emoticons made partly of letters whose words are not also scored as words.
const MAX_COVERED: usize = 8;

/// Affect of one text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Affect {
    /// Overall valence, in `[-1, 1]`; 0 when nothing in the text carries sentiment.
    pub compound: f64,
    /// Share of the text's mass that is positive, in `[0, 1]`.
    pub positive: f64,
    /// Share of the text's mass that is negative, in `[0, 1]`.
    pub negative: f64,
    /// Lexicon key of the most negative contribution and that contribution after modifiers.
    pub strongest_negative: Option<(&'static str, f64)>,
    /// Lexicon key of the most positive contribution and that contribution after modifiers.
    pub strongest_positive: Option<(&'static str, f64)>,
}

/// What a word does to the words after it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Plain,
    /// Adds this much magnitude to a following sentiment word (negative: dampens).
    Boost(f64),
    Negate,
    Contrast,
    /// Carries no sentiment even if the lexicon gives one ("would like").
    Neutral,
}

/// A word or phrase of the lexicons.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: &'static str,
    /// Valence from the lexicon; meaningful only when `lexical`.
    valence: f64,
    lexical: bool,
    role: Role,
    /// Range in `Lexicon::phrases` of the phrases starting with this word.
    phrases: (u32, u32),
}

impl Entry {
    fn new(key: &'static str) -> Entry {
        Entry {
            key,
            valence: 0.0,
            lexical: false,
            role: Role::Plain,
            phrases: (0, 0),
        }
    }
}

/// A phrase of several words, matched against consecutive words.
#[derive(Debug)]
struct Phrase {
    words: Box<[&'static str]>,
    entry: Entry,
}

struct Lexicon {
    /// Single words, keyed as `Text` splits them.
    words: FxHashMap<&'static str, Entry>,
    /// Phrases, grouped by first word, longest first within a group.
    phrases: Vec<Phrase>,
    /// Valences of lexicon phrases, for `valence`.
    phrase_valence: FxHashMap<&'static str, f64>,
    /// Keys and valences of emoticons and emoji, indexed by the two maps below.
    extras: Vec<(&'static str, f64)>,
    /// Emoticons and other tokens matched as whole whitespace-separated tokens.
    emoticons: FxHashMap<&'static str, u32>,
    /// Emoji by their first character.
    emoji: FxHashMap<char, u32>,
    /// Class bits of each byte: `SPACE`, `BREAK`, `EMOTICON`, `NON_ASCII` and `TRIM`.
    class: [u8; 256],
    /// Longest emoticon, in bytes.
    max_emoticon_len: usize,
}

static LEXICON: LazyLock<Lexicon> = LazyLock::new(Lexicon::build);

/// Byte class: ASCII whitespace.
const SPACE: u8 = 1;
/// Byte class: ends a clause (`. , ; : ! ?` or a line break).
const BREAK: u8 = 2;
/// Byte class: a non-word ASCII byte, other than `TRIM`, that occurs in some emoticon.
const EMOTICON: u8 = 4;
/// Byte class: part of a non-ASCII character.
const NON_ASCII: u8 = 8;
/// Byte class: sentence punctuation trimmed from the end of a token (`. , ! ?`).
const TRIM: u8 = 16;

/// Data lines of a TSV file: skips blank lines and `#` comments.
fn data_lines(tsv: &'static str) -> impl Iterator<Item = Vec<&'static str>> {
    tsv.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
}

fn parse_valence(field: Option<&&str>, line: &[&str]) -> f64 {
    field
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("bad valence in lexicon line {line:?}"))
}

/// Whether `s` is one word as `Text` splits words.
fn is_word(s: &str) -> bool {
    let mut prev_apostrophe = true;
    for c in s.chars() {
        if c == '\'' {
            if prev_apostrophe {
                return false;
            }
            prev_apostrophe = true;
        } else if c.is_alphanumeric() {
            prev_apostrophe = false;
        } else {
            return false;
        }
    }
    !prev_apostrophe
}

/// Splits a lexicon key into the words of a phrase ("can't stand", "cover-up"), if it is one.
fn phrase_words(s: &'static str) -> Option<Box<[&'static str]>> {
    let words: Box<[&'static str]> = s.split([' ', '-']).collect();
    let letters = |w: &str| is_word(w) && w.chars().all(|c| c.is_alphabetic() || c == '\'');
    let ok = words.len() >= 2
        && words.iter().all(|w| letters(w))
        && words[0].len() >= 2
        && words[words.len() - 1].len() >= 2;
    ok.then_some(words)
}

fn is_emoji_char(c: char) -> bool {
    matches!(c as u32, 0x2190..=0x2BFF | 0x1F000..=0x1FAFF)
}

impl Lexicon {
    fn build() -> Lexicon {
        let mut lex = Lexicon {
            words: FxHashMap::default(),
            phrases: Vec::new(),
            phrase_valence: FxHashMap::default(),
            extras: Vec::new(),
            emoticons: FxHashMap::default(),
            emoji: FxHashMap::default(),
            class: [0; 256],
            max_emoticon_len: 0,
        };
        let mut phrases: Vec<Phrase> = Vec::new();

        for line in data_lines(VADER_VALENCE) {
            let key = line[0];
            let valence = parse_valence(line.get(1), &line);
            if is_word(key) {
                let e = lex.words.entry(key).or_insert_with(|| Entry::new(key));
                e.valence = valence;
                e.lexical = true;
            } else if let Some(words) = phrase_words(key) {
                lex.phrase_valence.insert(key, valence);
                let mut entry = Entry::new(key);
                entry.valence = valence;
                entry.lexical = true;
                phrases.push(Phrase { words, entry });
            } else {
                let id = lex.extras.len() as u32;
                lex.extras.push((key, valence));
                lex.emoticons.insert(key, id);
            }
        }

        for line in data_lines(MODIFIERS) {
            let key = line[0];
            let role = match line.get(1).copied() {
                Some("boost") => Role::Boost(parse_valence(line.get(2), &line)),
                Some("negate") => Role::Negate,
                Some("contrast") => Role::Contrast,
                Some("neutral") => Role::Neutral,
                _ => panic!("bad modifier line {line:?}"),
            };
            if is_word(key) {
                lex.words.entry(key).or_insert_with(|| Entry::new(key)).role = role;
            } else {
                let words: Box<[&'static str]> = key.split(' ').collect();
                assert!(
                    words.len() >= 2 && words.iter().all(|w| is_word(w)),
                    "bad modifier phrase {key:?}"
                );
                let mut entry = Entry::new(key);
                entry.role = role;
                phrases.push(Phrase { words, entry });
            }
        }

        for line in data_lines(EMOJI_VALENCE) {
            let key = line[0];
            let valence = parse_valence(line.get(1), &line);
            let id = lex.extras.len() as u32;
            lex.extras.push((key, valence));
            let mut chars = key.chars().filter(|&c| c != '\u{FE0F}');
            match (chars.next(), chars.next()) {
                (Some(c), None) if is_emoji_char(c) => {
                    lex.emoji.insert(c, id);
                }
                _ => {
                    lex.emoticons.entry(key).or_insert(id);
                }
            }
        }

        // Phrases: grouped by first word, longest first, indexed from the first word's entry.
        phrases.sort_by(|a, b| {
            a.words[0]
                .cmp(b.words[0])
                .then(b.words.len().cmp(&a.words.len()))
        });
        let mut start = 0;
        while start < phrases.len() {
            let first = phrases[start].words[0];
            let end = start + phrases[start..].partition_point(|p| p.words[0] == first);
            lex.words
                .entry(first)
                .or_insert_with(|| Entry::new(first))
                .phrases = (start as u32, end as u32);
            start = end;
        }
        lex.phrases = phrases;

        // Contractions ending in "n't" negate even when listed only as a phrase start.
        for e in lex.words.values_mut() {
            if e.role == Role::Plain && e.key.ends_with("n't") {
                e.role = Role::Negate;
            }
        }

        for b in 0..=255u8 {
            let class = &mut lex.class[usize::from(b)];
            if b.is_ascii_whitespace() {
                *class |= SPACE;
            }
            if matches!(b, b'.' | b',' | b';' | b':' | b'!' | b'?' | b'\n') {
                *class |= BREAK;
            }
            if !b.is_ascii() {
                *class |= NON_ASCII;
            }
            if matches!(b, b'.' | b',' | b'!' | b'?') {
                *class |= TRIM;
            }
        }
        for key in lex.emoticons.keys() {
            lex.max_emoticon_len = lex.max_emoticon_len.max(key.len());
            for b in key.bytes() {
                let class = &mut lex.class[usize::from(b)];
                if b.is_ascii()
                    && !b.is_ascii_alphanumeric()
                    && b != b'\''
                    && *class & (TRIM | SPACE) == 0
                {
                    *class |= EMOTICON;
                }
            }
        }
        lex
    }

    /// Union of the classes of the bytes in `bytes`.
    fn classes(&self, bytes: &[u8]) -> u8 {
        bytes
            .iter()
            .fold(0, |acc, &b| acc | self.class[usize::from(b)])
    }
}

/// Valence of one word in the lexicon, if present (used by other signals).
pub fn valence(word: &str) -> Option<f64> {
    let lex = &*LEXICON;
    if let Some(e) = lex.words.get(word) {
        return e.lexical.then_some(e.valence);
    }
    if let Some(&id) = lex.emoticons.get(word) {
        return Some(lex.extras[id as usize].1);
    }
    if word.contains([' ', '-'])
        && let Some(&v) = lex.phrase_valence.get(word)
    {
        return Some(v);
    }
    let mut chars = word.chars().filter(|&c| c != '\u{FE0F}');
    match (chars.next(), chars.next()) {
        (Some(c), None) => lex.emoji.get(&c).map(|&id| lex.extras[id as usize].1),
        _ => None,
    }
}

/// A word's entry in the lexicons (or none), as [`affect_with`] reads it: looked up
/// once per distinct word by `features::words`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lookup(Option<&'static Entry>);

impl Lookup {
    /// The entry of `word` (as [`Text`] lowercases it).
    pub fn of(word: &str) -> Lookup {
        Lookup(LEXICON.words.get(word))
    }
}

impl PartialEq for Lookup {
    /// Two lookups are equal when they found the same entry of the lexicon (one per
    /// word), or both found none.
    fn eq(&self, other: &Lookup) -> bool {
        match (self.0, other.0) {
            (Some(a), Some(b)) => std::ptr::eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for Lookup {}

/// Sentiment of one side of the last contrast word.
#[derive(Debug, Clone, Copy, Default)]
struct Side {
    sum: f64,
    positive: f64,
    positive_count: u32,
    negative: f64,
    negative_count: u32,
    strongest_positive: Option<(&'static str, f64)>,
    strongest_negative: Option<(&'static str, f64)>,
}

impl Side {
    fn add(&mut self, key: &'static str, c: f64) {
        self.sum += c;
        if c > 0.0 {
            self.positive += c;
            self.positive_count += 1;
            if self.strongest_positive.is_none_or(|(_, s)| c > s) {
                self.strongest_positive = Some((key, c));
            }
        } else if c < 0.0 {
            self.negative -= c;
            self.negative_count += 1;
            if self.strongest_negative.is_none_or(|(_, s)| c < s) {
                self.strongest_negative = Some((key, c));
            }
        }
    }

    fn absorb(&mut self, other: &Side) {
        self.sum += other.sum;
        self.positive += other.positive;
        self.positive_count += other.positive_count;
        self.negative += other.negative;
        self.negative_count += other.negative_count;
        if let Some((k, c)) = other.strongest_positive
            && self.strongest_positive.is_none_or(|(_, s)| c > s)
        {
            self.strongest_positive = Some((k, c));
        }
        if let Some((k, c)) = other.strongest_negative
            && self.strongest_negative.is_none_or(|(_, s)| c < s)
        {
            self.strongest_negative = Some((k, c));
        }
    }
}

/// The stronger of two weighted candidates, by magnitude.
fn stronger(
    a: Option<(&'static str, f64)>,
    wa: f64,
    b: Option<(&'static str, f64)>,
    wb: f64,
) -> Option<(&'static str, f64)> {
    let a = a.map(|(k, c)| (k, c * wa));
    let b = b.map(|(k, c)| (k, c * wb));
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.1.abs() > x.1.abs() { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// Byte range between word `i - 1` (or the start) and word `i` (or the end, for `i == n`).
fn gap(text: &Text, i: usize) -> (usize, usize) {
    let start = if i == 0 {
        0
    } else {
        text.spans[i - 1].1 as usize
    };
    let end = text
        .spans
        .get(i)
        .map_or(text.lower.len(), |&(s, _)| s as usize);
    (start, end)
}

/// Whether the text between word `i - 1` and word `i` ends a clause; `breaks` holds the
/// answers for the first 64 words.
fn clause_break(lex: &Lexicon, text: &Text, breaks: u64, i: usize) -> bool {
    if i < 64 {
        return breaks & (1 << i) != 0;
    }
    let (start, end) = gap(text, i);
    lex.classes(&text.lower.as_bytes()[start..end]) & BREAK != 0
}

/// Emoticons and emoji of a text, found in one scan of its whitespace-separated tokens.
#[derive(Default)]
struct Extras {
    /// Byte offset and index in `Lexicon::extras` of each.
    found: [(u32, u32); MAX_EXTRAS],
    len: usize,
    /// Byte ranges of emoticons containing letters or digits, whose words are skipped.
    covered: [(u32, u32); MAX_COVERED],
    covered_len: usize,
    /// Bit `i` set when the gap before word `i` ends a clause (first 64 words).
    breaks: u64,
}

impl Extras {
    /// Emoticons and emoji are made of bytes between words, so only the whitespace-separated
    /// tokens overlapping a gap that holds such bytes are examined.
    fn scan(lex: &Lexicon, text: &Text) -> Extras {
        let mut x = Extras::default();
        let lower = text.lower.as_str();
        let bytes = lower.as_bytes();
        let space = |b: u8| lex.class[usize::from(b)] & SPACE != 0;
        let mut examined = 0; // end of the last token examined
        for i in 0..=text.spans.len() {
            let (gap_start, gap_end) = gap(text, i);
            if gap_end - gap_start == 1 && bytes[gap_start] == b' ' {
                continue;
            }
            let mut classes = 0;
            for k in gap_start..gap_end {
                let class = lex.class[usize::from(bytes[k])];
                classes |= class;
                // Sentence punctuation is part of a token's core only when something other
                // than more of it follows ("o.o"), not at its end ("thanks,").
                if class & TRIM != 0 {
                    let next = bytes
                        .get(k + 1)
                        .map_or(SPACE, |&b| lex.class[usize::from(b)]);
                    if next & (SPACE | TRIM) == 0 {
                        classes |= EMOTICON;
                    }
                }
            }
            if i < 64 && classes & BREAK != 0 {
                x.breaks |= 1 << i;
            }
            if classes & (EMOTICON | NON_ASCII) == 0 || x.len == MAX_EXTRAS {
                continue;
            }
            let mut p = gap_start.max(examined);
            while p < gap_end && x.len < MAX_EXTRAS {
                if space(bytes[p]) {
                    p += 1;
                    continue;
                }
                let start = bytes[..p]
                    .iter()
                    .rposition(|&b| space(b))
                    .map_or(0, |k| k + 1);
                let end = bytes[p..]
                    .iter()
                    .position(|&b| space(b))
                    .map_or(bytes.len(), |k| p + k);
                x.token(lex, &lower[start..end], start);
                examined = end;
                p = end;
            }
        }
        x
    }

    /// Records the emoticon or the emoji in one whitespace-separated token.
    fn token(&mut self, lex: &Lexicon, token: &str, start: usize) {
        let core = token.trim_end_matches(['.', ',', '!', '?']);
        let classes = lex.classes(core.as_bytes());
        if classes & (EMOTICON | TRIM) != 0 && self.emoticon(lex, token, core, start) {
            return;
        }
        if classes & NON_ASCII != 0 {
            for (at, c) in core.char_indices() {
                if is_emoji_char(c)
                    && let Some(&id) = lex.emoji.get(&c)
                    && self.len < MAX_EXTRAS
                {
                    self.found[self.len] = ((start + at) as u32, id);
                    self.len += 1;
                }
            }
        }
    }

    /// Records `token` if it is an emoticon, with or without trailing sentence punctuation
    /// (`core` is the token without it).
    fn emoticon(&mut self, lex: &Lexicon, token: &str, core: &str, start: usize) -> bool {
        let hit = [token, core]
            .into_iter()
            .filter(|t| !t.is_empty() && t.len() <= lex.max_emoticon_len)
            .find_map(|t| lex.emoticons.get_key_value(t));
        let Some((&key, &id)) = hit else {
            return false;
        };
        self.found[self.len] = (start as u32, id);
        self.len += 1;
        if self.covered_len < MAX_COVERED && key.bytes().any(|b| b.is_ascii_alphanumeric()) {
            self.covered[self.covered_len] = (start as u32, (start + key.len()) as u32);
            self.covered_len += 1;
        }
        true
    }
}

/// Whether a sentiment word (or, with `boosts`, an intensifier) follows word `from` within
/// `reach` words of the same clause.
fn sentiment_ahead(
    lex: &Lexicon,
    text: &Text,
    lookup: &impl Fn(usize) -> Lookup,
    breaks: u64,
    from: usize,
    reach: usize,
    boosts: bool,
) -> bool {
    let end = text.spans.len().min(from + 1 + reach);
    for j in from + 1..end {
        if clause_break(lex, text, breaks, j) {
            return false;
        }
        if lookup(j).0.is_some_and(|e| {
            e.lexical && e.valence != 0.0 && e.role != Role::Neutral
                || boosts && matches!(e.role, Role::Boost(_))
        }) {
            return true;
        }
    }
    false
}

/// The phrase starting at word `i`, if any.
fn phrase_at<'a>(lex: &'a Lexicon, text: &Text, i: usize, entry: &Entry) -> Option<&'a Phrase> {
    let (start, end) = entry.phrases;
    lex.phrases[start as usize..end as usize].iter().find(|p| {
        i + p.words.len() <= text.spans.len()
            && p.words[1..]
                .iter()
                .enumerate()
                .all(|(k, w)| text.word(i + 1 + k) == *w)
    })
}

/// Whether capitals stand out: some words are written in capitals and some are not.
fn capitals_stand_out(text: &Text) -> bool {
    text.shouted.iter().any(|&s| s)
        && text.shouted.iter().enumerate().any(|(i, &s)| {
            !s && text
                .word(i)
                .chars()
                .filter(|c| c.is_alphabetic())
                .nth(1)
                .is_some()
        })
}

/// Scores the affect of one text.
pub fn affect(text: &Text) -> Affect {
    affect_with(text, |i| Lookup::of(text.word(i)))
}

/// [`affect`], with `lookup(i)` the [`Lookup`] of word `i` of `text`.
pub fn affect_with(text: &Text, lookup: impl Fn(usize) -> Lookup) -> Affect {
    let lex = &*LEXICON;
    let lower = text.lower.as_str();
    let n = text.spans.len();
    let extras = Extras::scan(lex, text);
    let capitals = capitals_stand_out(text);

    // Roles of the previous REACH words of this clause, most recent first.
    let mut recent = [Role::Plain; REACH];
    let push = |recent: &mut [Role; REACH], role: Role| {
        recent.copy_within(0..REACH - 1, 1);
        recent[0] = role;
    };
    let mut before = Side::default();
    let mut after = Side::default();
    let mut contrast_end: Option<u32> = None;
    // Words carrying sentiment, or part of an emoticon: the rest count as neutral mass.
    let mut sentiment_words = 0usize;
    let mut covered = extras.covered[..extras.covered_len].iter().peekable();

    let mut i = 0;
    while i < n {
        let (s, e) = text.spans[i];
        if i > 0 && clause_break(lex, text, extras.breaks, i) {
            recent = [Role::Plain; REACH];
        }
        while covered.next_if(|&&(_, ce)| ce <= s).is_some() {}
        if covered.peek().is_some_and(|&&(cs, _)| cs <= s) {
            sentiment_words += 1;
            push(&mut recent, Role::Plain);
            i += 1;
            continue;
        }
        let word = &lower[s as usize..e as usize];
        let Some(word_entry) = lookup(i).0 else {
            let role = if word.ends_with("n't") {
                Role::Negate
            } else {
                Role::Plain
            };
            push(&mut recent, role);
            i += 1;
            continue;
        };
        let (entry, len) = match phrase_at(lex, text, i, word_entry) {
            Some(p) => (&p.entry, p.words.len()),
            None => (word_entry, 1),
        };
        let last = i + len - 1;
        let shouted = capitals && text.shouted[i..=last].iter().any(|&s| s);

        // Own valence; a modifier that also has one (`no`, `super`) uses it only when no
        // sentiment word follows for it to modify.
        let own = entry.lexical && entry.valence != 0.0 && entry.role != Role::Neutral && {
            match entry.role {
                Role::Boost(_) => {
                    !sentiment_ahead(lex, text, &lookup, extras.breaks, last, 1, true)
                }
                Role::Negate => {
                    !sentiment_ahead(lex, text, &lookup, extras.breaks, last, REACH, false)
                }
                _ => true,
            }
        };
        if own {
            let v = entry.valence;
            let sign = v.signum();
            let mut magnitude = v.abs();
            let mut negations = 0;
            for (role, decay) in recent.iter().zip(DECAY) {
                match *role {
                    Role::Boost(b) => magnitude += b * decay,
                    Role::Negate => negations += 1,
                    _ => {}
                }
            }
            if shouted {
                magnitude += SHOUT;
            }
            let mut c = sign * magnitude.max(0.0);
            for _ in 0..negations {
                c *= NEGATION;
            }
            after.add(entry.key, c);
            sentiment_words += len;
        }

        match entry.role {
            Role::Contrast => {
                before.absorb(&after);
                after = Side::default();
                contrast_end = Some(text.spans[last].1);
                recent = [Role::Plain; REACH];
            }
            Role::Boost(b) if shouted => {
                push(&mut recent, Role::Boost(b + SHOUT.copysign(b)));
            }
            Role::Neutral => push(&mut recent, Role::Plain),
            role => push(&mut recent, role),
        }
        i = last + 1;
    }

    for &(at, id) in &extras.found[..extras.len] {
        let (key, v) = lex.extras[id as usize];
        let side = if contrast_end.is_some_and(|c| at < c) {
            &mut before
        } else {
            &mut after
        };
        side.add(key, v);
        sentiment_words += 1;
    }

    let (wb, wa) = if contrast_end.is_some() {
        (BEFORE_CONTRAST, AFTER_CONTRAST)
    } else {
        (1.0, 1.0)
    };
    let mut sum = wb * before.sum + wa * after.sum;
    let mut positive = wb * before.positive
        + wa * after.positive
        + f64::from(before.positive_count + after.positive_count);
    let mut negative = wb * before.negative
        + wa * after.negative
        + f64::from(before.negative_count + after.negative_count);
    let emphasis = f64::from(text.exclamations.min(MAX_EXCLAMATIONS)) * EXCLAMATION;
    if sum > 0.0 {
        sum += emphasis;
        positive += emphasis;
    } else if sum < 0.0 {
        sum -= emphasis;
        negative += emphasis;
    }
    let neutral = (n + extras.len).saturating_sub(sentiment_words) as f64;
    let total = positive + negative + neutral;
    let (positive, negative) = if total > 0.0 && (positive > 0.0 || negative > 0.0) {
        (positive / total, negative / total)
    } else {
        (0.0, 0.0)
    };
    Affect {
        compound: (sum / (sum * sum + ALPHA).sqrt()).clamp(-1.0, 1.0),
        positive,
        negative,
        strongest_negative: stronger(before.strongest_negative, wb, after.strongest_negative, wa),
        strongest_positive: stronger(before.strongest_positive, wb, after.strongest_positive, wa),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(s: &str) -> Affect {
        affect(&Text::new(s))
    }

    fn compound(s: &str) -> f64 {
        score(s).compound
    }

    #[test]
    fn good_is_positive() {
        let a = score("good");
        assert!((a.compound - 0.4404).abs() < 0.01, "{a:?}");
        assert_eq!(a.positive, 1.0);
        assert_eq!(a.negative, 0.0);
        assert_eq!(a.strongest_positive, Some(("good", 1.9)));
        assert_eq!(a.strongest_negative, None);
    }

    #[test]
    fn negation_flips_and_damps() {
        let a = score("not good");
        assert!(a.compound < -0.3, "{a:?}");
        assert_eq!(a.strongest_negative, Some(("good", 1.9 * NEGATION)));
        // Reaches three words back, within the clause only.
        assert!(compound("it is not really that good") < 0.0);
        assert!(compound("not at all a good idea") > 0.0);
        assert!(compound("no good") < 0.0);
        assert!(compound("No, it is good") > 0.0);
        assert!(compound("it doesn't help") < 0.0);
        assert!(compound("it doesnt help") < 0.0);
    }

    #[test]
    fn intensifier_and_dampener() {
        assert!(compound("very bad") < compound("bad") - 0.03);
        assert!(compound("slightly bad") > compound("bad") + 0.03);
        assert!(compound("slightly bad") < 0.0);
        assert!(compound("That's kind of annoying") > compound("That's annoying"));
        // Decays with distance.
        let near = score("very bad").strongest_negative.unwrap().1;
        let far = score("very very bad").strongest_negative.unwrap().1;
        assert!((near - (-2.5 - 0.29)).abs() < 1e-9);
        assert!((far - (-2.5 - 0.29 - 0.29 * 0.95)).abs() < 1e-9);
    }

    #[test]
    fn capitals_in_mixed_case_add_magnitude() {
        let caps = score("This is BAD, really");
        let plain = score("This is bad, really");
        assert!(caps.compound < plain.compound - 0.05, "{caps:?} {plain:?}");
        assert_eq!(caps.strongest_negative, Some(("bad", -2.5 - SHOUT)));
        // An all-capitals text gets no extra magnitude (shouting is its own signal).
        assert_eq!(compound("THIS IS BAD"), compound("this is bad"));
    }

    #[test]
    fn exclamations_add_emphasis_up_to_four() {
        assert!(compound("bad!!!") < compound("bad") - 0.1);
        assert!(compound("good!!!") > compound("good") + 0.1);
        assert_eq!(compound("bad!!!!!!!!"), compound("bad!!!!"));
        // No sentiment, no emphasis.
        assert_eq!(compound("hello!!!"), 0.0);
    }

    #[test]
    fn not_bad_is_not_negative() {
        let a = score("not bad");
        assert!(a.compound > 0.0, "{a:?}");
        assert_eq!(a.negative, 0.0);
    }

    #[test]
    fn contrast_weighs_the_second_clause() {
        let gb = score("The food was good but the service was horrible");
        assert!(gb.compound < -0.4, "{gb:?}");
        assert_eq!(
            gb.strongest_negative,
            Some(("horrible", -2.5 * AFTER_CONTRAST))
        );
        assert_eq!(gb.strongest_positive, Some(("good", 1.9 * BEFORE_CONTRAST)));
        let bg = score("The food was horrible but the service was good");
        assert!(bg.compound > 0.2, "{bg:?}");
        // Without the contrast word the horrible food wins.
        assert!(compound("The food was horrible and the service was good") < 0.0);
        // The contrast word also ends the reach of a negator.
        assert!(compound("not good but bad") < compound("bad"));
        // Emoji follow the same weighting by position.
        assert!(compound("🙂 however 😡") < compound("😡 however 🙂"));
    }

    #[test]
    fn emoji_and_emoticons() {
        assert!(compound("😡") < -0.5);
        assert!(compound("🙂") > 0.3);
        assert_eq!(score("ok 😡").strongest_negative, Some(("😡", -3.0)));
        // Skin tones and a missing variation selector do not matter.
        assert!(compound("👍🏽") > 0.3);
        assert_eq!(compound("❤"), compound("❤️"));
        assert!(compound("it broke again :(") < 0.0);
        assert!(compound("thanks :)") > compound("thanks"));
        assert!(compound("thanks :).") > compound("thanks"));
        assert!(compound("whatever -_-") < 0.0);
        // Sentence punctuation inside a token is part of it; at its end it is not.
        assert_eq!(score("o.o").strongest_negative, Some(("o.o", -0.8)));
        assert_eq!(score("ok, o.o!").strongest_negative, Some(("o.o", -0.8)));
        assert_eq!(compound("e.g. 3.5, etc."), 0.0);
        // ":l" is a negative emoticon; its letter is not also read as the word "l".
        assert!(compound(":l") < 0.0);
        assert_eq!(score("sweet<3").strongest_positive, Some(("sweet<3", 3.0)));
    }

    #[test]
    fn nothing_to_score() {
        for s in [
            "",
            "   ",
            "the order id is 12345",
            "?!",
            "when does it ship",
        ] {
            let a = score(s);
            assert_eq!(a, Affect::default(), "{s:?}");
        }
    }

    #[test]
    fn compound_stays_in_range_on_extreme_text() {
        let hate = "I HATE this horrible useless terrible awful bot!!!!!! ".repeat(50);
        let a = score(&hate);
        assert!(a.compound >= -1.0 && a.compound < -0.99, "{a:?}");
        let love = "love love LOVE amazing wonderful perfect 😍🥰❤️ ".repeat(50);
        let a = score(&love);
        assert!(a.compound <= 1.0 && a.compound > 0.99, "{a:?}");
        assert!(a.positive > 0.5 && a.positive <= 1.0);
    }

    #[test]
    fn strongest_negative_names_the_word() {
        let a = score("the refund process is horrible");
        assert_eq!(a.strongest_negative, Some(("horrible", -2.5)));
        assert_eq!(a.strongest_positive, None);
        let a = score("Great, but this is the worst service ever");
        assert_eq!(a.strongest_negative.map(|(k, _)| k), Some("worst"));
        assert_eq!(a.strongest_positive.map(|(k, _)| k), Some("great"));
    }

    #[test]
    fn shares_are_fractions_of_the_mass() {
        for s in [
            "The food was good but the service was horrible",
            "I hate this stupid bot",
            "Meh, it's okay I guess",
            "ok 😡 👍 thanks!!",
        ] {
            let a = score(s);
            assert!(a.positive >= 0.0 && a.negative >= 0.0, "{s:?} {a:?}");
            assert!(a.positive + a.negative <= 1.0 + 1e-12, "{s:?} {a:?}");
        }
        let a = score("the refund process is horrible");
        // VADER: neg 0.467 (one sentiment word, four neutral ones).
        assert!((a.negative - 0.467).abs() < 0.01, "{a:?}");
    }

    #[test]
    fn phrases_and_dual_words() {
        let a = score("I can't stand this");
        assert_eq!(a.strongest_negative, Some(("can't stand", -2.0)));
        assert!(compound("what a cover-up") < 0.0);
        // A polite request is not positive; liking something is.
        assert_eq!(compound("I would like a refund"), 0.0);
        assert_eq!(compound("I'd like a new address"), 0.0);
        assert!(compound("I like it") > 0.3);
        // "no" is negative alone and a negator before a sentiment word.
        assert!(compound("no") < 0.0);
        assert!(compound("no problem") > 0.2);
        assert!(compound("No thanks") < -0.2);
        // "super" is positive alone and an intensifier before a sentiment word.
        assert!(compound("super") > 0.5);
        assert_eq!(
            score("super helpful").strongest_positive,
            Some(("helpful", 1.8 + 0.29))
        );
        assert!(compound("lack of support") < 0.0);
    }

    /// Reference compounds from the VADER 3.3.2 Python package; our rules are our own, so
    /// only the sign and the rough magnitude must agree.
    #[test]
    fn close_to_reference_vader() {
        let cases = [
            ("good", 0.4404),
            ("not good", -0.3412),
            ("bad", -0.5423),
            ("very bad", -0.5849),
            ("This is BAD, really", -0.6408),
            ("bad!!!", -0.6571),
            ("not bad", 0.431),
            ("The food was good but the service was horrible", -0.5859),
            ("The food was horrible but the service was good", 0.3818),
            ("Thank you so much, that was really helpful!", 0.7082),
            ("This is useless. I want to talk to a human.", -0.3612),
            ("I am not happy with this at all", -0.4585),
            ("Great, that fixed it :)", 0.7964),
            ("I hate this stupid bot", -0.8271),
            ("ok thanks", 0.6249),
            ("No thanks", -0.3412),
            ("no problem", 0.3089),
            ("That's kind of annoying", -0.4576),
            ("Why is this so hard?", -0.2183),
            (
                "The update is absolutely terrible and I am extremely disappointed",
                -0.7774,
            ),
            ("Meh, it's okay I guess", 0.1531),
            ("You are wrong and this is frustrating", -0.7184),
        ];
        for (s, reference) in cases {
            let c = compound(s);
            assert_eq!(
                c.signum(),
                f64::signum(reference),
                "{s:?}: {c} vs {reference}"
            );
            assert!((c - reference).abs() <= 0.15, "{s:?}: {c} vs {reference}");
        }
    }

    #[test]
    fn valence_looks_up_the_lexicons() {
        assert_eq!(valence("good"), Some(1.9));
        assert_eq!(valence("horrible"), Some(-2.5));
        assert_eq!(valence(":("), Some(-1.9));
        assert_eq!(valence("can't stand"), Some(-2.0));
        assert_eq!(valence("🙂"), Some(1.5));
        assert_eq!(valence("❤"), Some(2.5));
        assert_eq!(valence("very"), None);
        assert_eq!(valence("would"), None);
        assert_eq!(valence("the"), None);
        assert_eq!(valence(""), None);
    }

    #[test]
    fn technical_words_carry_no_affect() {
        let a = affect(&Text::new("The parser throws an error on negative input"));
        assert_eq!(a.negative, 0.0, "{a:?}");
        assert_eq!(a.compound, 0.0, "{a:?}");
        // A feeling about the error still counts.
        assert!(affect(&Text::new("this error is so annoying")).compound < -0.3);
    }

    #[test]
    fn lexicons_parse_completely() {
        let lex = &*LEXICON;
        let lexical = lex.words.values().filter(|e| e.lexical).count();
        // 7,494 VADER tokens: words, a few phrases and the emoticons.
        let vader_phrases = lex.phrases.iter().filter(|p| p.entry.lexical).count();
        let emoji_file_emoticons = 12;
        assert_eq!(
            lexical + vader_phrases + lex.emoticons.len() - emoji_file_emoticons,
            7494
        );
        assert!(lex.emoji.len() >= 60);
        for key in lex.words.keys().chain(lex.emoticons.keys()) {
            assert_eq!(key.to_lowercase(), *key);
        }
        // Every emoticon is findable by the token scan: without trailing sentence
        // punctuation it still holds a non-word byte.
        for key in lex.emoticons.keys() {
            let core = key.trim_end_matches(['.', ',', '!', '?']);
            assert!(
                lex.classes(core.as_bytes()) & (EMOTICON | TRIM) != 0,
                "{key:?}"
            );
        }
        // Every phrase is indexed from its first word.
        for (k, p) in lex.phrases.iter().enumerate() {
            let (start, end) = lex.words[p.words[0]].phrases;
            assert!(
                (start as usize..end as usize).contains(&k),
                "{:?}",
                p.entry.key
            );
        }
        assert_eq!(lex.words["very"].role, Role::Boost(0.29));
        assert_eq!(lex.words["can't"].role, Role::Negate);
        assert_eq!(lex.words["however"].role, Role::Contrast);
    }

    fn in_range(s: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let a = score(s);
        proptest::prop_assert!((-1.0..=1.0).contains(&a.compound));
        proptest::prop_assert!((0.0..=1.0).contains(&a.positive));
        proptest::prop_assert!((0.0..=1.0).contains(&a.negative));
        proptest::prop_assert!(a.positive + a.negative <= 1.0 + 1e-9);
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn any_text_scores_in_range(s in "\\PC{0,80}") {
            in_range(&s)?;
        }

        #[test]
        fn emoticon_soup_scores_in_range(s in "[a-dxoBAD:;()<>3.,!? '_/^-]{0,40}") {
            in_range(&s)?;
        }
    }
}
