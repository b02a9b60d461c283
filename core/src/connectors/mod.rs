//! Connectors: turn the files people already have (a ChatGPT or Claude export, …) into
//! an ingest request. Pure functions over bytes: the command line, the server and
//! every binding call the same code.
//!
//! Every connector:
//! - writes `metadata.role` (`user` or `assistant`) on each event, so who is human is
//!   never guessed, and `metadata.source` (the format) with the item's id;
//! - reports every item it leaves out in [`Import::skipped`], with where and why
//!   (partial input never becomes silently partial output);
//! - fails with a [`crate::Error`] naming the file, the position and what was
//!   expected when the input is not in the format at all.

mod chatgpt;
mod claude;
mod intercom;
mod mapping;
mod markup;
mod slack;
mod zendesk;

pub use mapping::Mapping;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result, Violation};
use crate::schema::DeploymentId;
use crate::schema::format_utc;
use crate::validate::json as strict;
use crate::validate::{TimestampError, parse_timestamp, type_name};

/// An input file: its name (for error messages) and its bytes.
#[derive(Debug, Clone, Copy)]
pub struct File<'a> {
    /// The name errors use, e.g. `conversations.json`.
    pub name: &'a str,
    /// The contents.
    pub bytes: &'a [u8],
}

impl File<'_> {
    /// The contents without a leading UTF-8 byte order mark, which tools on Windows
    /// often write and which JSON readers refuse (RFC 8259 §8.1 lets a reader ignore
    /// it, as the input contract does).
    fn content(&self) -> &[u8] {
        self.bytes
            .strip_prefix(crate::validate::BOM.as_bytes())
            .unwrap_or(self.bytes)
    }
}

/// The formats a connector reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Format {
    /// ChatGPT's data export, `conversations.json`.
    ChatGpt,
    /// Claude's data export, `conversations.json`.
    Claude,
    /// Zendesk tickets with their comments (Tickets and Ticket Comments API JSON).
    Zendesk,
    /// Intercom conversations with their `conversation_parts` (Conversations API JSON).
    Intercom,
    /// A Slack export: channel folders of daily JSON files.
    Slack,
    /// Any JSON or JSONL payload, read through a declarative [`Mapping`].
    Mapping(Box<Mapping>),
}

impl Format {
    /// Every format's name, as the command line and the bindings spell it.
    pub const NAMES: [&'static str; 6] = [
        "chatgpt", "claude", "zendesk", "intercom", "slack", "mapping",
    ];

    /// Parses a built-in format's name; the error names `path`. `mapping` needs its
    /// mapping document: see [`Format::named`].
    pub fn parse(name: &str, path: &str) -> Result<Self> {
        match name {
            "chatgpt" => Ok(Self::ChatGpt),
            "claude" => Ok(Self::Claude),
            "zendesk" => Ok(Self::Zendesk),
            "intercom" => Ok(Self::Intercom),
            "slack" => Ok(Self::Slack),
            "mapping" => Err(invalid(
                path,
                "the mapping format needs its mapping document (a JSON file of JSON pointers)",
            )),
            other => Err(invalid(
                path,
                crate::validate::wording::not_one_of(&Self::NAMES, other),
            )),
        }
    }

    /// The format called `name`, with `mapping` (a mapping document, JSON) for the
    /// `mapping` format. A mapping given with another format is refused rather than
    /// ignored. Errors name `path` (the format) or the mapping file.
    pub fn named(name: &str, mapping: Option<&File<'_>>, path: &str) -> Result<Self> {
        match (name, mapping) {
            ("mapping", Some(file)) => Ok(Self::Mapping(Box::new(Mapping::parse(file)?))),
            (_, None) => Self::parse(name, path),
            (other, Some(file)) => {
                Self::parse(other, path)?;
                Err(invalid(
                    file.name,
                    format!("a mapping is only read with the mapping format, not {other}"),
                ))
            }
        }
    }

    /// The format's name.
    pub fn name(&self) -> &'static str {
        match self {
            Self::ChatGpt => "chatgpt",
            Self::Claude => "claude",
            Self::Zendesk => "zendesk",
            Self::Intercom => "intercom",
            Self::Slack => "slack",
            Self::Mapping(_) => "mapping",
        }
    }
}

/// An item a connector left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Where: the file and the position in it, e.g. `conversations.json[0].mapping.n3`.
    pub at: String,
    /// Why, e.g. `no text (an image only)`.
    pub reason: String,
}

/// What a connector produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The ingest request `{deployment_id, events}` (events in conversation order).
    pub request: Value,
    /// Items left out, in input order.
    pub skipped: Vec<Skipped>,
}

impl Import {
    /// `{request, skipped}` as JSON, the shape the bindings return.
    pub fn to_json(&self) -> Value {
        json!({"request": self.request, "skipped": self.skipped})
    }
}

/// Reads `files` in `format` into an ingest request for `deployment_id` (the format's
/// name when it has no value; a bad id is reported under the caller's name for it).
/// Fails when nothing in the input is an event.
pub fn import(
    format: &Format,
    files: &[File<'_>],
    deployment_id: DeploymentId<'_>,
) -> Result<Import> {
    let mut out = Collected::default();
    let each = |read: &dyn Fn(&File<'_>, &mut Collected) -> Result<()>, out: &mut Collected| {
        files.iter().try_for_each(|file| read(file, out))
    };
    match format {
        Format::ChatGpt => each(&chatgpt::read, &mut out)?,
        Format::Claude => each(&claude::read, &mut out)?,
        Format::Zendesk => each(&zendesk::read, &mut out)?,
        Format::Intercom => each(&intercom::read, &mut out)?,
        Format::Mapping(m) => each(&|file, out| m.read(file, out), &mut out)?,
        // A Slack export is one whole: users and channels are read before messages.
        Format::Slack => slack::read(files, &mut out)?,
    }
    let id = deployment_id.value.unwrap_or(format.name());
    crate::validate::identifier(id, deployment_id.name)?;
    if files.is_empty() {
        return Err(invalid(
            "files",
            "holds no file: give an export file, a folder or one file's contents",
        ));
    }
    if out.events.is_empty() {
        let names: Vec<&str> = files.iter().map(|f| f.name).collect();
        let mut message = format!(
            "no {} conversation with a text message was found",
            format.name()
        );
        if !out.skipped.is_empty() {
            message.push_str(&format!(
                "; {} items were left out, first: {}: {}",
                out.skipped.len(),
                out.skipped[0].at,
                out.skipped[0].reason
            ));
        }
        return Err(invalid(&names.join(", "), message));
    }
    Ok(Import {
        request: json!({"deployment_id": id, "events": out.events}),
        skipped: out.skipped,
    })
}

/// Events and skipped items gathered across files.
#[derive(Debug, Default)]
struct Collected {
    events: Vec<Value>,
    skipped: Vec<Skipped>,
}

impl Collected {
    fn skip(&mut self, at: impl Into<String>, reason: impl Into<String>) {
        self.skipped.push(Skipped {
            at: at.into(),
            reason: reason.into(),
        });
    }

    /// Adds `event`, read at `at`; see [`Collected::checked`].
    fn add(&mut self, at: &str, event: Value) {
        if let Some(event) = self.checked(at, event) {
            self.events.push(event);
        }
    }

    /// `event`, read at `at`, when the input contract accepts it. Otherwise it is
    /// skipped with the contract's reasons (content over the size limit, a NUL, an id
    /// too long or starting with `auto:`, …), so that what an import writes always
    /// validates, and one odd message does not stop the rest from being scored.
    fn checked(&mut self, at: &str, event: Value) -> Option<Value> {
        let Err(e) = crate::validate::event(&event, "event") else {
            return Some(event);
        };
        let reasons: Vec<String> = e
            .violations()
            .iter()
            .map(|v| {
                let field = v.path.strip_prefix("event.").unwrap_or(&v.path);
                format!("{field} {}", v.message)
            })
            .collect();
        self.skip(
            at,
            format!("breaks the input contract: {}", reasons.join("; ")),
        );
        None
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message, about to become an event.
struct Message<'a> {
    role: Role,
    actor_id: String,
    content: String,
    timestamp: DateTime<Utc>,
    conversation_id: &'a str,
    /// Written into `metadata` beside `role` and `source`.
    extra: Map<String, Value>,
}

fn event(source: &str, m: Message<'_>) -> Value {
    let mut metadata = Map::new();
    metadata.insert("role".into(), json!(m.role.as_str()));
    metadata.insert("source".into(), json!(source));
    metadata.extend(m.extra);
    json!({
        "actor_id": m.actor_id,
        "content": m.content,
        "timestamp": format_utc(&m.timestamp),
        "conversation_id": m.conversation_id,
        "metadata": metadata,
    })
}

fn invalid(at: &str, message: impl Into<String>) -> Error {
    Error::Validation(vec![Violation::new(at, message)])
}

/// The file parsed as JSON, or an error naming it and the position of the fault. Read
/// as a request body is (a key given twice in one object is refused, not read as its
/// last value): an export that says two things at once is not guessed at.
fn parse_json(file: &File<'_>) -> Result<Value> {
    strict::from_slice(file.content()).map_err(|e| not_json(file.name, &e))
}

/// The JSON documents of a file with where each is: the whole file when it is one
/// JSON value, else one per non-empty line (JSON Lines: `name:LINE`). A file that is
/// neither is the JSON error, or the first line that does not parse.
fn documents(file: &File<'_>) -> Result<Vec<(String, Value)>> {
    let whole = match strict::from_slice(file.content()) {
        Ok(doc) => return Ok(vec![(file.name.to_owned(), doc)]),
        Err(e) => e,
    };
    let text = std::str::from_utf8(file.content()).map_err(|e| {
        invalid(
            file.name,
            format!(
                "is not UTF-8 text (byte {})",
                e.valid_up_to() + file.bytes.len() - file.content().len()
            ),
        )
    })?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    // JSON Lines only when there are lines and the first is a JSON value by itself.
    let first_is_json = lines
        .next()
        .is_some_and(|l| strict::from_slice(l.as_bytes()).is_ok());
    if !first_is_json || lines.next().is_none() {
        return Err(not_json(file.name, &whole));
    }
    let mut docs = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = format!("{}:{}", file.name, i + 1);
        let doc = strict::from_slice(line.as_bytes()).map_err(|e| {
            invalid(
                &at,
                format!("is not JSON (JSON Lines: one value per line): {e}"),
            )
        })?;
        docs.push((at, doc));
    }
    Ok(docs)
}

fn not_json(name: &str, e: &serde_json::Error) -> Error {
    invalid(
        name,
        // serde_json's message ends with the line and column.
        format!("is not JSON: {e}"),
    )
}

/// Calls `each` with every conversation of an export whose top level is an array of
/// conversations (`what` names the export in the error when it is not), and the
/// conversation's position, e.g. `conversations.json[3]`.
fn for_each_conversation(
    file: &File<'_>,
    what: &str,
    mut each: impl FnMut(&Value, &str) -> Result<()>,
) -> Result<()> {
    let doc = parse_json(file)?;
    let conversations = doc.as_array().ok_or_else(|| {
        invalid(
            file.name,
            format!(
                "expected {what} (an array of conversations), got {}",
                type_name(&doc)
            ),
        )
    })?;
    for (i, conversation) in conversations.iter().enumerate() {
        each(conversation, &format!("{}[{i}]", file.name))?;
    }
    Ok(())
}

/// Seconds since the epoch (as ChatGPT writes them, with a fraction) as a time.
fn epoch_seconds(v: &Value) -> Option<DateTime<Utc>> {
    let s = v.as_f64().filter(|s| s.is_finite() && *s >= 0.0)?;
    let millis = (s * 1000.0).round();
    if millis > 253_402_300_799_000.0 {
        return None;
    }
    DateTime::from_timestamp_millis(millis as i64)
}

/// Why a message's `created_at` cannot be kept.
#[derive(Debug, thiserror::Error)]
enum CreatedAt {
    /// The field is absent or not text.
    #[error("no created_at")]
    Missing,
    /// The text is not a timestamp of the input contract.
    #[error("created_at: {0}")]
    Invalid(#[from] TimestampError),
}

/// A message's RFC 3339 `created_at`, read by the input contract's own parser (so a
/// kept time is always valid), or why it cannot be kept.
fn created_at(m: &Value) -> std::result::Result<DateTime<Utc>, CreatedAt> {
    let s = m["created_at"].as_str().ok_or(CreatedAt::Missing)?;
    Ok(parse_timestamp(s)?)
}

/// Why a message without text was left out.
fn no_text(attachments: &[Value]) -> &'static str {
    if attachments.is_empty() {
        "no text"
    } else {
        "no text (attachments only)"
    }
}

/// Text with surrounding whitespace trimmed; `None` when nothing is left.
fn text(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_names_round_trip() {
        for name in Format::NAMES.iter().filter(|n| **n != "mapping") {
            assert_eq!(Format::parse(name, "from").unwrap().name(), *name);
        }
        let e = Format::parse("mapping", "--from").unwrap_err();
        assert!(e.to_string().contains("needs its mapping document"), "{e}");
        let e = Format::parse("zip", "--from").unwrap_err();
        assert_eq!(e.violations()[0].path, "--from");
    }

    #[test]
    fn epoch_seconds_keep_milliseconds_and_refuse_nonsense() {
        let t = epoch_seconds(&json!(1_700_000_000.123_4)).unwrap();
        assert_eq!(format_utc(&t), "2023-11-14T22:13:20.123Z");
        assert!(epoch_seconds(&json!(-1)).is_none());
        assert!(epoch_seconds(&json!("1700000000")).is_none());
        assert!(epoch_seconds(&json!(1e300)).is_none());
    }
}
