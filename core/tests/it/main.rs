//! Integration tests of undertone-core, in one binary (fast to link).

mod assembly_props;
mod connectors;
mod drift;
mod golden;
mod models;
mod scoring;
mod sdk;
mod stats;
mod validation;
mod validation_props;

use std::path::{Path, PathBuf};

/// The repository root (examples/, tests/vectors/, tests/golden/ live there).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A JSON file, parsed; a test fails naming the file when it cannot be.
fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
