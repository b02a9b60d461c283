//! Field-level checks shared by every request type: ids, text, timestamps, metadata.
//!
//! Each check records what it finds in a [`Collector`] and keeps going, so a request
//! with several problems reports all of them at once.

use chrono::{DateTime, Datelike, NaiveDateTime, Timelike, Utc, format::ParseErrorKind};
use serde_json::{Map, Value};

use crate::error::{Error, Violation};
use crate::schema::limits;

/// Most violations listed in one error; the rest are counted in a final entry, so a
/// hostile body cannot turn into an error many times its own size.
pub const MAX_LISTED_VIOLATIONS: usize = 1000;

/// Gathers violations while a request is walked.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    violations: Vec<Violation>,
    unlisted: usize,
}

impl Collector {
    pub(crate) fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        if self.violations.len() < MAX_LISTED_VIOLATIONS {
            self.violations.push(Violation::new(path, message));
        } else {
            self.unlisted += 1;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.violations.is_empty()
    }

    /// The validation error holding everything collected.
    pub(crate) fn into_error(mut self) -> Error {
        if self.unlisted > 0 {
            self.violations.push(Violation::new(
                "body",
                format!(
                    "{} more problems not listed (at most {MAX_LISTED_VIOLATIONS} are)",
                    self.unlisted
                ),
            ));
        }
        Error::Validation(self.violations)
    }
}

/// Joins a parent path and a field name: `events[3]` + `timestamp` → `events[3].timestamp`.
///
/// A name that is not a plain identifier (letters, digits, `_`, `-`) is written quoted
/// in brackets, `events[3]["a.b"]`, so paths stay unambiguous and printable.
pub(crate) fn join(parent: &str, field: &str) -> String {
    let plain = !field.is_empty()
        && field
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (parent.is_empty(), plain) {
        (true, true) => field.to_owned(),
        (false, true) => format!("{parent}.{field}"),
        (_, false) => format!("{parent}[{}]", quote(field)),
    }
}

/// The JSON type of a value, as named in messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Quotes a caller's value for a message, shortened so one bad field cannot flood the output.
pub(crate) fn quote(s: &str) -> String {
    const MAX: usize = 64;
    if s.chars().count() <= MAX {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head:?}…")
    }
}

/// Reports every field of `obj` that is not in `allowed`, with an optional hint per field.
pub(crate) fn reject_unknown(
    c: &mut Collector,
    obj: &Map<String, Value>,
    parent: &str,
    allowed: &[&str],
    hint: impl Fn(&str) -> Option<&'static str>,
) {
    for key in obj.keys().filter(|k| !allowed.contains(&k.as_str())) {
        let mut message = format!("unknown field; allowed fields are {}", allowed.join(", "));
        if let Some(h) = hint(key) {
            message.push_str(" (");
            message.push_str(h);
            message.push(')');
        }
        c.push(join(parent, key), message);
    }
}

/// Looks up an optional field, treating JSON `null` as absent.
pub(crate) fn optional<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// Reads a required string field; reports `is required` or a type mismatch.
pub(crate) fn required_str<'a>(
    c: &mut Collector,
    obj: &'a Map<String, Value>,
    key: &str,
    path: &str,
) -> Option<&'a str> {
    match obj.get(key) {
        None => {
            c.push(path, "is required");
            None
        }
        Some(v) => as_str(c, v, path),
    }
}

/// Reads a string value; reports a type mismatch otherwise.
pub(crate) fn as_str<'a>(c: &mut Collector, v: &'a Value, path: &str) -> Option<&'a str> {
    match v {
        Value::String(s) => Some(s),
        other => {
            c.push(path, format!("must be a string, got {}", type_name(other)));
            None
        }
    }
}

/// Checks an identifier: 1 to [`limits::ID_MAX_CHARS`] characters, no control characters.
pub(crate) fn check_id(c: &mut Collector, s: &str, path: &str) -> bool {
    let chars = s.chars().count();
    if chars == 0 {
        c.push(path, "must not be empty");
        return false;
    }
    if chars > limits::ID_MAX_CHARS {
        c.push(
            path,
            format!(
                "must be at most {} characters, got {chars}",
                limits::ID_MAX_CHARS
            ),
        );
        return false;
    }
    if let Some((pos, ch)) = s.chars().enumerate().find(|(_, ch)| ch.is_control()) {
        c.push(
            path,
            format!(
                "must not contain control characters (found U+{:04X} at character {})",
                u32::from(ch),
                pos + 1
            ),
        );
        return false;
    }
    true
}

/// Prefix of the ids Undertone gives conversations it groups itself; callers may not use it.
pub const AUTO_ID_PREFIX: &str = "auto:";

/// Checks a caller's conversation id: an identifier not starting with [`AUTO_ID_PREFIX`].
pub(crate) fn check_conversation_id(c: &mut Collector, s: &str, path: &str) -> bool {
    if !check_id(c, s, path) {
        return false;
    }
    if s.starts_with(AUTO_ID_PREFIX) {
        c.push(
            path,
            "must not start with \"auto:\", which marks conversations Undertone groups itself",
        );
        return false;
    }
    true
}

/// Reads a required identifier field.
pub(crate) fn required_id(
    c: &mut Collector,
    obj: &Map<String, Value>,
    key: &str,
    parent: &str,
) -> Option<String> {
    let path = join(parent, key);
    let s = required_str(c, obj, key, &path)?;
    check_id(c, s, &path).then(|| s.to_owned())
}

/// Reads an optional identifier field (`null` counts as absent). The outer `Err` marks a violation.
pub(crate) fn optional_id(
    c: &mut Collector,
    obj: &Map<String, Value>,
    key: &str,
    parent: &str,
) -> Result<Option<String>, ()> {
    optional_checked(c, obj, key, parent, check_id)
}

/// Reads an optional string field that must pass `check` (`null` counts as absent).
pub(crate) fn optional_checked(
    c: &mut Collector,
    obj: &Map<String, Value>,
    key: &str,
    parent: &str,
    check: fn(&mut Collector, &str, &str) -> bool,
) -> Result<Option<String>, ()> {
    let Some(v) = optional(obj, key) else {
        return Ok(None);
    };
    let path = join(parent, key);
    let s = as_str(c, v, &path).ok_or(())?;
    if check(c, s, &path) {
        Ok(Some(s.to_owned()))
    } else {
        Err(())
    }
}

/// The message for an events array of the wrong length.
pub(crate) fn count_message(min: usize, max: usize, got: usize) -> String {
    format!("must hold {min} to {max} events, got {got}")
}

/// Checks message text: trimmed, non-empty, at most [`limits::CONTENT_MAX_BYTES`], no NUL.
pub(crate) fn check_content(c: &mut Collector, raw: &str, path: &str) -> Option<String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        c.push(path, "must not be empty or only whitespace");
        return None;
    }
    if trimmed.len() > limits::CONTENT_MAX_BYTES {
        c.push(
            path,
            format!(
                "must be at most {} bytes of UTF-8 after trimming, got {}",
                limits::CONTENT_MAX_BYTES,
                trimmed.len()
            ),
        );
        return None;
    }
    if trimmed.contains('\0') {
        c.push(path, "must not contain NUL characters (U+0000)");
        return None;
    }
    Some(trimmed.to_owned())
}

/// Parses an RFC 3339 timestamp with an offset and normalises it to UTC.
pub(crate) fn check_timestamp(c: &mut Collector, s: &str, path: &str) -> Option<DateTime<Utc>> {
    match DateTime::parse_from_rfc3339(s) {
        Ok(t) => {
            let t = t.with_timezone(&Utc);
            // chrono accepts :60 at any minute; a leap second only exists at 23:59:60 UTC.
            let bad_leap = t.nanosecond() >= 1_000_000_000 && (t.hour(), t.minute()) != (23, 59);
            if bad_leap {
                c.push(path, format!("{} is not a real date and time", quote(s)));
                None
            } else if !(0..=9999).contains(&t.year()) {
                c.push(
                    path,
                    format!("{} falls outside the years 0000 to 9999 in UTC", quote(s)),
                );
                None
            } else {
                Some(t)
            }
        }
        Err(e) => {
            let message = if is_naive(s) {
                format!(
                    "{} has no UTC offset; add Z or an offset such as +01:00, e.g. 2026-11-21T09:30:00Z",
                    quote(s)
                )
            } else if matches!(
                e.kind(),
                ParseErrorKind::OutOfRange | ParseErrorKind::Impossible
            ) {
                format!("{} is not a real date and time", quote(s))
            } else {
                format!(
                    "must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got {}",
                    quote(s)
                )
            };
            c.push(path, message);
            None
        }
    }
}

/// True when `s` is a valid date and time without any offset (a "naive" timestamp).
fn is_naive(s: &str) -> bool {
    [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ]
    .iter()
    .any(|f| NaiveDateTime::parse_from_str(s, f).is_ok())
}

/// Checks a metadata object: an object, at most [`limits::METADATA_MAX_BYTES`] and
/// [`limits::METADATA_MAX_DEPTH`] deep.
pub(crate) fn check_metadata(
    c: &mut Collector,
    v: &Value,
    path: &str,
) -> Option<Map<String, Value>> {
    let Value::Object(map) = v else {
        c.push(path, format!("must be a JSON object, got {}", type_name(v)));
        return None;
    };
    let mut ok = true;
    let bytes = compact_json_len(v);
    if bytes > limits::METADATA_MAX_BYTES {
        c.push(
            path,
            format!(
                "must be at most {} bytes as compact JSON, got {bytes}",
                limits::METADATA_MAX_BYTES
            ),
        );
        ok = false;
    }
    let depth = depth(v);
    if depth > limits::METADATA_MAX_DEPTH {
        c.push(
            path,
            format!(
                "must be nested at most {} levels deep, got {depth}",
                limits::METADATA_MAX_DEPTH
            ),
        );
        ok = false;
    }
    if let Some(id) = optional(map, "conversation_id") {
        let id_path = join(path, "conversation_id");
        match id {
            Value::String(s) => ok &= check_conversation_id(c, s, &id_path),
            Value::Number(n) if n.is_i64() || n.is_u64() => {}
            other => {
                c.push(
                    id_path,
                    format!("must be a string or an integer, got {}", type_name(other)),
                );
                ok = false;
            }
        }
    }
    ok.then(|| map.clone())
}

/// Nesting depth of objects and arrays: a scalar is 0, `{}` is 1, `{"a":{}}` is 2.
fn depth(v: &Value) -> usize {
    // Iterative, so a hostile, deeply nested document cannot overflow the stack.
    let mut deepest = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(children.map(|child| (child, d + 1)));
    }
    deepest
}

/// Length of `v` as compact JSON, counted without building the text.
fn compact_json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    // Serialising a Value cannot fail: every key is a string, and counting never errs.
    match serde_json::to_writer(&mut n, v) {
        Ok(()) => n.0,
        Err(_) => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn depth_counts_containers_only() {
        assert_eq!(depth(&json!(1)), 0);
        assert_eq!(depth(&json!({})), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": 2}]})), 3);
    }

    #[test]
    fn quote_shortens_long_values() {
        let long = "x".repeat(100);
        assert_eq!(quote(&long), format!("\"{}\"…", "x".repeat(64)));
        assert_eq!(quote("ab"), "\"ab\"");
    }
}
