//! Reading an input file for the CLI; what the bytes mean is `undertone_core::sdk`'s.

use super::error::CliError;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use clap::ValueEnum;
use undertone_core::schema::limits::BODY_MAX_BYTES;
use undertone_core::sdk::{InputFormat, Source};

/// How the input file is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// `.jsonl`/`.ndjson` files are JSON Lines; otherwise a file whose first line is a
    /// whole JSON object followed by more lines is JSON Lines; anything else is JSON.
    Auto,
    /// One ingest request `{deployment_id, events, pipeline?, webhook_url?}`, or a JSON
    /// array of events (then `--deployment-id` is required).
    Json,
    /// One event per line; `--deployment-id` is required.
    Jsonl,
}

impl From<Format> for InputFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Auto => InputFormat::Auto,
            Format::Json => InputFormat::Json,
            Format::Jsonl => InputFormat::Jsonl,
        }
    }
}

/// How `path` is named in messages: `standard input` for `-`.
pub fn display_name(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    }
}

/// A file's bytes, with the name and layout core needs to read them.
pub struct Input {
    bytes: Vec<u8>,
    name: String,
    format: Format,
}

impl Input {
    /// The bytes as a core [`Source`].
    pub fn source(&self) -> Source<'_> {
        Source::new(&self.bytes)
            .named(&self.name)
            .with_format(self.format.into())
    }
}

/// Reads `path` (`-` for standard input). Unless `unlimited`, a file over the API's
/// body limit is refused without being loaded. The error is one line for the user.
pub fn read(path: &Path, format: Format, unlimited: bool) -> Result<Input, CliError> {
    let fail = |source: io::Error| CliError::Read {
        what: display_name(path),
        source,
    };
    let mut bytes = Vec::new();
    let stdin = path == Path::new("-");
    if unlimited {
        if stdin {
            io::stdin().read_to_end(&mut bytes).map_err(fail)?;
        } else {
            bytes = std::fs::read(path).map_err(fail)?;
        }
    } else {
        let limit = BODY_MAX_BYTES as u64 + 1;
        if stdin {
            io::stdin()
                .take(limit)
                .read_to_end(&mut bytes)
                .map_err(fail)?;
        } else {
            let file = File::open(path).map_err(fail)?;
            let len = file.metadata().map_err(fail)?.len();
            if len > BODY_MAX_BYTES as u64 {
                return Err(CliError::TooLarge {
                    what: path.display().to_string(),
                    len,
                    limit: BODY_MAX_BYTES,
                });
            }
            file.take(limit).read_to_end(&mut bytes).map_err(fail)?;
        }
        if bytes.len() > BODY_MAX_BYTES {
            return Err(CliError::OverLimit {
                what: display_name(path),
                limit: BODY_MAX_BYTES,
            });
        }
    }
    Ok(Input {
        bytes,
        name: path.to_string_lossy().into_owned(),
        format,
    })
}

/// The whole of `path` (`-` for standard input), without a size limit (an export is
/// read locally). The error is one line for the user.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    let fail = |source: io::Error| CliError::Read {
        what: display_name(path),
        source,
    };
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        io::stdin().read_to_end(&mut bytes).map_err(fail)?;
        Ok(bytes)
    } else {
        std::fs::read(path).map_err(fail)
    }
}
