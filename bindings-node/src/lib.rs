//! Node binding of `undertone-core` (npm package `undertone`): converts JavaScript
//! values to core's inputs and core's JSON results and errors back, nothing else.
//!
//! Every scoring, validation, connector and signature rule lives in
//! `undertone_core::sdk`, `undertone_core::connectors` and `undertone_core::signature`;
//! this crate only reads JavaScript arguments, calls them, and turns the JSON text they
//! return into JavaScript values.

mod connectors;
mod drift;
mod error;
mod input;
mod js;
mod score;
mod signature;

pub use connectors::{ImportOptions, import_conversations};
pub use drift::{DriftOptions, DriftTask, drift, drift_async};
pub use error::Detail;
pub use input::Input;
pub use score::{ScoreOptions, ScoreTask, ValidateOptions, score, score_async, validate};
pub use signature::{VerifyOptions, verify_signature};
