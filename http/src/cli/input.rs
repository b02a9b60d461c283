//! Reading an input file for the CLI: an ingest-request JSON or JSON Lines of events.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use clap::ValueEnum;
use serde_json::Value;
use undertone_core::schema::limits::BODY_MAX_BYTES;
use undertone_core::validate::{self, Options};
use undertone_core::{Error, IngestRequest};

/// How the input file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `.jsonl`/`.ndjson` files are JSON Lines; otherwise a file whose first line is a
    /// whole JSON object followed by more lines is JSON Lines; anything else is JSON.
    Auto,
    /// One ingest request: `{deployment_id, events, pipeline?, webhook_url?}`.
    Json,
    /// One event per line; `--deployment-id` is required.
    Jsonl,
}

/// Why an input could not be turned into a request.
#[derive(Debug)]
pub enum InputError {
    /// The file could not be read or its shape is unusable; one line for the user.
    Read(String),
    /// The content broke the input contract.
    Invalid(Error),
}

/// How `path` is named in messages: `standard input` for `-`.
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

/// Reads `path` (`-` for standard input) and validates it as an ingest request.
///
/// `unlimited` lifts the API's event-count and size limits (local scoring).
pub fn load(
    path: &Path,
    format: Format,
    deployment_id: Option<&str>,
    unlimited: bool,
) -> Result<IngestRequest, InputError> {
    if let Some(id) = deployment_id {
        validate::identifier(id, "--deployment-id").map_err(InputError::Invalid)?;
    }
    let bytes = read_limited(path, unlimited)?;
    let options = Options {
        unlimited,
        ..Options::default()
    };
    let jsonl = match format {
        Format::Json => false,
        Format::Jsonl => true,
        Format::Auto => looks_like_json_lines(path, &bytes),
    };
    if jsonl {
        let Some(id) = deployment_id else {
            return Err(InputError::Read(format!(
                "{} is JSON Lines of events; pass --deployment-id to say which deployment they come from",
                display_name(path)
            )));
        };
        return validate::ingest_request_json_lines(&bytes, id, &options)
            .map_err(InputError::Invalid);
    }
    let mut value = validate::parse_body_with(&bytes, &options).map_err(InputError::Invalid)?;
    if let (Some(id), Value::Object(obj)) = (deployment_id, &mut value) {
        match obj.get("deployment_id") {
            None | Some(Value::Null) => {
                obj.insert("deployment_id".into(), Value::String(id.into()));
            }
            Some(Value::String(given)) if given != id => {
                return Err(InputError::Read(format!(
                    "--deployment-id {id:?} differs from the file's deployment_id {given:?}"
                )));
            }
            // Equal, or not a string: validation reports a wrong type under its own path.
            Some(_) => {}
        }
    }
    validate::ingest_request(&value, &options).map_err(InputError::Invalid)
}

/// Reads at most the body limit plus one byte, so a huge file is refused without loading
/// it; `unlimited` reads everything.
fn read_limited(path: &Path, unlimited: bool) -> Result<Vec<u8>, InputError> {
    let fail = |e: io::Error| InputError::Read(format!("cannot read {}: {e}", display_name(path)));
    let mut bytes = Vec::new();
    if unlimited {
        if path == Path::new("-") {
            io::stdin().read_to_end(&mut bytes).map_err(fail)?;
        } else {
            bytes = std::fs::read(path).map_err(fail)?;
        }
        return Ok(bytes);
    }
    let limit = BODY_MAX_BYTES as u64 + 1;
    if path == Path::new("-") {
        io::stdin()
            .take(limit)
            .read_to_end(&mut bytes)
            .map_err(fail)?;
    } else {
        let file = File::open(path).map_err(fail)?;
        let len = file.metadata().map_err(fail)?.len();
        if len > BODY_MAX_BYTES as u64 {
            return Err(InputError::Read(format!(
                "{} is {len} bytes; the limit is {BODY_MAX_BYTES} bytes (16 MiB)",
                path.display()
            )));
        }
        file.take(limit).read_to_end(&mut bytes).map_err(fail)?;
    }
    if bytes.len() > BODY_MAX_BYTES {
        return Err(InputError::Read(format!(
            "{} is over the limit of {BODY_MAX_BYTES} bytes (16 MiB)",
            display_name(path)
        )));
    }
    Ok(bytes)
}

fn looks_like_json_lines(path: &Path, bytes: &[u8]) -> bool {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext.eq_ignore_ascii_case("jsonl") || ext.eq_ignore_ascii_case("ndjson") {
        return true;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first_is_object = lines
        .next()
        .is_some_and(|l| matches!(serde_json::from_str::<Value>(l), Ok(Value::Object(_))));
    first_is_object && lines.next().is_some()
}
