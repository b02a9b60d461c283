//! Validation of every input rule of DESIGN.md §2, in one place for every surface.
//!
//! Requests are checked as JSON values so that one pass reports *all* violations,
//! each with its field path, instead of stopping at the first type mismatch.

pub mod address;
mod fields;
pub(crate) mod json;
mod json_lines;
mod webhook_url;
pub mod wording;

pub use fields::type_name;
pub use fields::{AUTO_ID_PREFIX, MAX_LISTED_VIOLATIONS};
pub use fields::{TimestampError, parse_timestamp};
pub use json_lines::ingest_request_json_lines;
use webhook_url::check_webhook_url;
pub use webhook_url::webhook_url;

use serde_json::Value;

use crate::error::{Error, Result, Violation};
use crate::schema::{DriftRequest, Event, IngestRequest, Period, Pipeline, limits};
use fields::{
    Collector, Input, Path, ROOT, as_str, check_content, check_conversation_id, check_id,
    check_metadata, check_timestamp, count_message, optional, optional_checked, optional_id,
    required, required_id, split_fields, string,
};

/// Fields an event may carry.
pub const EVENT_FIELDS: [&str; 6] = [
    "actor_id",
    "content",
    "timestamp",
    "context",
    "metadata",
    "conversation_id",
];
/// Top-level fields of an ingest request.
pub const INGEST_FIELDS: [&str; 4] = ["deployment_id", "events", "pipeline", "webhook_url"];
/// Top-level fields of a drift request.
pub const DRIFT_FIELDS: [&str; 4] = ["before", "after", "question", "deployment_id"];
/// Fields of a drift period.
pub const PERIOD_FIELDS: [&str; 2] = ["label", "events"];

/// Choices that depend on where validation runs rather than on the input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Accept `http://` webhook URLs and ones that point at private, loopback or other
    /// non-public addresses (the server's `--allow-private-webhooks`; local development
    /// and tests only).
    pub allow_private_webhooks: bool,
    /// Lift the API's event-count and body-size limits (local scoring from the CLI,
    /// where files of a million events are normal). Every per-event rule still applies.
    pub unlimited: bool,
    /// Read an object that gives a key twice as its last value, as serde_json does,
    /// instead of refusing the body. Only for what was accepted before repeated keys
    /// were refused: a request stored then is still read.
    pub repeated_keys: bool,
}

impl Options {
    /// For a request the server stored after checking it at ingest: the webhook URL
    /// rule does not matter any more (a server restarted with other settings still
    /// reads what it acknowledged), the size limits still do, and a key given twice in
    /// a request acknowledged before that was refused is read as before.
    pub const STORED: Options = Options {
        allow_private_webhooks: true,
        unlimited: false,
        repeated_keys: true,
    };
}

/// Validates an ingest request body given as JSON.
pub fn ingest_request(value: &Value, options: &Options) -> Result<IngestRequest> {
    ingest(value, options)
}

/// [`ingest_request`] for a borrowed value (whose strings are copied into the request)
/// or an owned one (whose strings are moved).
fn ingest<V: Input>(value: V, options: &Options) -> Result<IngestRequest> {
    let mut c = Collector::default();
    let Some(fields) = root_object(&mut c, value, "deployment_id and events") else {
        return Err(c.into_error());
    };
    let [deployment_id, events, pipeline, webhook_url] =
        split_fields(&mut c, fields, ROOT, &INGEST_FIELDS, idempotency_hint);
    let deployment_id = required_id(&mut c, deployment_id, ROOT.field("deployment_id"));
    let pipeline_path = ROOT.field("pipeline");
    let pipeline = match optional(pipeline) {
        None => Some(Pipeline::Auto),
        Some(v) => as_str(&mut c, v.value(), pipeline_path).and_then(|s| {
            let parsed = Pipeline::parse(s);
            if parsed.is_none() {
                c.push(
                    pipeline_path,
                    wording::not_one_of(&["auto", "support", "reviews"], s),
                );
            }
            parsed
        }),
    };
    let webhook_path = ROOT.field("webhook_url");
    let webhook_url = match optional(webhook_url) {
        None => Some(None),
        Some(v) => as_str(&mut c, v.value(), webhook_path)
            .and_then(|s| check_webhook_url(&mut c, s, webhook_path, options))
            .map(Some),
    };
    let max = if options.unlimited {
        usize::MAX
    } else {
        limits::INGEST_EVENTS_MAX
    };
    let events = events_field(
        &mut c,
        events,
        ROOT.field("events"),
        limits::INGEST_EVENTS_MIN,
        max,
    );
    match (deployment_id, pipeline, webhook_url, events) {
        (Some(deployment_id), Some(pipeline), Some(webhook_url), Some(events)) if c.is_empty() => {
            Ok(IngestRequest {
                deployment_id,
                events,
                pipeline,
                webhook_url,
            })
        }
        _ => Err(c.into_error()),
    }
}

/// Validates a drift request body given as JSON.
pub fn drift_request(value: &Value) -> Result<DriftRequest> {
    drift(value)
}

/// [`drift_request`] for a borrowed or an owned value, as [`ingest`].
fn drift<V: Input>(value: V) -> Result<DriftRequest> {
    let mut c = Collector::default();
    let Some(fields) = root_object(&mut c, value, "before and after") else {
        return Err(c.into_error());
    };
    let [before, after, question, deployment_id] =
        split_fields(&mut c, fields, ROOT, &DRIFT_FIELDS, |key| match key {
            "before_label" => Some("put the label in before.label"),
            "after_label" => Some("put the label in after.label"),
            _ => idempotency_hint(key),
        });
    let before = period(&mut c, before, "before");
    let after = period(&mut c, after, "after");
    let question_path = ROOT.field("question");
    let question = match optional(question) {
        None => Some(None),
        Some(v) => as_str(&mut c, v.value(), question_path)
            .and_then(|s| check_question(&mut c, s, question_path))
            .map(Some),
    };
    let deployment_id = optional_id(&mut c, deployment_id, ROOT.field("deployment_id"));
    match (before, after, question, deployment_id) {
        (Some(before), Some(after), Some(question), Ok(deployment_id)) if c.is_empty() => {
            Ok(DriftRequest {
                before,
                after,
                question,
                deployment_id,
            })
        }
        _ => Err(c.into_error()),
    }
}

/// Validates one event at `path` (e.g. `events[3]`).
pub fn event(value: &Value, path: &str) -> Result<Event> {
    let mut c = Collector::default();
    match event_from(&mut c, value, Path::Text(path)) {
        Some(e) if c.is_empty() => Ok(e),
        _ => Err(c.into_error()),
    }
}

/// The fields of a request body, which must be an object with the `expected` fields.
fn root_object<V: Input>(c: &mut Collector, value: V, expected: &str) -> Option<V::Fields> {
    match value.into_fields() {
        Ok(fields) => Some(fields),
        Err(other) => {
            c.push(
                "body",
                format!(
                    "must be a JSON object with {expected}, got {}",
                    type_name(other.value())
                ),
            );
            None
        }
    }
}

/// Validates the drift period in field `key` of the request.
fn period<V: Input>(c: &mut Collector, field: Option<V>, key: &str) -> Option<Period> {
    let path = ROOT.field(key);
    let v = required(c, field, path)?;
    let fields = match v.into_fields() {
        Ok(fields) => fields,
        Err(other) => {
            c.push(
                path,
                format!(
                    "must be an object with label and events, got {}",
                    type_name(other.value())
                ),
            );
            return None;
        }
    };
    let [label, events] = split_fields(c, fields, path, &PERIOD_FIELDS, |_| None);
    let label =
        optional_id(c, label, path.field("label")).map(|l| l.unwrap_or_else(|| key.to_owned()));
    let events = events_field(
        c,
        events,
        path.field("events"),
        limits::DRIFT_EVENTS_MIN,
        limits::DRIFT_EVENTS_MAX,
    );
    Some(Period {
        label: label.ok()?,
        events: events?,
    })
}

/// Validates a required `events` field at `path`: an array of `min` to `max` events.
fn events_field<V: Input>(
    c: &mut Collector,
    field: Option<V>,
    path: Path<'_>,
    min: usize,
    max: usize,
) -> Option<Vec<Event>> {
    let v = required(c, field, path)?;
    match v.into_items() {
        Ok(items) => event_list(c, items, path, min, max, event_from),
        Err(other) => {
            c.push(
                path,
                format!(
                    "must be an array of events, got {}",
                    type_name(other.value())
                ),
            );
            None
        }
    }
}

/// Validates the elements of the events array at `path`, which must hold `min` to `max`,
/// each with `check`.
fn event_list<T>(
    c: &mut Collector,
    items: impl ExactSizeIterator<Item = T>,
    path: Path<'_>,
    min: usize,
    max: usize,
    check: impl Fn(&mut Collector, T, Path<'_>) -> Option<Event>,
) -> Option<Vec<Event>> {
    let len = items.len();
    let mut ok = (min..=max).contains(&len);
    if !ok {
        c.push(path, count_message(min, max, len));
        if len > max {
            // Checking each of too many events would only bury the one fix that matters.
            return None;
        }
    }
    let mut out = Vec::with_capacity(len);
    for (i, item) in items.enumerate() {
        match check(c, item, path.index(i)) {
            Some(e) => out.push(e),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Validates one event at `path`, reporting into `c`; `None` if it broke a rule.
fn event_from<V: Input>(c: &mut Collector, value: V, path: Path<'_>) -> Option<Event> {
    let fields = match value.into_fields() {
        Ok(fields) => fields,
        Err(other) => {
            c.push(
                path,
                format!("must be an event object, got {}", type_name(other.value())),
            );
            return None;
        }
    };
    let fields = split_fields(c, fields, path, &EVENT_FIELDS, event_hint);
    event_fields(c, fields, path)
}

/// Advice for a top-level field of a request that names an idempotency key
/// (`idempotency_key`, `Idempotency-Key`, `idempotencyKey`, or misspelt after its
/// first seven letters): the key goes with the request, not in its body. Over MCP the
/// tool's `idempotency_key` argument is taken out of the body first, so a misspelt
/// argument arrives here too.
fn idempotency_hint(key: &str) -> Option<&'static str> {
    key.get(..7)
        .is_some_and(|start| start.eq_ignore_ascii_case("idempot"))
        .then_some(
            "an idempotency key is not a body field: send it as the Idempotency-Key \
             header, or as the idempotency_key argument of an MCP tool",
        )
}

/// Advice for a field an event may not carry.
fn event_hint(_: &str) -> Option<&'static str> {
    Some("put extra data in metadata")
}

/// Validates the [`EVENT_FIELDS`] of the event at `path`, as sorted by [`split_fields`].
fn event_fields<V: Input>(
    c: &mut Collector,
    fields: [Option<V>; EVENT_FIELDS.len()],
    path: Path<'_>,
) -> Option<Event> {
    let [
        actor_id,
        content,
        timestamp,
        context,
        metadata,
        conversation_id,
    ] = fields;
    let actor_id = required_id(c, actor_id, path.field("actor_id"));
    let content_path = path.field("content");
    let content = required(c, content, content_path)
        .and_then(|v| string(c, v, content_path))
        .and_then(|s| check_content(c, s, content_path));
    let ts_path = path.field("timestamp");
    let timestamp = required(c, timestamp, ts_path).and_then(|v| {
        let s = as_str(c, v.value(), ts_path)?;
        check_timestamp(c, s, ts_path)
    });
    let context = optional_id(c, context, path.field("context"));
    let conversation_id = optional_checked(
        c,
        conversation_id,
        path.field("conversation_id"),
        check_conversation_id,
    );
    let metadata = match optional(metadata) {
        None => Some(None),
        Some(v) => check_metadata(c, v, path.field("metadata")).map(Some),
    };
    Some(Event {
        actor_id: actor_id?,
        content: content?,
        timestamp: timestamp?,
        context: context.ok()?,
        metadata: metadata?,
        conversation_id: conversation_id.ok()?,
    })
}

/// Parses a request body: size limit, UTF-8, then JSON. Every failure names `body`.
///
/// A leading UTF-8 byte order mark, as some editors write, is ignored (RFC 8259 §8.1).
pub fn parse_body(bytes: &[u8]) -> Result<Value> {
    parse_body_with(bytes, &Options::default())
}

/// [`parse_body`] with options: `unlimited` lifts the size limit.
pub fn parse_body_with(bytes: &[u8], options: &Options) -> Result<Value> {
    let text = body_text(bytes, options)?;
    if text.trim().is_empty() {
        return Err(body_error("is empty; expected a JSON object".to_owned()));
    }
    let parsed = if options.repeated_keys {
        serde_json::from_str(text)
    } else {
        let max_items = if options.unlimited {
            usize::MAX
        } else {
            limits::BODY_ITEMS_MAX
        };
        json::from_str(text, max_items)
    };
    parsed.map_err(|e| body_error(json::why_not(&e)))
}

/// A message text read as a body is: `Ok(Some(value))` for JSON, `Ok(None)` for text
/// that is not JSON at all (its reader reports that), and the violation [`parse_body`]
/// reports for JSON that gives a key twice in one object, at any depth, or holds an
/// array or object of more than [`limits::BODY_ITEMS_MAX`] items. For a
/// transport whose library parses its messages itself and keeps a repeated key's last
/// value (MCP's JSON-RPC), so that what a body may not say, a message may not say
/// either; the value is for what the transport checks itself.
pub fn read_message(text: &str) -> Result<Option<Value>> {
    match json::from_str(
        text.strip_prefix(BOM).unwrap_or(text),
        limits::BODY_ITEMS_MAX,
    ) {
        Ok(value) => Ok(Some(value)),
        // Only a repeated key is a data error: the reader accepts every JSON value.
        Err(e) if e.is_data() => Err(body_error(json::why_not(&e))),
        Err(_) => Ok(None),
    }
}

/// The body as text: within the size limit, UTF-8, without a leading byte order mark.
fn body_text<'a>(bytes: &'a [u8], options: &Options) -> Result<&'a str> {
    if bytes.len() > limits::BODY_MAX_BYTES && !options.unlimited {
        return Err(body_error(format!(
            "is {} bytes; the limit is {} bytes (16 MiB)",
            bytes.len(),
            limits::BODY_MAX_BYTES
        )));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        body_error(format!(
            "is not valid UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))
    })?;
    Ok(text.strip_prefix(BOM).unwrap_or(text))
}

fn body_error(message: String) -> Error {
    Error::Validation(vec![Violation::new("body", message)])
}

/// The UTF-8 byte order mark, which every reader of an input ignores at its start.
pub(crate) const BOM: &str = "\u{feff}";

/// Parses and validates an ingest request from raw JSON bytes.
pub fn ingest_request_bytes(bytes: &[u8], options: &Options) -> Result<IngestRequest> {
    ingest(parse_body_with(bytes, options)?, options)
}

/// Parses and validates a drift request from raw JSON bytes.
pub fn drift_request_bytes(bytes: &[u8]) -> Result<DriftRequest> {
    drift_request_bytes_with(bytes, &Options::default())
}

/// [`drift_request_bytes`] with options (a stored request: [`Options::STORED`]).
pub fn drift_request_bytes_with(bytes: &[u8], options: &Options) -> Result<DriftRequest> {
    drift(parse_body_with(bytes, options)?)
}

/// Checks one identifier outside a request (for example a CLI flag); same rules as ids in requests.
pub fn identifier(value: &str, path: &str) -> Result<()> {
    let mut c = Collector::default();
    if check_id(&mut c, value, Path::Text(path)) {
        Ok(())
    } else {
        Err(c.into_error())
    }
}

/// Checks a drift question outside a request (for example a CLI flag); the same rule
/// as `question` in a drift request.
pub fn question(value: &str) -> Result<()> {
    let mut c = Collector::default();
    match check_question(&mut c, value, Path::Text("question")) {
        Some(_) => Ok(()),
        None => Err(c.into_error()),
    }
}

/// A drift question: 1 to 2000 characters after trimming; returns it trimmed.
fn check_question(c: &mut Collector, value: &str, path: Path<'_>) -> Option<String> {
    let s = value.trim();
    let chars = s.chars().count();
    if chars == 0 || chars > limits::QUESTION_MAX_CHARS {
        c.push(
            path,
            format!(
                "must be 1 to {} characters after trimming, got {chars}",
                limits::QUESTION_MAX_CHARS
            ),
        );
        return None;
    }
    Some(s.to_owned())
}
