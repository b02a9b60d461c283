//! The floor of `scripts/bench-service`: a bare axum server whose one route only
//! parses the request body.
//!
//! ```text
//! bench_floor [ADDR]      default 127.0.0.1:0; prints `bench_floor: listening on http://ADDR`
//! ```
//!
//! `POST /api/v1/ingest` reads the body, parses it with `serde_json` into a
//! `serde_json::Value` and answers 202 with a small JSON object (400 if the body is
//! not JSON). No key, no validation, no database, no queue, no scoring. Same runtime
//! (tokio, multi-threaded, one worker thread per core), same allocator (mimalloc) and
//! same body limit as `undertone serve`, so the difference between the two under the
//! same load is what Undertone adds on top of receiving and parsing the body.
//! It runs until killed.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

/// The allocator of the `undertone` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Parses the body into a `Value`; 202 with the number of events, or 400.
async fn ingest(body: Bytes) -> Response {
    match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(value) => {
            let events = value
                .get("events")
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len);
            (
                StatusCode::ACCEPTED,
                [(header::CONTENT_TYPE, "application/json")],
                format!("{{\"event_count\":{events},\"status\":\"received\"}}"),
            )
                .into_response()
        }
        Err(e) => (StatusCode::BAD_REQUEST, format!("not JSON: {e}")).into_response(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .as_deref()
        .unwrap_or("127.0.0.1:0")
        .parse()?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let app = Router::new()
        .route("/api/v1/ingest", post(ingest))
        .layer(DefaultBodyLimit::max(undertone_http::api::MAX_BODY_BYTES));
    println!(
        "bench_floor: listening on http://{}",
        listener.local_addr()?
    );
    axum::serve(listener, app).await?;
    Ok(())
}
