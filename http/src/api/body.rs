//! Extractors that answer with the error envelope: the request body of a JSON route
//! (content type checked, size limited, bytes kept for core's validator, which reports
//! every violation with its field path), path parameters and query strings; and the
//! parser of a body's time fields.

use axum::body::Bytes;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use undertone_core::validate::wording;

use super::MAX_BODY_BYTES;
use super::error::{ApiError, Code};

/// The raw bytes of an `application/json` body.
#[derive(Debug)]
pub struct JsonBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        check_headers(request.headers())?;
        let bytes = Bytes::from_request(request, state).await.map_err(|e| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                too_large(None, MAX_BODY_BYTES)
            } else {
                ApiError::new(
                    Code::ValidationError,
                    format!("body: the request body could not be read: {e}"),
                )
            }
        })?;
        Ok(JsonBody(bytes))
    }
}

/// The headers of a JSON body: its type JSON (or a `+json` type) in UTF-8, sent once;
/// no content coding; no transfer coding but `chunked`. 415 with what was wrong.
fn check_headers(headers: &HeaderMap) -> Result<(), ApiError> {
    let unsupported = |message: String| ApiError::new(Code::UnsupportedMediaType, message);
    let mut types = headers.get_all(header::CONTENT_TYPE).iter();
    let (content_type, again) = (types.next(), types.next());
    let content_type = match content_type.map(|v| v.to_str()) {
        None => "",
        Some(Ok(text)) => text,
        Some(Err(_)) => {
            return Err(unsupported(
                "the body must be JSON sent as `Content-Type: application/json`; got a \
                 Content-Type that is not ASCII"
                    .to_owned(),
            ));
        }
    };
    if again.is_some() {
        return Err(unsupported(
            "the body must be JSON sent as `Content-Type: application/json`; got more \
             than one Content-Type"
                .to_owned(),
        ));
    }
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    // JSON, or a type with the +json suffix (RFC 6839: `application/vnd.api+json`).
    let suffixed = essence
        .strip_prefix("application/")
        .and_then(|s| s.strip_suffix("+json"))
        .is_some_and(|name| !name.is_empty() && !name.contains('/'));
    if !(essence == "application/json" || suffixed) {
        let got = if content_type.is_empty() {
            "no Content-Type".to_owned()
        } else {
            format!("Content-Type `{content_type}`")
        };
        return Err(unsupported(format!(
            "the body must be JSON sent as `Content-Type: application/json`; got {got}"
        )));
    }
    // JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset would be
    // read as something it is not. Every charset parameter counts.
    if let Some(charset) = content_type
        .split(';')
        .skip(1)
        .filter_map(|p| p.split_once('='))
        .filter(|(name, _)| name.trim().eq_ignore_ascii_case("charset"))
        .map(|(_, value)| value.trim().trim_matches('"'))
        .find(|v| !v.eq_ignore_ascii_case("utf-8") && !v.eq_ignore_ascii_case("utf8"))
    {
        return Err(unsupported(format!(
            "the body must be JSON in UTF-8; got charset `{charset}`"
        )));
    }
    // A compressed body would read as bytes that are not JSON; say what is wrong.
    if let Some(coding) = coding_other_than(headers, header::CONTENT_ENCODING, "identity") {
        return Err(unsupported(format!(
            "`Content-Encoding: {coding}` is not supported; send the body uncompressed"
        )));
    }
    // Only `chunked` is a transfer coding the server undoes.
    if let Some(coding) = coding_other_than(headers, header::TRANSFER_ENCODING, "chunked") {
        return Err(unsupported(format!(
            "`Transfer-Encoding: {coding}` is not supported; send the body uncompressed, \
             chunked or with a Content-Length"
        )));
    }
    Ok(())
}

/// The first coding in header `name` that is not `allowed`. Codings are lists, item by
/// item across repeated headers (`gzip, identity` is gzip); an empty item is none, and
/// a value that is not text is `?`.
fn coding_other_than<'h>(
    headers: &'h HeaderMap,
    name: header::HeaderName,
    allowed: &str,
) -> Option<&'h str> {
    headers
        .get_all(name)
        .iter()
        .flat_map(|v| v.to_str().unwrap_or("?").split(','))
        .map(str::trim)
        .find(|c| !c.is_empty() && !c.eq_ignore_ascii_case(allowed))
}

/// Parses a JSON body into `T`. The text is read as an ingest body is
/// (`undertone_core::validate::parse_body`: UTF-8, a leading byte order mark ignored,
/// a key given twice refused, the same messages for what is not JSON); then a body
/// that does not fit `T` is 400 `VALIDATION_ERROR` with one violation where it went
/// wrong (`after.to`: `is required`), `body` when that is the body as a whole, in
/// core's words where core has words for the mistake ([`in_core_words`]).
pub(super) fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let value = undertone_core::validate::parse_body(bytes)?;
    // Serde would also read a struct from an array of its fields in order
    // (`["https://…", ["intelligence.ready"]]`), and name the Rust type when that
    // fails; the body is an object, as the OpenAPI document says.
    if !value.is_object() {
        return Err(ApiError::from(undertone_core::Error::Validation(vec![
            undertone_core::Violation::new(
                "body",
                format!(
                    "must be a JSON object, got {}",
                    undertone_core::validate::type_name(&value)
                ),
            ),
        ])));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { "body" } else { &path };
        ApiError::from(undertone_core::Error::Validation(vec![in_core_words(
            path,
            e.into_inner().to_string(),
            "field",
        )]))
    })
}

/// A violation of a serde reader at `path` (`body`, or a field path, as
/// `serde_path_to_error` writes it), in the words core's validator uses for the same
/// mistake where it has words for it (an unknown field, or `kind`: an unknown query
/// parameter; a value that is not one of those allowed; a missing field, reported at
/// the field itself), else as serde wrote it.
pub(crate) fn in_core_words(path: &str, message: String, kind: &str) -> undertone_core::Violation {
    match wording::reword(&message, kind) {
        Some(r) => {
            let path = match (r.field, path) {
                (Some(field), "body" | "query" | "arguments") => field,
                (Some(field), parent) => format!("{parent}.{field}"),
                (None, path) => path.to_owned(),
            };
            // A key with no name has no path of its own to name it.
            let message = if r.unknown.as_deref() == Some("") {
                format!("{} (this one has an empty name)", r.message)
            } else {
                r.message
            };
            undertone_core::Violation::new(path, message)
        }
        None => undertone_core::Violation::new(path, message),
    }
}

/// The error of a body over `limit` bytes (DESIGN.md §2: 400, not 413), in the words
/// core uses for an input file over the limit: the size the body declared in
/// `Content-Length`, or, when it declared none and did not stop at the limit, that
/// it is over it. One violation at `body`, as every body error has.
pub(crate) fn too_large(declared: Option<usize>, limit: usize) -> ApiError {
    ApiError::from(undertone_core::Error::Validation(vec![
        too_large_violation(declared, limit),
    ]))
}

/// The violation of [`too_large`]: at `body`, the size (`declared`, or "more than" the
/// limit when it was not declared) and the limit.
pub(crate) fn too_large_violation(
    declared: Option<usize>,
    limit: usize,
) -> undertone_core::Violation {
    let size = match declared {
        Some(n) => format!("is {n} bytes"),
        None => format!("is more than {limit} bytes"),
    };
    let mib = if limit.is_multiple_of(1024 * 1024) {
        format!(" ({} MiB)", limit / (1024 * 1024))
    } else {
        String::new()
    };
    undertone_core::Violation::new("body", format!("{size}; the limit is {limit} bytes{mib}"))
}

/// A path parameter; one that cannot be read (e.g. invalid percent-encoding) names no
/// resource: 404.
#[derive(Debug)]
pub struct PathParam<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for PathParam<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(v)| PathParam(v))
            .map_err(|e| ApiError::new(Code::NotFound, unreadable_path(&e)))
    }
}

/// Why a path parameter could not be read, in the API's words (every parameter is
/// text, so what can go wrong is its percent-encoding).
fn unreadable_path(e: &PathRejection) -> String {
    match e {
        PathRejection::FailedToDeserializePathParams(e) => match e.kind() {
            ErrorKind::InvalidUtf8InPathParam { key } => format!(
                "no such resource: the path segment `{key}` is not UTF-8 once percent-decoded"
            ),
            _ => "no such resource: a path segment could not be read".to_owned(),
        },
        _ => "no such resource".to_owned(),
    }
}

/// Query parameters; a query string that does not fit (a repeated or mistyped
/// parameter, one that is not UTF-8 once percent-decoded) is a 400 with the envelope.
#[derive(Debug)]
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        // The reader below would put U+FFFD where the bytes are not UTF-8: a cursor
        // read so names another place in the list than the one it came from.
        let query = parts.uri.query().unwrap_or_default();
        let is_text = query.split('&').all(|pair| {
            percent_encoding::percent_decode_str(pair)
                .decode_utf8()
                .is_ok()
        });
        if !is_text {
            return Err(ApiError::new(
                Code::ValidationError,
                "query: is not UTF-8 once percent-decoded",
            ));
        }
        // Read with the path of what failed kept apart from what is wrong: an error
        // in one parameter (`limit: must be a whole number`, an unknown `limt`) is
        // reported at it, one of no parameter (one given twice) at `query`.
        let reader = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(reader)
            .map(QueryParams)
            .map_err(|e| {
                let path = e.path().to_string();
                let path = if path.is_empty() || path == "." {
                    "query".to_owned()
                } else {
                    path
                };
                let what = e.into_inner().to_string();
                ApiError::from(undertone_core::Error::Validation(vec![in_core_words(
                    &path,
                    what,
                    "parameter",
                )]))
            })
    }
}

/// A whole-number query parameter (`?limit=`, `?days=`), kept as the text it was
/// (trimmed) once it is one: an optional sign and digits. A value that is not one is
/// quoted back; a whole number of any size reaches the range check of
/// [`from_one_to`], which says what is allowed.
pub(super) fn whole_number<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<String>, D::Error> {
    let Some(text) = <Option<String> as serde::Deserialize>::deserialize(d)? else {
        return Ok(None);
    };
    let number = text.trim();
    let digits = number.strip_prefix(['+', '-']).unwrap_or(number);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(serde::de::Error::custom(format!(
            "must be a whole number, got {text:?}"
        )));
    }
    Ok(Some(number.to_owned()))
}

/// A whole-number query parameter `name` read by [`whole_number`], `default` when not
/// given, checked to be from 1 to `max`: `limit: must be from 1 to 100, got -1`.
pub(super) fn from_one_to(
    name: &str,
    given: Option<String>,
    default: u32,
    max: u32,
) -> Result<u32, ApiError> {
    let Some(given) = given else {
        return Ok(default);
    };
    given
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| {
            ApiError::new(
                Code::ValidationError,
                format!("{name}: must be from 1 to {max}, got {given}"),
            )
        })
}

/// A time field of a request body, in UTC, read by the rules and with the messages of
/// an event's `timestamp` (`undertone_core::validate::parse_timestamp`); the error
/// names `path`.
pub(super) fn time_field(path: &str, text: &str) -> Result<DateTime<Utc>, ApiError> {
    undertone_core::validate::parse_timestamp(text)
        .map_err(|e| ApiError::new(Code::ValidationError, format!("{path}: {e}")))
}
