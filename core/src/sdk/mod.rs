//! The calls the CLI and every language binding make: raw input bytes and plain
//! options in, JSON text out.
//!
//! The bindings (Python, Node, WebAssembly) only convert their language's values to
//! these arguments and the results and errors back, so all of them read the same
//! inputs, reject the same ones with the same codes, and print the same bytes as
//! `undertone score` and `undertone drift`.
//!
//! An input is one of three layouts: an ingest request (`{deployment_id, events,
//! pipeline?, webhook_url?}`), a JSON array of events, or JSON Lines of events. The
//! last two do not name their deployment, so a `deployment_id` option must.
//!
//! ```
//! use undertone_core::sdk::{self, DeploymentId, ScoreOptions, Source};
//!
//! let events = br#"[
//!   {"actor_id": "cust-1", "content": "Where is my order?", "timestamp": "2026-11-21T09:30:00Z"},
//!   {"actor_id": "acme-bot", "content": "It ships today.", "timestamp": "2026-11-21T09:30:05Z"}
//! ]"#;
//! let options = ScoreOptions {
//!     deployment_id: DeploymentId::new(Some("acme-bot")),
//!     ..ScoreOptions::default()
//! };
//! let json = sdk::score_json(&Source::new(events), &options)?;
//! assert!(json.starts_with(r#"{"pipeline":"support","intelligence":{"#));
//! # Ok::<(), undertone_core::Error>(())
//! ```

pub mod host;

use std::path::Path;

use serde_json::Value;

use crate::connectors;
use crate::drift::{DriftResult, drift};
use crate::error::{Error, Result, Violation};
use crate::schema::{DriftRequest, IngestRequest, Period, Pipeline};
use crate::score::{SessionIntelligence, score};
use crate::validate::{self, Options};

/// How an input's bytes are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputFormat {
    /// JSON Lines when the name ends in `.jsonl`/`.ndjson`, or when the first line is a
    /// whole JSON object followed by more lines; JSON otherwise.
    #[default]
    Auto,
    /// One JSON document: an ingest request, or an array of events.
    Json,
    /// One event per non-blank line.
    Jsonl,
}

impl InputFormat {
    /// The `format` option as a binding receives it: absent is `auto`.
    pub fn option(name: Option<&str>) -> Result<Self> {
        name.map_or(Ok(Self::Auto), |n| Self::parse(n, "format"))
    }

    /// Parses `auto`, `json` or `jsonl`; the error names `path`.
    pub fn parse(name: &str, path: &str) -> Result<Self> {
        match name {
            "auto" => Ok(Self::Auto),
            "json" => Ok(Self::Json),
            "jsonl" => Ok(Self::Jsonl),
            other => Err(invalid(
                path,
                validate::wording::not_one_of(&["auto", "json", "jsonl"], other),
            )),
        }
    }
}

/// One input: its bytes, and the file name they came from, if any.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    /// The raw input.
    pub bytes: &'a [u8],
    /// File name (`-` for standard input): picks JSON Lines by extension, and is the
    /// default drift period label (without its extension).
    pub name: Option<&'a str>,
    /// Layout of `bytes`.
    pub format: InputFormat,
}

impl<'a> Source<'a> {
    /// Bytes with no file name, layout detected.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            name: None,
            format: InputFormat::Auto,
        }
    }

    /// The same source, read from the file called `name`.
    pub fn named(mut self, name: &'a str) -> Self {
        self.name = Some(name);
        self
    }

    /// The same source, with its layout given.
    pub fn with_format(mut self, format: InputFormat) -> Self {
        self.format = format;
        self
    }

    /// The drift period label this source gets when none is given: the file name
    /// without directory and extension, `stdin` for `-`, else `fallback`.
    pub fn label(&self, fallback: &str) -> String {
        match self.name {
            Some("-") => "stdin".to_owned(),
            Some(name) => Path::new(name)
                .file_stem()
                .map_or_else(|| name.to_owned(), |s| s.to_string_lossy().into_owned()),
            None => fallback.to_owned(),
        }
    }

    fn is_json_lines(&self) -> bool {
        match self.format {
            InputFormat::Json => false,
            InputFormat::Jsonl => true,
            InputFormat::Auto => {
                let ext = self
                    .name
                    .and_then(|n| Path::new(n).extension())
                    .and_then(|e| e.to_str())
                    .unwrap_or("");
                ext.eq_ignore_ascii_case("jsonl")
                    || ext.eq_ignore_ascii_case("ndjson")
                    || first_line_is_an_object(self.bytes)
            }
        }
    }
}

/// Whether the first non-blank line is a whole JSON object other than a request and
/// more lines follow (a leading byte order mark is ignored, as it is when the lines
/// are read).
fn first_line_is_an_object(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let text = text.strip_prefix(validate::BOM).unwrap_or(text);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    // A request (it has `events`) followed by more text is a request with trailing
    // text, whose error says so, not the first of many events.
    let first_is_event = lines.next().is_some_and(|l| {
        matches!(serde_json::from_str::<Value>(l), Ok(Value::Object(o)) if !o.contains_key("events"))
    });
    first_is_event && lines.next().is_some()
}

fn invalid(path: &str, message: impl Into<String>) -> Error {
    Error::Validation(vec![Violation::new(path, message)])
}

pub use crate::schema::DeploymentId;

/// Reads `source` as an ingest request.
///
/// The deployment id names the deployment of a list of events (JSON array or JSON
/// Lines), where it is required; for a request without one it fills it in, and for a
/// request naming another deployment it is an error. `options.unlimited` lifts the
/// API's size and event-count limits (local scoring sets it).
pub fn load_request(
    source: &Source<'_>,
    deployment_id: DeploymentId<'_>,
    options: &Options,
) -> Result<IngestRequest> {
    let DeploymentId { value, name } = deployment_id;
    if let Some(id) = value {
        validate::identifier(id, name)?;
    }
    let missing_id = |layout: &str| {
        invalid(
            name,
            format!(
                "is required: the input is {layout}, which does not say which deployment the events come from"
            ),
        )
    };
    if source.is_json_lines() {
        let id = value.ok_or_else(|| missing_id("JSON Lines of events"))?;
        return validate::ingest_request_json_lines(source.bytes, id, options);
    }
    let body = validate::parse_body_with(source.bytes, options)?;
    let one_event = looks_like_one_event(&body);
    let body = match (body, value) {
        (Value::Array(_), None) => return Err(missing_id("a list of events")),
        (events @ Value::Array(_), Some(id)) => {
            serde_json::json!({"deployment_id": id, "events": events})
        }
        (Value::Object(mut request), Some(id)) => {
            match request.get("deployment_id") {
                None | Some(Value::Null) => {
                    request.insert("deployment_id".into(), Value::String(id.into()));
                }
                Some(Value::String(given)) if given != id => {
                    return Err(invalid(
                        name,
                        format!("is {id:?}, but the request names deployment {given:?}"),
                    ));
                }
                // Equal, or not a string: validation reports a wrong type at its path.
                Some(_) => {}
            }
            Value::Object(request)
        }
        (other, _) => other,
    };
    let request = validate::ingest_request(&body, options);
    if one_event {
        request.map_err(with_one_event_hint)
    } else {
        request
    }
}

/// Whether a JSON document given as a request reads like one event instead: an object
/// with a `content`, and neither `events` nor `deployment_id`.
fn looks_like_one_event(body: &Value) -> bool {
    body.as_object().is_some_and(|o| {
        o.contains_key("content") && !o.contains_key("events") && !o.contains_key("deployment_id")
    })
}

/// The errors of a request that reads like one event ([`looks_like_one_event`]): its
/// missing `events` says how to read it as one line of JSON Lines.
fn with_one_event_hint(error: Error) -> Error {
    let Error::Validation(mut violations) = error;
    for v in violations.iter_mut().filter(|v| v.path == "events") {
        v.message.push_str(ONE_EVENT_HINT);
    }
    Error::Validation(violations)
}

/// What [`with_one_event_hint`] adds to `events: is required`. It names no option:
/// the command line and the bindings spell the layout option differently.
const ONE_EVENT_HINT: &str = "; this object looks like one event: put it in a JSON array, \
                              or read it as JSON Lines (one event per line)";

/// Validation options for local scoring: no size or event-count limit, private webhook
/// URLs allowed (nothing is sent from here); a key given twice is refused, as by the
/// service.
pub const LOCAL: Options = Options {
    unlimited: true,
    allow_private_webhooks: true,
    repeated_keys: false,
};

/// Which result [`score_json`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// `{pipeline, intelligence}` with every conversation and turn (the REST
    /// `full_output`).
    #[default]
    Full,
    /// `{session_id, archetype, layer_z, key_finding, falsifiable, recommendation}`.
    Condensed,
    /// One flat row per human turn (`score::rows`), as a JSON array (the command
    /// line prints the same rows as JSON Lines).
    Turns,
}

impl View {
    /// Parses `full`, `condensed` or `turns`; the error names `path`.
    pub fn parse(name: &str, path: &str) -> Result<Self> {
        match name {
            "full" => Ok(Self::Full),
            "condensed" => Ok(Self::Condensed),
            "turns" => Ok(Self::Turns),
            other => Err(invalid(
                path,
                validate::wording::not_one_of(&["full", "condensed", "turns"], other),
            )),
        }
    }
}

/// Parses a pipeline name (`auto`, `support`, `reviews`); the error names `path`.
pub fn pipeline(name: &str, path: &str) -> Result<Pipeline> {
    Pipeline::parse(name).ok_or_else(|| {
        invalid(
            path,
            format!("must be one of auto, support, reviews; got {name:?}"),
        )
    })
}

/// Options of [`score_json`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ScoreOptions<'a> {
    /// See [`load_request`].
    pub deployment_id: DeploymentId<'a>,
    /// Overrides the request's `pipeline`; `None` keeps it (default `auto`).
    pub pipeline: Option<Pipeline>,
    /// Which result to return.
    pub view: View,
}

impl<'a> ScoreOptions<'a> {
    /// The options from the names a binding receives: `pipeline` (`auto`, `support`,
    /// `reviews`; absent keeps the request's) and `view` (`full`, the default, or
    /// `condensed`). Errors name the option.
    pub fn parse(
        deployment_id: DeploymentId<'a>,
        pipeline: Option<&str>,
        view: Option<&str>,
    ) -> Result<Self> {
        Ok(Self {
            deployment_id,
            pipeline: pipeline
                .map(|p| self::pipeline(p, "pipeline"))
                .transpose()?,
            view: view.map_or(Ok(View::Full), |v| View::parse(v, "view"))?,
        })
    }
}

/// Reads `source` as a request for local scoring, with `options.pipeline` applied.
pub fn score_request(source: &Source<'_>, options: &ScoreOptions<'_>) -> Result<IngestRequest> {
    let mut request = load_request(source, options.deployment_id, &LOCAL)?;
    if let Some(p) = options.pipeline {
        request.pipeline = p;
    }
    Ok(request)
}

/// The scored result as JSON text on one line, in `view`.
pub fn render_score(result: &SessionIntelligence, view: View) -> String {
    // Reserved once: a text grown by doubling is copied each time it grows (for the
    // bench's 300 MB result, a sixth of the time spent writing it).
    let turns = match view {
        View::Full => result.intelligence.human_turn_count,
        View::Condensed | View::Turns => 0,
    };
    let mut out = Vec::with_capacity((1 << 12) + turns.saturating_mul(FULL_BYTES_PER_TURN));
    // Serialising these plain data types into memory cannot fail, and JSON is UTF-8.
    let _ = write_score(&mut out, result, view);
    String::from_utf8(out).unwrap_or_default()
}

/// Bytes [`render_score`] reserves per human turn for a full result: a little more
/// than one takes (2 989 on average over the 100 000 turns of `scripts/bench-score`'s
/// corpus, 3 384–4 090 on the examples, whose request-level part weighs more), so
/// that the text is rarely copied as it grows. Pages reserved and never written cost
/// no memory on Linux; in WebAssembly they do, up to about a sixth more than the text.
const FULL_BYTES_PER_TURN: usize = 3_500;

/// [`render_score`]'s text written to `out` as it is serialised, never whole in memory
/// (for a large input, that copy was most of the peak memory of a command-line run).
pub fn write_score(
    out: impl std::io::Write,
    result: &SessionIntelligence,
    view: View,
) -> std::io::Result<()> {
    let mut json = serde_json::Serializer::with_formatter(out, crate::decimal::Json);
    serde::Serialize::serialize(&Viewed::of(result, view), &mut json).map_err(std::io::Error::from)
}

/// A result in one [`View`], serialised as that view's value alone.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Viewed<'a> {
    Full(&'a SessionIntelligence),
    Condensed(crate::score::Condensed<'a>),
    Turns(crate::score::rows::Rows<'a>),
}

impl<'a> Viewed<'a> {
    fn of(result: &'a SessionIntelligence, view: View) -> Self {
        match view {
            View::Full => Viewed::Full(result),
            View::Condensed => Viewed::Condensed(result.condensed(None)),
            View::Turns => Viewed::Turns(crate::score::rows::Rows(result)),
        }
    }
}

/// Scores every human turn of `source`: exactly what `undertone score` prints.
pub fn score_json(source: &Source<'_>, options: &ScoreOptions<'_>) -> Result<String> {
    let request = score_request(source, options)?;
    Ok(render_score(&score(&request), options.view))
}

/// The input as the validated request it reads as, as JSON: timestamps in UTC,
/// content trimmed, `pipeline` filled in. What scoring would see.
pub fn validate_json(source: &Source<'_>, deployment_id: DeploymentId<'_>) -> Result<String> {
    let request = load_request(source, deployment_id, &LOCAL)?;
    Ok(serde_json::to_string(&request).unwrap_or_default())
}

/// Options of [`drift_json`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DriftOptions<'a> {
    /// The deployment of both periods; see [`load_request`]. Without it, the before
    /// period's deployment is used to recognise AI turns.
    pub deployment_id: DeploymentId<'a>,
    /// The question the analysis should address first.
    pub question: Option<&'a str>,
    /// Name of the before period; default [`Source::label`] or `before`.
    pub before_label: Option<&'a str>,
    /// Name of the after period; default [`Source::label`] or `after`.
    pub after_label: Option<&'a str>,
}

/// One drift period read from `source`: the deployment it names, and the period,
/// labelled `label`, else [`Source::label`] with `fallback`.
pub fn drift_period(
    source: &Source<'_>,
    label: Option<&str>,
    fallback: &str,
    deployment_id: DeploymentId<'_>,
) -> Result<(String, Period)> {
    // A label given is an identifier, as in a drift request (`before.label`).
    if let Some(label) = label {
        validate::identifier(label, &format!("{fallback}.label"))?;
    }
    let request = load_request(source, deployment_id, &LOCAL)
        .map_err(|e| in_period(e, fallback, deployment_id.name))?;
    let label = label.map_or_else(|| source.label(fallback), str::to_owned);
    Ok((
        request.deployment_id,
        Period {
            label,
            events: request.events,
        },
    ))
}

/// `e`, a violation of one period's input, said at the period as a drift request's are
/// (`after.events[3].content`; `after` for the input as a whole, which the reader calls
/// `body`), so that a caller with two unnamed inputs knows which one is wrong. A
/// violation of the deployment option (at `option`, its name) is the option's and stays.
fn in_period(e: Error, period: &str, option: &str) -> Error {
    let Error::Validation(violations) = e;
    Error::Validation(
        violations
            .into_iter()
            .map(|mut v| {
                if v.path == "body" {
                    v.path = period.to_owned();
                } else if v.path != option {
                    v.path = format!("{period}.{}", v.path);
                }
                v
            })
            .collect(),
    )
}

/// The drift request of two periods read by [`drift_period`]: AI turns are recognised
/// with the before period's deployment.
pub fn drift_pair(
    (deployment, before): (String, Period),
    (_, after): (String, Period),
    question: Option<&str>,
) -> DriftRequest {
    DriftRequest {
        before,
        after,
        question: question.map(|q| q.trim().to_owned()),
        deployment_id: Some(deployment),
    }
}

/// Reads both periods into a drift request, as `undertone drift` does.
pub fn drift_request(
    before: &Source<'_>,
    after: &Source<'_>,
    options: &DriftOptions<'_>,
) -> Result<DriftRequest> {
    if let Some(q) = options.question {
        validate::question(q)?;
    }
    let id = options.deployment_id;
    let before = drift_period(before, options.before_label, "before", id)?;
    let after = drift_period(after, options.after_label, "after", id)?;
    Ok(drift_pair(before, after, options.question))
}

/// Scores both periods and tests every dimension for change: exactly what
/// `undertone drift` prints (there pretty-printed).
pub fn drift_json(
    before: &Source<'_>,
    after: &Source<'_>,
    options: &DriftOptions<'_>,
) -> Result<String> {
    let result: DriftResult = drift(&drift_request(before, after, options)?);
    Ok(serde_json::to_string(&result).unwrap_or_default())
}

/// The name a binding's mapping document goes by in errors.
pub const MAPPING_NAME: &str = "mapping";

/// Reads the named `files` of an export in `format` (one of
/// [`connectors::Format::NAMES`]; `mapping` needs the `mapping` document, whose errors
/// name it [`MAPPING_NAME`]) as `{request, skipped}` JSON, as the bindings return it.
pub fn import_json(
    format: &str,
    files: &[connectors::File<'_>],
    mapping: Option<&[u8]>,
    deployment_id: DeploymentId<'_>,
) -> Result<String> {
    let mapping = mapping.map(|bytes| connectors::File {
        name: MAPPING_NAME,
        bytes,
    });
    let format = connectors::Format::named(format, mapping.as_ref(), "format")?;
    let imported = connectors::import(&format, files, deployment_id)?;
    Ok(imported.to_json().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: &[u8] = br#"[
        {"actor_id": "u1", "content": "hi, my order is late", "timestamp": "2026-11-21T09:30:00Z"},
        {"actor_id": "bot", "content": "Sorry! It ships today.", "timestamp": "2026-11-21T09:30:05Z"}
    ]"#;

    fn code_and_paths(e: &Error) -> (String, Vec<String>) {
        (
            e.code().as_str().to_owned(),
            e.violations().iter().map(|v| v.path.clone()).collect(),
        )
    }

    #[test]
    fn written_and_rendered_results_are_the_same_bytes() {
        let request =
            load_request(&Source::new(EVENTS), DeploymentId::new(Some("bot")), &LOCAL).unwrap();
        let result = score(&request);
        for view in [View::Full, View::Condensed, View::Turns] {
            let mut written = Vec::new();
            write_score(&mut written, &result, view).unwrap();
            let rendered = render_score(&result, view);
            assert_eq!(String::from_utf8(written).unwrap(), rendered, "{view:?}");
            // The numbers written by `decimal::Json` are serde_json's own, byte for byte.
            let plain = serde_json::to_string(&Viewed::of(&result, view)).unwrap();
            assert_eq!(rendered, plain, "{view:?}");
        }
        // Each view is its own value: the full result, the condensed object, the rows.
        let value = |view| serde_json::from_str::<Value>(&render_score(&result, view)).unwrap();
        assert_eq!(value(View::Full), serde_json::to_value(&result).unwrap());
        let condensed = value(View::Condensed);
        assert!(condensed.get("layer_z").is_some() && condensed.get("intelligence").is_none());
        assert_eq!(value(View::Turns).as_array().map(Vec::len), Some(1));
    }

    #[test]
    fn a_list_of_events_needs_a_deployment() {
        let e = load_request(&Source::new(EVENTS), DeploymentId::new(None), &LOCAL).unwrap_err();
        assert_eq!(
            code_and_paths(&e),
            ("VALIDATION_ERROR".into(), vec!["deployment_id".into()])
        );
        let r = load_request(&Source::new(EVENTS), DeploymentId::new(Some("bot")), &LOCAL).unwrap();
        assert_eq!(r.deployment_id, "bot");
        assert_eq!(r.events.len(), 2);
    }

    #[test]
    fn json_lines_by_content_or_extension() {
        let lines = b"{\"actor_id\":\"u1\",\"content\":\"a\",\"timestamp\":\"2026-11-21T09:30:00Z\"}\n\
                      {\"actor_id\":\"bot\",\"content\":\"b\",\"timestamp\":\"2026-11-21T09:30:01Z\"}\n";
        let r = load_request(&Source::new(lines), DeploymentId::new(Some("bot")), &LOCAL).unwrap();
        assert_eq!(r.events.len(), 2);
        // A one-line request with text after it is a request with trailing text.
        let trailing = b"{\"deployment_id\":\"d\",\"events\":[]}\n\n garbage\n";
        let e = load_request(&Source::new(trailing), DeploymentId::new(None), &LOCAL).unwrap_err();
        assert_eq!(
            e.violations()[0].message,
            "is not valid JSON: trailing characters at line 3 column 2"
        );
        // A leading byte order mark does not hide the layout, nor does a blank line
        // after it.
        for prefix in ["\u{feff}", "\u{feff}\n"] {
            let marked = [prefix.as_bytes(), lines].concat();
            let r = load_request(
                &Source::new(&marked),
                DeploymentId::new(Some("bot")),
                &LOCAL,
            )
            .unwrap();
            assert_eq!(r.events.len(), 2, "{prefix:?}");
        }
        let one = b"{\"actor_id\":\"u1\",\"content\":\"a\",\"timestamp\":\"2026-11-21T09:30:00Z\"}";
        let r = load_request(
            &Source::new(one).named("x.jsonl"),
            DeploymentId::new(Some("bot")),
            &LOCAL,
        )
        .unwrap();
        assert_eq!(r.events.len(), 1);
        // As JSON, one object is a request missing its events; as it reads like an
        // event, the missing events say how to read it as one.
        let e = load_request(
            &Source::new(one).named("x.json"),
            DeploymentId::new(Some("bot")),
            &LOCAL,
        )
        .unwrap_err();
        let events: Vec<&str> = e
            .violations()
            .iter()
            .filter(|v| v.path == "events")
            .map(|v| v.message.as_str())
            .collect();
        assert_eq!(
            events,
            [
                "is required; this object looks like one event: put it in a JSON array, or \
              read it as JSON Lines (one event per line)"
            ],
            "{e}"
        );
        // A request that only lacks its events, or an object with no content, gets no hint.
        for body in [
            &br#"{"deployment_id": "bot", "content": "hi"}"#[..],
            &br#"{"actor_id": "u1", "timestamp": "2026-11-21T09:30:00Z"}"#[..],
        ] {
            let e = load_request(&Source::new(body), DeploymentId::new(Some("bot")), &LOCAL)
                .unwrap_err();
            let v = e.violations().iter().find(|v| v.path == "events");
            assert_eq!(v.map(|v| v.message.as_str()), Some("is required"), "{e}");
        }
    }

    #[test]
    fn a_request_naming_another_deployment_is_refused() {
        let body = br#"{"deployment_id": "a", "events": []}"#;
        let e = load_request(&Source::new(body), DeploymentId::new(Some("b")), &LOCAL).unwrap_err();
        assert_eq!(e.violations()[0].path, "deployment_id");
        assert!(e.violations()[0].message.contains("\"b\""), "{e}");
    }

    #[test]
    fn option_names_are_checked() {
        assert_eq!(pipeline("reviews", "pipeline").unwrap(), Pipeline::Reviews);
        assert_eq!(View::parse("condensed", "view").unwrap(), View::Condensed);
        assert_eq!(
            InputFormat::parse("jsonl", "format").unwrap(),
            InputFormat::Jsonl
        );
        assert_eq!(InputFormat::option(None).unwrap(), InputFormat::Auto);
        let o = ScoreOptions::parse(DeploymentId::new(None), None, None).unwrap();
        assert_eq!((o.pipeline, o.view), (None, View::Full));
        let o = ScoreOptions::parse(DeploymentId::new(None), Some("support"), Some("condensed"))
            .unwrap();
        assert_eq!(
            (o.pipeline, o.view),
            (Some(Pipeline::Support), View::Condensed)
        );
        let e = ScoreOptions::parse(DeploymentId::new(None), Some("chat"), None).unwrap_err();
        assert_eq!(e.violations()[0].path, "pipeline");
        for e in [
            pipeline("Support", "pipeline").unwrap_err(),
            View::parse("short", "view").unwrap_err(),
            InputFormat::parse("csv", "format").unwrap_err(),
        ] {
            assert_eq!(e.code().as_str(), "VALIDATION_ERROR");
        }
    }

    #[test]
    fn labels_come_from_file_names() {
        assert_eq!(
            Source::new(b"").named("data/v3.jsonl").label("before"),
            "v3"
        );
        assert_eq!(Source::new(b"").named("-").label("before"), "stdin");
        assert_eq!(Source::new(b"").label("after"), "after");
    }

    #[test]
    fn score_json_is_the_full_output_and_condensed_is_shorter() {
        let options = ScoreOptions {
            deployment_id: DeploymentId::new(Some("bot")),
            ..ScoreOptions::default()
        };
        let full: Value =
            serde_json::from_str(&score_json(&Source::new(EVENTS), &options).unwrap()).unwrap();
        assert_eq!(full["intelligence"]["human_turn_count"], 1);
        let condensed = ScoreOptions {
            view: View::Condensed,
            ..options
        };
        let short: Value =
            serde_json::from_str(&score_json(&Source::new(EVENTS), &condensed).unwrap()).unwrap();
        assert_eq!(short["session_id"], Value::Null);
        assert_eq!(short["layer_z"], full["intelligence"]["layer_z"]);
    }
}
