//! The REST service through its router (`tower::ServiceExt::oneshot`, no sockets):
//! exact statuses, bodies and headers of every route and every error, the key
//! matrix, rate-limit windows, the queue and job leases.
//!
//! This file holds what the tests share: a service over a temporary SQLite database
//! and a [`ManualClock`] (so no test ever waits), requests, replies, the examples and
//! the assertions on error envelopes and rate-limit headers.

mod auth;
mod drift;
mod errors;
mod idempotency;
mod ingest;
mod limits;
mod listing;
mod mcp;
mod meta;
mod queue;
mod sessions;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use chrono::{DateTime, TimeDelta, Utc};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tempfile::TempDir;
use tower::ServiceExt;
use undertone_http::clock::{Clock, ManualClock};
use undertone_http::keys::{self, Scope};
use undertone_http::limits::Plan;
use undertone_http::state::{AppState, Config};
use undertone_http::store::{KeyRecord, Store};

/// Where every test's clock starts: 2026-11-18T11:06:40Z.
const NOW: i64 = 1_795_000_000;
/// `NOW` as the service writes times.
const NOW_TEXT: &str = "2026-11-18T11:06:40.000Z";
/// End of `NOW`'s UTC hour (12:00:00), the hour windows' reset.
const HOUR_END: i64 = 1_795_003_200;
/// End of `NOW`'s UTC day (2026-11-19T00:00:00Z), the day window's reset.
const DAY_END: i64 = 1_795_046_400;
/// The org of the service's default key.
const ORG: &str = "org-a";

/// A whole service: router, store and clock, with one read-write key of [`ORG`].
struct Service {
    /// Holds the database file; dropped last.
    _dir: TempDir,
    store: Arc<Store>,
    clock: Arc<ManualClock>,
    state: AppState,
    app: Router,
    /// The read-write key of [`ORG`] with the default plan.
    key: String,
}

impl Service {
    /// A service with the default configuration.
    async fn new() -> Service {
        Service::with_config(Config::default()).await
    }

    /// A service with `config`.
    async fn with_config(config: Config) -> Service {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}/t.db", dir.path().display());
        let store = undertone_http::store::open(&url)
            .await
            .expect("database opens");
        let clock = Arc::new(ManualClock::new(
            DateTime::from_timestamp(NOW, 0).expect("valid time"),
        ));
        let state = AppState::new(store.clone(), clock.clone(), config);
        let app = undertone_http::service::app(state.clone());
        let (_, key) = keys::issue(
            &store,
            "tests",
            ORG,
            Scope::ReadWrite,
            Plan::default(),
            clock.now(),
        )
        .await
        .expect("key is stored");
        Service {
            _dir: dir,
            store,
            clock,
            state,
            app,
            key,
        }
    }

    /// Issues and stores another key.
    async fn issue(&self, org: &str, scope: Scope, plan: Plan) -> (KeyRecord, String) {
        keys::issue(&self.store, "another", org, scope, plan, self.clock.now())
            .await
            .expect("key is stored")
    }

    /// The clock's time.
    fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// Moves the clock forward by `seconds`.
    fn advance(&self, seconds: i64) {
        self.clock.advance(TimeDelta::seconds(seconds));
    }

    /// Sets the clock to `epoch` seconds.
    fn set(&self, epoch: i64) {
        self.clock
            .set(DateTime::from_timestamp(epoch, 0).expect("valid time"));
    }

    /// Processes one queued job; whether there was one.
    async fn run_one(&self) -> bool {
        undertone_http::worker::run_one(&self.state)
            .await
            .expect("the store answers")
    }

    /// Sends `request` through the router.
    async fn send(&self, request: Request<Body>) -> Reply {
        let response = self
            .app
            .clone()
            .oneshot(request)
            .await
            .expect("the router is infallible");
        let (parts, body) = response.into_parts();
        let body = body.collect().await.expect("body is readable").to_bytes();
        Reply {
            status: parts.status,
            headers: parts.headers,
            body,
        }
    }

    /// `GET path` with the default key.
    async fn get(&self, path: &str) -> Reply {
        self.send(request(
            Method::GET,
            path,
            Some(&self.key),
            None,
            Body::empty(),
        ))
        .await
    }

    /// `GET path` with `key` (or none).
    async fn get_as(&self, path: &str, key: Option<&str>) -> Reply {
        self.send(request(Method::GET, path, key, None, Body::empty()))
            .await
    }

    /// `POST path` of `body` as JSON with the default key.
    async fn post(&self, path: &str, body: &Value) -> Reply {
        self.post_as(path, Some(&self.key), body).await
    }

    /// `POST path` of `body` as JSON with `key` (or none).
    async fn post_as(&self, path: &str, key: Option<&str>, body: &Value) -> Reply {
        self.send(request(
            Method::POST,
            path,
            key,
            Some("application/json"),
            Body::from(serde_json::to_vec(body).expect("serialisable")),
        ))
        .await
    }

    /// Ingests `body` with the default key; the new session's id.
    async fn ingest(&self, body: &Value) -> String {
        let reply = self.post("/api/v1/ingest", body).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
        session_id(&reply)
    }

    /// Starts a drift comparison with the default key; the new session's id.
    async fn drift(&self, body: &Value) -> String {
        let reply = self.post("/api/v1/drift", body).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
        session_id(&reply)
    }

    /// `queue_depth` as `GET /healthz` reports it.
    async fn queue_depth(&self) -> u64 {
        let reply = self.get_as("/api/v1/healthz", Some(&self.key)).await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        reply.json()["queue_depth"]
            .as_u64()
            .expect("queue_depth is a count")
    }
}

/// A request with optional `Authorization: Bearer key` and `Content-Type`.
fn request(
    method: Method,
    path: &str,
    key: Option<&str>,
    content_type: Option<&str>,
    body: Body,
) -> Request<Body> {
    let mut builder = Request::builder().method(method).uri(path);
    if let Some(key) = key {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {key}"));
    }
    if let Some(content_type) = content_type {
        builder = builder.header(header::CONTENT_TYPE, content_type);
    }
    builder.body(body).expect("valid request")
}

/// A whole response, read.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Bytes,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reply")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("body", &String::from_utf8_lossy(&self.body))
            .finish()
    }
}

impl Reply {
    /// The body as JSON.
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {self:?}"))
    }

    /// A header as text, when present.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("header is text"))
    }

    /// A header that must be present, as an integer.
    fn int(&self, name: &str) -> i64 {
        self.header(name)
            .unwrap_or_else(|| panic!("no {name} header: {self:?}"))
            .parse()
            .unwrap_or_else(|e| panic!("{name} is not an integer ({e}): {self:?}"))
    }
}

/// The `session_id` of a 202, which must be a UUID.
fn session_id(reply: &Reply) -> String {
    let id = reply.json()["session_id"]
        .as_str()
        .expect("session_id is a string")
        .to_owned();
    uuid::Uuid::parse_str(&id).unwrap_or_else(|e| panic!("session_id `{id}` is no UUID: {e}"));
    id
}

/// An example request from `examples/`.
fn example(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(format!("{name}.json"));
    let text = fs::read_to_string(&path).expect("example is readable");
    serde_json::from_str(&text).expect("example is JSON")
}

/// The ingest request used where any valid one will do (20 events).
fn refund() -> Value {
    example("support-refund-goes-wrong")
}

/// A drift request: `drift-v1` before, `drift-v2` after (128 + 162 events).
fn drift_body() -> Value {
    let v1 = example("drift-v1");
    let v2 = example("drift-v2");
    json!({
        "before": {"label": "v1", "events": v1["events"]},
        "after": {"label": "v2", "events": v2["events"]},
        "question": "Did v2 make refunds worse?",
        "deployment_id": "acme-support-bot",
    })
}

/// A well-formed session id that names no session.
fn unknown_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// An error reply: `status`, JSON, and exactly `{"error": {"code", "message"}}`.
#[track_caller]
fn assert_error(reply: &Reply, status: StatusCode, code: &str, message: &str) {
    if code == "VALIDATION_ERROR" {
        // docs/service.md: a validation error lists its violations in `details`; one
        // the service writes itself, `path: what is wrong`, is its one violation.
        let (path, what) = message.split_once(": ").unwrap_or(("body", message));
        let details = json!([{"path": path, "message": what}]);
        let error = json!({"code": code, "message": message, "details": details});
        return assert_error_with(reply, status, error);
    }
    assert_error_with(reply, status, json!({"code": code, "message": message}));
}

/// An error reply whose `error` object is exactly `error`.
#[track_caller]
fn assert_error_with(reply: &Reply, status: StatusCode, error: Value) {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{reply:?}"
    );
    assert_eq!(reply.json(), json!({ "error": error }), "{reply:?}");
}

/// `X-RateLimit-Limit/Remaining/Reset` are exactly these.
#[track_caller]
fn assert_quota(reply: &Reply, limit: i64, remaining: i64, reset: i64) {
    assert_eq!(
        (
            reply.int("x-ratelimit-limit"),
            reply.int("x-ratelimit-remaining"),
            reply.int("x-ratelimit-reset"),
        ),
        (limit, remaining, reset),
        "{reply:?}"
    );
}

/// No `X-RateLimit-*` header at all.
#[track_caller]
fn assert_no_quota(reply: &Reply) {
    let names: Vec<&str> = reply
        .headers
        .keys()
        .map(|n| n.as_str())
        .filter(|n| n.starts_with("x-ratelimit"))
        .collect();
    assert!(names.is_empty(), "unexpected {names:?}: {reply:?}");
}

/// JSON equal to `expected`, numbers within a relative 1e-12 (a float written and
/// read back by the server may differ in its last bit).
#[track_caller]
pub(crate) fn assert_json_close(actual: &Value, expected: &Value, at: &str) {
    match (actual, expected) {
        (Value::Number(a), Value::Number(e)) => {
            let (a, e) = (a.as_f64().expect("finite"), e.as_f64().expect("finite"));
            assert!(
                (a - e).abs() <= 1e-12 * e.abs().max(1e-300),
                "{at}: {a} != {e}"
            );
        }
        (Value::Array(a), Value::Array(e)) => {
            assert_eq!(a.len(), e.len(), "{at}: lengths differ");
            for (i, (a, e)) in a.iter().zip(e).enumerate() {
                assert_json_close(a, e, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(a), Value::Object(e)) => {
            let mut ak: Vec<&String> = a.keys().collect();
            let mut ek: Vec<&String> = e.keys().collect();
            ak.sort();
            ek.sort();
            assert_eq!(ak, ek, "{at}: keys differ");
            for (k, e) in e {
                assert_json_close(&a[k], e, &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(actual, expected, "{at}"),
    }
}
