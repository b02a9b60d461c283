//! `undertone import --from FORMAT INPUT`: an export (ChatGPT, Claude, Zendesk,
//! Intercom, Slack, or any JSON through a mapping) as an ingest request on standard
//! output; what was left out, and why, on standard error.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::Value;
use undertone_core::connectors::{self, File, Format as Connector};

use super::error::CliError;
use super::{INVALID, emit, input, report, warn};

/// Skipped items listed one per line at most; the rest are counted.
const SKIPPED_LISTED: usize = 20;

/// Arguments of `undertone import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The input's format: chatgpt, claude, zendesk, intercom, slack, or mapping:FILE
    /// (FILE is a mapping document, see docs/connectors.md).
    #[arg(long)]
    from: String,
    /// The export: a file (e.g. `conversations.json`), a folder (a Slack export; every
    /// file under it is read), or `-` for standard input.
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
    match request(&args.from, &args.input, &args.deployment_id, args.json) {
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
    deployment_id: &Option<String>,
    json: bool,
) -> Option<Value> {
    let fail = |e: undertone_core::Error| {
        report(&input::display_name(path), &e, json);
        None
    };
    let connector = match connector(from) {
        Ok(c) => c,
        // A faulty mapping document is the mapping's fault, not the input's.
        Err(ConnectorError::Core(e)) => {
            let blamed = from.strip_prefix("mapping:").map_or(path, Path::new);
            report(&input::display_name(blamed), &e, json);
            return None;
        }
        Err(ConnectorError::Read(line)) => {
            warn(&format!("error: {line}"));
            return None;
        }
    };
    let name = input::display_name(path);
    let files = match read_input(path) {
        Ok(f) => f,
        Err(line) => {
            warn(&format!("error: {line}"));
            return None;
        }
    };
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(n, bytes)| File {
            name: n.as_deref().unwrap_or(&name),
            bytes,
        })
        .collect();
    let imported = match connectors::import(&connector, &files, super::flag(deployment_id)) {
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

enum ConnectorError {
    Core(undertone_core::Error),
    Read(CliError),
}

/// The connector `--from` names; `mapping:FILE` reads the mapping document.
fn connector(from: &str) -> Result<Connector, ConnectorError> {
    let Some(mapping) = from.strip_prefix("mapping:") else {
        return Connector::parse(from, "--from").map_err(ConnectorError::Core);
    };
    let path = Path::new(mapping);
    let bytes = input::read_bytes(path).map_err(ConnectorError::Read)?;
    let file = File {
        name: mapping,
        bytes: &bytes,
    };
    Connector::named("mapping", Some(&file), "--from").map_err(ConnectorError::Core)
}

/// A file read: its name under a folder (`None` for the input itself) and its bytes.
type Read = (Option<String>, Vec<u8>);

/// The input's files: one (named by the caller) for a file or standard input; for a
/// folder, every file under it as `undertone_files::read_tree` names and orders them.
fn read_input(path: &Path) -> Result<Vec<Read>, CliError> {
    if path == Path::new("-") || !path.is_dir() {
        return Ok(vec![(None, input::read_bytes(path)?)]);
    }
    let files = undertone_files::read_tree(path)?;
    Ok(files.into_iter().map(|(n, b)| (Some(n), b)).collect())
}
