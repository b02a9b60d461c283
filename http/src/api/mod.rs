//! The REST service (DESIGN.md §7): routes under `/api/v1`, authentication, rate
//! limits and the error envelope. [`app`] builds the router that `undertone serve` and
//! the tests run.

mod auth;
mod body;
mod deployments;
mod drift;
pub mod error;
mod ingest;
mod key;
mod meta;
pub mod openapi;
mod sessions;
mod submit;
mod webhooks;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tokio::sync::Notify;
use tower_http::catch_panic::CatchPanicLayer;
use undertone_core::IngestRequest;

use crate::clock::Clock;
use crate::store::Store;
use crate::webhooks::resolver::SafeResolver;
pub use auth::Caller;
pub use auth::Precharged;
pub(crate) use auth::{charge, identify, set_quota};
use error::{ApiError, Code};

/// Largest request body accepted (DESIGN.md §2).
pub const MAX_BODY_BYTES: usize = undertone_core::schema::limits::BODY_MAX_BYTES;

/// Server settings the routes and workers read.
#[derive(Debug, Clone)]
pub struct Config {
    /// Jobs the queue may hold before ingest answers 503.
    pub queue_capacity: u64,
    /// Accept `http://` and non-public webhook URLs (tests and local development).
    pub allow_private_webhooks: bool,
    /// How long a worker holds a job before another may take it.
    pub lease: Duration,
    /// Attempts at a job (the first plus retries after lost leases) before it fails.
    pub max_attempts: u32,
    /// Seconds a client is told to wait when the queue is full.
    pub queue_retry_after: u64,
    /// Longest a job may spend scoring (wall-clock time of its worker) before it ends
    /// `failed`, saying so.
    pub job_time_budget: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            queue_capacity: 1000,
            allow_private_webhooks: false,
            lease: Duration::from_secs(60),
            max_attempts: 4,
            queue_retry_after: 5,
            job_time_budget: Duration::from_secs(600),
        }
    }
}

/// What every handler and worker shares.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Arc<dyn Store>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Settings.
    pub config: Arc<Config>,
    /// Woken when a job is queued, so an idle worker starts at once.
    pub wake: Arc<Notify>,
    /// Requests this process validated at ingest, by session id, so its workers need
    /// not parse them again. Bounded; a job missing here is parsed from the database.
    pub handoff: Arc<Handoff>,
    /// Woken when webhook deliveries are queued, so the delivery worker starts at once.
    pub deliveries: Arc<Notify>,
    /// Resolves webhook host names at registration, refusing non-public addresses
    /// unless private webhooks are allowed.
    pub resolver: SafeResolver,
}

/// Validated ingest requests passed from the handler to a worker in the same process.
#[derive(Debug, Default)]
pub struct Handoff(
    std::sync::Mutex<std::collections::HashMap<String, (std::time::Instant, Arc<IngestRequest>)>>,
);

impl Handoff {
    /// Requests held at most; beyond this, workers parse from the database.
    const CAPACITY: usize = 64;
    /// Entries older than this are dropped (their job went to another process).
    const MAX_AGE: Duration = Duration::from_secs(120);

    /// Offers a validated request; dropped when the handoff is full.
    pub fn put(&self, session_id: &str, request: Arc<IngestRequest>) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= Self::CAPACITY {
            map.retain(|_, (at, _)| at.elapsed() < Self::MAX_AGE);
        }
        if map.len() < Self::CAPACITY {
            map.insert(session_id.to_owned(), (std::time::Instant::now(), request));
        }
    }

    /// Takes the request of a session, if this process still holds it.
    pub fn take(&self, session_id: &str) -> Option<Arc<IngestRequest>> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(session_id)
            .map(|(_, r)| r)
    }
}

impl AppState {
    /// State over `store` and `clock` with `config`.
    pub fn new(store: Arc<dyn Store>, clock: Arc<dyn Clock>, config: Config) -> Self {
        Self {
            store,
            clock,
            resolver: SafeResolver::new(config.allow_private_webhooks),
            config: Arc::new(config),
            wake: Arc::new(Notify::new()),
            handoff: Arc::new(Handoff::default()),
            deliveries: Arc::new(Notify::new()),
        }
    }
}

/// The whole service as one router: the REST API under `/api/v1` and the MCP
/// endpoint at `/mcp`, whose tool calls go through the REST routes.
pub fn app(state: AppState) -> Router {
    let rest = rest(state.clone());
    rest.clone()
        .merge(crate::mcp::router(state, rest).layer(CatchPanicLayer::custom(panic_response)))
}

/// The REST API.
fn rest(state: AppState) -> Router {
    let authenticated = Router::new()
        .merge(ingest::router())
        .merge(sessions::router())
        .merge(drift::router())
        .merge(webhooks::router())
        .merge(deployments::router())
        .merge(key::router())
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ));
    let api = Router::new().merge(authenticated).merge(meta::router());
    Router::new()
        .nest("/api/v1", api)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(envelope_for_bare_errors))
        .layer(CatchPanicLayer::custom(panic_response))
        .with_state(state)
}

async fn not_found() -> ApiError {
    ApiError::new(Code::NotFound, "no such route; the API lives under /api/v1")
}

/// Gives axum's own bodyless answers (405 from a method router) the error envelope.
async fn envelope_for_bare_errors(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let response = next.run(request).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if response.status() != StatusCode::METHOD_NOT_ALLOWED || is_json {
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

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    ApiError::internal("a handler panicked").into_response()
}
