//! The words of the messages every surface writes for the same mistakes: a field that
//! is not one of those allowed, a value that is not one of those allowed, a field that
//! is missing. Core's own validator writes them; so do the surfaces that read input
//! with serde (the service's smaller bodies and query strings, the MCP tools'
//! arguments, connector mapping files), through [`reword`], so that a caller sees one
//! wording whichever reader caught the mistake.

/// `unknown field; allowed fields are a, b` for `kind` `field` (`parameter` for a query
/// string), or `unknown field; no fields are allowed` when none is.
pub fn unknown(kind: &str, allowed: &[&str]) -> String {
    if allowed.is_empty() {
        format!("unknown {kind}; no {kind}s are allowed")
    } else {
        format!("unknown {kind}; allowed {kind}s are {}", allowed.join(", "))
    }
}

/// `must be one of a, b; got "x"` (a long value shortened).
pub fn not_one_of(allowed: &[&str], got: &str) -> String {
    format!("must be one of {}; got {}", allowed.join(", "), quote(got))
}

/// `the key "x" is given twice in one object` for a field of a JSON object (`kind`
/// `field`), else `the parameter "x" is given twice`.
pub fn given_twice(kind: &str, name: &str) -> String {
    match kind {
        "field" => format!("the key {name:?} is given twice in one object"),
        _ => format!("the {kind} {name:?} is given twice"),
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

/// `holds a number too large to read…`: valid JSON whose number is past what a 64-bit
/// float holds (about 1.8e308), where the reader keeps numbers; `at` is where, if known
/// (` at line 1 column 9`).
pub fn number_too_large(at: &str) -> String {
    format!(
        "holds a number too large to read{at}: numbers must fit a 64-bit float (up to about \
         1.8e308); send a longer number as a string"
    )
}

/// The message for a required field that is absent.
pub const REQUIRED: &str = "is required";

/// A serde message in this crate's words ([`reword`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reworded {
    /// The unknown field, for a reader that keeps no path (a path kept with
    /// `serde_path_to_error` already ends with it).
    pub unknown: Option<String>,
    /// The missing field, to add to any path: serde reports it at the object that lacks
    /// it, this crate at the field itself.
    pub field: Option<String>,
    /// The message.
    pub message: String,
}

/// serde's message for an unknown field (`` unknown field `x`, expected `a` or `b` ``),
/// an unknown variant, a missing field or one given twice, in this crate's words, with `kind` naming
/// what the input's keys are (`field`, or `parameter` for a query string); `None` for
/// any other message, which stays as serde wrote it.
pub fn reword(message: &str, kind: &str) -> Option<Reworded> {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, allowed) = name_and_allowed(rest, "fields")?;
        return Some(Reworded {
            unknown: Some(name.to_owned()),
            field: None,
            message: unknown(kind, &allowed),
        });
    }
    if let Some(rest) = message.strip_prefix("unknown variant `") {
        let (got, allowed) = name_and_allowed(rest, "variants")?;
        if allowed.is_empty() {
            return None;
        }
        return Some(Reworded {
            unknown: None,
            field: None,
            message: not_one_of(&allowed, got),
        });
    }
    if let Some(name) = message
        .strip_prefix("duplicate field `")
        .and_then(|r| r.strip_suffix('`'))
    {
        return Some(Reworded {
            unknown: None,
            field: None,
            message: given_twice(kind, name),
        });
    }
    let field = message.strip_prefix("missing field `")?.strip_suffix('`')?;
    Some(Reworded {
        unknown: None,
        field: Some(field.to_owned()),
        message: REQUIRED.to_owned(),
    })
}

/// Splits the rest of serde's message after the opening backtick of the name: the name,
/// and the names serde listed as expected (none when it said there are no `what`).
fn name_and_allowed<'a>(rest: &'a str, what: &str) -> Option<(&'a str, Vec<&'a str>)> {
    if let Some(name) = rest
        .strip_suffix(what)
        .and_then(|r| r.strip_suffix("`, there are no "))
    {
        return Some((name, Vec::new()));
    }
    // The name may hold anything, the expected names (Rust identifiers) no backtick:
    // the list is what follows the last "`, expected ".
    let at = rest.rfind("`, expected ")?;
    let (name, list) = (&rest[..at], &rest[at + "`, expected ".len()..]);
    let list = list.strip_prefix("one of ").unwrap_or(list);
    // `a`, `b`, `c` or `a` or `b` or `a`: names at the odd places between backticks,
    // separators at the even ones.
    let pieces: Vec<&str> = list.split('`').collect();
    let (first, last) = (pieces.first()?, pieces.last()?);
    if pieces.len() < 3 || pieces.len().is_multiple_of(2) || !first.is_empty() || !last.is_empty() {
        return None;
    }
    let separators_fit = pieces[2..pieces.len() - 1]
        .iter()
        .step_by(2)
        .all(|s| *s == ", " || *s == " or ");
    let allowed: Vec<&str> = pieces.iter().skip(1).step_by(2).copied().collect();
    (separators_fit && allowed.iter().all(|n| !n.is_empty())).then_some((name, allowed))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Three {
        a: u32,
        b: Option<u32>,
        c: Option<Shape>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Two {
        a: Option<u32>,
        b: Option<u32>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct One {
        a: Option<u32>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Empty {}

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Shape {
        Summary,
        Full,
        Condensed,
    }

    /// serde_json's own message for `json` read as `T`, without its position.
    fn serde_says<T: for<'de> Deserialize<'de> + std::fmt::Debug>(json: &str) -> String {
        let e = serde_json::from_str::<T>(json).unwrap_err();
        let message = e.to_string();
        let at = format!(" at line {} column {}", e.line(), e.column());
        message.strip_suffix(&at).unwrap_or(&message).to_owned()
    }

    fn reworded(message: &str) -> Option<(Option<String>, String)> {
        reword(message, "field").map(|r| (r.field, r.message))
    }

    #[test]
    fn serde_messages_are_reworded_as_core_words_them() {
        let cases = [
            (
                serde_says::<Three>(r#"{"a": 1, "zz": 2}"#),
                None,
                "unknown field; allowed fields are a, b, c",
            ),
            (
                serde_says::<Two>(r#"{"zz": 2}"#),
                None,
                "unknown field; allowed fields are a, b",
            ),
            (
                serde_says::<One>(r#"{"zz": 2}"#),
                None,
                "unknown field; allowed fields are a",
            ),
            (
                serde_says::<Empty>(r#"{"zz": 2}"#),
                None,
                "unknown field; no fields are allowed",
            ),
            (
                serde_says::<Three>(r#"{"a": 1, "c": "fullest"}"#),
                None,
                "must be one of summary, full, condensed; got \"fullest\"",
            ),
            (
                serde_says::<Three>(r#"{"b": 1}"#),
                Some("a".to_owned()),
                "is required",
            ),
            (
                serde_says::<Three>(r#"{"a": 1, "a": 2}"#),
                None,
                "the key \"a\" is given twice in one object",
            ),
        ];
        for (serde, field, ours) in cases {
            assert_eq!(reworded(&serde), Some((field, ours.to_owned())), "{serde}");
        }
    }

    #[test]
    fn names_with_backticks_and_the_separator_are_read_from_the_end() {
        let tricky = "a`, expected `b` or `c";
        let message = serde_says::<Two>(&format!(r#"{{"{tricky}": 1}}"#));
        assert_eq!(
            reworded(&message).map(|r| r.1).as_deref(),
            Some("unknown field; allowed fields are a, b")
        );
        let message = serde_says::<Three>(&format!(r#"{{"a": 1, "c": "{tricky}"}}"#));
        assert_eq!(
            reworded(&message).map(|r| r.1),
            Some(format!(
                "must be one of summary, full, condensed; got {:?}",
                tricky
            ))
        );
    }

    #[test]
    fn other_messages_stay_as_serde_wrote_them() {
        for message in [
            serde_says::<Three>(r#"{"a": "x"}"#),
            serde_says::<Three>("[1]"),
            "unknown field `x`, expected something else".to_owned(),
            "unknown field `x`, expected `a` and `b`".to_owned(),
            "unknown field `x`, expected ``".to_owned(),
            "unknown variant `x`, there are no variants".to_owned(),
            "missing field".to_owned(),
        ] {
            assert_eq!(reword(&message, "field"), None, "{message}");
        }
    }

    #[test]
    fn the_kind_names_what_the_keys_are() {
        assert_eq!(
            given_twice("parameter", "limit"),
            "the parameter \"limit\" is given twice"
        );
        assert_eq!(
            unknown("parameter", &["limit", "cursor"]),
            "unknown parameter; allowed parameters are limit, cursor"
        );
        assert_eq!(
            unknown("argument", &[]),
            "unknown argument; no arguments are allowed"
        );
        assert_eq!(
            not_one_of(&["auto", "json"], &"x".repeat(100)),
            format!("must be one of auto, json; got \"{}\"…", "x".repeat(64))
        );
    }

    #[test]
    fn quote_shortens_long_values() {
        let long = "x".repeat(100);
        assert_eq!(quote(&long), format!("\"{}\"…", "x".repeat(64)));
        assert_eq!(quote("ab"), "\"ab\"");
    }
}
