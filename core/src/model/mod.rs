//! Learned models and the tables every dimension reads, compiled in from `core/models/`.
//!
//! The files are data written by `scripts/train-scorer` from named, licensed data
//! (`core/models/manifest.json` says which, with splits, seed and metrics); they are
//! never edited by hand. A file that does not parse, or that names a feature or
//! parameter the code does not have (or lacks one it has), fails the crate's tests.

pub mod ai_turn;
pub mod linear;
pub mod tables;
pub mod text;

use std::sync::LazyLock;

use linear::Linear;
use tables::Tables;

const TEXT_TSV: &str = crate::data_file::data_file!(include_bytes!("../../models/text.tsv"));
const AI_FAILURE_TSV: &str =
    crate::data_file::data_file!(include_bytes!("../../models/ai_failure.tsv"));
const DIMENSIONS_TSV: &str =
    crate::data_file::data_file!(include_bytes!("../../models/dimensions.tsv"));

/// The text reading model (human turns).
pub static TEXT: LazyLock<Linear> = LazyLock::new(|| {
    Linear::parse(TEXT_TSV, &text::DENSE)
        .expect("core/models/text.tsv matches the text model's features")
});

/// The AI-failure model (AI turns).
pub static AI_FAILURE: LazyLock<Linear> = LazyLock::new(|| {
    Linear::parse(AI_FAILURE_TSV, &ai_turn::DENSE)
        .expect("core/models/ai_failure.tsv matches the AI-turn model's features")
});

/// Every dimension's parameters.
pub static TABLES: LazyLock<Tables> =
    LazyLock::new(|| Tables::parse(DIMENSIONS_TSV).expect("core/models/dimensions.tsv parses"));

#[cfg(test)]
mod tests {
    //! Every tuning number lives in the tables: the scoring and feature code holds no
    //! float literal except those listed here, each with the reason it is not a weight.

    use std::path::Path;

    /// (file, literal, why it is not a tuning number).
    const ALLOWED: [(&str, &str, &str); 17] = [
        (
            "score/layer_z.rs",
            "0.35",
            "band boundary of the output contract (DESIGN.md §3)",
        ),
        (
            "score/layer_z.rs",
            "0.55",
            "band boundary of the output contract (DESIGN.md §3)",
        ),
        (
            "score/inputs.rs",
            "3.0",
            "the neutral rating of the 1–5 star scale",
        ),
        (
            "score/inputs.rs",
            "2.0",
            "stars from neutral to either end of the 1–5 scale",
        ),
        ("score/context.rs", "5.0", "the top of the 1–5 star scale"),
        ("score/context.rs", "10.0", "the top of a 0–10 rating scale"),
        (
            "score/findings.rs",
            "2.0",
            "the prediction says the broken share halves",
        ),
        (
            "features/similarity.rs",
            "2.0",
            "Dice's coefficient is 2·|A∩B| / (|A|+|B|)",
        ),
        (
            "score/parts.rs",
            "1e-12",
            "a level this small is zero (no division by it)",
        ),
        (
            "score/turn.rs",
            "1e-12",
            "a sum of parts this small is zero (no division by it)",
        ),
        (
            "score/conversation.rs",
            "1e-12",
            "a sum of parts this small is zero (no division by it)",
        ),
        ("score/turn.rs", "100.0", "a share written as a percentage"),
        (
            "score/findings.rs",
            "100.0",
            "a share written as a percentage",
        ),
        ("score/context.rs", "1000.0", "milliseconds in a second"),
        (
            "score/dependency.rs",
            "2.0",
            "the mean position of 0..n is (n − 1) / 2",
        ),
        (
            "score/layer_z.rs",
            "10_000.0",
            "scores are rounded to 4 decimals (output contract)",
        ),
        (
            "score/archetype.rs",
            "3.0",
            "the archetype lexicon's format allows weights up to 3",
        ),
    ];

    /// VADER 3.3.2's published rule constants (MIT, C.J. Hutto), named in the file.
    const PUBLISHED: &str = "features/affect.rs";

    /// Float literals of `source` outside comments, strings and the test module.
    fn float_literals(source: &str) -> Vec<(usize, String)> {
        let code = source.split("#[cfg(test)]").next().unwrap_or("");
        let b = code.as_bytes();
        let (mut i, mut line, mut out) = (0, 1, Vec::new());
        while i < b.len() {
            match b[i] {
                b'\n' => line += 1,
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        if b.get(i) == Some(&b'\n') {
                            line += 1;
                        }
                        i += 1;
                    }
                }
                b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
                c if c.is_ascii_digit()
                    && (i == 0
                        || !(b[i - 1].is_ascii_alphanumeric()
                            || b[i - 1] == b'_'
                            || b[i - 1] == b'.')) =>
                {
                    let start = i;
                    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                        i += 1;
                    }
                    let mut float = false;
                    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                        float = true;
                        i += 1;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    if b.get(i) == Some(&b'e')
                        && b.get(i + 1)
                            .is_some_and(|c| c.is_ascii_digit() || *c == b'-')
                    {
                        float = true;
                        i += 2;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    if b.get(i..i + 3) == Some(b"f64") {
                        float = true;
                        i += 3;
                    }
                    if float {
                        out.push((line, code[start..i].to_owned()));
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }

    #[test]
    fn scoring_and_feature_code_holds_no_tuning_literal() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        for dir in ["score", "features"] {
            let mut files: Vec<_> = std::fs::read_dir(src.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for path in files {
                let rel = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
                if rel == PUBLISHED {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                for (line, lit) in float_literals(&text) {
                    let plain = lit.trim_end_matches("f64");
                    let trivial = matches!(plain, "0.0" | "1.0") || plain.is_empty();
                    let allowed = ALLOWED.iter().any(|(f, l, _)| *f == rel && *l == plain);
                    if !trivial && !allowed {
                        found.push(format!("{rel}:{line}: {lit}"));
                    }
                }
            }
        }
        assert!(
            found.is_empty(),
            "tuning numbers belong in core/models/dimensions.tsv (scripts/scorer_priors.tsv \
             or a fit), not in code:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn the_scanner_finds_literals_outside_comments_and_strings() {
        let src = "let a = 0.25 * x; // 0.5 here is a comment\nlet s = \"0.75\"; let b = 3f64 + 1e-9 + v.0;\n#[cfg(test)]\nlet c = 0.9;";
        let found: Vec<String> = float_literals(src)
            .into_iter()
            .map(|(l, s)| format!("{l}:{s}"))
            .collect();
        assert_eq!(found, ["1:0.25", "2:3f64", "2:1e-9"]);
    }
}
