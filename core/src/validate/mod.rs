//! Validation of every input rule of DESIGN.md §2, in one place for every surface.
//!
//! Requests are checked as JSON values so that one pass reports *all* violations,
//! each with its field path, instead of stopping at the first type mismatch.

pub mod address;
mod fields;

pub use fields::{AUTO_ID_PREFIX, MAX_LISTED_VIOLATIONS};

use std::collections::HashSet;
use std::net::IpAddr;

use serde_json::{Map, Value};
use url::{Host, Url};

use crate::error::{Error, Result, Violation};
use crate::schema::{DriftRequest, Event, IngestRequest, Period, Pipeline, limits};
use fields::{
    Collector, as_str, check_content, check_conversation_id, check_id, check_metadata,
    check_timestamp, count_message, join, optional, optional_checked, optional_id, quote,
    reject_unknown, required_id, required_str, type_name,
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
}

/// Validates an ingest request body given as JSON.
pub fn ingest_request(value: &Value, options: &Options) -> Result<IngestRequest> {
    let mut c = Collector::default();
    let Some(obj) = root_object(&mut c, value, "deployment_id and events") else {
        return Err(c.into_error());
    };
    reject_unknown(&mut c, obj, "", &INGEST_FIELDS, |_| None);
    let deployment_id = required_id(&mut c, obj, "deployment_id", "");
    let pipeline = match optional(obj, "pipeline") {
        None => Some(Pipeline::Auto),
        Some(v) => as_str(&mut c, v, "pipeline").and_then(|s| {
            let parsed = Pipeline::parse(s);
            if parsed.is_none() {
                c.push(
                    "pipeline",
                    format!("must be one of auto, support, reviews; got {}", quote(s)),
                );
            }
            parsed
        }),
    };
    let webhook_url = match optional(obj, "webhook_url") {
        None => Some(None),
        Some(v) => as_str(&mut c, v, "webhook_url")
            .and_then(|s| check_webhook_url(&mut c, s, "webhook_url", options))
            .map(Some),
    };
    let max = if options.unlimited {
        usize::MAX
    } else {
        limits::INGEST_EVENTS_MAX
    };
    let events = events(&mut c, obj, "", limits::INGEST_EVENTS_MIN, max);
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
    let mut c = Collector::default();
    let Some(obj) = root_object(&mut c, value, "before and after") else {
        return Err(c.into_error());
    };
    reject_unknown(&mut c, obj, "", &DRIFT_FIELDS, |key| match key {
        "before_label" => Some("put the label in before.label"),
        "after_label" => Some("put the label in after.label"),
        _ => None,
    });
    let before = period(&mut c, obj, "before");
    let after = period(&mut c, obj, "after");
    let question = match optional(obj, "question") {
        None => Some(None),
        Some(v) => as_str(&mut c, v, "question").and_then(|s| {
            let s = s.trim();
            let chars = s.chars().count();
            if chars == 0 || chars > limits::QUESTION_MAX_CHARS {
                c.push(
                    "question",
                    format!(
                        "must be 1 to {} characters after trimming, got {chars}",
                        limits::QUESTION_MAX_CHARS
                    ),
                );
                None
            } else {
                Some(Some(s.to_owned()))
            }
        }),
    };
    let deployment_id = optional_id(&mut c, obj, "deployment_id", "");
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
    match event_into(&mut c, value, path) {
        Some(e) if c.is_empty() => Ok(e),
        _ => Err(c.into_error()),
    }
}

/// Checks that `webhook_url` is an absolute https URL without credentials whose host is
/// not a literal non-public address or `localhost` (host names are resolved and checked
/// again by the server when it connects).
pub fn webhook_url(url: &str, options: &Options) -> Result<String> {
    let mut c = Collector::default();
    check_webhook_url(&mut c, url, "webhook_url", options).ok_or_else(|| c.into_error())
}

fn root_object<'a>(
    c: &mut Collector,
    value: &'a Value,
    expected: &str,
) -> Option<&'a Map<String, Value>> {
    match value {
        Value::Object(obj) => Some(obj),
        other => {
            c.push(
                "body",
                format!(
                    "must be a JSON object with {expected}, got {}",
                    type_name(other)
                ),
            );
            None
        }
    }
}

fn period(c: &mut Collector, parent: &Map<String, Value>, key: &str) -> Option<Period> {
    let Some(v) = parent.get(key) else {
        c.push(key, "is required");
        return None;
    };
    let Value::Object(obj) = v else {
        c.push(
            key,
            format!(
                "must be an object with label and events, got {}",
                type_name(v)
            ),
        );
        return None;
    };
    reject_unknown(c, obj, key, &PERIOD_FIELDS, |_| None);
    let label = optional_id(c, obj, "label", key).map(|l| l.unwrap_or_else(|| key.to_owned()));
    let events = events(
        c,
        obj,
        key,
        limits::DRIFT_EVENTS_MIN,
        limits::DRIFT_EVENTS_MAX,
    );
    Some(Period {
        label: label.ok()?,
        events: events?,
    })
}

fn events(
    c: &mut Collector,
    parent: &Map<String, Value>,
    parent_path: &str,
    min: usize,
    max: usize,
) -> Option<Vec<Event>> {
    let path = join(parent_path, "events");
    let Some(v) = parent.get("events") else {
        c.push(path, "is required");
        return None;
    };
    let Value::Array(items) = v else {
        c.push(
            path,
            format!("must be an array of events, got {}", type_name(v)),
        );
        return None;
    };
    let mut ok = (min..=max).contains(&items.len());
    if !ok {
        c.push(&path, count_message(min, max, items.len()));
        if items.len() > max {
            // Checking each of too many events would only bury the one fix that matters.
            return None;
        }
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match event_into(c, item, &format!("{path}[{i}]")) {
            Some(e) => out.push(e),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn event_into(c: &mut Collector, value: &Value, path: &str) -> Option<Event> {
    let Value::Object(obj) = value else {
        c.push(
            path,
            format!("must be an event object, got {}", type_name(value)),
        );
        return None;
    };
    reject_unknown(c, obj, path, &EVENT_FIELDS, |_| {
        Some("put extra data in metadata")
    });
    let actor_id = required_id(c, obj, "actor_id", path);
    let content_path = join(path, "content");
    let content = required_str(c, obj, "content", &content_path)
        .and_then(|s| check_content(c, s, &content_path));
    let ts_path = join(path, "timestamp");
    let timestamp =
        required_str(c, obj, "timestamp", &ts_path).and_then(|s| check_timestamp(c, s, &ts_path));
    let context = optional_id(c, obj, "context", path);
    let conversation_id = optional_checked(c, obj, "conversation_id", path, check_conversation_id);
    let metadata = match optional(obj, "metadata") {
        None => Some(None),
        Some(v) => check_metadata(c, v, &join(path, "metadata")).map(Some),
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

fn check_webhook_url(c: &mut Collector, s: &str, path: &str, options: &Options) -> Option<String> {
    let chars = s.chars().count();
    if chars > limits::URL_MAX_CHARS {
        c.push(
            path,
            format!(
                "must be at most {} characters, got {chars}",
                limits::URL_MAX_CHARS
            ),
        );
        return None;
    }
    let expected = if options.allow_private_webhooks {
        "an absolute http or https URL"
    } else {
        "an absolute https URL"
    };
    let url = match Url::parse(s) {
        Ok(url) => url,
        Err(e) => {
            c.push(
                path,
                format!("must be {expected}; {} is not a URL ({e})", quote(s)),
            );
            return None;
        }
    };
    let scheme_ok =
        url.scheme() == "https" || (options.allow_private_webhooks && url.scheme() == "http");
    let problem = if !scheme_ok {
        Some(format!("must be {expected}; got scheme {:?}", url.scheme()))
    } else if url.host().is_none() {
        Some(format!("must be {expected} with a host"))
    } else if !url.username().is_empty() || url.password().is_some() {
        Some("must not carry a user name or password".to_owned())
    } else if !options.allow_private_webhooks && !public_host(url.host()) {
        Some(format!(
            "must point to a public address; {} is private, loopback, link-local or reserved",
            url.host_str().unwrap_or_default()
        ))
    } else {
        None
    };
    match problem {
        Some(p) => {
            c.push(path, p);
            None
        }
        None => Some(url.to_string()),
    }
}

/// False for literal non-public IP addresses and for `localhost` names.
fn public_host(host: Option<Host<&str>>) -> bool {
    match host {
        Some(Host::Ipv4(ip)) => address::is_public(IpAddr::V4(ip)),
        Some(Host::Ipv6(ip)) => address::is_public(IpAddr::V6(ip)),
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name != "localhost" && !name.ends_with(".localhost")
        }
        None => false,
    }
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
    serde_json::from_str(text).map_err(|e| body_error(format!("is not valid JSON: {e}")))
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

/// The UTF-8 byte order mark.
const BOM: &str = "\u{feff}";

/// Parses and validates an ingest request from raw JSON bytes.
pub fn ingest_request_bytes(bytes: &[u8], options: &Options) -> Result<IngestRequest> {
    ingest_request(&parse_body_with(bytes, options)?, options)
}

/// Parses and validates a drift request from raw JSON bytes.
pub fn drift_request_bytes(bytes: &[u8]) -> Result<DriftRequest> {
    drift_request(&parse_body(bytes)?)
}

/// Builds an ingest request from JSON Lines, one event per non-blank line.
///
/// Blank lines are skipped; `events[i]` in violations counts events, and the message
/// names the file line when the line is not JSON.
pub fn ingest_request_json_lines(
    bytes: &[u8],
    deployment_id: &str,
    options: &Options,
) -> Result<IngestRequest> {
    let text = body_text(bytes, options)?;
    let count = text.lines().filter(|l| !l.trim().is_empty()).count();
    if count > limits::INGEST_EVENTS_MAX && !options.unlimited {
        return Err(Error::Validation(vec![Violation::new(
            "events",
            count_message(limits::INGEST_EVENTS_MIN, limits::INGEST_EVENTS_MAX, count),
        )]));
    }
    let mut bad_lines = Vec::new();
    let mut events = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(v) => events.push(v),
            Err(e) => {
                // Each earlier bad line already holds a placeholder in `events`.
                bad_lines.push(Violation::new(
                    format!("events[{}]", events.len()),
                    format!("line {} is not valid JSON: {e}", line_no + 1),
                ));
                events.push(Value::Null);
            }
        }
    }
    if events.is_empty() {
        return Err(Error::Validation(vec![Violation::new(
            "body",
            "is empty; expected one JSON event per line",
        )]));
    }
    let mut request = Map::new();
    request.insert("deployment_id".into(), Value::String(deployment_id.into()));
    request.insert("events".into(), Value::Array(events));
    let result = ingest_request(&Value::Object(request), options);
    if bad_lines.is_empty() {
        return result;
    }
    // Lines that were not JSON became nulls; report them as such instead of "got null".
    let placeholders: HashSet<&str> = bad_lines.iter().map(|b| b.path.as_str()).collect();
    let mut violations = result
        .err()
        .map(|e| e.violations().to_vec())
        .unwrap_or_default();
    violations.retain(|v| !placeholders.contains(v.path.as_str()));
    violations.extend(bad_lines.iter().cloned());
    violations.sort_by_key(|v| event_position(&v.path));
    Err(Error::Validation(violations))
}

/// The event number in a path like `events[12].content`, for ordering; `None` sorts first.
fn event_position(path: &str) -> Option<usize> {
    path.strip_prefix("events[")?
        .split(']')
        .next()?
        .parse()
        .ok()
}

/// Checks one identifier outside a request (for example a CLI flag); same rules as ids in requests.
pub fn identifier(value: &str, path: &str) -> Result<()> {
    let mut c = Collector::default();
    if check_id(&mut c, value, path) {
        Ok(())
    } else {
        Err(c.into_error())
    }
}
