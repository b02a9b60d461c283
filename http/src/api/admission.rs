//! Load shedding before memory runs out: at most so many requests in progress, and at
//! most so many bytes of request bodies being read and parsed at once. A request over
//! either limit is answered 503 with `Retry-After` at once, before its body is read
//! (and before its key is looked at, so it is not counted against a rate window).

use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::error::{ApiError, Code};

/// Seconds a shed client is told to wait.
const RETRY_AFTER: u64 = 1;

fn shed(reason: &'static str, message: String) -> Response {
    crate::metrics::shed(reason);
    ApiError::new(Code::ServiceUnavailable, message)
        .retry_after(RETRY_AFTER)
        .into_response()
}

/// Middleware: holds a request slot, and for a request with a body its declared size
/// (`Content-Length`, or the largest body allowed when it is not given), for as long
/// as the request runs.
pub async fn admit(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let a = &state.admission;
    let Ok(_slot) = a.requests.clone().try_acquire_owned() else {
        return shed(
            "requests",
            format!(
                "the server is handling as many requests as it may ({}); retry after {RETRY_AFTER} s",
                a.max_requests
            ),
        );
    };
    let has_body = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH
    );
    let _body = if has_body {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(super::MAX_BODY_BYTES);
        // A body larger than the whole budget reserves all of it, so it can still run
        // when nothing else is being read.
        let kib = declared.div_ceil(1024).clamp(1, a.max_body_kib);
        let kib = u32::try_from(kib).unwrap_or(u32::MAX);
        match a.body_kib.clone().try_acquire_many_owned(kib) {
            Ok(permit) => Some(permit),
            Err(_) => {
                return shed(
                    "body_bytes",
                    format!(
                        "the server is reading as many request bodies as it may ({} MiB at once); \
                     retry after {RETRY_AFTER} s",
                        a.max_body_kib / 1024
                    ),
                );
            }
        }
    } else {
        None
    };
    next.run(request).await
}
