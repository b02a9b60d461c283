//! The event kinds a finished session (or a report, or a deploy) causes, read from the
//! outbox without any delivery worker running: `intelligence.ready` (also to an
//! ingest's `webhook_url`), `layer_z_threshold_crossed` once per crossing,
//! `anomaly_detected` over a deployment's daily history, `uhr_generated` on request
//! and from the weekly scheduler, and `outcome_shift_detected` for deploys recorded
//! through the API or seen in event metadata.
//!
//! Expected values are computed independently with `undertone_core` (scoring,
//! crossings, history points, the anomaly chart, the health report, the outcome test)
//! and compared with what the service queued.
//!
//! This file also holds the small service fixture `routes.rs` shares.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use undertone_http::webhooks::emit::failure_effects;

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
use undertone_core::drift::outcome;
use undertone_core::monitor::anomaly::{self, Bucketing};
use undertone_core::monitor::{self, ConversationPoint};
use undertone_core::score::SessionIntelligence;
use undertone_core::score::layer_z::Dimension;
use undertone_core::validate::{self, Options};
use undertone_http::clock::{Clock, ManualClock};
use undertone_http::keys::{self, Scope};
use undertone_http::limits::Plan;
use undertone_http::state::{AppState, Config};
use undertone_http::store::Store;
use undertone_http::webhooks::reports;

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

    /// Registers a webhook at [`SINK`] for `events` with the default key; its id.
    pub(super) async fn register(&self, events: &[&str]) -> String {
        let created = self.register_as(&self.key, SINK, events).await;
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

/// A time as the API writes it.
fn api_time(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
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

// ---------------------------------------------------------------------------------
// intelligence.ready
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn intelligence_ready_goes_to_subscribers_and_the_ingest_webhook_url() {
    let svc = Svc::new().await;
    let ready = svc.register(&["intelligence.ready"]).await;
    let other_kinds = svc
        .register(&[
            "anomaly_detected",
            "outcome_shift_detected",
            "uhr_generated",
        ])
        .await;
    let (org_b_key, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let org_b = svc
        .register_as(&org_b_key, SINK, &["intelligence.ready"])
        .await;
    let org_b = org_b["id"].as_str().expect("id").to_owned();

    let mut body = example("support-refund-goes-wrong");
    body["webhook_url"] = json!("http://127.0.0.1:9/direct");
    let sid = svc.ingest_and_run(&body).await;

    // Exactly one delivery to the subscriber, queued and not attempted.
    let listed = svc.deliveries(&ready).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    let d = &listed[0];
    assert_eq!(d["event_type"], "intelligence.ready");
    assert_eq!(d["status"], "pending");
    assert_eq!(d["attempts"], 0);
    assert_eq!(d["attempt_log"], json!([]));
    assert_eq!(d["created_at"], NOW_TEXT);
    assert!(is_uuid(&d["id"]), "{d}");
    assert_eq!(svc.deliveries(&other_kinds).await, Vec::<Value>::new());
    assert_eq!(
        svc.deliveries_as(&org_b_key, &org_b).await,
        Vec::<Value>::new()
    );

    // The envelope.
    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(envelopes.len(), 1, "{envelopes:?}");
    let envelope = &envelopes[0];
    assert_eq!(envelope["id"], d["event_id"]);
    let data = check_envelope(
        envelope,
        "intelligence.ready",
        "acme-support-bot",
        NOW_ENVELOPE,
    );
    assert_eq!(
        keys_of(&data),
        sorted(&[
            "session_id",
            "status",
            "poll_url",
            "completed_at",
            "event_count",
            "error",
            "result"
        ])
    );
    assert_eq!(data["session_id"], sid.as_str());
    assert_eq!(data["status"], "complete");
    assert_eq!(data["poll_url"], format!("/api/v1/intelligence/{sid}"));
    assert_eq!(data["completed_at"], NOW_ENVELOPE);
    assert_eq!(data["event_count"], 20);
    assert_eq!(data["error"], Value::Null);
    // `result` is core's condensed view of this request, and what the condensed
    // route answers (minus `status`).
    let (_, result) = score(&body);
    let expected = serde_json::to_value(result.condensed(Some(&sid))).expect("serialisable");
    assert_json_close(&data["result"], &expected, "data.result");
    let condensed = svc
        .get(&format!("/api/v1/intelligence/{sid}?view=condensed"))
        .await
        .json();
    let mut without_status = condensed.clone();
    without_status
        .as_object_mut()
        .expect("object")
        .remove("status");
    assert_eq!(condensed["status"], "complete");
    assert_json_close(&data["result"], &without_status, "condensed view");

    // The ingest's webhook_url: a delivery of the same event, signed with the key's
    // delivery secret (no webhook row; the key is named).
    let rows = sqlx::query(
        "SELECT endpoint, webhook_id, key_id, url, status, attempts, event_id FROM deliveries \
         WHERE webhook_id IS NULL",
    )
    .fetch_all(&svc.db)
    .await
    .expect("deliveries are readable");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        row.try_get::<String, _>("endpoint").expect("endpoint"),
        format!("ingest:{sid}")
    );
    assert_eq!(
        row.try_get::<Option<String>, _>("key_id").expect("key_id"),
        Some(svc.key_id.clone())
    );
    assert_eq!(
        row.try_get::<String, _>("url").expect("url"),
        "http://127.0.0.1:9/direct"
    );
    assert_eq!(
        row.try_get::<String, _>("status").expect("status"),
        "pending"
    );
    assert_eq!(row.try_get::<i64, _>("attempts").expect("attempts"), 0);
    assert_eq!(
        row.try_get::<String, _>("event_id").expect("event_id"),
        envelope["id"].as_str().expect("id")
    );
    assert_eq!(svc.delivery_count("intelligence.ready").await, 2);
}

#[tokio::test]
async fn intelligence_ready_without_webhook_url_or_subscribers_queues_nothing_extra() {
    let svc = Svc::new().await;
    // No subscriber and no webhook_url: nothing to deliver, nothing stored.
    svc.ingest_and_run(&example("support-refund-goes-wrong"))
        .await;
    assert_eq!(svc.delivery_count("intelligence.ready").await, 0);
    assert_eq!(svc.envelopes("intelligence.ready").await.len(), 0);

    // A subscriber and no webhook_url: one delivery, no `ingest:` endpoint.
    let ready = svc.register(&["intelligence.ready"]).await;
    let sid = svc
        .ingest_and_run(&example("coding-assistant-goes-well"))
        .await;
    let listed = svc.deliveries(&ready).await;
    assert_eq!(listed.len(), 1);
    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["data"]["session_id"], sid.as_str());
    let direct: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM deliveries WHERE endpoint LIKE 'ingest:%'")
            .fetch_one(&svc.db)
            .await
            .expect("readable");
    assert_eq!(direct, 0);
}

#[tokio::test]
async fn intelligence_ready_reports_a_failed_session() {
    let svc = Svc::new().await;
    let ready = svc.register(&["intelligence.ready"]).await;
    let mut body = example("support-refund-goes-wrong");
    body["webhook_url"] = json!("http://127.0.0.1:9/direct");
    let sid = svc.ingest(&body).await;
    // Make processing fail: the worker must parse the stored input, and it is broken.
    assert!(svc.state.handoff.take(&sid).is_some());
    let changed = sqlx::query("UPDATE session_inputs SET body = ? WHERE session_id = ?")
        .bind(b"{not json".to_vec())
        .bind(&sid)
        .execute(&svc.db)
        .await
        .expect("writable");
    assert_eq!(changed.rows_affected(), 1);
    assert_eq!(svc.run_jobs().await, 1);

    let session = svc.get(&format!("/api/v1/intelligence/{sid}")).await.json();
    assert_eq!(session["status"], "failed", "{session}");
    let error = session["error"].as_str().expect("error is set").to_owned();
    assert!(
        error.starts_with("the stored request is invalid"),
        "{error}"
    );

    let listed = svc.deliveries(&ready).await;
    assert_eq!(listed.len(), 1);
    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["id"], listed[0]["event_id"]);
    let data = check_envelope(
        &envelopes[0],
        "intelligence.ready",
        "acme-support-bot",
        NOW_ENVELOPE,
    );
    assert_eq!(
        data,
        json!({
            "session_id": sid,
            "status": "failed",
            "poll_url": format!("/api/v1/intelligence/{sid}"),
            "completed_at": NOW_ENVELOPE,
            "event_count": 20,
            "error": error,
            "result": null,
        })
    );
    // The ingest's webhook_url hears about the failure too.
    let direct: Vec<String> = sqlx::query_scalar(
        "SELECT endpoint FROM deliveries WHERE webhook_id IS NULL ORDER BY endpoint",
    )
    .fetch_all(&svc.db)
    .await
    .expect("readable");
    assert_eq!(direct, vec![format!("ingest:{sid}")]);
    // Nothing else came of a failed session.
    for kind in [
        "layer_z_threshold_crossed",
        "anomaly_detected",
        "outcome_shift_detected",
    ] {
        assert_eq!(svc.envelopes(kind).await.len(), 0, "{kind}");
    }
}

/// A session whose worker is lost on every attempt ends `failed` (DESIGN.md §5); the
/// issue asks for `intelligence.ready` on failure as well.
#[tokio::test]
async fn intelligence_ready_reports_a_session_failed_after_lost_workers() {
    let svc = Svc::new().await;
    let ready = svc.register(&["intelligence.ready"]).await;
    let mut body = example("support-refund-goes-wrong");
    body["webhook_url"] = json!("http://127.0.0.1:9/direct");
    let sid = svc.ingest(&body).await;
    let lease_ms = i64::try_from(svc.state.config.lease.as_millis()).expect("small");
    let max = svc.state.config.max_attempts;
    // Every attempt's worker dies: the job is claimed and never finished.
    for _ in 0..max {
        let (job, _) = svc
            .store
            .claim(
                svc.clock.now().timestamp_millis(),
                lease_ms,
                max,
                &failure_effects,
            )
            .await
            .expect("the store answers");
        assert_eq!(job.map(|j| j.session_id), Some(sid.clone()));
        svc.advance(lease_ms / 1000 + 1);
    }
    // The next claim gives up on it.
    assert_eq!(svc.run_jobs().await, 0);
    let session = svc.get(&format!("/api/v1/intelligence/{sid}")).await.json();
    assert_eq!(session["status"], "failed", "{session}");
    assert!(session["error"].is_string(), "{session}");

    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(
        envelopes.len(),
        1,
        "a session failed by lost workers queued no intelligence.ready"
    );
    assert_eq!(envelopes[0]["data"]["status"], "failed");
    assert_eq!(envelopes[0]["data"]["error"], session["error"]);
    assert_eq!(svc.deliveries(&ready).await.len(), 1);
    assert_eq!(svc.delivery_count("intelligence.ready").await, 2);
}

// ---------------------------------------------------------------------------------
// layer_z_threshold_crossed
// ---------------------------------------------------------------------------------

/// Four conversations: over-trust after hedged answers (trust and dependency break),
/// a calm one, one that escalates to hostility (frustration breaks), and one that
/// delegates everything (dependency breaks).
fn crossing_events(start: DateTime<Utc>) -> Vec<Value> {
    let mut events = conversation(
        "trust",
        "u-trust",
        start,
        &[
            "Which port does the admin console use?",
            "I think it might be 8443, but I'm not certain.",
            "ok, I'll go with that, no need to check",
            "I believe you may also need to open 9443, but I'm not sure.",
            "fine, I'll just do it without checking, I trust you",
            "It could also be that 22 should be open, I'm not certain.",
            "ok done, I didn't verify anything, whatever you say",
        ],
        None,
    );
    events.extend(conversation(
        "calm",
        "u-calm",
        start + Duration::minutes(10),
        &[
            "What are your opening hours?",
            "We are open 9 to 5, Monday to Friday.",
            "Great, thanks!",
        ],
        None,
    ));
    events.extend(conversation(
        "angry",
        "u-angry",
        start + Duration::minutes(20),
        &[
            "Hi, how do I change my delivery address?",
            "You can change it in your account settings.",
            "That option is not there. I already looked.",
            "You can change it in your account settings.",
            "This is ridiculous, I have asked three times already!!!",
            "You can change it in your account settings.",
            "This is useless, you are a stupid bot and I am furious!!!",
        ],
        None,
    ));
    events.extend(conversation(
        "delegate",
        "u-delegate",
        start + Duration::minutes(30),
        &[
            "Can you write the whole report for me? Just do it for me.",
            "Sure, here is a draft.",
            "Do everything for me, I don't want to think about it, just do it for me.",
            "Done.",
            "Write the next one too, do it all for me, I can't do it myself.",
        ],
        None,
    ));
    events
}

/// (external conversation id, event index, dimension) of a crossing's data.
fn crossing_key(data: &Value) -> (String, u64, String) {
    (
        data["conversation_external_id"]
            .as_str()
            .expect("conversation_external_id")
            .to_owned(),
        data["event_index"].as_u64().expect("event_index"),
        data["dimension"].as_str().expect("dimension").to_owned(),
    )
}

#[tokio::test]
async fn threshold_crossings_match_core_and_fire_once_per_crossing() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let ready_only = svc.register(&["intelligence.ready"]).await;
    let body = request("crossing-bot", crossing_events(at("2026-11-17T09:00:00Z")));

    // What core says crosses, computed here.
    let (_, result) = score(&body);
    let expected = monitor::crossings(&result);
    let dims: BTreeSet<&str> = expected.iter().map(|x| x.dimension.as_str()).collect();
    assert_eq!(
        dims,
        BTreeSet::from([
            "dependency_drift",
            "frustration_buildup",
            "trust_calibration"
        ]),
        "the fixture must cross every reported dimension"
    );
    assert!(expected.len() >= 4, "{expected:#?}");

    let sid = svc.ingest_and_run(&body).await;
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), expected.len(), "{listed:#?}");
    assert!(
        listed
            .iter()
            .all(|d| d["event_type"] == "layer_z_threshold_crossed" && d["status"] == "pending")
    );
    assert_eq!(svc.deliveries(&ready_only).await.len(), 1);

    let envelopes = svc.envelopes("layer_z_threshold_crossed").await;
    assert_eq!(envelopes.len(), expected.len());
    let listed_events: BTreeSet<&str> = listed
        .iter()
        .map(|d| d["event_id"].as_str().expect("event_id"))
        .collect();
    let by_key: BTreeMap<(String, u64, String), &Value> = envelopes
        .iter()
        .map(|e| (crossing_key(&e["data"]), e))
        .collect();
    assert_eq!(by_key.len(), expected.len(), "crossings are distinct");
    let mut conversation_ids: BTreeMap<String, String> = BTreeMap::new();
    let mut signal_ids = BTreeSet::new();
    for x in &expected {
        let key = (
            x.conversation_id.clone(),
            x.event_index as u64,
            x.dimension.as_str().to_owned(),
        );
        let envelope = by_key
            .get(&key)
            .unwrap_or_else(|| panic!("no event for {key:?}: {envelopes:#?}"));
        assert!(listed_events.contains(envelope["id"].as_str().expect("id")));
        let data = check_envelope(
            envelope,
            "layer_z_threshold_crossed",
            "crossing-bot",
            NOW_ENVELOPE,
        );
        assert_eq!(
            keys_of(&data),
            sorted(&[
                "dimension",
                "score",
                "threshold",
                "band",
                "conversation_id",
                "conversation_external_id",
                "signal_id",
                "occurred_at",
                "session_id",
                "event_index",
                "signal",
                "evidence"
            ])
        );
        let score = data["score"].as_f64().expect("score");
        assert!(
            (score - (x.score * 1e4).round() / 1e4).abs() < 1e-9,
            "{score} vs {}",
            x.score
        );
        let threshold = if x.dimension == Dimension::TrustCalibration {
            0.45
        } else {
            0.55
        };
        assert_eq!(data["threshold"].as_f64(), Some(threshold), "{data}");
        if x.dimension == Dimension::TrustCalibration {
            assert!(score < 0.45, "{data}");
        } else {
            assert!(score > 0.55, "{data}");
        }
        assert_eq!(data["band"], "broken");
        assert_eq!(data["occurred_at"], envelope_time(&x.occurred_at));
        assert_eq!(data["session_id"], sid.as_str());
        assert_eq!(data["signal"], json!(x.signal));
        assert_json_close(
            &data["evidence"],
            &serde_json::to_value(&x.evidence).expect("serialisable"),
            "evidence",
        );
        assert!(is_uuid(&data["conversation_id"]), "{data}");
        assert!(is_uuid(&data["signal_id"]), "{data}");
        assert_ne!(data["conversation_id"], data["conversation_external_id"]);
        // One internal id per conversation.
        let cid = data["conversation_id"].as_str().expect("id").to_owned();
        if let Some(seen) = conversation_ids.insert(x.conversation_id.clone(), cid.clone()) {
            assert_eq!(seen, cid, "{}", x.conversation_id);
        }
        assert!(signal_ids.insert(data["signal_id"].to_string()), "{data}");
    }
    let distinct: BTreeSet<&String> = conversation_ids.values().collect();
    assert_eq!(distinct.len(), conversation_ids.len());
    assert!(!conversation_ids.contains_key("calm"));

    // The same conversations again, in a new session: no second delivery of any
    // crossing, while intelligence.ready (a new session) is queued again.
    let ids_before: BTreeSet<String> = envelopes.iter().map(|e| e["id"].to_string()).collect();
    let sid2 = svc.ingest_and_run(&body).await;
    assert_ne!(sid, sid2);
    assert_eq!(svc.deliveries(&hook).await.len(), expected.len());
    assert_eq!(
        svc.delivery_count("layer_z_threshold_crossed").await,
        expected.len() as i64
    );
    let again = svc.envelopes("layer_z_threshold_crossed").await;
    let ids_after: BTreeSet<String> = again.iter().map(|e| e["id"].to_string()).collect();
    assert_eq!(ids_after, ids_before);
    assert_eq!(svc.deliveries(&ready_only).await.len(), 2);

    // The same conversations for another deployment are other crossings.
    let other = request(
        "crossing-bot-2",
        crossing_events(at("2026-11-17T09:00:00Z")),
    );
    svc.ingest_and_run(&other).await;
    assert_eq!(svc.deliveries(&hook).await.len(), 2 * expected.len());
    let envelopes = svc.envelopes("layer_z_threshold_crossed").await;
    assert_eq!(
        envelopes
            .iter()
            .filter(|e| e["deployment_id"] == "crossing-bot-2")
            .count(),
        expected.len()
    );
}

#[tokio::test]
async fn a_crossing_seen_again_in_a_longer_conversation_is_not_sent_twice() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let texts = [
        "Hi, how do I change my delivery address?",
        "You can change it in your account settings.",
        "That option is not there. I already looked.",
        "You can change it in your account settings.",
        "This is ridiculous, I have asked three times already!!!",
        "You can change it in your account settings.",
        "This is useless, you are a stupid bot and I am furious!!!",
    ];
    let start = at("2026-11-17T10:00:00Z");
    // The first three human turns, then the whole conversation.
    let part = request(
        "grow-bot",
        conversation("c-1", "u-1", start, &texts[..5], None),
    );
    let whole = request("grow-bot", conversation("c-1", "u-1", start, &texts, None));
    let (_, part_result) = score(&part);
    let (_, whole_result) = score(&whole);
    let part_x = monitor::crossings(&part_result);
    let whole_x = monitor::crossings(&whole_result);
    assert_eq!(part_x.len(), 1, "{part_x:#?}");
    assert_eq!(whole_x.len(), 1, "{whole_x:#?}");
    assert_eq!(part_x[0].occurred_at, whole_x[0].occurred_at);

    svc.ingest_and_run(&part).await;
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
    svc.ingest_and_run(&whole).await;
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
    let envelopes = svc.envelopes("layer_z_threshold_crossed").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["data"]["dimension"], "frustration_buildup");
    assert_eq!(
        envelopes[0]["data"]["occurred_at"],
        envelope_time(&part_x[0].occurred_at)
    );
}

#[tokio::test]
async fn crossings_beyond_twenty_per_dimension_are_summarised_in_one_event() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let start = at("2026-11-17T10:00:00Z");
    // Thirty conversations that each cross frustration_buildup once.
    let events: Vec<Value> = (0..30)
        .flat_map(|i| {
            conversation(
                &format!("c-{i:02}"),
                &format!("u-{i:02}"),
                start + Duration::minutes(i),
                &HOSTILE,
                None,
            )
        })
        .collect();
    let body = request("flood-bot", events);
    let (_, result) = score(&body);
    let crossed: Vec<_> = monitor::crossings(&result)
        .into_iter()
        .filter(|x| x.dimension.as_str() == "frustration_buildup")
        .collect();
    assert_eq!(crossed.len(), 30, "the fixture must cross 30 times");
    let others = monitor::crossings(&result).len() - crossed.len();
    assert!(
        others <= 20,
        "only frustration is flooded here: {others} others"
    );

    svc.ingest_and_run(&body).await;
    // Twenty one by one and one summary, per endpoint.
    assert_eq!(svc.deliveries(&hook).await.len(), 21 + others);
    let frustration: Vec<Value> = svc
        .envelopes("layer_z_threshold_crossed")
        .await
        .into_iter()
        .filter(|e| e["data"]["dimension"] == "frustration_buildup")
        .collect();
    assert_eq!(frustration.len(), 21);
    let summaries: Vec<&Value> = frustration
        .iter()
        .filter(|e| e["data"].get("summarised").is_some())
        .collect();
    assert_eq!(summaries.len(), 1);
    let s = &summaries[0]["data"];
    assert_eq!(s["summarised"]["crossings"], 10);
    let ids: Vec<&str> = s["summarised"]["conversation_external_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_str().expect("id"))
        .collect();
    let expected: Vec<String> = crossed[20..]
        .iter()
        .map(|x| x.conversation_id.clone())
        .collect();
    assert_eq!(ids, expected);
    assert_eq!(s["conversation_external_id"], json!(expected[0]));
}

// ---------------------------------------------------------------------------------
// anomaly_detected
// ---------------------------------------------------------------------------------

const CALM: [&str; 3] = [
    "What are your opening hours?",
    "We are open 9 to 5, Monday to Friday.",
    "Great, thanks!",
];
const HOSTILE: [&str; 7] = [
    "Hi, how do I change my delivery address?",
    "You can change it in your account settings.",
    "That option is not there. I already looked.",
    "You can change it in your account settings.",
    "This is ridiculous, I have asked three times already!!!",
    "You can change it in your account settings.",
    "This is useless, you are a stupid bot and I am furious!!!",
];

/// Four conversations on one day of November 2026.
fn day_body(deployment: &str, day: u32, texts: &[&str]) -> Value {
    let mut events = Vec::new();
    for k in 0..4 {
        let start = at(&format!("2026-11-{day:02}T09:00:00Z")) + Duration::minutes(15 * k);
        events.extend(conversation(
            &format!("d{day}-c{k}"),
            &format!("u{day}-{k}"),
            start,
            texts,
            None,
        ));
    }
    request(deployment, events)
}

#[tokio::test]
async fn a_hostile_day_after_calm_days_is_an_anomaly() {
    let svc = Svc::new().await;
    let hook = svc.register(&["anomaly_detected"]).await;
    let mut history = Vec::new();
    for day in 1..=8 {
        let body = day_body("anomaly-bot", day, &CALM);
        history.extend(points(&body));
        svc.ingest_and_run(&body).await;
        assert_eq!(
            svc.envelopes("anomaly_detected").await.len(),
            0,
            "calm day {day}"
        );
    }
    assert_eq!(
        anomaly::detect_points(&history, Bucketing::Daily),
        Vec::new(),
        "core finds nothing on calm days"
    );

    let hostile = day_body("anomaly-bot", 9, &HOSTILE);
    history.extend(points(&hostile));
    let expected = anomaly::detect_points(&history, Bucketing::Daily);
    assert!(
        expected.iter().all(|a| a.bucket == "2026-11-09"),
        "{expected:#?}"
    );
    let frustration: Vec<_> = expected
        .iter()
        .filter(|a| a.dimension == Dimension::FrustrationBuildup)
        .collect();
    assert_eq!(frustration.len(), 1, "{expected:#?}");
    assert_eq!(
        serde_json::to_value(frustration[0].direction).expect("serialisable"),
        "worse"
    );

    let sid = svc.ingest_and_run(&hostile).await;
    let envelopes = svc.envelopes("anomaly_detected").await;
    assert_eq!(envelopes.len(), expected.len(), "{envelopes:#?}");
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), expected.len());
    for a in &expected {
        let envelope = envelopes
            .iter()
            .find(|e| e["data"]["dimension"] == a.dimension.as_str())
            .unwrap_or_else(|| panic!("no anomaly for {}", a.dimension.as_str()));
        let data = check_envelope(envelope, "anomaly_detected", "anomaly-bot", NOW_ENVELOPE);
        let mut want = serde_json::to_value(a).expect("serialisable");
        want["session_id"] = json!(sid);
        assert_json_close(&data, &want, "anomaly");
        assert_eq!(data["bucket"], "2026-11-09");
        assert_eq!(data["conversations"], 4);
        assert_eq!(data["statistic"], "ewma");
    }
    let frustration = envelopes
        .iter()
        .find(|e| e["data"]["dimension"] == "frustration_buildup")
        .expect("frustration_buildup fired");
    assert_eq!(frustration["data"]["direction"], "worse");
    assert!(frustration["data"]["z"].as_f64().expect("z") >= 3.0);

    // The hostile day sent again: the same anomalies, not queued twice.
    svc.ingest_and_run(&hostile).await;
    assert_eq!(
        svc.envelopes("anomaly_detected").await.len(),
        expected.len()
    );
    assert_eq!(svc.deliveries(&hook).await.len(), expected.len());
}

#[tokio::test]
async fn anomalies_need_a_baseline_and_stay_within_their_deployment() {
    let svc = Svc::new().await;
    let hook = svc.register(&["anomaly_detected"]).await;
    // Four calm days are too short a baseline (five are needed) to judge day 5.
    let mut history = Vec::new();
    for day in 1..=4 {
        let body = day_body("short-bot", day, &CALM);
        history.extend(points(&body));
        svc.ingest_and_run(&body).await;
    }
    let hostile = day_body("short-bot", 5, &HOSTILE);
    history.extend(points(&hostile));
    assert_eq!(
        anomaly::detect_points(&history, Bucketing::Daily),
        Vec::new()
    );
    svc.ingest_and_run(&hostile).await;
    assert_eq!(svc.envelopes("anomaly_detected").await.len(), 0);

    // Calm days of one deployment are no baseline for another.
    for day in 1..=8 {
        svc.ingest_and_run(&day_body("calm-bot", day, &CALM)).await;
    }
    svc.ingest_and_run(&day_body("fresh-bot", 9, &HOSTILE))
        .await;
    assert_eq!(svc.envelopes("anomaly_detected").await.len(), 0);
    assert_eq!(svc.deliveries(&hook).await.len(), 0);
}

// ---------------------------------------------------------------------------------
// uhr_generated
// ---------------------------------------------------------------------------------

/// `n` conversations starting at `start`, one every 20 minutes; every third hostile.
fn mixed_body(deployment: &str, prefix: &str, start: DateTime<Utc>, n: usize) -> Value {
    let mut events = Vec::new();
    for k in 0..n {
        let texts: &[&str] = if k % 3 == 2 { &HOSTILE } else { &CALM };
        events.extend(conversation(
            &format!("{prefix}-{k}"),
            &format!("{prefix}-u{k}"),
            start + Duration::minutes(20 * k as i64),
            texts,
            None,
        ));
    }
    request(deployment, events)
}

#[tokio::test]
async fn a_requested_health_report_covers_the_last_seven_days() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    // NOW is 2026-11-18T11:06:40Z: this period is from 11-11T11:06:40, the one
    // before from 11-04T11:06:40.
    let current = mixed_body("uhr-bot", "cur", at("2026-11-15T08:00:00Z"), 6);
    let previous = mixed_body("uhr-bot", "prev", at("2026-11-08T08:00:00Z"), 3);
    let older = mixed_body("uhr-bot", "old", at("2026-11-01T08:00:00Z"), 2);
    let elsewhere = mixed_body("other-bot", "cur", at("2026-11-15T08:00:00Z"), 4);
    for body in [&current, &previous, &older, &elsewhere] {
        svc.ingest_and_run(body).await;
    }

    let reply = svc
        .post("/api/v1/deployments/uhr-bot/health-reports", None)
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let created = reply.json();
    let id = created["id"].as_str().expect("id").to_owned();
    assert!(
        id.len() == 36 && id.starts_with("uhr_") && id[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    let location = format!("/api/v1/deployments/uhr-bot/health-reports/{id}");
    assert_eq!(reply.header("location"), Some(location.as_str()));
    assert_eq!(
        keys_of(&created),
        sorted(&[
            "id",
            "deployment_id",
            "trigger",
            "period_start",
            "period_end",
            "created_at",
            "report"
        ])
    );
    assert_eq!(created["deployment_id"], "uhr-bot");
    assert_eq!(created["trigger"], "request");
    assert_eq!(created["period_start"], "2026-11-11T11:06:40.000Z");
    assert_eq!(created["period_end"], NOW_TEXT);
    assert_eq!(created["created_at"], NOW_TEXT);

    // The report is core's, over the conversations of each period.
    let now = at("2026-11-18T11:06:40Z");
    let period = (now - Duration::days(7), now);
    let before = (now - Duration::days(14), period.0);
    let expected = monitor::health_report(&points(&current), &points(&previous), period, before);
    let report = &created["report"];
    assert_json_close(
        report,
        &serde_json::to_value(&expected).expect("serialisable"),
        "report",
    );
    assert_eq!(report["conversations"], 6);
    assert_eq!(report["previous_conversations"], 3);
    for d in Dimension::ALL {
        let h = &report["dimensions"][d.as_str()];
        for field in ["median", "p90", "broken_rate"] {
            assert!(h[field].is_number(), "{}.{field}: {h}", d.as_str());
        }
    }
    assert_eq!(
        report["dimensions"]["frustration_buildup"]["broken_rate"],
        json!(0.3333)
    );

    // Listed, readable, and 404 elsewhere.
    let list = svc.get("/api/v1/deployments/uhr-bot/health-reports").await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.json(), json!({"data": [created.clone()]}));
    let read = svc.get(&location).await;
    assert_eq!(read.status, StatusCode::OK);
    assert_eq!(read.json(), created);
    let unknown = svc
        .get("/api/v1/deployments/uhr-bot/health-reports/uhr_00000000000000000000000000000000")
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(
        unknown.json(),
        json!({"error": {"code": "NOT_FOUND", "message": "health report not found"}})
    );
    let wrong_deployment = svc
        .get(&format!(
            "/api/v1/deployments/other-bot/health-reports/{id}"
        ))
        .await;
    assert_eq!(wrong_deployment.status, StatusCode::NOT_FOUND);
    let (org_b, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let other_org = svc.send(Method::GET, &location, Some(&org_b), None).await;
    assert_eq!(other_org.status, StatusCode::NOT_FOUND);
    let other_org_list = svc
        .send(
            Method::GET,
            "/api/v1/deployments/uhr-bot/health-reports",
            Some(&org_b),
            None,
        )
        .await;
    assert_eq!(other_org_list.json(), json!({"data": []}));

    // Its uhr_generated event.
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["event_type"], "uhr_generated");
    let envelopes = svc.envelopes("uhr_generated").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["id"], listed[0]["event_id"]);
    let data = check_envelope(&envelopes[0], "uhr_generated", "uhr-bot", NOW_ENVELOPE);
    assert_eq!(
        keys_of(&data),
        sorted(&[
            "report_id",
            "trigger",
            "report_url",
            "period_start",
            "period_end",
            "report"
        ])
    );
    assert_eq!(data["report_id"], id.as_str());
    assert_eq!(data["trigger"], "request");
    assert_eq!(data["report_url"], location.as_str());
    assert_eq!(data["period_start"], "2026-11-11T11:06:40Z");
    assert_eq!(data["period_end"], NOW_ENVELOPE);
    assert_json_close(&data["report"], report, "data.report");

    // A second request is a second report, newest first.
    svc.advance(60);
    let second = svc
        .post("/api/v1/deployments/uhr-bot/health-reports", None)
        .await;
    assert_eq!(second.status, StatusCode::CREATED);
    let second = second.json();
    assert_ne!(second["id"], created["id"]);
    let list = svc
        .get("/api/v1/deployments/uhr-bot/health-reports")
        .await
        .json();
    let ids: Vec<&Value> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, vec![&second["id"], &created["id"]]);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
}

#[tokio::test]
async fn a_report_of_a_deployment_without_conversations_is_empty() {
    let svc = Svc::new().await;
    let reply = svc
        .post("/api/v1/deployments/quiet-bot/health-reports", None)
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let report = &reply.json()["report"];
    assert_eq!(report["conversations"], 0);
    assert_eq!(report["previous_conversations"], 0);
    assert_eq!(report["resolved_rate"], Value::Null);
    assert_eq!(
        report["top_findings"],
        json!(["No conversations in this period."])
    );
}

#[tokio::test]
async fn the_scheduler_makes_one_weekly_report_per_active_deployment() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    // The week of 2026-11-09 (Monday) to 11-16; NOW (11-18) is in the week after.
    let a = mixed_body("week-a", "a", at("2026-11-10T08:00:00Z"), 4);
    let a_before = mixed_body("week-a", "a0", at("2026-11-03T08:00:00Z"), 2);
    let b = mixed_body("week-b", "b", at("2026-11-15T23:00:00Z"), 3);
    // Only the week before: not active last week.
    let c = mixed_body("week-c", "c", at("2026-11-04T08:00:00Z"), 3);
    // This week: not part of last week's report.
    let a_now = mixed_body("week-a", "a1", at("2026-11-16T00:00:00Z"), 2);
    for body in [&a, &a_before, &b, &c, &a_now] {
        svc.ingest_and_run(body).await;
    }
    // Another organisation's deployment of the same name.
    let (org_b, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let reply = svc
        .send(
            Method::POST,
            "/api/v1/ingest",
            Some(&org_b),
            Some(&mixed_body("week-a", "z", at("2026-11-11T08:00:00Z"), 5)),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(svc.run_jobs().await, 1);

    let made = reports::run_due(&svc.state)
        .await
        .expect("the store answers");
    assert_eq!(made, 3, "org-a week-a, org-a week-b, org-b week-a");

    let week = (at("2026-11-09T00:00:00Z"), at("2026-11-16T00:00:00Z"));
    let before = (at("2026-11-02T00:00:00Z"), week.0);
    for (deployment, current, previous) in [
        ("week-a", points(&a), points(&a_before)),
        ("week-b", points(&b), Vec::new()),
    ] {
        let list = svc
            .get(&format!("/api/v1/deployments/{deployment}/health-reports"))
            .await
            .json();
        let data = list["data"].as_array().expect("data");
        assert_eq!(data.len(), 1, "{deployment}: {list}");
        let r = &data[0];
        assert_eq!(r["trigger"], "schedule");
        assert_eq!(r["period_start"], "2026-11-09T00:00:00.000Z");
        assert_eq!(r["period_end"], "2026-11-16T00:00:00.000Z");
        assert_eq!(r["created_at"], NOW_TEXT);
        let expected = monitor::health_report(&current, &previous, week, before);
        assert_json_close(
            &r["report"],
            &serde_json::to_value(&expected).expect("serialisable"),
            deployment,
        );
    }
    let week_a = svc
        .get("/api/v1/deployments/week-a/health-reports")
        .await
        .json();
    assert_eq!(week_a["data"][0]["report"]["conversations"], 4);
    assert_eq!(week_a["data"][0]["report"]["previous_conversations"], 2);
    let week_c = svc
        .get("/api/v1/deployments/week-c/health-reports")
        .await
        .json();
    assert_eq!(week_c, json!({"data": []}));
    let org_b_reports = svc
        .send(
            Method::GET,
            "/api/v1/deployments/week-a/health-reports",
            Some(&org_b),
            None,
        )
        .await
        .json();
    assert_eq!(org_b_reports["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(org_b_reports["data"][0]["report"]["conversations"], 5);

    // Two uhr_generated for org-a's endpoint, naming the reports.
    let envelopes: Vec<Value> = svc
        .envelopes("uhr_generated")
        .await
        .into_iter()
        .filter(|e| e["org_id"] == ORG)
        .collect();
    assert_eq!(envelopes.len(), 2);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
    let mut report_ids = BTreeSet::new();
    for e in &envelopes {
        assert_eq!(e["data"]["trigger"], "schedule");
        assert_eq!(e["data"]["period_start"], "2026-11-09T00:00:00Z");
        assert_eq!(e["data"]["period_end"], "2026-11-16T00:00:00Z");
        let deployment = e["deployment_id"].as_str().expect("deployment");
        let list = svc
            .get(&format!("/api/v1/deployments/{deployment}/health-reports"))
            .await
            .json();
        assert_eq!(e["data"]["report_id"], list["data"][0]["id"]);
        report_ids.insert(e["data"]["report_id"].to_string());
    }
    assert_eq!(report_ids.len(), 2);

    // Idempotent: again now, and later the same week.
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 0);
    svc.set_clock(at("2026-11-22T23:59:00Z"));
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 0);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
    assert_eq!(
        svc.get("/api/v1/deployments/week-a/health-reports")
            .await
            .json()["data"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    // The next week: week-a had conversations on 11-16, so one report for it.
    svc.set_clock(at("2026-11-23T00:00:01Z"));
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 1);
    let list = svc
        .get("/api/v1/deployments/week-a/health-reports")
        .await
        .json();
    assert_eq!(list["data"][0]["period_start"], "2026-11-16T00:00:00.000Z");
    assert_eq!(list["data"][0]["report"]["conversations"], 2);
    assert_eq!(list["data"][0]["report"]["previous_conversations"], 4);
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 0);
}

// ---------------------------------------------------------------------------------
// outcome_shift_detected
// ---------------------------------------------------------------------------------

/// `n` short conversations from `start`, two minutes apart; conversation `k` is
/// resolved (by metadata) when `resolved(k)`. AI turns carry `release` when given.
fn outcome_body(
    deployment: &str,
    prefix: &str,
    start: DateTime<Utc>,
    range: std::ops::Range<usize>,
    resolved: impl Fn(usize) -> bool,
    release_key: Option<(&str, &str)>,
) -> Value {
    let mut events = Vec::new();
    for k in range {
        let mut meta = json!({"resolved": resolved(k)});
        if let Some((key, release)) = release_key {
            meta[key] = json!(release);
        }
        events.extend(conversation(
            &format!("{prefix}-{k}"),
            &format!("{prefix}-u{k}"),
            start + Duration::minutes(2 * k as i64),
            &["Where is my order?", "It ships today."],
            Some(&meta),
        ));
    }
    request(deployment, events)
}

/// The resolved flags core reads from a body.
fn resolved_count(body: &Value) -> (usize, usize) {
    let p = points(body);
    (p.iter().filter(|p| p.resolved).count(), p.len())
}

#[tokio::test]
async fn a_deploy_that_hurts_the_resolved_rate_fires_once_when_its_window_settles() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let deployed_at = at("2026-11-17T12:00:00Z");
    let reply = svc
        .post(
            "/api/v1/deployments/shift-bot/deploys",
            Some(&json!({"release": "r2", "description": "New refund prompt",
                "deployed_at": "2026-11-17T12:00:00Z"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(
        reply.header("location"),
        Some("/api/v1/deployments/shift-bot/deploys")
    );
    let deploy = reply.json();
    let deploy_id = deploy["id"].as_str().expect("id").to_owned();
    assert!(
        deploy_id.len() == 36
            && deploy_id.starts_with("dep_")
            && deploy_id[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{deploy_id}"
    );
    assert_eq!(
        deploy,
        json!({
            "id": deploy_id,
            "deployment_id": "shift-bot",
            "release": "r2",
            "description": "New refund prompt",
            "source": "api",
            "deployed_at": "2026-11-17T12:00:00.000Z",
            "created_at": NOW_TEXT,
            "measured_at": null,
            "result": null,
        })
    );

    // 40 before the deploy, 36 resolved; then 40 after, 12 resolved, in two halves.
    let before = outcome_body(
        "shift-bot",
        "b",
        deployed_at - Duration::minutes(90),
        0..40,
        |k| k % 10 != 0,
        None,
    );
    let after_1 = outcome_body("shift-bot", "a", deployed_at, 0..20, |k| k % 10 < 3, None);
    let after_2 = outcome_body("shift-bot", "a", deployed_at, 20..40, |k| k % 10 < 3, None);
    assert_eq!(resolved_count(&before), (36, 40));
    assert_eq!(resolved_count(&after_1), (6, 20));
    assert_eq!(resolved_count(&after_2), (6, 20));

    svc.ingest_and_run(&before).await;
    svc.ingest_and_run(&after_1).await;
    // 20 after 40 before: not settled.
    let listed = svc.get("/api/v1/deployments/shift-bot/deploys").await;
    assert_eq!(listed.status, StatusCode::OK);
    let listed = listed.json();
    assert_eq!(listed, json!({"data": [deploy.clone()]}));
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);

    svc.advance(3600);
    let measured_at = api_time(&svc.clock.now());
    svc.ingest_and_run(&after_2).await;
    let expected = outcome::counts(36, 40, 12, 40);
    assert!(expected.outcome_shift_detected);
    let listed = svc
        .get("/api/v1/deployments/shift-bot/deploys")
        .await
        .json();
    let d = &listed["data"][0];
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(d["id"], deploy_id.as_str());
    assert_eq!(d["measured_at"], measured_at.as_str());
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    assert_eq!(d["result"]["outcome_shift_detected"], true);
    assert_eq!(d["result"]["before_n"], 40);
    assert_eq!(d["result"]["after_resolved"], 12);

    let envelopes = svc.envelopes("outcome_shift_detected").await;
    assert_eq!(envelopes.len(), 1);
    let data = check_envelope(
        &envelopes[0],
        "outcome_shift_detected",
        "shift-bot",
        &envelope_time(&svc.clock.now()),
    );
    assert_eq!(
        keys_of(&data),
        sorted(&[
            "deploy_id",
            "source",
            "release",
            "deployed_at",
            "shift",
            "summary"
        ])
    );
    assert_eq!(data["deploy_id"], deploy_id.as_str());
    assert_eq!(data["source"], "api");
    assert_eq!(data["release"], "r2");
    assert_eq!(data["deployed_at"], "2026-11-17T12:00:00Z");
    assert_json_close(
        &data["shift"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "shift",
    );
    assert_eq!(data["summary"], expected.sentence("before", "after r2"));
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["event_id"], envelopes[0]["id"]);

    // More conversations after the deploy change nothing: measured once, fired once.
    svc.advance(3600);
    let more = outcome_body("shift-bot", "a", deployed_at, 40..70, |_| false, None);
    svc.ingest_and_run(&more).await;
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 1);
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
    let again = svc
        .get("/api/v1/deployments/shift-bot/deploys")
        .await
        .json();
    assert_eq!(again["data"][0]["measured_at"], measured_at.as_str());
    assert_json_close(&again["data"][0]["result"], &d["result"], "result again");
}

#[tokio::test]
async fn a_deploy_with_too_few_conversations_before_it_measures_without_firing() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let deployed_at = at("2026-11-17T12:00:00Z");
    let reply = svc
        .post(
            "/api/v1/deployments/few-bot/deploys",
            Some(&json!({"deployed_at": "2026-11-17T13:00:00+01:00"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["deployed_at"], "2026-11-17T12:00:00.000Z");
    assert_eq!(reply.json()["release"], Value::Null);

    // 10 before (all resolved), 25 after (none): the after side needs 30.
    svc.ingest_and_run(&outcome_body(
        "few-bot",
        "b",
        deployed_at - Duration::minutes(30),
        0..10,
        |_| true,
        None,
    ))
    .await;
    svc.ingest_and_run(&outcome_body(
        "few-bot",
        "a",
        deployed_at,
        0..25,
        |_| false,
        None,
    ))
    .await;
    let listed = svc.get("/api/v1/deployments/few-bot/deploys").await.json();
    assert_eq!(listed["data"][0]["measured_at"], Value::Null);
    assert_eq!(listed["data"][0]["result"], Value::Null);

    // 30 after: measured, but 10 before is too few to call a shift.
    svc.ingest_and_run(&outcome_body(
        "few-bot",
        "a",
        deployed_at,
        25..30,
        |_| false,
        None,
    ))
    .await;
    let listed = svc.get("/api/v1/deployments/few-bot/deploys").await.json();
    let d = &listed["data"][0];
    assert_eq!(d["measured_at"], NOW_TEXT);
    let expected = outcome::counts(10, 10, 0, 30);
    assert!(!expected.outcome_shift_detected);
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    assert_eq!(d["result"]["outcome_shift_detected"], false);
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);
    assert_eq!(svc.deliveries(&hook).await.len(), 0);
}

#[tokio::test]
async fn a_release_change_in_metadata_is_a_deploy_marker() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let start = at("2026-11-17T08:00:00Z");
    // 40 conversations on v1 (mostly resolved), then 40 on v2 (mostly not), in one
    // request.
    let v1 = outcome_body(
        "meta-bot",
        "v1",
        start,
        0..40,
        |k| k % 10 != 0,
        Some(("release", "v1")),
    );
    let v2_start = start + Duration::minutes(100);
    let v2 = outcome_body(
        "meta-bot",
        "v2",
        v2_start,
        0..40,
        |k| k % 10 < 3,
        Some(("release", "v2")),
    );
    let mut events = v1["events"].as_array().expect("events").clone();
    events.extend(v2["events"].as_array().expect("events").iter().cloned());
    let body = request("meta-bot", events);
    assert_eq!(resolved_count(&body), (48, 80));
    svc.ingest_and_run(&body).await;

    let listed = svc.get("/api/v1/deployments/meta-bot/deploys").await.json();
    let data = listed["data"].as_array().expect("data");
    assert_eq!(data.len(), 1, "{listed}");
    let d = &data[0];
    assert_eq!(d["source"], "metadata");
    assert_eq!(d["release"], "v2");
    assert_eq!(d["deployed_at"], api_time(&v2_start));
    assert_eq!(
        d["description"],
        "release changed from v1 to v2 in event metadata"
    );
    assert_eq!(d["created_at"], NOW_TEXT);
    assert_eq!(d["measured_at"], NOW_TEXT);
    let expected = outcome::counts(36, 40, 12, 40);
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    let envelopes = svc.envelopes("outcome_shift_detected").await;
    assert_eq!(envelopes.len(), 1);
    let e = &envelopes[0]["data"];
    assert_eq!(e["deploy_id"], d["id"]);
    assert_eq!(e["source"], "metadata");
    assert_eq!(e["release"], "v2");
    assert_eq!(e["deployed_at"], envelope_time(&v2_start));
    assert_eq!(svc.deliveries(&hook).await.len(), 1);

    // The same request again: one marker, one event.
    svc.ingest_and_run(&body).await;
    let listed = svc.get("/api/v1/deployments/meta-bot/deploys").await.json();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 1);
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
}

#[tokio::test]
async fn a_model_version_change_records_a_marker_that_waits_for_its_window() {
    let svc = Svc::new().await;
    let start = at("2026-11-17T08:00:00Z");
    let first = outcome_body(
        "mv-bot",
        "m1",
        start,
        0..5,
        |_| true,
        Some(("model_version", "m-1")),
    );
    svc.ingest_and_run(&first).await;
    // One release so far: no deploy.
    let listed = svc.get("/api/v1/deployments/mv-bot/deploys").await.json();
    assert_eq!(listed, json!({"data": []}));

    let second_start = start + Duration::hours(1);
    let second = outcome_body(
        "mv-bot",
        "m2",
        second_start,
        0..5,
        |_| false,
        Some(("model_version", "m-2")),
    );
    svc.ingest_and_run(&second).await;
    let listed = svc.get("/api/v1/deployments/mv-bot/deploys").await.json();
    let data = listed["data"].as_array().expect("data");
    assert_eq!(data.len(), 1, "{listed}");
    assert_eq!(data[0]["source"], "metadata");
    assert_eq!(data[0]["release"], "m-2");
    assert_eq!(data[0]["deployed_at"], api_time(&second_start));
    assert_eq!(data[0]["measured_at"], Value::Null);
    assert_eq!(data[0]["result"], Value::Null);
    let id = data[0]["id"].clone();

    // Seen again: the same marker.
    svc.ingest_and_run(&second).await;
    let listed = svc.get("/api/v1/deployments/mv-bot/deploys").await.json();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed["data"][0]["id"], id);
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);
}

#[tokio::test]
async fn a_deploy_recorded_after_its_conversations_is_measured_at_the_next_ingest() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let deployed_at = at("2026-11-17T12:00:00Z");
    // Both sides are in the history before the marker exists.
    svc.ingest_and_run(&outcome_body(
        "late-bot",
        "b",
        deployed_at - Duration::minutes(90),
        0..40,
        |k| k % 10 != 0,
        None,
    ))
    .await;
    svc.ingest_and_run(&outcome_body(
        "late-bot",
        "a",
        deployed_at,
        0..40,
        |k| k % 10 < 3,
        None,
    ))
    .await;
    let reply = svc
        .post(
            "/api/v1/deployments/late-bot/deploys",
            Some(&json!({"release": "r9", "deployed_at": "2026-11-17T12:00:00Z"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["measured_at"], Value::Null);
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);

    // The next conversation of the deployment settles it, on the first 40 after.
    svc.advance(60);
    svc.ingest_and_run(&outcome_body(
        "late-bot",
        "a",
        deployed_at,
        40..41,
        |_| true,
        None,
    ))
    .await;
    let listed = svc.get("/api/v1/deployments/late-bot/deploys").await.json();
    let d = &listed["data"][0];
    assert_eq!(d["measured_at"], "2026-11-18T11:07:40.000Z");
    let expected = outcome::counts(36, 40, 12, 40);
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    let envelopes = svc.envelopes("outcome_shift_detected").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["data"]["release"], "r9");
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
}

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

#[tokio::test]
async fn crossings_of_an_implicit_conversation_use_its_auto_id() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let body = example("coding-assistant-goes-well");
    let (_, result) = score(&body);
    let all = monitor::crossings(&result);
    // Every crossing of this example is in a conversation without a conversation_id.
    assert!(!all.is_empty());
    assert!(
        all.iter().all(|x| x.conversation_id.starts_with("auto:")),
        "{all:#?}"
    );
    // The second conversation delegates, recovers and delegates again: two crossings of
    // dependency drift in one conversation.
    let expected: Vec<_> = all
        .iter()
        .filter(|x| x.dimension == Dimension::DependencyDrift)
        .collect();
    assert_eq!(expected.len(), 2, "{all:#?}");
    assert_eq!(expected[0].conversation_id, expected[1].conversation_id);

    svc.ingest_and_run(&body).await;
    assert_eq!(svc.deliveries(&hook).await.len(), all.len());
    let envelopes: Vec<_> = svc
        .envelopes("layer_z_threshold_crossed")
        .await
        .into_iter()
        .filter(|e| e["data"]["dimension"] == "dependency_drift")
        .collect();
    assert_eq!(envelopes.len(), 2);
    let mut got: Vec<(u64, String)> = envelopes
        .iter()
        .map(|e| {
            let d = &e["data"];
            assert_eq!(
                d["conversation_external_id"],
                expected[0].conversation_id.as_str()
            );
            (
                d["event_index"].as_u64().expect("event_index"),
                d["occurred_at"].as_str().expect("occurred_at").to_owned(),
            )
        })
        .collect();
    got.sort();
    let want: Vec<(u64, String)> = expected
        .iter()
        .map(|x| (x.event_index as u64, envelope_time(&x.occurred_at)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        envelopes[0]["data"]["conversation_id"],
        envelopes[1]["data"]["conversation_id"]
    );
    assert_ne!(envelopes[0]["id"], envelopes[1]["id"]);
    assert_ne!(
        envelopes[0]["data"]["signal_id"],
        envelopes[1]["data"]["signal_id"]
    );
}

/// docs/webhooks.md: "when a conversation's release differs from the previous
/// conversation's, a marker for the new release is recorded at that conversation's
/// start". A release deployed, rolled back and deployed again is three deploys.
#[tokio::test]
async fn a_release_rolled_back_and_deployed_again_is_three_markers() {
    let svc = Svc::new().await;
    let start = at("2026-11-17T08:00:00Z");
    let mut events = Vec::new();
    let mut starts = Vec::new();
    for (segment, release) in ["v1", "v2", "v1", "v2"].into_iter().enumerate() {
        let from = start + Duration::hours(segment as i64);
        starts.push(from);
        let body = outcome_body(
            "rollback-bot",
            &format!("s{segment}"),
            from,
            0..10,
            |_| true,
            Some(("release", release)),
        );
        events.extend(body["events"].as_array().expect("events").iter().cloned());
    }
    svc.ingest_and_run(&request("rollback-bot", events)).await;
    let listed = svc
        .get("/api/v1/deployments/rollback-bot/deploys")
        .await
        .json();
    let got: Vec<(String, String)> = listed["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "metadata");
            (
                d["release"].as_str().expect("release").to_owned(),
                d["deployed_at"].as_str().expect("deployed_at").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("v2".to_owned(), api_time(&starts[1])),
            ("v1".to_owned(), api_time(&starts[2])),
            ("v2".to_owned(), api_time(&starts[3])),
        ]
    );
}
