//! `undertone import --from FORMAT INPUT`: a ChatGPT or Claude export (…) as an ingest
//! request on standard output; what was left out, and why, on standard error.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::Value;
use undertone_core::connectors::{self, File, Format as Connector};

use super::{INVALID, emit, input, report, warn};

/// Skipped items listed one per line at most; the rest are counted.
const SKIPPED_LISTED: usize = 20;

/// Arguments of `undertone import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The input's format: chatgpt, claude.
    #[arg(long)]
    from: String,
    /// The export file (e.g. `conversations.json`); `-` reads standard input.
    input: PathBuf,
    /// Deployment the conversations come from (default: the format's name).
    #[arg(long)]
    deployment_id: Option<String>,
    /// Print errors as the JSON error envelope on standard output.
    #[arg(long)]
    json: bool,
}

/// Runs `undertone import`; returns the exit status.
pub fn run(args: &ImportArgs) -> u8 {
    match request(
        &args.from,
        &args.input,
        args.deployment_id.as_deref(),
        args.json,
    ) {
        // Serialising a JSON value cannot fail.
        Some(request) => emit(&serde_json::to_string_pretty(&request).unwrap_or_default()),
        None => INVALID,
    }
}

/// The ingest request a connector makes of `path`; skipped items are reported on
/// standard error; `None` after reporting an error.
pub(super) fn request(
    from: &str,
    path: &Path,
    deployment_id: Option<&str>,
    json: bool,
) -> Option<Value> {
    let fail = |e: undertone_core::Error| {
        report(&input::display_name(path), &e, json);
        None
    };
    let connector = match Connector::parse(from, "--from") {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let bytes = match input::read_bytes(path) {
        Ok(b) => b,
        Err(line) => {
            warn(&format!("error: {line}"));
            return None;
        }
    };
    let name = input::display_name(path);
    let file = File {
        name: &name,
        bytes: &bytes,
    };
    let imported = match connectors::import(connector, &[file], deployment_id) {
        Ok(i) => i,
        Err(e) => return fail(e),
    };
    if !imported.skipped.is_empty() {
        let n = imported.skipped.len();
        let mut text = format!(
            "note: {n} item{} of {name} left out:",
            if n == 1 { "" } else { "s" }
        );
        for s in imported.skipped.iter().take(SKIPPED_LISTED) {
            text.push_str(&format!("\n  {}: {}", s.at, s.reason));
        }
        if n > SKIPPED_LISTED {
            text.push_str(&format!("\n  … and {} more", n - SKIPPED_LISTED));
        }
        warn(&text);
    }
    Some(imported.request)
}
