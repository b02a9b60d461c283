//! The REST service (DESIGN.md §7): routes under `/api/v1`, authentication, rate
//! limits and the error envelope. [`rest`] builds its router; [`crate::service::app`]
//! joins it with the MCP endpoint into what `undertone serve` and the tests run.
//!
//! A route is declared once, by its handler's `#[utoipa::path]`: each resource's
//! `router()` registers handlers with utoipa-axum's `routes!`, which mounts them and
//! adds their OpenAPI operations, so the router and [`openapi::document`] cannot
//! disagree.

pub(crate) mod admission;
mod auth;
mod body;
mod deployments;
mod drift;
pub mod error;
mod ingest;
mod key;
mod meta;
pub mod openapi;
mod paging;
mod sessions;
mod submit;
mod webhooks;

use std::collections::HashSet;
use std::sync::LazyLock;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, FromRequestParts, MatchedPath, Request};
use axum::http::{StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::OpenApi;
use utoipa::openapi::RefOr;
use utoipa::openapi::path::ParameterIn;
use utoipa_axum::router::OpenApiRouter;

pub use crate::state::{AppState, Config, Handoff};
pub(crate) use admission::admit;
pub use auth::Caller;
pub use auth::Precharged;
pub(crate) use auth::{IDEMPOTENCY_KEY, charge, identify, set_quota};
pub(crate) use body::{in_core_words, too_large, too_large_violation};
use error::{ApiError, Code};
pub(crate) use submit::{IDEMPOTENCY_KEY_MAX, REPLAYED, check_idempotency_key};

/// Largest request body accepted (DESIGN.md §2).
pub const MAX_BODY_BYTES: usize = undertone_core::schema::limits::BODY_MAX_BYTES;

/// Largest MCP message (`/mcp`): a largest REST body written with every non-ASCII
/// character escaped (`\uXXXX` makes CJK text twice and emoji three times as long),
/// plus room for the JSON-RPC envelope. The REST call it makes is held to the REST
/// limit.
pub const MAX_MCP_MESSAGE_BYTES: usize = 3 * MAX_BODY_BYTES + 64 * 1024;

/// The REST API.
pub fn rest(state: AppState) -> Router {
    let authenticate = middleware::from_fn_with_state(state.clone(), auth::authenticate);
    let (api, _) = routes(|keyed| keyed.route_layer(authenticate)).split_for_parts();
    api.fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(envelope_for_bare_errors))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(state)
}

/// Every route under `/api/v1` with its OpenAPI operation; `guard` wraps the routes
/// that need a key (all but `/openapi` and `/healthz`).
fn routes(
    guard: impl FnOnce(OpenApiRouter<AppState>) -> OpenApiRouter<AppState>,
) -> OpenApiRouter<AppState> {
    let keyed = OpenApiRouter::new()
        .merge(ingest::router())
        .merge(sessions::router())
        .merge(drift::router())
        .merge(webhooks::router())
        .merge(deployments::router())
        .merge(key::router())
        .route_layer(middleware::from_fn(refuse_undeclared_input));
    let open = OpenApiRouter::new()
        .merge(openapi::router())
        .merge(meta::router())
        .route_layer(middleware::from_fn(refuse_undeclared_input));
    let api = guard(keyed).merge(open);
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi()).nest("/api/v1", api)
}

/// An operation: `(method, routed path)`, as `("GET", "/api/v1/key")` (a `HEAD` is
/// routed as its `GET`).
type Operation = (String, String);

/// What the OpenAPI document declares that operations do not read.
struct Undeclared {
    /// The operations that declare no query parameter.
    query: HashSet<Operation>,
    /// The operations that declare no request body.
    body: HashSet<Operation>,
}

/// Read once from the OpenAPI document, which declares every route's parameters and
/// body.
static UNDECLARED: LazyLock<Undeclared> = LazyLock::new(|| {
    let doc = routes(|keyed| keyed).into_openapi();
    let mut out = Undeclared {
        query: HashSet::new(),
        body: HashSet::new(),
    };
    for (path, item) in &doc.paths.paths {
        let operations = [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("PATCH", &item.patch),
            ("DELETE", &item.delete),
        ];
        for (method, operation) in operations {
            let Some(operation) = operation else { continue };
            let takes_query = operation
                .parameters
                .iter()
                .flatten()
                .any(|p| matches!(p, RefOr::T(p) if p.parameter_in == ParameterIn::Query));
            if !takes_query {
                out.query.insert((method.to_owned(), path.clone()));
            }
            if operation.request_body.is_none() {
                out.body.insert((method.to_owned(), path.clone()));
            }
        }
    }
    out
});

/// A route refuses what its OpenAPI description does not declare, so that nothing a
/// caller sends is ignored without a word. One that takes no query parameter refuses
/// any, as one that takes some refuses those it does not (`POST
/// /ingest?pipeline=support`: `pipeline: unknown parameter; no parameters are
/// allowed`). One that takes no body refuses a body that is not empty (`POST
/// /webhooks/{id}/test` with `{"event": "x"}`: `body: must be empty: this route reads
/// no body`).
async fn refuse_undeclared_input(request: Request, next: Next) -> Response {
    let method = match request.method().as_str() {
        "HEAD" => "GET",
        m => m,
    };
    let operation = match request.extensions().get::<MatchedPath>() {
        Some(p) => (method.to_owned(), p.as_str().to_owned()),
        None => return next.run(request).await,
    };
    let (mut parts, mut body) = request.into_parts();
    if parts.uri.query().is_some_and(|q| !q.is_empty()) && UNDECLARED.query.contains(&operation) {
        /// The parameters of a route that takes none.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct NoParameters {}
        if let Err(e) = body::QueryParams::<NoParameters>::from_request_parts(&mut parts, &()).await
        {
            return e.into_response();
        }
    }
    if UNDECLARED.body.contains(&operation) {
        // One byte tells: an empty body, however framed, reads as none.
        match axum::body::to_bytes(body, 1).await {
            Ok(bytes) if bytes.is_empty() => body = Body::empty(),
            _ => {
                return ApiError::from(undertone_core::Error::Validation(vec![
                    undertone_core::Violation::new(
                        "body",
                        "must be empty: this route reads no body",
                    ),
                ]))
                .into_response();
            }
        }
    }
    next.run(Request::from_parts(parts, body)).await
}

/// No route has this path: outside `/api/v1`, say where the API is; inside it, where
/// its routes are listed (the path itself was right up to the version).
async fn not_found(uri: Uri) -> ApiError {
    let path = uri.path();
    let message = if path == "/api/v1" || path.starts_with("/api/v1/") {
        "no such route; GET /api/v1/openapi lists every route"
    } else {
        "no such route; the API lives under /api/v1"
    };
    ApiError::new(Code::NotFound, message)
}

/// Gives axum's own bodyless answers (405 from a method router) the error envelope;
/// so does the app's bodyless 404 (an asset it does not have).
pub(crate) async fn envelope_for_bare_errors(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json {
        return response;
    }
    if response.status() == StatusCode::NOT_FOUND {
        return ApiError::new(
            Code::NotFound,
            "no such page; the app is at /app and the API under /api/v1",
        )
        .into_response();
    }
    if response.status() != StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let allow = parts.headers.remove(header::ALLOW);
    let mut fixed = ApiError::new(
        Code::MethodNotAllowed,
        format!(
            "{method} is not allowed on this route; the Allow header lists the methods it accepts"
        ),
    )
    .into_response();
    if let Some(allow) = allow {
        fixed.headers_mut().insert(header::ALLOW, allow);
    }
    for (name, value) in parts.headers.iter() {
        if name.as_str().starts_with("x-ratelimit") {
            fixed.headers_mut().insert(name, value.clone());
        }
    }
    fixed
}

pub(crate) fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    ApiError::internal("a handler panicked").into_response()
}
