//! The event kinds a finished session (or a report, or a deploy) causes, read from the
//! outbox without any delivery worker running, one file per kind: `intelligence.ready`
//! (also to an ingest's `webhook_url`) in `ready.rs`, `layer_z_threshold_crossed` once
//! per crossing in `crossing.rs`, `anomaly_detected` over a deployment's daily history
//! in `anomaly.rs`, `uhr_generated` on request and from the weekly scheduler in
//! `report.rs`, and `outcome_shift_detected` for deploys recorded through the API or
//! seen in event metadata in `outcome_shift.rs`. Here: what no kind is sent for (a
//! drift session).
//!
//! Expected values are computed independently with `undertone_core` (scoring,
//! crossings, history points, the anomaly chart, the health report, the outcome test)
//! and compared with what the service queued.
//!
//! This module also holds the small service fixture `routes` shares, and the helpers
//! every kind's tests use.

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use chrono::{DateTime, Duration, TimeDelta, Utc};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use sqlx::Row;
use sqlx::sqlite::{SqlitePool, SqlitePoolOptions};
use tempfile::TempDir;
use tower::ServiceExt;
use undertone_core::IngestRequest;
use undertone_core::monitor::{self, ConversationPoint};
use undertone_core::score::SessionIntelligence;
use undertone_core::validate::{self, Options};
use undertone_http::clock::{Clock, ManualClock};
use undertone_http::keys::{self, Scope};
use undertone_http::limits::Plan;
use undertone_http::state::{AppState, Config};
use undertone_http::store::Store;

mod anomaly;
mod crossing;
mod outcome_shift;
mod ready;
mod report;

/// Where every test's clock starts: 2026-11-18T11:06:40Z, a Wednesday.
pub(super) const NOW: i64 = 1_795_000_000;
/// `NOW` as the API writes times.
pub(super) const NOW_TEXT: &str = "2026-11-18T11:06:40.000Z";
/// `NOW` as envelopes write times.
const NOW_ENVELOPE: &str = "2026-11-18T11:06:40Z";
/// The org of the fixture's default key.
pub(super) const ORG: &str = "org-a";
/// Where deliveries would go (nothing listens; no delivery worker runs here).
pub(super) const SINK: &str = "http://127.0.0.1:9/hook";

/// A service over a temporary SQLite file and a [`ManualClock`], with one read-write
/// key of [`ORG`], and a second connection to the database file for reading the outbox.
pub(super) struct Svc {
    _dir: TempDir,
    pub(super) store: Arc<Store>,
    pub(super) clock: Arc<ManualClock>,
    pub(super) state: AppState,
    app: Router,
    /// The default key.
    pub(super) key: String,
    /// Its stored id.
    pub(super) key_id: String,
    /// A direct connection to the database file.
    pub(super) db: SqlitePool,
}

/// A whole response, read.
pub(super) struct Reply {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: Bytes,
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
    pub(super) fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {self:?}"))
    }

    /// A header as text, when present.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("header is text"))
    }
}

impl Svc {
    /// A service that accepts `http://` and private webhook URLs (so webhooks can point
    /// at [`SINK`]).
    pub(super) async fn new() -> Svc {
        Svc::build(
            Config {
                allow_private_webhooks: true,
                ..Config::default()
            },
            |s| s,
        )
        .await
    }

    /// A service with `config`, whose state `adjust` may change before the router is
    /// built (a resolver with fixed answers, say).
    pub(super) async fn build(config: Config, adjust: impl FnOnce(AppState) -> AppState) -> Svc {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}/t.db", dir.path().display());
        let store = undertone_http::store::open(&url)
            .await
            .expect("database opens");
        let clock = Arc::new(ManualClock::new(
            DateTime::from_timestamp(NOW, 0).expect("valid time"),
        ));
        let state = adjust(AppState::new(store.clone(), clock.clone(), config));
        let app = undertone_http::service::app(state.clone());
        let (record, key) = keys::issue(
            &store,
            "tests",
            ORG,
            Scope::ReadWrite,
            Plan::default(),
            clock.now(),
        )
        .await
        .expect("key is stored");
        let db = SqlitePoolOptions::new()
            .max_connections(1)
            .connect(&url)
            .await
            .expect("the database file opens a second time");
        Svc {
            _dir: dir,
            store,
            clock,
            state,
            app,
            key,
            key_id: record.id,
            db,
        }
    }

    /// Issues another key; its plaintext and id.
    pub(super) async fn issue(&self, org: &str, scope: Scope) -> (String, String) {
        let (record, key) = keys::issue(
            &self.store,
            "another",
            org,
            scope,
            Plan::default(),
            self.clock.now(),
        )
        .await
        .expect("key is stored");
        (key, record.id)
    }

    /// Sets the clock.
    pub(super) fn set_clock(&self, at: DateTime<Utc>) {
        self.clock.set(at);
    }

    /// Moves the clock forward.
    pub(super) fn advance(&self, seconds: i64) {
        self.clock.advance(TimeDelta::seconds(seconds));
    }

    /// Sends a request with `key` (or none) and a JSON body (or none).
    pub(super) async fn send(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> Reply {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(key) = key {
            builder = builder.header(header::AUTHORIZATION, format!("Bearer {key}"));
        }
        let body = match body {
            Some(v) => {
                builder = builder.header(header::CONTENT_TYPE, "application/json");
                Body::from(serde_json::to_vec(v).expect("serialisable"))
            }
            None => Body::empty(),
        };
        let response = self
            .app
            .clone()
            .oneshot(builder.body(body).expect("valid request"))
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
    pub(super) async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, Some(&self.key), None).await
    }

    /// `POST path` with the default key.
    pub(super) async fn post(&self, path: &str, body: Option<&Value>) -> Reply {
        self.send(Method::POST, path, Some(&self.key), body).await
    }

    /// `DELETE path` with the default key.
    pub(super) async fn delete(&self, path: &str) -> Reply {
        self.send(Method::DELETE, path, Some(&self.key), None).await
    }

    /// Registers a webhook at `url` for `events` with `key`; the 201 body.
    pub(super) async fn register_as(&self, key: &str, url: &str, events: &[&str]) -> Value {
        let reply = self
            .send(
                Method::POST,
                "/api/v1/webhooks",
                Some(key),
                Some(&json!({"url": url, "events": events})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
        reply.json()
    }

    /// Registers a webhook at a path of its own under [`SINK`] (a key may register a
    /// URL once) for `events` with the default key; its id.
    pub(super) async fn register(&self, events: &[&str]) -> String {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let created = self
            .register_as(&self.key, &format!("{SINK}/{n}"), events)
            .await;
        created["id"].as_str().expect("id").to_owned()
    }

    /// Ingests `body` with the default key; the session id.
    pub(super) async fn ingest(&self, body: &Value) -> String {
        let reply = self.post("/api/v1/ingest", Some(body)).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
        reply.json()["session_id"]
            .as_str()
            .expect("session_id")
            .to_owned()
    }

    /// Processes every queued job; how many.
    pub(super) async fn run_jobs(&self) -> usize {
        let mut n = 0;
        while undertone_http::worker::run_one(&self.state)
            .await
            .expect("the store answers")
        {
            n += 1;
        }
        n
    }

    /// Ingests `body` and processes it; the session id.
    pub(super) async fn ingest_and_run(&self, body: &Value) -> String {
        let id = self.ingest(body).await;
        assert_eq!(self.run_jobs().await, 1);
        id
    }

    /// Every delivery of a webhook through its route (following cursors), newest first.
    pub(super) async fn deliveries_as(&self, key: &str, webhook_id: &str) -> Vec<Value> {
        let mut out = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut path = format!("/api/v1/webhooks/{webhook_id}/deliveries?limit=100");
            if let Some(c) = &cursor {
                path.push_str(&format!("&cursor={c}"));
            }
            let reply = self.send(Method::GET, &path, Some(key), None).await;
            assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
            let page = reply.json();
            out.extend(page["data"].as_array().expect("data").iter().cloned());
            match page["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => return out,
            }
        }
    }

    /// [`Svc::deliveries_as`] with the default key.
    pub(super) async fn deliveries(&self, webhook_id: &str) -> Vec<Value> {
        self.deliveries_as(&self.key, webhook_id).await
    }

    /// The stored envelopes of one kind, parsed, oldest first.
    pub(super) async fn envelopes(&self, kind: &str) -> Vec<Value> {
        sqlx::query("SELECT body FROM webhook_events WHERE kind = ? ORDER BY created_at, id")
            .bind(kind)
            .fetch_all(&self.db)
            .await
            .expect("the outbox is readable")
            .iter()
            .map(|row| {
                let body: Vec<u8> = row.try_get("body").expect("body");
                serde_json::from_slice(&body).expect("an envelope is JSON")
            })
            .collect()
    }

    /// How many deliveries of events of `kind` exist (to every endpoint).
    pub(super) async fn delivery_count(&self, kind: &str) -> i64 {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM deliveries d JOIN webhook_events e ON e.id = d.event_id \
             WHERE e.kind = ?",
        )
        .bind(kind)
        .fetch_one(&self.db)
        .await
        .expect("deliveries are readable")
    }
}

/// A time from RFC 3339.
pub(super) fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .expect("valid time")
        .with_timezone(&Utc)
}

/// A time as envelopes write it.
fn envelope_time(t: &DateTime<Utc>) -> String {
    undertone_core::schema::format_utc(t)
}

/// The events of one conversation: human turns (by `actor`) at even positions, AI
/// turns (`ai:bot`, with `ai_meta`) at odd ones, 30 seconds apart from `start`.
pub(super) fn conversation(
    id: &str,
    actor: &str,
    start: DateTime<Utc>,
    texts: &[&str],
    ai_meta: Option<&Value>,
) -> Vec<Value> {
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let t = start + Duration::seconds(30 * i as i64);
            let mut e = json!({
                "actor_id": if i % 2 == 0 { actor } else { "ai:bot" },
                "conversation_id": id,
                "content": text,
                "timestamp": envelope_time(&t),
            });
            if i % 2 == 1
                && let Some(meta) = ai_meta
            {
                e["metadata"] = meta.clone();
            }
            e
        })
        .collect()
}

/// An ingest body.
pub(super) fn request(deployment: &str, events: Vec<Value>) -> Value {
    json!({"deployment_id": deployment, "events": events})
}

/// Validates and scores a body with core, as the worker does.
fn score(body: &Value) -> (IngestRequest, SessionIntelligence) {
    let options = Options {
        allow_private_webhooks: true,
        unlimited: false,
        repeated_keys: false,
    };
    let request =
        validate::ingest_request_bytes(&serde_json::to_vec(body).expect("serialisable"), &options)
            .expect("the body is valid");
    let result = undertone_core::score::score(&request);
    (request, result)
}

/// The history points core derives from a body.
fn points(body: &Value) -> Vec<ConversationPoint> {
    let (request, result) = score(body);
    monitor::points(&request, &result)
}

/// An example request from `examples/`.
fn example(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(format!("{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).expect("example is readable"))
        .expect("example is JSON")
}

/// The keys of a JSON object, sorted.
pub(super) fn keys_of(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .cloned()
        .collect();
    k.sort();
    k
}

/// Sorted owned strings.
pub(super) fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

pub(super) use crate::api::assert_json_close;

/// Checks the envelope fields every event has, and returns its `data`.
#[track_caller]
fn check_envelope(envelope: &Value, kind: &str, deployment: &str, created: &str) -> Value {
    assert_eq!(
        keys_of(envelope),
        sorted(&[
            "id",
            "event_type",
            "version",
            "created_at",
            "org_id",
            "deployment_id",
            "data"
        ]),
        "{envelope}"
    );
    assert_eq!(envelope["event_type"], kind, "{envelope}");
    assert_eq!(envelope["version"], "webhooks-v1.0", "{envelope}");
    assert_eq!(envelope["org_id"], ORG, "{envelope}");
    assert_eq!(envelope["deployment_id"], deployment, "{envelope}");
    assert_eq!(envelope["created_at"], created, "{envelope}");
    let id = envelope["id"].as_str().expect("id");
    assert!(uuid::Uuid::parse_str(id).is_ok(), "{id}");
    envelope["data"].clone()
}

/// Whether `s` is a UUID.
fn is_uuid(v: &Value) -> bool {
    v.as_str().is_some_and(|s| uuid::Uuid::parse_str(s).is_ok())
}

/// A calm conversation: a question answered, and thanks.
const CALM: [&str; 3] = [
    "What are your opening hours?",
    "We are open 9 to 5, Monday to Friday.",
    "Great, thanks!",
];
/// A conversation that escalates to hostility (frustration breaks).
const HOSTILE: [&str; 7] = [
    "Hi, how do I change my delivery address?",
    "You can change it in your account settings.",
    "That option is not there. I already looked.",
    "You can change it in your account settings.",
    "This is ridiculous, I have asked three times already!!!",
    "You can change it in your account settings.",
    "This is useless, you are a stupid bot and I am furious!!!",
];

#[tokio::test]
async fn a_drift_session_sends_no_event() {
    let svc = Svc::new().await;
    let hook = svc
        .register(&[
            "intelligence.ready",
            "layer_z_threshold_crossed",
            "anomaly_detected",
        ])
        .await;
    let v1 = example("drift-v1");
    let v2 = example("drift-v2");
    let body = json!({
        "before": {"label": "v1", "events": v1["events"]},
        "after": {"label": "v2", "events": v2["events"]},
        "deployment_id": "acme-support-bot",
    });
    let reply = svc.post("/api/v1/drift", Some(&body)).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(svc.run_jobs().await, 1);
    let id = reply.json()["session_id"].as_str().expect("id").to_owned();
    let drift = svc.get(&format!("/api/v1/drift/{id}")).await.json();
    assert_eq!(drift["status"], "complete", "{drift}");
    assert_eq!(svc.deliveries(&hook).await, Vec::<Value>::new());
    let events: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM webhook_events")
        .fetch_one(&svc.db)
        .await
        .expect("readable");
    assert_eq!(events, 0);
    // Nor does it join the deployment's history.
    let history: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM conversation_history")
        .fetch_one(&svc.db)
        .await
        .expect("readable");
    assert_eq!(history, 0);
}
