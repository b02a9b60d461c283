//! What `POST /ingest` and `POST /drift` share: validating a body off the async
//! runtime, storing a session with its job (and, for drift, its quota) as one
//! transaction before answering 202, and answering a repeat that carries the same
//! `Idempotency-Key` with the session it started.

use axum::Json;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::auth::{IDEMPOTENCY_KEY, rate_limited};
use super::error::{ApiError, Code};
use super::{AppState, Caller};
use crate::store::{Earlier, Enqueued, Idempotency, NewSession};

/// How a route answers its 202 for a session it started (its poll URL and body),
/// given the session's id, its events and the quota to report: the same for the
/// first sending and for a repeat.
pub(super) type Answer = fn(&str, u64, Option<crate::limits::Quota>) -> Response;

/// The header on an answer that repeats an earlier one.
pub const REPLAYED: &str = "idempotent-replayed";
/// The longest `Idempotency-Key`, in characters.
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// The `Idempotency-Key` header of the routes that start a session, as the API
/// document describes it (read by [`idempotency`]).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
pub struct IdempotencyHeader {
    /// Makes the request safe to repeat: a repeat with the same key and the same body
    /// (the same JSON, however spaced or ordered) gets the first answer again (marked
    /// `Idempotent-Replayed: true`) and starts nothing; the same key with another
    /// request is 409. 1 to 255 visible ASCII characters, such as a UUID; remembered
    /// while its session is kept.
    #[param(
        rename = "Idempotency-Key",
        required = false,
        pattern = "^[!-~]{1,255}$"
    )]
    #[allow(dead_code)]
    idempotency_key: String,
}

/// The request's `Idempotency-Key`, if it sent one, with the digest of `route` and
/// `body` (as [`canonical_json`] writes it) that tells a repeat from a reuse. The key
/// is 1 to [`IDEMPOTENCY_KEY_MAX`] visible ASCII characters, compared as sent (a
/// quoted `"…"` form, as a structured header field writes a string, is a key of its
/// own, quotes included).
pub(super) async fn idempotency(
    headers: &HeaderMap,
    route: &str,
    body: &Bytes,
) -> Result<Option<Idempotency>, ApiError> {
    let mut values = headers.get_all(IDEMPOTENCY_KEY).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    let refuse =
        |what: &str| ApiError::new(Code::ValidationError, format!("Idempotency-Key: {what}"));
    if values.next().is_some() {
        return Err(refuse("must be sent once, got more than one"));
    }
    let key = value.as_bytes();
    check_idempotency_key(key).map_err(|what| refuse(&what))?;
    let key = String::from_utf8_lossy(key).into_owned();
    // Up to 16 MiB to read and hash: on the blocking pool, as the body's validation is.
    let (route, body) = (route.to_owned(), body.clone());
    let digest = tokio::task::spawn_blocking(move || {
        let mut digest = Sha256::new();
        digest.update(route.as_bytes());
        digest.update([0]);
        digest.update(canonical_json(&body).as_deref().unwrap_or(&body));
        hex::encode(digest.finalize())
    })
    .await
    .map_err(ApiError::internal)?;
    Ok(Some(Idempotency { key, digest }))
}

/// `body` written the one way that ignores what JSON leaves free: no whitespace
/// outside strings, the keys of every object sorted, no byte order mark (which every
/// reader of a body ignores). So a repeat is the same request however its client
/// spaced it or ordered its keys (an MCP tool's arguments come back from a model in
/// any order). `None` when the body is not a body validation could accept (not JSON, a
/// key given twice, an array longer than any valid body holds: read as validation reads
/// it, so that a hostile body is not parsed whole here either): its bytes are hashed,
/// and validation refuses it.
fn canonical_json(body: &[u8]) -> Option<Vec<u8>> {
    let mut value = undertone_core::validate::parse_body(body).ok()?;
    sort_keys(&mut value);
    serde_json::to_vec(&value).ok()
}

/// Sorts the keys of every object in `value` (the depth is bounded by the parser's,
/// 128).
fn sort_keys(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.sort_keys();
            map.values_mut().for_each(sort_keys);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

/// Whether `key` can be an idempotency key: 1 to [`IDEMPOTENCY_KEY_MAX`] visible ASCII
/// characters. `Err` says what it must be. (The MCP tools check their
/// `idempotency_key` argument with it before it becomes the header.)
pub(crate) fn check_idempotency_key(key: &[u8]) -> Result<(), String> {
    if key.is_empty()
        || key.len() > IDEMPOTENCY_KEY_MAX
        || !key.iter().all(|b| (0x21..=0x7e).contains(b))
    {
        return Err(format!(
            "must be 1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters (no spaces), such as a UUID"
        ));
    }
    Ok(())
}

/// The answer to a request whose `Idempotency-Key` started a session before, if one
/// did: its 202 again (as `answer` writes it), or 409 when the key came with another
/// request.
pub(super) async fn repeated(
    state: &AppState,
    caller: &Caller,
    idempotency: Option<&Idempotency>,
    answer: Answer,
) -> Result<Option<Response>, ApiError> {
    let Some(idempotency) = idempotency else {
        return Ok(None);
    };
    let earlier = state.store.earlier(&caller.key.id, idempotency).await?;
    earlier
        .map(|e| replay(&e, answer, &idempotency.key))
        .transpose()
}

/// The 202 that `earlier` was first answered with, marked as a repeat; 409 when the
/// key was sent with a different request.
fn replay(earlier: &Earlier, answer: Answer, key: &str) -> Result<Response, ApiError> {
    if !earlier.same_request {
        return Err(ApiError::new(
            Code::Conflict,
            format!(
                "Idempotency-Key {key:?} was sent before with a different request, which \
                 started session {}; send a new key with a new request",
                earlier.session_id
            ),
        ));
    }
    let mut response = answer(&earlier.session_id, earlier.event_count, None);
    response
        .headers_mut()
        .insert(REPLAYED, HeaderValue::from_static("true"));
    Ok(response)
}

/// Runs `check` on the body on the blocking pool (a 16 MiB body takes milliseconds
/// to parse) and hands the body back with the result.
pub(super) async fn check_off_runtime<T: Send + 'static>(
    bytes: Bytes,
    check: impl FnOnce(&[u8]) -> T + Send + 'static,
) -> Result<(T, Bytes), ApiError> {
    tokio::task::spawn_blocking(move || (check(&bytes), bytes))
        .await
        .map_err(ApiError::internal)
}

/// Stores `session` with its job, counting the caller's deferred windows in the same
/// transaction, and wakes a worker. `Err` is the answer instead of a new 202: the
/// 503 or 429, or the repeat (written by `answer`) of what a request with the same
/// `Idempotency-Key` started meanwhile.
pub(super) async fn enqueue(
    state: &AppState,
    caller: &Caller,
    session: &NewSession,
    answer: Answer,
) -> Result<Option<crate::limits::Quota>, Response> {
    let stored = state
        .store
        .enqueue(
            session,
            state.config.queue_limit(),
            caller.deferred.as_deref(),
        )
        .await;
    match stored {
        Ok(Enqueued::Accepted(quota)) => {
            state.wake.notify_one();
            Ok(quota)
        }
        Ok(Enqueued::QueueFull) => Err(queue_full(state).into_response()),
        Ok(Enqueued::KeyShareFull(held)) => Err(ApiError::new(
            Code::ServiceUnavailable,
            format!(
                "this key holds {held} jobs of the queue, its share ({:.0}% of {}); \
                 retry after {} s, when some have finished",
                state.config.queue_key_share * 100.0,
                state.config.queue_capacity,
                state.config.queue_retry_after
            ),
        )
        .retry_after(state.config.queue_retry_after)
        .into_response()),
        Ok(Enqueued::RateLimited(q)) => {
            let now = state.clock.now().timestamp();
            Err(rate_limited(&caller.key, q, now, true))
        }
        Ok(Enqueued::Earlier(earlier)) => {
            let key = session.idempotency.as_ref().map_or("", |i| i.key.as_str());
            Err(replay(&earlier, answer, key).unwrap_or_else(IntoResponse::into_response))
        }
        Err(e) => Err(ApiError::from(e).into_response()),
    }
}

/// 202 with `Location: poll_url`; `quota`, when the handler counted the request,
/// is what the rate-limit headers report.
pub(super) fn accepted(
    poll_url: String,
    body: impl Serialize,
    quota: Option<crate::limits::Quota>,
) -> Response {
    let mut response = (
        StatusCode::ACCEPTED,
        [(header::LOCATION, poll_url)],
        Json(body),
    )
        .into_response();
    if let Some(q) = quota {
        response.extensions_mut().insert(q);
    }
    response
}

/// 503 with Retry-After.
pub(super) fn queue_full(state: &AppState) -> ApiError {
    ApiError::new(
        Code::ServiceUnavailable,
        format!(
            "the queue is at capacity ({} jobs waiting); retry after {} s",
            state.config.queue_capacity, state.config.queue_retry_after
        ),
    )
    .retry_after(state.config.queue_retry_after)
}

#[cfg(test)]
mod tests {
    use super::canonical_json;

    #[test]
    fn a_body_is_the_same_however_it_is_spaced_or_its_keys_ordered() {
        let compact = br#"{"deployment_id":"bot","events":[{"content":"hi","metadata":{"a":1,"b":[true,null]}}]}"#;
        let spaced = br#"{ "events": [ { "metadata": { "b": [true, null], "a": 1 },
            "content": "hi" } ],
            "deployment_id": "bot" }"#;
        let sorted = br#"{"deployment_id":"bot","events":[{"content":"hi","metadata":{"a":1,"b":[true,null]}}]}"#;
        assert_eq!(canonical_json(spaced).as_deref(), Some(&sorted[..]));
        assert_eq!(canonical_json(compact), canonical_json(spaced));
        // Values, array order and strings still count.
        for other in [
            &br#"{"deployment_id":"bot2","events":[]}"#[..],
            br#"{"events":[{"content":"hi "}],"deployment_id":"bot"}"#,
            br#"{"events":[2,1]}"#,
        ] {
            assert_ne!(canonical_json(other), canonical_json(compact));
        }
        assert_ne!(canonical_json(br#"[1,2]"#), canonical_json(br#"[2,1]"#));
        assert_eq!(
            canonical_json(b"{\"s\":\"\\u00e9\"}").as_deref(),
            Some("{\"s\":\"\u{e9}\"}".as_bytes())
        );
        assert_eq!(canonical_json(b"not json"), None);
    }
}
