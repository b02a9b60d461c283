//! Load shedding before memory runs out: at most so many requests in progress, and at
//! most so many bytes of request bodies being read and parsed at once. A request over
//! either limit is answered 503 with `Retry-After` at once, before its body is read
//! (and before its key is looked at, so it is not counted against a rate window).
//!
//! A body that declares more than the largest body allowed is refused at once, and a
//! body must keep arriving at an average of [`MIN_BODY_BYTES_PER_SEC`] once
//! `--body-timeout` has passed: a client that sends one byte now and then holds its
//! share of the byte budget for seconds, not for as long as it likes.

use std::time::{Duration, Instant};

use axum::body::{Body, BodyDataStream};
use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use super::AppState;
use super::error::{ApiError, Code};

/// The slowest average rate, in bytes per second since the request began, at which a
/// body may still be arriving once `--body-timeout` seconds have passed.
pub const MIN_BODY_BYTES_PER_SEC: f64 = 64.0 * 1024.0;

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
    let (_body, request) = if has_body {
        let declared = request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok());
        // An MCP message may be larger than a REST body: it can escape every non-ASCII
        // character of one.
        let limit = if request.uri().path() == "/mcp" {
            super::MAX_MCP_MESSAGE_BYTES
        } else {
            super::MAX_BODY_BYTES
        };
        if let Some(n) = declared.filter(|n| *n > limit) {
            return super::body::too_large(Some(n), limit).into_response();
        }
        let declared = declared.unwrap_or(limit);
        // A body larger than the whole budget reserves all of it, so it can still run
        // when nothing else is being read.
        let kib = declared.div_ceil(1024).clamp(1, a.max_body_kib);
        let kib = u32::try_from(kib).unwrap_or(u32::MAX);
        let Ok(permit) = a.body_kib.clone().try_acquire_many_owned(kib) else {
            return shed(
                "body_bytes",
                format!(
                    "the server is reading as many request bodies as it may ({} MiB at once); \
                     retry after {RETRY_AFTER} s",
                    a.max_body_kib / 1024
                ),
            );
        };
        let grace = state.config.body_read_timeout;
        (Some(permit), request.map(|body| paced(body, grace)))
    } else {
        (None, request)
    };
    next.run(request).await
}

/// `body`, failing as soon as it has arrived slower than [`MIN_BODY_BYTES_PER_SEC`] on
/// average after `grace` (checked as each piece arrives; a body that stops arriving
/// altogether is ended by the body timeout).
fn paced(body: Body, grace: Duration) -> Body {
    struct Pace {
        data: BodyDataStream,
        started: Instant,
        received: f64,
        failed: bool,
    }
    let pace = Pace {
        data: body.into_data_stream(),
        started: Instant::now(),
        received: 0.0,
        failed: false,
    };
    let stream = futures_util::stream::unfold(pace, move |mut p| async move {
        if p.failed {
            return None;
        }
        let piece = match p.data.next().await? {
            Ok(piece) => piece,
            Err(e) => {
                p.failed = true;
                return Some((Err(std::io::Error::other(e)), p));
            }
        };
        p.received += piece.len() as f64;
        let late = p.started.elapsed().saturating_sub(grace).as_secs_f64();
        if p.received < MIN_BODY_BYTES_PER_SEC * late {
            p.failed = true;
            let message = format!(
                "the body arrived slower than {} KiB/s on average after the first {} s",
                MIN_BODY_BYTES_PER_SEC / 1024.0,
                grace.as_secs()
            );
            return Some((Err(std::io::Error::other(message)), p));
        }
        Some((Ok(piece), p))
    });
    Body::from_stream(stream)
}
