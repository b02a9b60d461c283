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
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc::UnboundedSender;

use crate::api::error::{ApiError, Code};
use crate::api::{Caller, MAX_MCP_MESSAGE_BYTES as MAX_MESSAGE_BYTES};
use crate::keys::Scope;
use crate::limits;
use crate::state::AppState;
pub use backend::{Backend, InProcess, Remote, Reply};
pub use server::Undertone;

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
        .route_layer(middleware::from_fn(keys_once))
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
        StatusCode::PAYLOAD_TOO_LARGE => crate::api::too_large(None, MAX_MESSAGE_BYTES),
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
        // The transport's own words ("Bad Request: Unsupported MCP-Protocol-Version …")
        // name no field: the request as a whole is what went wrong.
        _ => {
            let what = text.strip_prefix("Bad Request: ").unwrap_or(&text);
            ApiError::new(Code::ValidationError, format!("request: {what}"))
        }
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

/// 400 `VALIDATION_ERROR`, as for a REST body, when a message gives a key twice in one
/// object: the SDK's reader would keep the last value, so `"deployment_id": "a",
/// "deployment_id": "b"` in a tool's arguments would reach the REST call as `b`
/// alone; and the JSON-RPC error `-32602` for a request whose params its method cannot
/// take ([`params_refusal`]). Runs after [`authenticate`]: no body is read for a
/// caller without a key.
async fn keys_once(request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_MESSAGE_BYTES).await {
        Ok(bytes) => bytes,
        // Over the limit, or not read at all (stalled past the body timeout, cut off):
        // each said as a REST body's would be.
        Err(e) => {
            let e = e.into_inner();
            if e.is::<http_body_util::LengthLimitError>() {
                return crate::api::too_large(None, MAX_MESSAGE_BYTES).into_response();
            }
            return ApiError::new(
                Code::ValidationError,
                format!("body: the request body could not be read: {e}"),
            )
            .into_response();
        }
    };
    match std::str::from_utf8(&bytes).ok().and_then(refused) {
        Some(Refused::Body(e)) => ApiError::from(e).into_response(),
        Some(Refused::Params(reply)) => (
            [(header::CONTENT_TYPE, "application/json")],
            axum::body::Body::from(reply),
        )
            .into_response(),
        None => {
            next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
                .await
        }
    }
}

/// A message the transport answers itself, before the SDK reads it.
enum Refused {
    /// It gives a key twice in one object, or holds an array or object longer than any
    /// body may (`limits::BODY_ITEMS_MAX`): the REST body's violation.
    Body(undertone_core::Error),
    /// A request whose params its method cannot take: the JSON-RPC reply
    /// ([`params_refusal`]).
    Params(Vec<u8>),
}

/// What `/mcp` and `undertone mcp` answer themselves for the message `text`, read once
/// (`undertone_core::validate::read_message`); `None` for a message the SDK reads, text
/// that is not UTF-8 or not JSON included (the SDK refuses that, as before).
fn refused(text: &str) -> Option<Refused> {
    match undertone_core::validate::read_message(text) {
        Err(e) => Some(Refused::Body(e)),
        Ok(Some(message)) => params_refusal(&message).map(Refused::Params),
        Ok(None) => None,
    }
}

/// The JSON-RPC error (`-32602`, invalid params) answering a request whose method the
/// server has but whose params are not what the method takes: the SDK cannot read
/// such a request at all and would answer that the method does not exist (`-32601`).
/// `None` for any other message, which the SDK reads as before, and for a
/// notification, which is never answered.
fn params_refusal(message: &serde_json::Value) -> Option<Vec<u8>> {
    let id = message.get("id").filter(|id| !id.is_null())?;
    let method = message.get("method")?.as_str()?;
    let why = invalid_params(method, message.get("params"))?;
    Some(rpc_error(id, -32602, &format!("{method}: {why}")))
}

/// A JSON-RPC error answering the request `id` (null when it could not be read).
fn rpc_error(id: &serde_json::Value, code: i64, message: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
    .unwrap_or_default()
}

/// What is wrong with `params` of `method`, for the methods that take some this server
/// answers (`tools/call`, `prompts/get`, `resources/read`); `None` when nothing is (or
/// for another method).
fn invalid_params(method: &str, params: Option<&serde_json::Value>) -> Option<String> {
    let (name, arguments) = match method {
        "tools/call" | "prompts/get" => ("name", true),
        "resources/read" => ("uri", false),
        _ => return None,
    };
    let Some(params) = params.and_then(serde_json::Value::as_object) else {
        return Some(format!(
            "params must be an object with a `{name}`{}",
            if arguments {
                " and optional `arguments`"
            } else {
                ""
            }
        ));
    };
    if !params.get(name).is_some_and(serde_json::Value::is_string) {
        return Some(format!("params.{name} must be a string"));
    }
    match params.get("arguments") {
        Some(a) if arguments && !(a.is_null() || a.is_object()) => Some(format!(
            "params.arguments must be an object, got {}",
            undertone_core::validate::type_name(a)
        )),
        _ => None,
    }
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
    // The SDK reads and writes through pipes: a message that gives a key twice is
    // answered here and never reaches it, and both its answers and those go out
    // through one writer, a whole line at a time.
    let (to_sdk, sdk_input) = tokio::io::duplex(1 << 16);
    let (sdk_output, from_sdk) = tokio::io::duplex(1 << 16);
    let (lines, mut outgoing) = tokio::sync::mpsc::unbounded_channel::<Vec<u8>>();
    let reader = tokio::spawn(forward_stdin(to_sdk, lines.clone()));
    tokio::spawn(forward_lines(from_sdk, lines));
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = outgoing.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let running = handler
        .serve((sdk_input, sdk_output))
        .await
        .map_err(|e| StdioError::Transport(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| StdioError::Transport(e.to_string()))?;
    // Standard input may still be open if the SDK stopped on its own; every answer
    // is written before returning.
    reader.abort();
    let _ = writer.await;
    Ok(())
}

/// Passes each line of standard input to the SDK (see [`forward_lines_to_sdk`]).
async fn forward_stdin(to_sdk: DuplexStream, replies: UnboundedSender<Vec<u8>>) {
    let stdin = BufReader::new(tokio::io::stdin());
    forward_lines_to_sdk(stdin, MAX_MESSAGE_BYTES, to_sdk, replies).await;
}

/// Passes each line of `input` to the SDK, except a message that gives a key twice in
/// one object: that one is answered with a JSON-RPC error (`-32600`, the body's
/// message) on `replies`, as `/mcp` answers it with 400; a request whose params its
/// method cannot take, answered `-32602` ([`params_refusal`]), as on `/mcp`; and a
/// line longer than `limit` bytes (the size limit of a message to `/mcp`), which is
/// not kept in memory: it is skipped to its end and answered with a JSON-RPC error
/// (`-32600`, id null, as it cannot be read for its id) saying the limit, as `/mcp`
/// answers 400. The input's end closes the SDK's input.
async fn forward_lines_to_sdk(
    mut input: impl AsyncBufRead + Unpin,
    limit: usize,
    mut to_sdk: impl AsyncWrite + Unpin,
    replies: UnboundedSender<Vec<u8>>,
) {
    let mut line = Vec::new();
    loop {
        line.clear();
        // One byte past the limit tells a line that is too long.
        let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
        match (&mut input).take(cap).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let reply = if line.len() > limit {
            if skip_line(&mut input).await.is_err() {
                return;
            }
            Some(too_long(limit))
        } else {
            let text = std::str::from_utf8(&line).ok();
            match text.and_then(|t| refused(t).map(|r| (t, r))) {
                Some((text, Refused::Body(error))) => refusal(text, &error),
                Some((_, Refused::Params(reply))) => Some(reply),
                None => {
                    if to_sdk.write_all(&line).await.is_err() {
                        return;
                    }
                    continue;
                }
            }
        };
        if let Some(mut reply) = reply {
            reply.push(b'\n');
            let _ = replies.send(reply);
        }
    }
}

/// Reads and drops the rest of the current line, newline included.
async fn skip_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<()> {
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// The JSON-RPC error answering a line longer than `limit` bytes: `/mcp`'s message
/// for such a body, and a null id, since the line was not read.
fn too_long(limit: usize) -> Vec<u8> {
    let v = crate::api::too_large_violation(None, limit);
    rpc_error(
        &serde_json::Value::Null,
        -32600,
        &format!("{}: {}", v.path, v.message),
    )
}

/// The JSON-RPC error answering the request `text` for `error`; `None` for a
/// notification (no `id`), which is never answered.
fn refusal(text: &str, error: &undertone_core::Error) -> Option<Vec<u8>> {
    // Read leniently, for its id only.
    let message: serde_json::Value = serde_json::from_str(text).ok()?;
    let id = message.get("id").filter(|id| !id.is_null())?;
    let what = error
        .violations()
        .iter()
        .map(|v| format!("{}: {}", v.path, v.message))
        .collect::<Vec<_>>()
        .join("; ");
    Some(rpc_error(id, -32600, &what))
}

/// Sends each whole line the SDK writes to `lines`, until it closes its output.
async fn forward_lines(from_sdk: DuplexStream, lines: UnboundedSender<Vec<u8>>) {
    let mut reader = BufReader::new(from_sdk);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if lines.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`forward_lines_to_sdk`] makes of `input` with a `limit`: the bytes the SDK
    /// got, and the answers given in its place.
    async fn forwarded(input: &[u8], limit: usize) -> (Vec<u8>, Vec<serde_json::Value>) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut to_sdk = Vec::new();
        forward_lines_to_sdk(std::io::Cursor::new(input), limit, &mut to_sdk, tx).await;
        let mut replies = Vec::new();
        while let Ok(reply) = rx.try_recv() {
            assert_eq!(reply.last(), Some(&b'\n'), "{reply:?}");
            replies.push(serde_json::from_slice(&reply).expect("a reply is JSON"));
        }
        (to_sdk, replies)
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_and_answered_and_the_next_is_served() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let mut input = Vec::new();
        input.extend_from_slice(ok);
        input.push(b'\n');
        input.extend(std::iter::repeat_n(b'x', 1000));
        input.push(b'\n');
        input.extend_from_slice(ok);
        input.push(b'\n');
        // The last line is too long too, and ends with the input, not a newline.
        input.extend(std::iter::repeat_n(b' ', 100));
        let limit = ok.len() + 1;
        let (to_sdk, replies) = forwarded(&input, limit).await;
        let mut expected = ok.to_vec();
        expected.push(b'\n');
        expected.extend_from_slice(ok);
        expected.push(b'\n');
        assert_eq!(
            String::from_utf8_lossy(&to_sdk),
            String::from_utf8_lossy(&expected)
        );
        let refusal = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {
                "code": -32600,
                "message": format!("body: is more than {limit} bytes; the limit is {limit} bytes"),
            },
        });
        assert_eq!(replies, [refusal.clone(), refusal]);
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_served() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n";
        let (to_sdk, replies) = forwarded(line, line.len()).await;
        assert_eq!(to_sdk, line);
        assert!(replies.is_empty(), "{replies:?}");
        // One byte less and it is refused, with the limit in mebibytes when it is whole.
        let (to_sdk, replies) = forwarded(line, line.len() - 1).await;
        assert!(to_sdk.is_empty());
        assert_eq!(replies.len(), 1);
        let message = too_long(3 * 1024 * 1024);
        let message: serde_json::Value = serde_json::from_slice(&message).unwrap();
        assert_eq!(
            message["error"]["message"],
            "body: is more than 3145728 bytes; the limit is 3145728 bytes (3 MiB)"
        );
    }
}
