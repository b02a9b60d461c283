//! Field-level checks shared by every request type: ids, text, timestamps, metadata.
//!
//! Each check records what it finds in a [`Collector`] and keeps going, so a request
//! with several problems reports all of them at once.

use std::fmt;

use chrono::{DateTime, Datelike, NaiveDateTime, Timelike, Utc, format::ParseErrorKind};
use serde_json::{Map, Value};

use super::wording::quote;
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
    /// Records a violation at `path`; the path is only formatted if the violation is listed.
    pub(crate) fn push(&mut self, path: impl fmt::Display, message: impl Into<String>) {
        if self.violations.len() < MAX_LISTED_VIOLATIONS {
            self.violations
                .push(Violation::new(path.to_string(), message));
        } else {
            self.unlisted += 1;
        }
    }

    /// True while nothing has been reported.
    pub(crate) fn is_empty(&self) -> bool {
        self.violations.is_empty()
    }

    /// The validation error holding everything collected.
    pub(crate) fn into_error(mut self) -> Error {
        if self.unlisted > 0 {
            self.violations
                .push(crate::error::unlisted(self.unlisted, MAX_LISTED_VIOLATIONS));
        }
        Error::Validation(self.violations)
    }
}

/// Where a value sits in the input, e.g. `events[3].timestamp`.
///
/// A path is a chain of borrowed links on the stack, so building one costs nothing; it
/// is only written out as text when a violation is reported. Field names that are not
/// plain identifiers (letters, digits, `_`, `-`) are written quoted in brackets,
/// `events[3]["a.b"]`, so paths stay unambiguous and printable.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    /// A path given as text and written as is: [`ROOT`] (`""`), `body`, a CLI flag.
    Text(&'a str),
    /// A field of an object: `parent.name`, just `name` at the root, or `parent["name"]`.
    Field(&'a Path<'a>, &'a str),
    /// An element of an array: `parent[index]`.
    Index(&'a Path<'a>, usize),
}

/// The path of a request body itself; its fields are written without a leading dot.
pub(crate) static ROOT: Path<'static> = Path::Text("");

impl Path<'_> {
    /// The path of field `name` of the object at this path.
    pub(crate) fn field<'b>(&'b self, name: &'b str) -> Path<'b> {
        Path::Field(self, name)
    }

    /// The path of element `index` of the array at this path.
    pub(crate) fn index(&self, index: usize) -> Path<'_> {
        Path::Index(self, index)
    }

    /// True for a path written as the empty string (only ever [`ROOT`] or `Text("")`).
    fn is_empty(&self) -> bool {
        matches!(self, Path::Text(""))
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Path::Text(text) => f.write_str(text),
            Path::Field(parent, name) if is_plain(name) => {
                if parent.is_empty() {
                    f.write_str(name)
                } else {
                    write!(f, "{parent}.{name}")
                }
            }
            Path::Field(parent, name) => write!(f, "{parent}[{}]", quote(name)),
            Path::Index(parent, index) => write!(f, "{parent}[{index}]"),
        }
    }
}

/// True for a field name written bare in a path: non-empty letters, digits, `_` and `-`.
fn is_plain(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A JSON value being validated, read by reference and then either copied into the
/// result (`&Value`, for callers that keep their value) or moved into it (`Value`, for
/// bodies parsed here, which saves copying every string and metadata object).
///
/// The `into_*` methods hand the value back unchanged when it is of another JSON type,
/// so the caller can name that type in its message.
pub(crate) trait Input: Sized {
    /// An object's key as the object yields it.
    type Key: AsRef<str>;
    /// An object's fields, in document order.
    type Fields: Iterator<Item = (Self::Key, Self)>;
    /// An array's elements, in order.
    type Items: ExactSizeIterator<Item = Self>;

    /// The value, to inspect.
    fn value(&self) -> &Value;
    /// The text of a JSON string.
    fn into_string(self) -> Result<String, Self>;
    /// A JSON object as a map.
    fn into_map(self) -> Result<Map<String, Value>, Self>;
    /// The fields of a JSON object.
    fn into_fields(self) -> Result<Self::Fields, Self>;
    /// The elements of a JSON array.
    fn into_items(self) -> Result<Self::Items, Self>;
}

impl<'a> Input for &'a Value {
    type Key = &'a String;
    type Fields = serde_json::map::Iter<'a>;
    type Items = std::slice::Iter<'a, Value>;

    fn value(&self) -> &Value {
        self
    }

    fn into_string(self) -> Result<String, Self> {
        match self {
            Value::String(s) => Ok(s.clone()),
            other => Err(other),
        }
    }

    fn into_map(self) -> Result<Map<String, Value>, Self> {
        match self {
            Value::Object(map) => Ok(map.clone()),
            other => Err(other),
        }
    }

    fn into_fields(self) -> Result<Self::Fields, Self> {
        match self {
            Value::Object(map) => Ok(map.iter()),
            other => Err(other),
        }
    }

    fn into_items(self) -> Result<Self::Items, Self> {
        match self {
            Value::Array(items) => Ok(items.iter()),
            other => Err(other),
        }
    }
}

impl Input for Value {
    type Key = String;
    type Fields = serde_json::map::IntoIter;
    type Items = std::vec::IntoIter<Value>;

    fn value(&self) -> &Value {
        self
    }

    fn into_string(self) -> Result<String, Self> {
        match self {
            Value::String(s) => Ok(s),
            other => Err(other),
        }
    }

    fn into_map(self) -> Result<Map<String, Value>, Self> {
        match self {
            Value::Object(map) => Ok(map),
            other => Err(other),
        }
    }

    fn into_fields(self) -> Result<Self::Fields, Self> {
        match self {
            Value::Object(map) => Ok(map.into_iter()),
            other => Err(other),
        }
    }

    fn into_items(self) -> Result<Self::Items, Self> {
        match self {
            Value::Array(items) => Ok(items.into_iter()),
            other => Err(other),
        }
    }
}

/// The JSON type of a value, as named in messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Sorts an object's fields into the `N` that are `allowed`, in the order of `allowed`,
/// and reports every other field as unknown (with `hint`'s advice for it, if any).
///
/// Unknown fields are reported in document order, before any check of the allowed ones.
pub(crate) fn split_fields<K: AsRef<str>, V, const N: usize>(
    c: &mut Collector,
    fields: impl Iterator<Item = (K, V)>,
    parent: Path<'_>,
    allowed: &[&str; N],
    hint: impl Fn(&str) -> Option<&'static str>,
) -> [Option<V>; N] {
    let mut slots = [const { None }; N];
    for (key, value) in fields {
        let key = key.as_ref();
        match allowed.iter().position(|name| *name == key) {
            Some(i) => slots[i] = Some(value),
            None => unknown_field(c, parent, key, allowed, &hint),
        }
    }
    slots
}

/// Reports field `key` of the object at `parent` as not one of the `allowed` fields.
pub(crate) fn unknown_field(
    c: &mut Collector,
    parent: Path<'_>,
    key: &str,
    allowed: &[&str],
    hint: impl Fn(&str) -> Option<&'static str>,
) {
    let mut message = super::wording::unknown("field", allowed);
    if let Some(h) = hint(key) {
        message.push_str(" (");
        message.push_str(h);
        message.push(')');
    }
    c.push(parent.field(key), message);
}

/// An optional field, treating JSON `null` as absent.
pub(crate) fn optional<V: Input>(field: Option<V>) -> Option<V> {
    field.filter(|v| !v.value().is_null())
}

/// A required field; reports `is required` when it is absent.
pub(crate) fn required<V>(c: &mut Collector, field: Option<V>, path: Path<'_>) -> Option<V> {
    if field.is_none() {
        c.push(path, super::wording::REQUIRED);
    }
    field
}

/// Reads a string value; reports a type mismatch otherwise.
pub(crate) fn as_str<'a>(c: &mut Collector, v: &'a Value, path: Path<'_>) -> Option<&'a str> {
    match v {
        Value::String(s) => Some(s),
        other => {
            c.push(path, format!("must be a string, got {}", type_name(other)));
            None
        }
    }
}

/// Takes a string value; reports a type mismatch otherwise.
pub(crate) fn string<V: Input>(c: &mut Collector, v: V, path: Path<'_>) -> Option<String> {
    v.into_string()
        .map_err(|other| {
            let got = type_name(other.value());
            c.push(path, format!("must be a string, got {got}"));
        })
        .ok()
}

/// Checks an identifier: 1 to [`limits::ID_MAX_CHARS`] characters, no control characters.
pub(crate) fn check_id(c: &mut Collector, s: &str, path: Path<'_>) -> bool {
    // The length in characters and the first control character, if any: for ASCII
    // (nearly every id) the length in bytes and a byte search.
    let (chars, control) = if s.is_ascii() {
        let control = s
            .bytes()
            .enumerate()
            .find(|(_, b)| b.is_ascii_control())
            .map(|(at, b)| (at, char::from(b)));
        (s.len(), control)
    } else {
        let mut chars = 0;
        let mut control = None;
        for ch in s.chars() {
            if control.is_none() && ch.is_control() {
                control = Some((chars, ch));
            }
            chars += 1;
        }
        (chars, control)
    };
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
    if let Some((pos, ch)) = control {
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
pub(crate) fn check_conversation_id(c: &mut Collector, s: &str, path: Path<'_>) -> bool {
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
pub(crate) fn required_id<V: Input>(
    c: &mut Collector,
    field: Option<V>,
    path: Path<'_>,
) -> Option<String> {
    let v = required(c, field, path)?;
    let s = string(c, v, path)?;
    check_id(c, &s, path).then_some(s)
}

/// Reads an optional identifier field (`null` counts as absent). The outer `Err` marks a violation.
pub(crate) fn optional_id<V: Input>(
    c: &mut Collector,
    field: Option<V>,
    path: Path<'_>,
) -> Result<Option<String>, ()> {
    optional_checked(c, field, path, check_id)
}

/// Reads an optional string field that must pass `check` (`null` counts as absent).
pub(crate) fn optional_checked<V: Input>(
    c: &mut Collector,
    field: Option<V>,
    path: Path<'_>,
    check: fn(&mut Collector, &str, Path<'_>) -> bool,
) -> Result<Option<String>, ()> {
    let Some(v) = optional(field) else {
        return Ok(None);
    };
    let s = string(c, v, path).ok_or(())?;
    if check(c, &s, path) {
        Ok(Some(s))
    } else {
        Err(())
    }
}

/// The message for an events array of the wrong length.
pub(crate) fn count_message(min: usize, max: usize, got: usize) -> String {
    if max == usize::MAX {
        // Local scoring lifts the upper limit.
        let noun = if min == 1 { "event" } else { "events" };
        return format!("must hold at least {min} {noun}, got {got}");
    }
    format!("must hold {min} to {max} events, got {got}")
}

/// Checks message text: trimmed, non-empty, at most [`limits::CONTENT_MAX_BYTES`], no NUL.
/// Returns the text trimmed in place.
pub(crate) fn check_content(c: &mut Collector, mut raw: String, path: Path<'_>) -> Option<String> {
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
    if trimmed.len() < raw.len() {
        let end = raw.trim_end().len();
        let start = raw.len() - raw.trim_start().len();
        raw.truncate(end);
        raw.drain(..start);
    }
    Some(raw)
}

/// Parses an RFC 3339 timestamp with an offset and normalises it to UTC.
pub(crate) fn check_timestamp(c: &mut Collector, s: &str, path: Path<'_>) -> Option<DateTime<Utc>> {
    parse_timestamp(s)
        .map_err(|e| c.push(path, e.to_string()))
        .ok()
}

/// Why a text is not a timestamp of the input contract; its message quotes the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// A valid date and time without a UTC offset.
    #[error("{0} has no UTC offset; add Z or an offset such as +01:00, e.g. 2026-11-21T09:30:00Z")]
    NoOffset(String),
    /// RFC 3339 in form, but no such moment (February 30th, a leap second at noon).
    #[error("{0} is not a real date and time")]
    NotReal(String),
    /// A real moment outside the years 0000 to 9999 once moved to UTC.
    #[error("{0} falls outside the years 0000 to 9999 in UTC")]
    OutOfRange(String),
    /// Not RFC 3339 at all.
    #[error("must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got {0}")]
    NotRfc3339(String),
}

/// An RFC 3339 timestamp with an offset, in UTC, by the input contract's rules (a leap
/// second only at 23:59:60, the years 0000 to 9999 once in UTC, so that every
/// normalised timestamp is valid RFC 3339 again); the error says what is wrong with it.
pub fn parse_timestamp(s: &str) -> Result<DateTime<Utc>, TimestampError> {
    match DateTime::parse_from_rfc3339(s) {
        Ok(t) => {
            let t = t.with_timezone(&Utc);
            // chrono accepts :60 at any minute; a leap second only exists at 23:59:60 UTC.
            let bad_leap = t.nanosecond() >= 1_000_000_000 && (t.hour(), t.minute()) != (23, 59);
            // The leap second that would end year 9999 is the first second of 10000
            // on the timeline every sum and comparison of times uses.
            let after_9999 =
                t.nanosecond() >= 1_000_000_000 && t.year() == 9999 && t.ordinal() == 365;
            if bad_leap {
                Err(TimestampError::NotReal(quote(s)))
            } else if after_9999 || !(0..=9999).contains(&t.year()) {
                Err(TimestampError::OutOfRange(quote(s)))
            } else {
                Ok(t)
            }
        }
        Err(e) => Err(if is_naive(s) {
            TimestampError::NoOffset(quote(s))
        } else if matches!(
            e.kind(),
            ParseErrorKind::OutOfRange | ParseErrorKind::Impossible
        ) {
            TimestampError::NotReal(quote(s))
        } else {
            TimestampError::NotRfc3339(quote(s))
        }),
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
pub(crate) fn check_metadata<V: Input>(
    c: &mut Collector,
    v: V,
    path: Path<'_>,
) -> Option<Map<String, Value>> {
    let Value::Object(map) = v.value() else {
        let got = type_name(v.value());
        c.push(path, format!("must be a JSON object, got {got}"));
        return None;
    };
    let mut ok = true;
    let (depth, size_bound) = depth_and_size_bound(v.value());
    // The exact size takes serialising; only needed when the cheap bound is over the limit.
    if size_bound > limits::METADATA_MAX_BYTES {
        let bytes = compact_json_len(v.value());
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
    }
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
    if let Some(id) = map.get("conversation_id").filter(|id| !id.is_null()) {
        let id_path = path.field("conversation_id");
        match id {
            Value::String(s) => ok &= check_conversation_id(c, s, id_path),
            Value::Number(n) if n.is_i64() || n.is_u64() => {}
            // A whole number past 64 bits is read as a float: say which rule it broke.
            Value::Number(n)
                if n.as_f64().is_some_and(|x| {
                    x.fract() == 0.0 && (x < i64::MIN as f64 || x > u64::MAX as f64)
                }) =>
            {
                c.push(
                    id_path,
                    format!(
                        "must be a string or an integer from {} to {}, got a whole number \
                         outside that range; send a longer id as a string",
                        i64::MIN,
                        u64::MAX
                    ),
                );
                ok = false;
            }
            other => {
                c.push(
                    id_path,
                    format!("must be a string or an integer, got {}", type_name(other)),
                );
                ok = false;
            }
        }
    }
    if ok { v.into_map().ok() } else { None }
}

/// Nesting depth of objects and arrays (a scalar is 0, `{}` is 1, `{"a":{}}` is 2) and
/// an upper bound on the length of `v` as compact JSON, in one walk.
///
/// The bound counts each byte of a string or key as a six-byte `\uXXXX` escape, one comma
/// per element or field, and numbers exactly.
fn depth_and_size_bound(v: &Value) -> (usize, usize) {
    // Iterative, so a hostile, deeply nested document cannot overflow the stack. Only
    // nested containers wait on the stack, so flat metadata is walked without allocating.
    let mut stack = Vec::new();
    let (mut deepest, mut bound) = visit(v, 0, &mut stack);
    while let Some((v, d)) = stack.pop() {
        let (reached, b) = visit(v, d, &mut stack);
        deepest = deepest.max(reached);
        bound = bound.saturating_add(b);
    }
    (deepest, bound)
}

/// One step of [`depth_and_size_bound`]: visits `v` at depth `d` and returns the depth it
/// reaches and the bound for it and its scalar children; container children are pushed
/// onto `stack`, to be visited in turn.
fn visit<'v>(v: &'v Value, d: usize, stack: &mut Vec<(&'v Value, usize)>) -> (usize, usize) {
    let mut child = |child: &'v Value| match child {
        Value::Array(_) | Value::Object(_) => {
            stack.push((child, d + 1));
            0
        }
        scalar => scalar_bound(scalar),
    };
    match v {
        Value::Array(items) => {
            // Brackets, and a comma after each element (one more than needed).
            let own = 2 + items.len();
            let children = items
                .iter()
                .fold(0, |n: usize, c| n.saturating_add(child(c)));
            (d + 1, own.saturating_add(children))
        }
        Value::Object(map) => {
            // Braces, and a colon and a comma for each field.
            let own = 2 + 2 * map.len();
            let children = map.iter().fold(0, |n: usize, (key, c)| {
                n.saturating_add(string_bound(key)).saturating_add(child(c))
            });
            (d + 1, own.saturating_add(children))
        }
        scalar => (d, scalar_bound(scalar)),
    }
}

/// Upper bound on the compact JSON length of a scalar; 0 for containers, which
/// [`visit`] counts on their own.
fn scalar_bound(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(_) => 5,
        Value::Number(n) => {
            // A number serialises exactly as it displays.
            let mut count = Count(0);
            match fmt::Write::write_fmt(&mut count, format_args!("{n}")) {
                Ok(()) => count.0,
                Err(_) => usize::MAX,
            }
        }
        Value::String(s) => string_bound(s),
        Value::Array(_) | Value::Object(_) => 0,
    }
}

/// Upper bound on the length of a JSON string literal: quotes, and at most six bytes
/// (`\uXXXX`) per byte of text.
fn string_bound(s: &str) -> usize {
    s.len().saturating_mul(6).saturating_add(2)
}

/// Counts bytes written, as `io::Write` or `fmt::Write`, without keeping them.
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

impl fmt::Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// Length of `v` as compact JSON, counted without building the text.
fn compact_json_len(v: &Value) -> usize {
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

    /// How paths were written before [`Path`]: the reference its formatting must match.
    fn join(parent: &str, field: &str) -> String {
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

    const NAMES: [&str; 9] = [
        "content",
        "actor_id",
        "a-b_9",
        "a.b",
        "",
        "é",
        "with space",
        "quote\"and\\slash",
        "a_very_long_field_name_that_is_longer_than_sixty_four_characters_in_all_right",
    ];

    #[test]
    fn paths_are_written_as_joined_strings_were() {
        for parent in ["", "body", "events[3]", "--deployment-id"] {
            let base = Path::Text(parent);
            for name in NAMES {
                let field = base.field(name);
                let joined = join(parent, name);
                assert_eq!(field.to_string(), joined);
                // Nested metadata paths: events[i].metadata.conversation_id and the like.
                for inner in NAMES {
                    assert_eq!(field.field(inner).to_string(), join(&joined, inner));
                }
            }
        }
        let before = ROOT.field("before");
        let events = before.field("events");
        assert_eq!(events.to_string(), join(&join("", "before"), "events"));
        let event = events.index(12);
        let metadata = event.field("metadata");
        assert_eq!(metadata.to_string(), "before.events[12].metadata");
        assert_eq!(
            metadata.field("conversation_id").to_string(),
            "before.events[12].metadata.conversation_id"
        );
        assert_eq!(ROOT.field("a.b").to_string(), "[\"a.b\"]");
        assert_eq!(ROOT.field("events").index(0).to_string(), "events[0]");
    }

    #[test]
    fn depth_counts_containers_only() {
        let depth = |v: &Value| depth_and_size_bound(v).0;
        assert_eq!(depth(&json!(1)), 0);
        assert_eq!(depth(&json!({})), 1);
        assert_eq!(depth(&json!({"a": [1, {"b": 2}]})), 3);
        assert_eq!(depth(&json!([[], [[[]]], {"a": {}}])), 4);
    }

    #[test]
    fn size_bound_is_never_below_the_compact_length() {
        for v in [
            json!(null),
            json!(true),
            json!(-12345678901234_i64),
            json!(u64::MAX),
            json!(-1.234_567_890_123_456_7e-300),
            json!(""),
            json!("\u{0}\u{1f}\"\\é"),
            json!({}),
            json!([]),
            json!({"role": "user", "n": [1, 2.5, null, false, {"k\n": "v\t"}]}),
            json!([[[[1]]], {"a": {"b": {"c": "d"}}}]),
        ] {
            let (_, bound) = depth_and_size_bound(&v);
            assert!(bound >= compact_json_len(&v), "{v}: bound {bound}");
        }
    }

    /// What `check_id` says of `id`: `None` when it passes.
    fn id_problem(id: &str) -> Option<String> {
        let mut c = Collector::default();
        let ok = check_id(&mut c, id, ROOT.field("actor_id"));
        assert_eq!(ok, c.is_empty(), "{id:?}");
        c.violations.first().map(|v| v.message.clone())
    }

    #[test]
    fn ids_are_counted_and_searched_in_characters() {
        assert_eq!(id_problem("user-1"), None);
        assert_eq!(id_problem("é"), None);
        assert_eq!(id_problem("").as_deref(), Some("must not be empty"));
        // ASCII and not: the same rules, positions in characters.
        assert_eq!(
            id_problem("ab\u{7f}c").as_deref(),
            Some("must not contain control characters (found U+007F at character 3)")
        );
        assert_eq!(
            id_problem("éé\u{85}").as_deref(),
            Some("must not contain control characters (found U+0085 at character 3)")
        );
        assert_eq!(
            id_problem("é\u{0}\u{1}").as_deref(),
            Some("must not contain control characters (found U+0000 at character 2)")
        );
        // 256 characters pass, whatever their bytes; 257 do not.
        assert_eq!(id_problem(&"x".repeat(limits::ID_MAX_CHARS)), None);
        assert_eq!(id_problem(&"é".repeat(limits::ID_MAX_CHARS)), None);
        assert_eq!(
            id_problem(&"x".repeat(limits::ID_MAX_CHARS + 1)).as_deref(),
            Some("must be at most 256 characters, got 257")
        );
        assert_eq!(
            id_problem(&"é".repeat(limits::ID_MAX_CHARS + 1)).as_deref(),
            Some("must be at most 256 characters, got 257")
        );
    }
}
