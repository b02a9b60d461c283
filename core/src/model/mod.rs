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

const TEXT_TSV: &str = include_str!("../../models/text.tsv");
const AI_FAILURE_TSV: &str = include_str!("../../models/ai_failure.tsv");
const DIMENSIONS_TSV: &str = include_str!("../../models/dimensions.tsv");

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
