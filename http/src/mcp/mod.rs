//! The MCP server (Model Context Protocol, via the official Rust SDK `rmcp`): agents
//! read Undertone's intelligence and, with a read-write key, ingest conversations.
//!
//! Two transports, one handler ([`server::Undertone`]):
//! - streamable HTTP at `/mcp` on `undertone serve` ([`router`]), authenticated with
//!   the same Bearer keys as the REST API; stateless, so any process behind a load
//!   balancer answers any request;
//! - `undertone mcp` over stdio ([`serve_stdio`]), a client of a REST API's base URL.
//!
//! Every tool call that reads or writes goes through the REST routes (in-process for
//! `/mcp`), so validation, scopes, rate limits and errors are the REST API's own.
//!
//! A tool is declared once, as a method with rmcp's `#[tool]` in `tools.rs`: its name,
//! description, annotations and input schema (the type of its arguments, `args.rs`)
//! all come from there; `rest.rs` holds the REST proxy and the answers' shapes,
//! `score.rs` the local scoring of `score_conversation`, `views.rs` the summaries.

mod args;
mod backend;
mod error;
mod handler;
mod rest;
mod score;
mod server;
mod tools;
mod views;

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::api::error::{ApiError, Code};
use crate::api::{Caller, MAX_BODY_BYTES};
use crate::keys::Scope;
use crate::limits;
use crate::state::AppState;
pub use backend::{Backend, InProcess, Remote, Reply};
pub use server::Undertone;

/// Largest MCP message: a largest REST body written with every non-ASCII character
/// escaped (`\uXXXX` makes CJK text twice and emoji three times as long), plus room
/// for the JSON-RPC envelope. The REST call it makes is held to the REST limit.
const MAX_MESSAGE_BYTES: usize = 3 * MAX_BODY_BYTES + 64 * 1024;

/// `/mcp`: the streamable-HTTP MCP endpoint; tool calls go through `rest`.
pub fn router(state: AppState, rest: Router) -> Router {
    // Stateless and JSON answers: no session to pin to a process, no stream to hold.
    // Host and Origin checks guard unauthenticated local servers against DNS
    // rebinding; here every request needs a Bearer key a browser page cannot read,
    // and the server is reached under whatever host name its operator gives it.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .disable_allowed_hosts()
        .with_max_request_body_bytes(MAX_MESSAGE_BYTES);
    let handler = Undertone::hosted(rest);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new()
        .route_service("/mcp", service)
        .route_layer(middleware::from_fn_with_state(state, authenticate))
        .route_layer(middleware::from_fn(envelope))
}

/// The SDK answers what goes wrong below the protocol (a body that is not a JSON-RPC
/// message, another method than `POST`, a missing `Accept`, a body over the limit) in
/// plain text, a body that is not JSON with 415. Every error of the service is the
/// REST envelope (docs/service.md), so such an answer is rewritten into one: a message
/// that cannot be read is 400 `VALIDATION_ERROR`, as a REST body would be.
async fn envelope(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let status = response.status();
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let error = match status {
        StatusCode::UNSUPPORTED_MEDIA_TYPE if text.starts_with("fail to deserialize") => {
            ApiError::new(
                Code::ValidationError,
                format!("body: is not a JSON-RPC message ({text})"),
            )
        }
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::new(Code::UnsupportedMediaType, text),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            Code::ValidationError,
            format!(
                "body: an MCP message is at most {} bytes",
                MAX_MESSAGE_BYTES
            ),
        ),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
            Code::MethodNotAllowed,
            "/mcp answers POST: one JSON-RPC message per request (MCP streamable HTTP, \
             without sessions)",
        ),
        StatusCode::NOT_ACCEPTABLE => ApiError::new(
            Code::ValidationError,
            "headers: `Accept` must list application/json and text/event-stream \
             (MCP streamable HTTP)",
        ),
        s if s.is_server_error() => ApiError::internal(format!("MCP transport {s}: {text}")),
        _ => ApiError::new(Code::ValidationError, text),
    };
    let mut rewritten = error.into_response();
    // The rest of the head stays: `Allow`, and the key's rate-limit headers.
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            rewritten.headers_mut().insert(name, value.clone());
        }
    }
    rewritten
}

/// 401 with the error envelope unless the request carries a valid key; then each
/// `POST` (one MCP message) is counted against the key's request windows before its
/// body is read, 429 with `Retry-After` when a window is full. The REST calls a tool
/// makes are marked [`crate::api::Precharged`] and not counted again.
async fn authenticate(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let key = match crate::api::identify(&state, request.headers()).await {
        Ok(key) => key,
        Err(e) => return e.into_response(),
    };
    let mut quota = None;
    if request.method() == Method::POST {
        let now = state.clock.now().timestamp();
        let windows = limits::windows_for(&key.plan, now, false);
        match crate::api::charge(&state, &key, &windows, now).await {
            Ok(q) => quota = Some(q),
            Err(refused) => return refused,
        }
    }
    request.extensions_mut().insert(Caller {
        key: Arc::new(key),
        deferred: None,
    });
    let mut response = next.run(request).await;
    if let Some(q) = quota {
        crate::api::set_quota(response.headers_mut(), q);
    }
    response
}

/// Why `undertone mcp` could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// The arguments are unusable.
    #[error("{0}")]
    Usage(String),
    /// The REST API refused the key or could not be reached.
    #[error("{0}")]
    Api(String),
    /// The MCP session failed.
    #[error("MCP over stdio failed: {0}")]
    Transport(String),
}

/// Serves MCP over standard input and output for the key `api_key` of the REST API at
/// `base_url`, until the client closes standard input. The key is checked first
/// (`GET /api/v1/key`): a refused key ends it before any MCP traffic.
pub async fn serve_stdio(base_url: &str, api_key: &str) -> Result<(), StdioError> {
    let remote = Remote::new(base_url, api_key).map_err(|e| StdioError::Usage(e.to_string()))?;
    let key = rest::rest(&remote, Method::GET, "/key", None)
        .await
        .map_err(|e| {
            let code = e.0["code"].as_str().unwrap_or("");
            let message = e.0["message"].as_str().unwrap_or("");
            StdioError::Api(match code {
                "SERVICE_UNAVAILABLE" => message.to_owned(),
                "NOT_FOUND" => format!(
                    "{} has no GET /api/v1/key: is it an Undertone server of this version?",
                    remote.base()
                ),
                _ => format!("{} refused the key ({code}): {message}", remote.base()),
            })
        })?;
    let scope = key["scope"]
        .as_str()
        .and_then(Scope::parse)
        .ok_or_else(|| {
            StdioError::Api(format!(
                "{} answered GET /api/v1/key without a scope",
                remote.base()
            ))
        })?;
    tracing::info!(
        base = remote.base(),
        scope = scope.as_str(),
        "serving MCP on stdio"
    );
    let handler = Undertone::remote(Arc::new(remote), scope);
    let running = handler
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| StdioError::Transport(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| StdioError::Transport(e.to_string()))?;
    Ok(())
}
