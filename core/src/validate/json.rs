//! JSON as the input contract reads it: serde_json's [`Value`], except that an object
//! may give each key once.
//!
//! RFC 8259 §4 leaves an object with a repeated key to the reader, and readers differ.
//! serde_json keeps the last value, so `{"content": "refund", "content": ""}` would be
//! scored as an empty turn and nobody told. Undertone refuses such a body and names the
//! key. Everything else is parsed exactly as serde_json parses a `Value`: the same
//! texts are accepted and the same values built, which a test holds it to.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Number, Value};
use smallvec::SmallVec;

/// Parses `text` as one JSON value (surrounding whitespace allowed), refusing an object
/// that gives a key twice, and an array or object of more than `max_items` items (as
/// soon as it reaches them, before the rest is read).
pub(super) fn from_str(text: &str, max_items: usize) -> serde_json::Result<Value> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = Strict { max_items }.deserialize(&mut reader)?;
    reader.end()?;
    Ok(value)
}

/// [`from_str`] of bytes (UTF-8 checked by the reader, its error naming the position).
pub(crate) fn from_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let value = Strict::UNLIMITED.deserialize(&mut reader)?;
    reader.end()?;
    Ok(value)
}

/// Why `text` is not JSON as the contract reads it, after `is not valid JSON` or
/// `is`: serde_json's message, except where it would mislead. Its recursion limit (128
/// arrays and objects inside each other) is said in words a caller can act on, and so
/// is a `\u` escape of half a surrogate pair: serde_json calls a lone low half
/// (`\udc00`) a "lone leading surrogate" and a high half with nothing after it an
/// "unexpected end of hex escape".
pub(super) fn why_not(e: &serde_json::Error) -> String {
    let message = e.to_string();
    if message.starts_with(TOO_MANY) {
        return format!(
            "is refused as it is read: {message}; no valid body needs as many (an ingest \
             holds at most {} events, a drift period {}, metadata at most 16 KiB)",
            crate::schema::limits::INGEST_EVENTS_MAX,
            crate::schema::limits::DRIFT_EVENTS_MAX,
        );
    }
    if let Some(at) = message.strip_prefix("recursion limit exceeded") {
        return format!(
            "is nested too deeply: more than {NESTING_LIMIT} arrays and objects inside each \
             other{at} (metadata may nest at most 8 levels)"
        );
    }
    let surrogate = [
        "lone leading surrogate in hex escape",
        "unexpected end of hex escape",
    ]
    .iter()
    .find_map(|m| message.strip_prefix(m));
    if let Some(at) = message.strip_prefix("number out of range") {
        return super::wording::number_too_large(at);
    }
    match surrogate {
        Some(at) => format!(
            "is not valid JSON: a \\u escape of half a surrogate pair (\\ud800 to \\udfff) \
             must be a high half followed by a low half{at}; alone it is no character \
             (write the character itself, or both halves)"
        ),
        None => format!("is not valid JSON: {message}"),
    }
}

/// How deep serde_json reads arrays and objects inside each other.
const NESTING_LIMIT: usize = 128;

/// How the error of an array or object longer than allowed begins.
const TOO_MANY: &str = "an array or object holds more than";

/// The error of an array or object longer than `max_items`.
fn too_many<E: de::Error>(max_items: usize) -> E {
    E::custom(format!("{TOO_MANY} {max_items} items"))
}

/// The error of a key given twice in one object.
pub(super) fn repeated<E: de::Error>(key: &str) -> E {
    E::custom(super::wording::given_twice("field", key))
}

/// Reads one JSON value as serde_json's own visitor for [`Value`] does, objects checked
/// for repeated keys at every depth, and no array or object longer than `max_items`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Strict {
    /// Most items of one array, or members of one object.
    pub(super) max_items: usize,
}

impl Strict {
    /// Any number of items.
    pub(super) const UNLIMITED: Strict = Strict {
        max_items: usize::MAX,
    };
}

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(self)? {
            if items.len() == self.max_items {
                return Err(too_many(self.max_items));
            }
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // A small object (most `metadata` has a key or two) is gathered first, then
        // moved into a map of its exact size: serde_json's own reader grows an empty
        // map, which for one key allocates three times the room it needs.
        let mut small: SmallVec<[(String, Value); SMALL_OBJECT]> = SmallVec::new();
        while let Some(key) = map.next_key::<String>()? {
            if small.iter().any(|(given, _)| *given == key) {
                return Err(repeated(&key));
            }
            if small.len() == SMALL_OBJECT {
                let mut object = Map::with_capacity(2 * SMALL_OBJECT);
                object.extend(small.drain(..));
                return large_map(self, object, key, map);
            }
            if small.len() == self.max_items {
                return Err(too_many(self.max_items));
            }
            small.push((key, map.next_value_seed(self)?));
        }
        let mut object = Map::with_capacity(small.len());
        object.extend(small);
        Ok(Value::Object(object))
    }
}

/// Keys an object may have before its keys are checked in a map rather than one by one.
const SMALL_OBJECT: usize = 4;

/// The rest of [`Strict::visit_map`] for a larger object: `object` holds the pairs read
/// so far, and `key` is the next key, its value still to read.
fn large_map<'de, A: MapAccess<'de>>(
    strict: Strict,
    mut object: Map<String, Value>,
    key: String,
    mut map: A,
) -> Result<Value, A::Error> {
    let mut object_len = object.len();
    let mut next = Some(key);
    while let Some(key) = next {
        // One lookup: the key's slot is found before its value is read.
        match object.entry(key) {
            Entry::Occupied(given) => return Err(repeated(given.key())),
            Entry::Vacant(slot) if object_len < strict.max_items => {
                slot.insert(map.next_value_seed(strict)?);
                object_len += 1;
            }
            Entry::Vacant(_) => return Err(too_many(strict.max_items)),
        }
        next = map.next_key::<String>()?;
    }
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_serde_json_parses_into_the_same_values() {
        let texts = [
            r#"{"a": 1, "b": [true, null, -2, 3.5, 1e300, 18446744073709551615], "c": {"d": "\u00e9\ud83d\ude00"}}"#,
            " [1, -0, 0.1, \"x\"] ",
            "\"plain\"",
            "12345678901234567890123",
            "-9223372036854775808",
            "{}",
            "[]",
            "null",
            r#"{"Key": 1, "key": 2, "k\u0065y2": 3}"#,
            // Past the keys checked one by one, in order.
            r#"{"a": 1, "b": 2, "c": 3, "d": 4, "e": {"f": 5, "g": 6, "h": 7, "i": 8, "j": 9}}"#,
            r#"{"z": 1, "y": 2, "x": 3, "w": 4, "v": 5, "u": 6, "t": 7, "s": 8, "r": 9, "q": 0}"#,
        ];
        for text in texts {
            let expected: Value = serde_json::from_str(text).unwrap();
            assert_eq!(from_str(text, usize::MAX).unwrap(), expected, "{text}");
        }
        // Every JSON file of the examples and the shared test vectors.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = 0;
        for dir in ["examples", "tests/vectors", "tests/vectors/invalid"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_some_and(|e| e == "json") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let expected: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(
                        from_str(&text, usize::MAX).unwrap(),
                        expected,
                        "{}",
                        path.display()
                    );
                    files += 1;
                }
            }
        }
        assert!(files >= 20, "{files} files read");
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "1 2", "nan", "{\"a\": 1}}"] {
            let expected = serde_json::from_str::<Value>(bad).unwrap_err().to_string();
            assert_eq!(
                from_str(bad, usize::MAX).unwrap_err().to_string(),
                expected,
                "{bad}"
            );
        }
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth_and_named() {
        // The column is where the repeated key ends.
        for (text, key, column) in [
            (r#"{"content": "refund", "content": ""}"#, "content", 31),
            (r#"{"m": {"tier": 1, "x": 2, "tier": 3}}"#, "tier", 32),
            (r#"[{"a": 1}, {"b": 1, "b": 1}]"#, "b", 23),
            // Escapes are read first: these are the same key.
            (r#"{"a": 1, "\u0061": 2}"#, "a", 17),
            // In an object larger than those checked pair by pair.
            (r#"{"a": 1, "b": 2, "c": 3, "d": 4, "a": 5}"#, "a", 36),
            (
                r#"{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "e": 6}"#,
                "e",
                44,
            ),
            (
                r#"{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "b": 6}"#,
                "b",
                44,
            ),
        ] {
            assert_eq!(
                from_str(text, usize::MAX).unwrap_err().to_string(),
                format!("the key {key:?} is given twice in one object at line 1 column {column}"),
                "{text}"
            );
        }
    }
}
