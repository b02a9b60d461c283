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
/// body limit is refused without being loaded. Reading stops at a first byte that
/// cannot begin JSON (after a byte-order mark and whitespace), so that `/dev/zero` or
/// a binary stream is refused at once rather than read without end: what was read
/// ends with that byte, and parsing it gives the error the whole input would.
/// The error is one line for the user.
pub fn read(path: &Path, format: Format, unlimited: bool) -> Result<Input, CliError> {
    let bytes = read_up_to(path, (!unlimited).then_some(BODY_MAX_BYTES))?;
    Ok(Input {
        bytes,
        name: path.to_string_lossy().into_owned(),
        format,
    })
}

/// The whole of `path` (`-` for standard input), without a size limit (an export is
/// read locally), up to a first byte that cannot begin JSON: every export and mapping
/// document is JSON or JSON Lines, so an endless stream that is neither (`/dev/zero`)
/// is refused at once, as in [`read`]. The error is one line for the user.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    read_up_to(path, None)
}

/// The bytes of `path` (`-` for standard input) as [`read_json_prefix`] reads them;
/// with a `limit`, a file over it is refused without being loaded, and an input found
/// longer while reading is refused too.
fn read_up_to(path: &Path, limit: Option<usize>) -> Result<Vec<u8>, CliError> {
    let fail = |source: io::Error| CliError::Read {
        what: display_name(path),
        source,
    };
    let bytes = if path == Path::new("-") {
        read_json_prefix(io::stdin().lock(), 0, limit).map_err(fail)?
    } else {
        let file = File::open(path).map_err(fail)?;
        let len = file.metadata().map_err(fail)?.len();
        if let Some(limit) = limit
            && len > limit as u64
        {
            return Err(CliError::TooLarge {
                what: path.display().to_string(),
                len,
                limit,
            });
        }
        read_json_prefix(file, len, limit).map_err(fail)?
    };
    match limit {
        Some(limit) if bytes.len() > limit => Err(CliError::OverLimit {
            what: display_name(path),
            limit,
        }),
        _ => Ok(bytes),
    }
}

/// Bytes read per call.
const CHUNK: usize = 64 * 1024;

/// Reads `source` to its end, or to one byte past `limit`, or up to and including its
/// first significant byte when that byte cannot begin a JSON value (see
/// [`can_begin_json`]). `size_hint` reserves room up front.
fn read_json_prefix(
    mut source: impl Read,
    size_hint: u64,
    limit: Option<usize>,
) -> io::Result<Vec<u8>> {
    let cap = limit.map_or(usize::MAX, |l| l + 1);
    let mut bytes = Vec::with_capacity(usize::try_from(size_hint).unwrap_or(0).min(cap));
    // Where the search for the first significant byte goes on; `None` once found.
    let mut unchecked = Some(0);
    while bytes.len() < cap {
        let start = bytes.len();
        let want = CHUNK.min(cap - start);
        bytes.resize(start + want, 0);
        let n = loop {
            match source.read(&mut bytes[start..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    bytes.truncate(start);
                    return Err(e);
                }
            }
        };
        bytes.truncate(start + n);
        if n == 0 {
            break;
        }
        if let Some(from) = unchecked {
            match first_significant(&bytes, from) {
                Ok(at) if can_begin_json(bytes[at]) => unchecked = None,
                Ok(at) => {
                    bytes.truncate(at + 1);
                    break;
                }
                Err(scanned) => unchecked = Some(scanned),
            }
        }
    }
    Ok(bytes)
}

/// Whether a JSON value can begin with `b`. Values other than objects and arrays are
/// read whole too, so that the error names what the input holds ("got string").
fn can_begin_json(b: u8) -> bool {
    matches!(
        b,
        b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
    )
}

/// The position of the first byte of `bytes` from `from` on that is neither JSON
/// whitespace nor part of a leading UTF-8 byte-order mark; else how far the bytes
/// were scanned (a mark cut short at the end is scanned again with more bytes).
fn first_significant(bytes: &[u8], from: usize) -> Result<usize, usize> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let mut i = from;
    if i == 0 {
        if bytes.len() < BOM.len() && BOM.starts_with(bytes) {
            return Err(0);
        }
        if bytes.starts_with(BOM) {
            i = BOM.len();
        }
    }
    match bytes[i..]
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        Some(k) => Ok(i + k),
        None => Err(bytes.len().max(i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its bytes `step` at a time, then says nothing more.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn prefix(bytes: &[u8], step: usize, limit: Option<usize>) -> Vec<u8> {
        read_json_prefix(Trickle { bytes, step }, 0, limit).expect("reading memory cannot fail")
    }

    #[test]
    fn reading_stops_at_a_first_byte_that_cannot_begin_json() {
        let mut junk = b"\xEF\xBB\xBF \r\n\t\x00".to_vec();
        junk.extend(std::iter::repeat_n(0u8, 3 * CHUNK));
        for step in [1, 2, 3, 7, CHUNK] {
            assert_eq!(
                prefix(&junk, step, None),
                b"\xEF\xBB\xBF \r\n\t\x00",
                "step {step}"
            );
            assert_eq!(prefix(b"  hello", step, None), b"  h", "step {step}");
            // A byte-order mark cut short is not a mark: its first byte cannot begin JSON.
            assert_eq!(prefix(b"\xEF\xBB{}", step, None), b"\xEF", "step {step}");
        }
    }

    #[test]
    fn json_of_any_kind_is_read_whole() {
        let mut long = b"\xEF\xBB\xBF\n[".to_vec();
        long.extend(std::iter::repeat_n(b' ', 2 * CHUNK));
        long.extend(b"\x00]");
        for text in [
            &b"{\"a\": 1}\n{\"b\": 2}\n"[..],
            b"\n\n  [1, 2]",
            b"\"a string\" and more",
            b"-1 x",
            b"null\x00",
            b"true",
            b"false",
            b"7",
            b"   \n\t ",
            b"",
            &long,
        ] {
            for step in [1, 5, CHUNK] {
                assert_eq!(prefix(text, step, None), text, "step {step}: {text:?}");
            }
        }
    }

    #[test]
    fn a_limit_reads_one_byte_past_it_and_no_more() {
        let big = vec![b' '; 3 * CHUNK];
        assert_eq!(prefix(&big, CHUNK, Some(CHUNK + 10)).len(), CHUNK + 11);
        assert_eq!(prefix(&big, 1000, Some(3 * CHUNK)), big);
        // The check for a first byte still applies under a limit.
        assert_eq!(prefix(b"\x00\x00\x00", 1, Some(100)), b"\x00");
    }
}
