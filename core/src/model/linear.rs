//! Linear heads over hashed n-grams and named dense features, read from a model file.
//!
//! A model file (written by `scripts/train-scorer`, never by hand) is tab-separated:
//!
//! ```text
//! # comment lines
//! heads   annoyance   confusion          names of the heads, in column order
//! scale   10000                          every weight below is an integer / scale
//! bias    -21234      -30112             intercept per head
//! platt_a 10000       9871               calibration: p = σ(a·logit + b), per head
//! platt_b 0           -312
//! dense   vader_negative  1234  -15      weight of a named dense feature, per head
//! 1234    -12         300                weight of hash bucket 1234, per head
//! ```
//!
//! The dense feature names must be exactly the ones the reading code computes, in any
//! order: an unknown or missing name is an error, so model and code cannot drift apart.

use crate::features::grams::BUCKETS;

/// Most heads a model may have.
pub const MAX_HEADS: usize = 8;

/// A parsed model file.
#[derive(Debug)]
pub struct Linear {
    heads: Vec<&'static str>,
    bias: [f64; MAX_HEADS],
    platt: [(f64, f64); MAX_HEADS],
    /// Dense weights, `[feature][head]`, in the order of the code's feature names.
    dense: Vec<[f64; MAX_HEADS]>,
    /// Per bucket: its row in `rows`; 0, the row of zeros, when the model has no weight
    /// for it. Every bucket has a row, so reading one takes no branch (whether a word
    /// is in the model is as good as random to the processor).
    index: Vec<u32>,
    /// Bucket weights: a row of zeros, then one row per kept bucket.
    rows: Vec<[f32; MAX_HEADS]>,
}

/// Why a model file could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("model file line {line}: {message}")]
pub struct ModelError {
    /// 1-based line number (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> ModelError {
    ModelError {
        line,
        message: message.into(),
    }
}

impl Linear {
    /// Parses `source`; `dense_names` are the dense features the code computes.
    pub fn parse(source: &'static str, dense_names: &[&str]) -> Result<Linear, ModelError> {
        let mut heads: Vec<&'static str> = Vec::new();
        let mut scale = 0.0f64;
        let mut model = Linear {
            heads: Vec::new(),
            bias: [0.0; MAX_HEADS],
            platt: [(1.0, 0.0); MAX_HEADS],
            dense: vec![[0.0; MAX_HEADS]; dense_names.len()],
            index: vec![0; BUCKETS],
            rows: vec![[0.0; MAX_HEADS]],
        };
        let mut seen_dense = vec![false; dense_names.len()];
        let (mut platt_a, mut platt_b) = (false, false);
        for (n, line) in source.lines().enumerate() {
            let n = n + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut cols = line.split('\t');
            let kind = cols.next().unwrap_or("");
            if kind == "heads" {
                heads = cols.collect();
                if heads.is_empty() || heads.len() > MAX_HEADS {
                    return Err(err(n, format!("1 to {MAX_HEADS} heads expected")));
                }
                continue;
            }
            if kind == "scale" {
                scale = cols
                    .next()
                    .and_then(|s| s.parse::<f64>().ok())
                    .filter(|s| *s > 0.0)
                    .ok_or_else(|| err(n, "scale must be a positive number"))?;
                continue;
            }
            if heads.is_empty() || scale == 0.0 {
                return Err(err(n, "`heads` and `scale` must come first"));
            }
            // A line that starts with a number holds the weights of that hash bucket.
            let (kind, key) = match kind {
                "dense" => (
                    "dense",
                    Some(cols.next().ok_or_else(|| err(n, "name missing"))?),
                ),
                k if k.starts_with(|c: char| c.is_ascii_digit()) => ("gram", Some(k)),
                k => (k, None),
            };
            let mut w = [0.0f64; MAX_HEADS];
            let mut count = 0;
            for (k, c) in cols.enumerate() {
                if k >= heads.len() {
                    return Err(err(n, "more weights than heads"));
                }
                let v: i64 = c
                    .parse()
                    .map_err(|_| err(n, format!("`{c}` is not an integer weight")))?;
                w[k] = v as f64 / scale;
                count += 1;
            }
            if count != heads.len() {
                return Err(err(n, format!("{} weights expected", heads.len())));
            }
            match (kind, key) {
                ("bias", _) => model.bias = w,
                ("platt_a", _) => {
                    platt_a = true;
                    for (p, a) in model.platt.iter_mut().zip(w) {
                        p.0 = a;
                    }
                }
                ("platt_b", _) => {
                    platt_b = true;
                    for (p, b) in model.platt.iter_mut().zip(w) {
                        p.1 = b;
                    }
                }
                ("dense", Some(name)) => {
                    let i = dense_names
                        .iter()
                        .position(|d| *d == name)
                        .ok_or_else(|| err(n, format!("unknown dense feature `{name}`")))?;
                    if seen_dense[i] {
                        return Err(err(n, format!("dense feature `{name}` given twice")));
                    }
                    seen_dense[i] = true;
                    model.dense[i] = w;
                }
                ("gram", Some(bucket)) => {
                    let b: usize = bucket
                        .parse()
                        .ok()
                        .filter(|b| *b < BUCKETS)
                        .ok_or_else(|| err(n, format!("bucket `{bucket}` out of range")))?;
                    if model.index[b] != 0 {
                        return Err(err(n, format!("bucket {b} given twice")));
                    }
                    let mut row = [0.0f32; MAX_HEADS];
                    for (r, v) in row.iter_mut().zip(w) {
                        *r = v as f32;
                    }
                    model.index[b] = model.rows.len() as u32;
                    model.rows.push(row);
                }
                _ => return Err(err(n, format!("unknown line kind `{kind}`"))),
            }
        }
        if !(platt_a && platt_b) {
            return Err(err(0, "platt_a and platt_b are required"));
        }
        if let Some(i) = seen_dense.iter().position(|s| !s) {
            return Err(err(
                0,
                format!("dense feature `{}` missing", dense_names[i]),
            ));
        }
        model.heads = heads;
        Ok(model)
    }

    /// The heads' names.
    pub fn heads(&self) -> &[&'static str] {
        &self.heads
    }

    /// Intercept of each head.
    pub fn bias(&self) -> &[f64; MAX_HEADS] {
        &self.bias
    }

    /// Number of buckets with weights.
    pub fn kept_buckets(&self) -> usize {
        self.rows.len() - 1
    }

    /// The dense features' push of each head.
    pub fn dense_push(&self, dense: &[f64]) -> [f64; MAX_HEADS] {
        // Every feature and every head, zeros included: a zero adds nothing (the sums
        // start at +0, and +0 plus ±0 is +0), and whether a feature is zero is as good
        // as random to the processor.
        let mut sum = [0.0f64; MAX_HEADS];
        for (w, &x) in self.dense.iter().zip(dense) {
            for k in 0..MAX_HEADS {
                sum[k] += w[k] * x;
            }
        }
        sum
    }

    /// The weights of one bucket, one per head: zeros when the model has none.
    pub fn weights(&self, bucket: u32) -> &[f32; MAX_HEADS] {
        // A bucket out of range (never one `grams` makes) reads the row of zeros.
        self.row(self.row_of(bucket))
    }

    /// The row of one bucket's weights, for [`Linear::row`]: 0, the row of zeros, when
    /// the model has none.
    pub fn row_of(&self, bucket: u32) -> u32 {
        self.index.get(bucket as usize).copied().unwrap_or(0)
    }

    /// The weights of a row given by [`Linear::row_of`], one per head.
    pub fn row(&self, row: u32) -> &[f32; MAX_HEADS] {
        &self.rows[row as usize]
    }

    /// The weight of one n-gram's bucket for `head` (0 when the model has none).
    pub fn gram_weight(&self, bucket: u32, head: usize) -> f64 {
        f64::from(self.weights(bucket)[head])
    }

    /// The weight of dense feature `i` for `head`.
    pub fn dense_weight(&self, i: usize, head: usize) -> f64 {
        self.dense.get(i).map_or(0.0, |w| w[head])
    }

    /// Calibrated probability of `head` given its full logit (intercept included).
    pub fn probability(&self, head: usize, logit: f64) -> f64 {
        let (a, b) = self.platt[head];
        sigmoid(a * logit + b)
    }
}

/// The logistic function.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOY: &str = "# toy\nheads\ta\tb\nscale\t100\nbias\t-100\t50\nplatt_a\t100\t200\nplatt_b\t0\t-100\ndense\tx\t100\t0\n7\t200\t-100\n";

    #[test]
    fn reads_weights_and_scales_them() {
        let m = Linear::parse(TOY, &["x"]).unwrap();
        assert_eq!(m.heads(), ["a", "b"]);
        assert_eq!(m.bias()[..2], [-1.0, 0.5]);
        assert_eq!(m.kept_buckets(), 1);
        assert_eq!(m.dense_push(&[2.0])[..2], [2.0, 0.0]);
        assert_eq!(m.weights(7)[..2], [2.0, -1.0]);
        assert_eq!(*m.weights(8), [0.0; MAX_HEADS]);
        assert_eq!(*m.weights(u32::MAX), [0.0; MAX_HEADS]);
        assert_eq!(m.gram_weight(7, 1), -1.0);
        assert_eq!(m.gram_weight(8, 0), 0.0);
        assert!((m.probability(1, 1.0) - sigmoid(2.0 - 1.0)).abs() < 1e-12);
    }

    #[test]
    fn names_must_match_the_code() {
        let e = Linear::parse(TOY, &["x", "y"]).unwrap_err();
        assert_eq!(e.message, "dense feature `y` missing");
        let e = Linear::parse(TOY, &["z"]).unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (7, "unknown dense feature `x`")
        );
    }

    #[test]
    fn malformed_lines_are_named() {
        let bad = "heads\ta\nscale\t10\nbias\t1\t2\n";
        assert_eq!(Linear::parse(bad, &[]).unwrap_err().line, 3);
        let bad = "heads\ta\nscale\t10\n99999999\t1\n";
        assert!(
            Linear::parse(bad, &[])
                .unwrap_err()
                .message
                .contains("out of range")
        );
        let bad = "bias\t1\n";
        assert!(
            Linear::parse(bad, &[])
                .unwrap_err()
                .message
                .contains("first")
        );
    }
}
