//! The learned reading of one human turn: calibrated probabilities of annoyance,
//! confusion, gratitude, giving up and correction, from its n-grams and lexicon features.
//!
//! Weights: `core/models/text.tsv`, written by `scripts/train-scorer` from GoEmotions,
//! CLINC150 and HWU64 (core/models/manifest.json names the data, splits and metrics).

use super::linear::{Linear, MAX_HEADS};
use crate::features::affect::Affect;
use crate::features::grams::Gram;
use crate::features::markers::{Category, Markers};
use crate::features::text::Text;

/// The human-turn marker categories the text model reads as dense features: the first
/// sixteen of [`Category::ALL`] (the rest are AI-turn categories).
pub const HUMAN_MARKERS: &[Category] = Category::ALL.split_at(16).0;

/// Names of the dense features, in the order [`dense`] writes them.
pub const DENSE: [&str; 23] = [
    "vader_negative",
    "vader_positive",
    "question",
    "repeated_question_marks",
    "exclamation",
    "shouting",
    "log_words",
    "marker:frustration",
    "marker:insult",
    "marker:escalation",
    "marker:repetition_claim",
    "marker:correction",
    "marker:problem_persists",
    "marker:verification",
    "marker:gratitude",
    "marker:resolution",
    "marker:dismissal",
    "marker:giving_up",
    "marker:delegation",
    "marker:self_efficacy",
    "marker:comprehension",
    "marker:acceptance",
    "marker:skipped_check",
];

/// The heads of the text model, in the model file's column order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Head {
    /// Anger, annoyance, disappointment, disapproval or disgust.
    Annoyance,
    /// Not understanding; asking to explain or repeat.
    Confusion,
    /// Thanks, relief or praise.
    Gratitude,
    /// Cancelling, stopping, not caring any more.
    GivingUp,
    /// Saying no; telling the assistant it got it wrong.
    Correction,
}

impl Head {
    /// Every head, in column order.
    pub const ALL: [Head; 5] = [
        Head::Annoyance,
        Head::Confusion,
        Head::Gratitude,
        Head::GivingUp,
        Head::Correction,
    ];

    /// The head's name in the model file and in evidence.
    pub fn as_str(self) -> &'static str {
        match self {
            Head::Annoyance => "annoyance",
            Head::Confusion => "confusion",
            Head::Gratitude => "gratitude",
            Head::GivingUp => "giving_up",
            Head::Correction => "correction",
        }
    }

    /// Column of the head.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Words of an n-gram in the lowercased text: a byte range of [`Text::lower`].
pub type Span = (u32, u32);

/// The learned reading of one turn.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Reading {
    /// Calibrated probability of each head, in [`Head::ALL`] order.
    pub p: [f64; Head::ALL.len()],
    /// Per head, the two n-grams that pushed it up most (byte ranges of the lowercased
    /// text; `(0, 0)` when none pushed it up).
    pub top: [[Span; 2]; Head::ALL.len()],
}

impl Reading {
    /// Calibrated probability of `head`.
    pub fn get(&self, head: Head) -> f64 {
        self.p[head.index()]
    }
}

/// The dense features of a human turn, in [`DENSE`] order.
pub fn dense(text: &Text, affect: &Affect, markers: &Markers) -> [f64; DENSE.len()] {
    let mut d = [0.0; DENSE.len()];
    d[0] = (-affect.compound).max(0.0);
    d[1] = affect.compound.max(0.0);
    d[2] = f64::from(u8::from(text.ends_with_question));
    d[3] = f64::from(u8::from(text.lower.contains("??")));
    d[4] = (f64::from(text.exclamations) / 3.0).min(1.0);
    d[5] = text.shouting_share();
    d[6] = (1.0 + text.read_word_count() as f64).ln() / 64f64.ln();
    for (k, c) in HUMAN_MARKERS.iter().enumerate() {
        d[7 + k] = markers.get(*c);
    }
    d
}

/// Reads one human turn with `model`, from its n-grams (each carrying `value`, as
/// [`crate::features::grams::grams`] returns them) and its [`dense`] features.
pub fn read(model: &Linear, text: &Text, grams: &[Gram], value: f64, dense: &[f64]) -> Reading {
    const H: usize = Head::ALL.len();
    let mut push = model.dense_push(dense);
    // Each bucket's row is looked up once, for the sums and for the two n-grams that
    // pushed each head up most. Those are kept as integer keys (below) compared with
    // `max` and `min`, which take no branch: whether a weight beats the best so far is
    // as good as random to the processor.
    let mut best: Best = [[0u64; 2]; H];
    // Close to half of a turn's n-grams are in no bucket the model weighs (116 262 of
    // the 259 259 of the first 5 000 bench messages). Their zeros would add nothing
    // (a sum never becomes -0, so adding ±0 leaves it as it is) and never rank, so each
    // block of n-grams is first narrowed to those with weights, without a branch per
    // n-gram, and only those are read.
    for (block, chunk) in grams.chunks(BLOCK).enumerate() {
        let mut kept = [(0u32, 0u32); BLOCK];
        let mut n = 0;
        for (k, g) in chunk.iter().enumerate() {
            let row = model.row_of(g.bucket);
            kept[n] = ((block * BLOCK + k) as u32, row);
            n += usize::from(row != 0);
        }
        for &(k, row) in &kept[..n] {
            let row = model.row(row);
            for h in 0..H {
                let w = row[h];
                push[h] += f64::from(w) * value;
                let key = strength_key(w, k as usize);
                let [first, second] = best[h];
                best[h] = [first.max(key), second.max(first.min(key))];
            }
        }
    }
    reading(model, text, grams, push, best)
}

/// The sum of each head's pushes in [`read`] (the dense features' and the n-grams').
type Sums = [f64; MAX_HEADS];
/// Per head, the keys ([`strength_key`]) of the two n-grams that pushed it up most.
type Best = [[u64; 2]; Head::ALL.len()];

/// The reading from the sums and strongest n-grams of [`read`]: each head's calibrated
/// probability, and its n-grams as byte ranges of the lowercased text.
fn reading(model: &Linear, text: &Text, grams: &[Gram], push: Sums, best: Best) -> Reading {
    let mut r = Reading::default();
    let bias = model.bias();
    for h in Head::ALL {
        let k = h.index();
        r.p[k] = model.probability(k, bias[k] + push[k]);
        for (slot, &key) in r.top[k].iter_mut().zip(&best[k]) {
            if key != 0 {
                let g = grams[(!key as u32) as usize];
                *slot = (
                    text.spans[g.first as usize].0,
                    text.spans[g.last as usize].1,
                );
            }
        }
        if r.top[k][1] == r.top[k][0] {
            r.top[k][1] = (0, 0);
        }
    }
    r
}

/// N-grams narrowed to those with weights at a time (see [`read`]).
const BLOCK: usize = 64;

/// The rank of n-gram `k` pushing a head up by weight `w`: ordered as the weights are
/// (the bits of a positive float order as its value), the earlier n-gram first among
/// equal weights, and 0 when `w` does not push up at all.
fn strength_key(w: f32, k: usize) -> u64 {
    let key = (u64::from(w.to_bits()) << 32) | u64::from(!(k as u32));
    key & 0u64.wrapping_sub(u64::from(w > 0.0))
}

/// Reads one text on its own (no conversation around it) with the compiled-in model:
/// what the text model says of it.
pub fn read_text(text: &str) -> Reading {
    let t = Text::new(text);
    let markers = Markers::find(&t);
    let a = crate::features::affect::affect(&t);
    let mut buf = Vec::new();
    let value = crate::features::grams::grams(&t, crate::features::grams::Source::Human, &mut buf);
    read(&super::TEXT, &t, &buf, value, &dense(&t, &a, &markers))
}

/// Most heads any model may have, checked against this model's heads when it loads.
pub const _HEADS_FIT: () = assert!(Head::ALL.len() <= MAX_HEADS);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::affect::affect;
    use crate::features::grams::{Source, grams};

    /// [`read`] as it was before n-grams without weights were skipped: every n-gram
    /// read, zeros included.
    fn read_every_gram(text: &Text) -> Reading {
        let model = &*crate::model::TEXT;
        let markers = Markers::find(text);
        let mut buf = Vec::new();
        let value = grams(text, Source::Human, &mut buf);
        let mut push = model.dense_push(&dense(text, &affect(text), &markers));
        let mut best: Best = [[0u64; 2]; Head::ALL.len()];
        for (k, g) in buf.iter().enumerate() {
            let row = model.weights(g.bucket);
            for h in 0..Head::ALL.len() {
                push[h] += f64::from(row[h]) * value;
                let key = strength_key(row[h], k);
                let [first, second] = best[h];
                best[h] = [first.max(key), second.max(first.min(key))];
            }
        }
        reading(model, text, &buf, push, best)
    }

    #[test]
    fn skipping_n_grams_without_weights_reads_the_same() {
        let mut texts: Vec<String> = [
            "",
            "thanks, that fixed it!",
            "This is useless. I asked for a refund three times and nobody answers.",
            "what do you mean by escrow? i don't get it",
            "cancel my subscription, forget it, I give up",
            "No, that's wrong. The invoice says 40, not 14.",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Longer than one block of n-grams (64), so that positions cross blocks.
        texts.push("not working again and again, still broken, why is this so slow ".repeat(12));
        for text in &texts {
            let t = Text::new(text);
            assert_eq!(read_text(text), read_every_gram(&t), "{text}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_reads_as_with_every_n_gram(
            words in proptest::collection::vec(
                proptest::sample::select(vec![
                    "not", "working", "thanks", "great", "why", "refund", "useless",
                    "cancel", "i", "don't", "understand", "again", "?", "!", "wrong",
                    "no", "help", "please", "the", "it",
                ]),
                0..160,
            )
        ) {
            let text = words.join(" ");
            proptest::prop_assert_eq!(read_text(&text), read_every_gram(&Text::new(&text)));
        }
    }

    #[test]
    fn strength_keys_order_as_the_weights_then_the_earlier_n_gram() {
        // Larger weights rank higher, whatever their position.
        assert!(strength_key(0.5, 9) > strength_key(0.25, 0));
        assert!(strength_key(3.0e-7, 0) > strength_key(1.0e-7, 0));
        // Among equal weights the earlier n-gram ranks higher.
        assert!(strength_key(0.5, 1) > strength_key(0.5, 2));
        // A weight that does not push up never ranks.
        for w in [0.0, -0.0, -0.5, f32::NEG_INFINITY] {
            assert_eq!(strength_key(w, 3), 0, "{w}");
        }
        assert!(strength_key(f32::MIN_POSITIVE, u32::MAX as usize) > 0);
        // The n-gram comes back from its key.
        let key = strength_key(0.75, 41);
        assert_eq!(!(key as u32), 41);
        assert_eq!(f32::from_bits((key >> 32) as u32), 0.75);
    }
}
