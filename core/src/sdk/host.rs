//! The calls as a language binding makes them: the options arrive as one host value
//! (a JavaScript object, a Python dict of keyword arguments) turned into JSON by the
//! binding, and are read here with serde into this module's option types.
//!
//! So every binding accepts and refuses the same options with the same errors: an
//! unknown option, a value of the wrong type (`must be a string, got number`) or a
//! value outside its set is a `VALIDATION_ERROR` whose path is the option's name as
//! the binding's language spells it ([`Naming`]). A binding converts an argument of
//! the wrong type with [`wrong_type`], which gives the same error.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{DeploymentId, DriftOptions, InputFormat, ScoreOptions, Source, View, pipeline};
use crate::connectors::File;
use crate::error::{Error, Result, Violation};
use crate::signature::{DEFAULT_TOLERANCE_SECS, verify_headers};
use crate::validate::{type_name, wording};

/// How a binding's language spells option names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// Python: `deployment_id`, as the fields here are named.
    Snake,
    /// JavaScript: `deploymentId`.
    Camel,
}

impl Naming {
    /// The field `snake` as this language spells it.
    pub fn spell(self, snake: &str) -> String {
        match self {
            Naming::Snake => snake.to_owned(),
            Naming::Camel => {
                let mut out = String::with_capacity(snake.len());
                let mut upper = false;
                for c in snake.chars() {
                    match c {
                        '_' => upper = true,
                        c if upper => {
                            out.push(c.to_ascii_uppercase());
                            upper = false;
                        }
                        c => out.push(c),
                    }
                }
                out
            }
        }
    }

    /// The field a key written in this language names; `None` for a key not spelt
    /// the language's way (`deployment_id` from JavaScript, `deploymentId` from Python).
    fn field(self, key: &str) -> Option<String> {
        match self {
            Naming::Snake if key.chars().any(|c| c.is_ascii_uppercase()) => None,
            Naming::Snake => Some(key.to_owned()),
            Naming::Camel if key.contains('_') => None,
            Naming::Camel => Some(key.chars().fold(String::new(), |mut out, c| {
                if c.is_ascii_uppercase() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
                out
            })),
        }
    }
}

/// The JSON type an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string.
    Text,
    /// A whole number (a JavaScript number without a fraction).
    Integer,
    /// A JSON document: an object, or its text.
    Document,
}

/// One option: its field name, JSON type, TypeScript type and what it means.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field, as Python spells it.
    pub name: &'static str,
    /// The JSON type it takes.
    pub kind: Kind,
    /// Its TypeScript type (the language bindings' declarations are written from it).
    pub typescript: &'static str,
    /// One line for its documentation.
    pub doc: &'static str,
}

const fn field(
    name: &'static str,
    kind: Kind,
    typescript: &'static str,
    doc: &'static str,
) -> Field {
    Field {
        name,
        kind,
        typescript,
        doc,
    }
}

const DEPLOYMENT: Field = field(
    "deployment_id",
    Kind::Text,
    "string",
    "The deployment of a list of events (required for one); a request's own must equal it.",
);
const FORMAT: Field = field(
    "format",
    Kind::Text,
    "'auto' | 'json' | 'jsonl'",
    "Layout of text or bytes: `auto` (default: JSON Lines by name or content), `json` or `jsonl`.",
);

/// A call's options: deserialised from the host value after [`read`] has checked
/// every key and type against [`Options::FIELDS`].
pub trait Options: DeserializeOwned + Default {
    /// The options' TypeScript interface name, e.g. `ScoreOptions`.
    const NAME: &'static str;
    /// The JavaScript function they belong to, e.g. `score`.
    const CALL: &'static str;
    /// Every option.
    const FIELDS: &'static [Field];
}

/// The `VALIDATION_ERROR` for an argument or option of the wrong type, e.g.
/// `files: must be a string or bytes, got number`.
pub fn wrong_type(path: &str, expected: &str, got: &str) -> Error {
    Error::Validation(vec![Violation::new(
        path,
        format!("must be {expected}, got {got}"),
    )])
}

/// The `VALIDATION_ERROR` for an option given as a number JSON cannot write (`NaN`,
/// `±Infinity`), spelt as JavaScript writes it. Read as JSON such a number would be
/// `null`, the option not given (`now: NaN` would verify against the real clock), so
/// the JavaScript bindings check their options' numbers with it first; Python refuses
/// the same values itself.
pub fn non_finite(path: &str, x: f64) -> Error {
    let got = if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    };
    wrong_type(path, "a finite number", got)
}

/// How deep an option's objects and arrays may nest inside each other (a mapping
/// document, the deepest option there is, nests three): a host value is checked
/// against it (and against [`OPTION_VALUES_MAX`]) before it is converted, since
/// converting a much deeper one, or one that refers to itself, would overflow the
/// stack. Well inside the JSON reader's 128, so options written as JSON whole (as the
/// Python package sends them) are read without hitting that limit first.
pub const OPTION_NESTING_MAX: usize = 64;

/// How many values (objects, arrays and what they hold) an option may hold in all; a
/// value that holds the same object many times over counts each time.
pub const OPTION_VALUES_MAX: usize = 1_000_000;

/// The `VALIDATION_ERROR` for an option nested deeper than [`OPTION_NESTING_MAX`] (or
/// holding itself), or holding more than [`OPTION_VALUES_MAX`] values.
pub fn too_nested(path: &str, deep: bool) -> Error {
    let message = if deep {
        format!(
            "is nested too deeply: more than {OPTION_NESTING_MAX} arrays and objects inside \
             each other (or an object that holds itself)"
        )
    } else {
        format!("holds more than {OPTION_VALUES_MAX} values")
    };
    Error::Validation(vec![Violation::new(path, message)])
}

/// What an option's value must be when the host gave one with no JSON form (a
/// function, a symbol, a BigInt): the `expected` of [`wrong_type`].
pub const JSON_VALUE: &str = "a string, a number, a boolean, an object or an array";

/// The `VALIDATION_ERROR` for an option holding a number past the largest float, which
/// JSON text can hold but the reader cannot (`wording::number_too_large`).
pub fn too_large_number(path: &str) -> Error {
    Error::Validation(vec![Violation::new(path, wording::number_too_large(""))])
}

/// The `VALIDATION_ERROR` for a host string that is not well-formed UTF-16: it holds
/// half of a surrogate pair on its own. JavaScript allows such strings, but they are
/// no text, and turning them into UTF-8 would silently put U+FFFD in their place (a
/// `deploymentId` of `"bot\uD800"` would become another deployment), so the JavaScript
/// bindings refuse them first; Python refuses them itself.
pub fn lone_surrogate(path: &str) -> Error {
    Error::Validation(vec![Violation::new(
        path,
        "holds half of a UTF-16 surrogate pair (U+D800 to U+DFFF) on its own, which is no \
         character; it cannot be read as text",
    )])
}

/// Whether any string or key in `value` holds U+FFFD, as the JavaScript bindings
/// receive half a surrogate pair: the sign to look again ([`lone_surrogate`]).
pub fn has_replacement(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\u{FFFD}'),
        Value::Array(items) => items.iter().any(has_replacement),
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k.contains('\u{FFFD}') || has_replacement(v)),
        _ => false,
    }
}

/// Whether JSON text escapes half a surrogate pair on its own: a high half
/// (`\ud800` to `\udbff`) not followed by an escaped low half (`\udc00` to `\udfff`),
/// or a low half not after a high one. `JSON.stringify` writes a lone half so (and a
/// whole pair as its character); Python's `json.dumps` escapes whole pairs too, which
/// are text.
pub fn escapes_a_surrogate(json: &str) -> bool {
    let bytes = json.as_bytes();
    // The surrogate half a `\u` escape at `at` writes: Some(true) high, Some(false) low.
    let half = |at: usize| -> Option<bool> {
        let hex = bytes.get(at + 2..at + 6)?;
        let unit = u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
        match unit {
            0xd800..=0xdbff => Some(true),
            0xdc00..=0xdfff => Some(false),
            _ => None,
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\\` followed by `ud800` is a backslash and then text.
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        match half(i) {
            Some(true) if bytes.get(i + 6) == Some(&b'\\') && half(i + 6) == Some(false) => {
                i += 12;
            }
            Some(_) => return true,
            None => i += 6,
        }
    }
    false
}

/// Reads a call's options from the host value: `null` is none given; a `null`
/// option is that option not given.
pub fn read<T: Options>(value: Value, naming: Naming) -> Result<T> {
    let map = match value {
        Value::Null => return Ok(T::default()),
        Value::Object(map) => map,
        other => return Err(wrong_type("options", "an object", type_name(&other))),
    };
    let mut fields = Map::new();
    let mut violations = Vec::new();
    for (key, value) in map {
        let field = naming.field(&key);
        let known = T::FIELDS.iter().find(|f| Some(f.name) == field.as_deref());
        let (Some(field), Some(&Field { kind, .. })) = (field, known) else {
            let known: Vec<String> = T::FIELDS.iter().map(|f| naming.spell(f.name)).collect();
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            violations.push(Violation::new(key, wording::unknown("option", &known)));
            continue;
        };
        match (kind, value) {
            (_, Value::Null) => {}
            (Kind::Text, v @ Value::String(_)) => {
                fields.insert(field, v);
            }
            (Kind::Document, v @ (Value::String(_) | Value::Object(_))) => {
                fields.insert(field, v);
            }
            (Kind::Integer, Value::Number(n)) if whole(&n).is_some() => {
                fields.insert(field, Value::from(whole(&n).unwrap_or_default()));
            }
            (kind, v) => {
                let expected = match kind {
                    Kind::Text => "a string",
                    Kind::Integer => "a whole number",
                    Kind::Document => "an object, JSON text or bytes",
                };
                let got = match (kind, type_name(&v)) {
                    (Kind::Integer, "number") => "a fraction or a number out of range",
                    (_, got) => got,
                };
                violations.push(Violation::new(
                    key,
                    format!("must be {expected}, got {got}"),
                ));
            }
        }
    }
    if !violations.is_empty() {
        return Err(Error::Validation(violations));
    }
    // Every key and type was checked above, so the fields deserialise.
    T::deserialize(Value::Object(fields))
        .map_err(|e| Error::Validation(vec![Violation::new("options", e.to_string())]))
}

/// A JSON number as a whole number: an integer, or a float without a fraction.
fn whole(n: &serde_json::Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15)
            // Exact: the float is whole and within 2^53.
            .map(|f| f as i64)
    })
}

/// Options of [`score`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ScoreArgs {
    /// See [`super::load_request`].
    pub deployment_id: Option<String>,
    /// `auto`, `support` or `reviews`; absent keeps the request's.
    pub pipeline: Option<String>,
    /// `full` (default), `condensed` or `turns`.
    pub view: Option<String>,
    /// `auto` (default), `json` or `jsonl`.
    pub format: Option<String>,
}

impl Options for ScoreArgs {
    const NAME: &'static str = "ScoreOptions";
    const CALL: &'static str = "score";
    const FIELDS: &'static [Field] = &[
        DEPLOYMENT,
        field(
            "pipeline",
            Kind::Text,
            "'auto' | 'support' | 'reviews'",
            "Overrides the request's `pipeline`.",
        ),
        field(
            "view",
            Kind::Text,
            "'full' | 'condensed' | 'turns'",
            "`full` (default): every conversation and turn; `condensed`: the summary; `turns`: one flat row per human turn.",
        ),
        FORMAT,
    ];
}

/// Options of [`validate`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ValidateArgs {
    /// See [`super::load_request`].
    pub deployment_id: Option<String>,
    /// `auto` (default), `json` or `jsonl`.
    pub format: Option<String>,
}

impl Options for ValidateArgs {
    const NAME: &'static str = "ValidateOptions";
    const CALL: &'static str = "validate";
    const FIELDS: &'static [Field] = &[DEPLOYMENT, FORMAT];
}

/// Options of [`drift`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct DriftArgs {
    /// The question the analysis should address first.
    pub question: Option<String>,
    /// The deployment of both periods; default: the before period's.
    pub deployment_id: Option<String>,
    /// Name of the before period; default: its file name, or `before`.
    pub before_label: Option<String>,
    /// Name of the after period; default: its file name, or `after`.
    pub after_label: Option<String>,
    /// `auto` (default), `json` or `jsonl`, for both periods.
    pub format: Option<String>,
}

impl Options for DriftArgs {
    const NAME: &'static str = "DriftOptions";
    const CALL: &'static str = "drift";
    const FIELDS: &'static [Field] = &[
        field(
            "question",
            Kind::Text,
            "string",
            "The question the analysis should address first.",
        ),
        field(
            "deployment_id",
            Kind::Text,
            "string",
            "The deployment of both periods; default: the before period's.",
        ),
        field(
            "before_label",
            Kind::Text,
            "string",
            "Name of the before period; default: its file name, or `before`.",
        ),
        field(
            "after_label",
            Kind::Text,
            "string",
            "Name of the after period; default: its file name, or `after`.",
        ),
        FORMAT,
    ];
}

/// Options of [`import`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ImportArgs {
    /// The request's `deployment_id`; default: the format's name.
    pub deployment_id: Option<String>,
    /// The `mapping` format's document: an object or its JSON text (a binding passes
    /// bytes, which JSON cannot hold, beside the options).
    pub mapping: Option<Value>,
}

impl Options for ImportArgs {
    const NAME: &'static str = "ImportOptions";
    const CALL: &'static str = "importConversations";
    const FIELDS: &'static [Field] = &[
        field(
            "deployment_id",
            Kind::Text,
            "string",
            "The request's `deployment_id`; default: the format's name.",
        ),
        field(
            "mapping",
            Kind::Document,
            "Record<string, unknown> | string | Uint8Array",
            "The `mapping` format's document (refused with every other format).",
        ),
    ];
}

/// Options of [`verify`].
#[derive(Debug, Clone, Default, Deserialize)]
pub struct VerifyArgs {
    /// How far `webhook-timestamp` may be from now, in seconds; default 300.
    pub tolerance_secs: Option<i64>,
    /// Now, in unix seconds; default: the caller's clock.
    pub now: Option<i64>,
}

impl Options for VerifyArgs {
    const NAME: &'static str = "VerifyOptions";
    const CALL: &'static str = "verifySignature";
    const FIELDS: &'static [Field] = &[
        field(
            "tolerance_secs",
            Kind::Integer,
            "number",
            "How far `webhook-timestamp` may be from now, in seconds; default 300.",
        ),
        field(
            "now",
            Kind::Integer,
            "number",
            "Now, in unix seconds; default: the clock.",
        ),
    ];
}

/// The TypeScript declarations of every call's options, as JavaScript spells them
/// (`null` and absent both mean "not given"): what the Node and wasm packages declare.
pub fn typescript() -> String {
    fn interface<T: Options>(out: &mut String) {
        out.push_str(&format!(
            "\n/** Options of `{}`. */\nexport interface {} {{\n",
            T::CALL,
            T::NAME
        ));
        for f in T::FIELDS {
            let name = Naming::Camel.spell(f.name);
            out.push_str(&format!(
                "  /** {} */\n  {name}?: {} | null\n",
                f.doc, f.typescript
            ));
        }
        out.push_str("}\n");
    }
    let mut out =
        String::from("// Generated from undertone-core's option tables (core/src/sdk/host.rs).\n");
    interface::<ScoreArgs>(&mut out);
    interface::<ValidateArgs>(&mut out);
    interface::<DriftArgs>(&mut out);
    interface::<ImportArgs>(&mut out);
    interface::<VerifyArgs>(&mut out);
    out
}

fn format(value: Option<&str>, naming: Naming) -> Result<InputFormat> {
    value.map_or(Ok(InputFormat::Auto), |f| {
        InputFormat::parse(f, &naming.spell("format"))
    })
}

/// [`super::score_json`] with options from the host value; `input`'s layout comes
/// from the `format` option.
pub fn score(input: Source<'_>, options: Value, naming: Naming) -> Result<String> {
    let args: ScoreArgs = read(options, naming)?;
    let id_name = naming.spell("deployment_id");
    let options = ScoreOptions {
        deployment_id: DeploymentId {
            value: args.deployment_id.as_deref(),
            name: &id_name,
        },
        pipeline: args
            .pipeline
            .as_deref()
            .map(|p| pipeline(p, "pipeline"))
            .transpose()?,
        view: args
            .view
            .as_deref()
            .map_or(Ok(View::Full), |v| View::parse(v, "view"))?,
    };
    let input = input.with_format(format(args.format.as_deref(), naming)?);
    super::score_json(&input, &options)
}

/// [`super::validate_json`] with options from the host value.
pub fn validate(input: Source<'_>, options: Value, naming: Naming) -> Result<String> {
    let args: ValidateArgs = read(options, naming)?;
    let id_name = naming.spell("deployment_id");
    let id = DeploymentId {
        value: args.deployment_id.as_deref(),
        name: &id_name,
    };
    let input = input.with_format(format(args.format.as_deref(), naming)?);
    super::validate_json(&input, id)
}

/// [`super::drift_json`] with options from the host value.
pub fn drift(
    before: Source<'_>,
    after: Source<'_>,
    options: Value,
    naming: Naming,
) -> Result<String> {
    let args: DriftArgs = read(options, naming)?;
    let format = format(args.format.as_deref(), naming)?;
    let id_name = naming.spell("deployment_id");
    let options = DriftOptions {
        deployment_id: DeploymentId {
            value: args.deployment_id.as_deref(),
            name: &id_name,
        },
        question: args.question.as_deref(),
        before_label: args.before_label.as_deref(),
        after_label: args.after_label.as_deref(),
    };
    super::drift_json(
        &before.with_format(format),
        &after.with_format(format),
        &options,
    )
}

/// [`super::import_json`] with options from the host value; `mapping` is the
/// mapping document's bytes when the binding received bytes.
pub fn import(
    format: &str,
    files: &[File<'_>],
    mapping: Option<&[u8]>,
    options: Value,
    naming: Naming,
) -> Result<String> {
    let args: ImportArgs = read(options, naming)?;
    let id_name = naming.spell("deployment_id");
    let id = DeploymentId {
        value: args.deployment_id.as_deref(),
        name: &id_name,
    };
    let document = match args.mapping {
        Some(Value::String(text)) => Some(text.into_bytes()),
        Some(object) => Some(object.to_string().into_bytes()),
        None => None,
    };
    super::import_json(format, files, mapping.or(document.as_deref()), id)
}

/// Whether `headers` carry a valid signature of `body` under `secret`; `clock` is the
/// caller's now in unix seconds, used unless the `now` option is given.
pub fn verify<'a>(
    secret: &str,
    body: &[u8],
    headers: impl IntoIterator<Item = (&'a str, &'a str)>,
    options: Value,
    naming: Naming,
    clock: i64,
) -> Result<bool> {
    let args: VerifyArgs = read(options, naming)?;
    Ok(verify_headers(
        secret,
        body,
        headers,
        args.now.unwrap_or(clock),
        args.tolerance_secs.unwrap_or(DEFAULT_TOLERANCE_SECS),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths_and_messages(e: &Error) -> Vec<(String, String)> {
        e.violations()
            .iter()
            .map(|v| (v.path.clone(), v.message.clone()))
            .collect()
    }

    #[test]
    fn json_text_is_searched_for_escaped_surrogate_halves() {
        // As `JSON.stringify` writes a lone half; a whole pair is written as its character.
        assert!(escapes_a_surrogate(r#""bot\ud800""#));
        assert!(escapes_a_surrogate(r#"{"a": "\uDC00x"}"#));
        assert!(escapes_a_surrogate(r#""\\\ud800""#));
        assert!(!escapes_a_surrogate(r#""bot\\ud800""#));
        assert!(!escapes_a_surrogate(r#""\u00e9 \u2028 \ud7ff \ue000""#));
        assert!(!escapes_a_surrogate("\"😀\""));
        // A whole pair escaped, as Python's json.dumps writes 😀, is text; its halves
        // apart, or swapped, are not.
        assert!(!escapes_a_surrogate(r#""\ud83d\ude00 and \uD83D\uDE00""#));
        assert!(escapes_a_surrogate(r#""\ude00\ud83d""#));
        assert!(escapes_a_surrogate(r#""\ud83d x \ude00""#));
        assert!(escapes_a_surrogate(r#""\ud83d\u0041""#));
        assert!(!escapes_a_surrogate(r#""\u"#));
        assert!(!escapes_a_surrogate(r"\"));
    }

    #[test]
    fn a_replacement_character_is_found_at_any_depth() {
        assert!(!has_replacement(&json!({"a": ["b", {"c": "d"}], "e": 1})));
        assert!(has_replacement(&json!({"a": ["b", {"c": "d\u{FFFD}"}]})));
        assert!(has_replacement(&json!({"a\u{FFFD}": 1})));
        assert!(has_replacement(&json!("\u{FFFD}")));
    }

    #[test]
    fn names_are_spelt_per_language() {
        assert_eq!(Naming::Camel.spell("deployment_id"), "deploymentId");
        assert_eq!(Naming::Camel.spell("tolerance_secs"), "toleranceSecs");
        assert_eq!(Naming::Camel.field("beforeLabel").unwrap(), "before_label");
        assert_eq!(Naming::Camel.field("before_label"), None);
        assert_eq!(Naming::Snake.field("beforeLabel"), None);
        assert_eq!(Naming::Snake.spell("before_label"), "before_label");
    }

    #[test]
    fn options_are_read_with_their_types_checked() {
        let args: ScoreArgs =
            read(json!({"deploymentId": "bot", "view": null}), Naming::Camel).unwrap();
        assert_eq!(args.deployment_id.as_deref(), Some("bot"));
        assert_eq!(args.view, None);
        let e =
            read::<ScoreArgs>(json!({"view": 5, "deploymentID": "x"}), Naming::Camel).unwrap_err();
        assert_eq!(e.code().as_str(), "VALIDATION_ERROR");
        assert_eq!(
            paths_and_messages(&e),
            vec![
                ("view".into(), "must be a string, got number".into()),
                (
                    "deploymentID".into(),
                    "unknown option; allowed options are deploymentId, pipeline, view, format"
                        .into()
                ),
            ]
        );
        let e = read::<ScoreArgs>(json!("full"), Naming::Snake).unwrap_err();
        assert_eq!(
            paths_and_messages(&e),
            vec![("options".into(), "must be an object, got string".into())]
        );
        assert!(
            read::<ScoreArgs>(Value::Null, Naming::Snake)
                .unwrap()
                .view
                .is_none()
        );
    }

    #[test]
    fn whole_numbers_may_arrive_as_floats() {
        let args: VerifyArgs = read(
            json!({"toleranceSecs": 60.0, "now": 1_700_000_000}),
            Naming::Camel,
        )
        .unwrap();
        assert_eq!(
            (args.tolerance_secs, args.now),
            (Some(60), Some(1_700_000_000))
        );
        let e = read::<VerifyArgs>(json!({"now": 1.5}), Naming::Camel).unwrap_err();
        assert_eq!(
            paths_and_messages(&e),
            vec![(
                "now".into(),
                "must be a whole number, got a fraction or a number out of range".into()
            )]
        );
        let e = read::<VerifyArgs>(json!({"tolerance_secs": "60"}), Naming::Snake).unwrap_err();
        assert_eq!(
            paths_and_messages(&e),
            vec![(
                "tolerance_secs".into(),
                "must be a whole number, got string".into()
            )]
        );
    }

    #[test]
    fn a_bad_option_value_names_the_option_as_spelt() {
        let events =
            br#"[{"actor_id": "u", "content": "hi", "timestamp": "2026-11-21T09:30:00Z"}]"#;
        let e = score(Source::new(events), json!({"format": "csv"}), Naming::Camel).unwrap_err();
        assert_eq!(e.violations()[0].path, "format");
        let e = validate(Source::new(events), json!({}), Naming::Camel).unwrap_err();
        assert_eq!(e.violations()[0].path, "deploymentId");
        let e = validate(Source::new(events), json!({}), Naming::Snake).unwrap_err();
        assert_eq!(e.violations()[0].path, "deployment_id");
        let ok = score(
            Source::new(events),
            json!({"deploymentId": "bot", "view": "condensed"}),
            Naming::Camel,
        )
        .unwrap();
        assert!(ok.starts_with(r#"{"session_id":null"#), "{ok}");
    }
}
