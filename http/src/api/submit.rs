//! What `POST /ingest` and `POST /drift` share: validating a body off the async
//! runtime, and storing a session with its job (and, for drift, its quota) as one
//! transaction before answering 202.

use axum::Json;
use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::auth::rate_limited;
use super::error::{ApiError, Code};
use super::{AppState, Caller};
use crate::store::{Enqueued, NewSession};

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
/// transaction, and wakes a worker. `Err` is the 503 or 429 to answer.
pub(super) async fn enqueue(
    state: &AppState,
    caller: &Caller,
    session: &NewSession,
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
