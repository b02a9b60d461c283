//! JSON Lines input: one event per non-blank line, each line parsed, checked and moved
//! into its event in turn, with the same rules and messages as a request body.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::fields::{Collector, Path, ROOT, check_id, count_message, unknown_field};
use super::{
    EVENT_FIELDS, Options, body_text, event_fields, event_from, event_hint, event_list, json,
};
use crate::error::{Error, Result, Violation};
use crate::schema::{Event, IngestRequest, Pipeline, limits};

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
    let count = lines(text).filter(|l| !l.trim().is_empty()).count();
    if count > limits::INGEST_EVENTS_MAX && !options.unlimited {
        return Err(Error::Validation(vec![Violation::new(
            "events",
            count_message(limits::INGEST_EVENTS_MIN, limits::INGEST_EVENTS_MAX, count),
        )]));
    }
    if count == 0 {
        return Err(Error::Validation(vec![Violation::new(
            "body",
            "is empty; expected one JSON event per line",
        )]));
    }
    // Checked exactly as the request {"deployment_id": …, "events": [one per line]}
    // would be by `ingest`, but each line is parsed, checked and moved into its event in
    // turn, so the whole file never sits in memory as JSON values.
    let mut c = Collector::default();
    let deployment_id = check_id(&mut c, deployment_id, ROOT.field("deployment_id"))
        .then(|| deployment_id.to_owned());
    let max = if options.unlimited {
        usize::MAX
    } else {
        limits::INGEST_EVENTS_MAX
    };
    let mut lines = JsonLines {
        lines: lines(text).enumerate(),
        count,
        taken: 0,
        bad_lines: Vec::new(),
    };
    let events = event_list(
        &mut c,
        &mut lines,
        ROOT.field("events"),
        limits::INGEST_EVENTS_MIN,
        max,
        line_event,
    );
    let result = match (deployment_id, events) {
        (Some(deployment_id), Some(events)) if c.is_empty() => Ok(IngestRequest {
            deployment_id,
            events,
            pipeline: Pipeline::Auto,
            webhook_url: None,
        }),
        _ => Err(c.into_error()),
    };
    let bad_lines = lines.bad_lines;
    if bad_lines.is_empty() {
        return result;
    }
    // Lines that were not JSON became nulls; report them as such instead of "got null".
    let mut violations = match result {
        Ok(_) => Vec::new(),
        Err(Error::Validation(violations)) => violations,
    };
    let placeholders: HashSet<&str> = bad_lines.iter().map(|b| b.path.as_str()).collect();
    violations.retain(|v| !placeholders.contains(v.path.as_str()));
    violations.extend(bad_lines);
    violations.sort_by_key(|v| event_position(&v.path));
    Err(Error::Validation(violations))
}

/// The lines of `text` as [`str::lines`] splits them (at `\n`, a `\r` before it
/// dropped, no empty line after a last `\n`), found with the `memchr` crate's vectorised search: a
/// large file is split twice, once to count its events and once to read them.
fn lines(text: &str) -> Lines<'_> {
    Lines { rest: text }
}

/// See [`lines`].
struct Lines<'a> {
    /// The text after the lines already taken.
    rest: &'a str,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match memchr::memchr(b'\n', self.rest.as_bytes()) {
            // Splitting at an ASCII byte leaves UTF-8 on both sides.
            Some(at) => {
                let line = &self.rest[..at];
                self.rest = &self.rest[at + 1..];
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            // The last line keeps a `\r` that no `\n` follows.
            None => Some(std::mem::take(&mut self.rest)),
        }
    }
}

/// The events of a JSON Lines text, one per non-blank line, parsed as they are taken.
///
/// A line that is not JSON yields `null` in its place, and a violation naming its line
/// number is kept in `bad_lines`.
struct JsonLines<'a> {
    /// The lines still to read, numbered from 0.
    lines: std::iter::Enumerate<Lines<'a>>,
    /// How many non-blank lines there are in all.
    count: usize,
    /// How many of them have been taken.
    taken: usize,
    /// One violation for each line that was not JSON, by event index.
    bad_lines: Vec<Violation>,
}

impl Iterator for JsonLines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        let (line_no, line) = self.lines.find(|(_, line)| !line.trim().is_empty())?;
        let index = self.taken;
        self.taken += 1;
        match serde_json::from_str(line) {
            Ok(v) => Some(v),
            Err(e) => {
                let mut message = format!("line {} {}", line_no + 1, json::why_not(&e));
                // Lines split at a bare CR (as old Mac files are) read as one long line.
                if line.contains('\r') {
                    message.push_str(
                        " (the line holds a carriage return without a line feed: JSON Lines \
                         ends each line with LF or CRLF)",
                    );
                }
                self.bad_lines
                    .push(Violation::new(format!("events[{index}]"), message));
                Some(Line::Other(Value::Null))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let remaining = self.count.saturating_sub(self.taken);
        (remaining, Some(remaining))
    }
}

impl ExactSizeIterator for JsonLines<'_> {}

/// One line of JSON Lines, parsed.
///
/// An object is sorted into the event's fields as it is parsed, which spares building a
/// map of it only to take it apart again. Everything else about parsing is as for a
/// request body ([`json`]): every field's value is parsed as one, so the same texts are
/// accepted and the same errors reported.
enum Line {
    /// An object: the values of the [`EVENT_FIELDS`] by position, and the other keys in
    /// document order (a key given twice is an error, as for any body: [`json`]).
    Object {
        /// The value of each of the [`EVENT_FIELDS`] present (boxed: a line is passed on
        /// by value several times, and moving a pointer beats copying six values).
        fields: Box<[Option<Value>; EVENT_FIELDS.len()]>,
        /// Keys that are not event fields.
        unknown: Vec<String>,
    },
    /// Any other JSON value.
    Other(Value),
}

/// Validates the event on one line at `path`, exactly as [`event_from`] validates the
/// line's [`Value`].
fn line_event(c: &mut Collector, line: Line, path: Path<'_>) -> Option<Event> {
    match line {
        Line::Other(value) => event_from(c, value, path),
        Line::Object { fields, unknown } => {
            for key in &unknown {
                unknown_field(c, path, key, &EVENT_FIELDS, event_hint);
            }
            event_fields(c, *fields, path)
        }
    }
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Line, D::Error> {
        deserializer.deserialize_any(LineVisitor)
    }
}

/// Builds a [`Line`], visiting what serde_json's own visitor for [`Value`] visits and
/// building the same values.
struct LineVisitor;

impl<'de> Visitor<'de> for LineVisitor {
    type Value = Line;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    // Anything but an object is read as `json::Strict` reads it.

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> std::result::Result<Line, E> {
        json::Strict::UNLIMITED.visit_bool(b).map(Line::Other)
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<Line, E> {
        json::Strict::UNLIMITED.visit_i64(n).map(Line::Other)
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<Line, E> {
        json::Strict::UNLIMITED.visit_u64(n).map(Line::Other)
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> std::result::Result<Line, E> {
        json::Strict::UNLIMITED.visit_f64(n).map(Line::Other)
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<Line, E> {
        json::Strict::UNLIMITED.visit_str(s).map(Line::Other)
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Line, E> {
        json::Strict::UNLIMITED.visit_unit().map(Line::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Line, A::Error> {
        json::Strict::UNLIMITED.visit_seq(seq).map(Line::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Line, A::Error> {
        let mut fields = Box::new([const { None }; EVENT_FIELDS.len()]);
        let mut unknown: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let slot = EVENT_FIELDS.iter().position(|name| *name == key.0);
            let given = match slot {
                Some(i) => fields[i].is_some(),
                None => unknown.iter().any(|k| *k == key.0),
            };
            if given {
                return Err(json::repeated(&key.0));
            }
            let value: Value = map.next_value_seed(json::Strict::UNLIMITED)?;
            match slot {
                Some(i) => fields[i] = Some(value),
                None => unknown.push(key.0.into_owned()),
            }
        }
        Ok(Line::Object { fields, unknown })
    }
}

/// An object key, borrowed from the line when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        /// Takes the key's text.
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }

            fn visit_borrowed_str<E>(self, s: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(s)))
            }

            fn visit_str<E>(self, s: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
        }

        // As serde_json reads the keys of a `Value`.
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The event number in a path like `events[12].content`, for ordering; `None` sorts first.
fn event_position(path: &str) -> Option<usize> {
    path.strip_prefix("events[")?
        .split(']')
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_as_str_lines_splits_them() {
        for text in [
            "",
            "\n",
            "\r\n",
            "a",
            "a\n",
            "a\r\nb\r\n",
            "a\n\nb",
            "a\r\n\r\nb\n\n",
            "a\rb\n\r",
            "\r",
            "é\nü\r\n{\"x\": 1}",
            "no newline at the end\r",
        ] {
            assert_eq!(
                lines(text).collect::<Vec<_>>(),
                text.lines().collect::<Vec<_>>(),
                "{text:?}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_split_as_str_lines_splits_it(text in "[a\r\né ]{0,12}") {
            proptest::prop_assert_eq!(
                lines(&text).collect::<Vec<_>>(),
                text.lines().collect::<Vec<_>>()
            );
        }
    }
}
