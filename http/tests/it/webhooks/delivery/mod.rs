//! Deliveries to real receivers on 127.0.0.1 through the delivery worker: retries
//! against a receiver that is down, failing, slow, redirecting or answering without
//! end; one delivery per (event, endpoint) however often the event is emitted; SSRF
//! refusals at send time; signatures checked by Python's `hmac`; `Retry-After`.
//!
//! Every test has its own SQLite database and worker, on the system clock with a
//! retry schedule in fractions of a second, and waits by polling the store with a
//! deadline, never by sleeping a fixed time.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::Utc;
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::net::TcpListener;
use tower::ServiceExt;
use undertone_http::clock::SystemClock;
use undertone_http::keys::{self, Scope};
use undertone_http::limits::Plan;
use undertone_http::resolver::SafeResolver;
use undertone_http::state::{AppState, Config};
use undertone_http::store::{
    DeliveryJob, DeliveryRecord, DeliveryStatus, NewEvent, Store, Targets,
};
use undertone_http::webhooks::deliver::{Deliverer, DeliveryConfig, MAX_STORED_BODY, Sender};
use undertone_http::webhooks::envelope_bytes;

use super::receiver::{Answer, Receiver};

mod answers;
mod once;
mod refusals;
mod retries;
mod signatures;

/// The org of every test's key and events.
const ORG: &str = "org-delivery";
/// The kind most tests emit.
const KIND: &str = "anomaly_detected";
/// Another kind, for an endpoint that must not get [`KIND`].
const OTHER_KIND: &str = "uhr_generated";
/// Five attempts, 0.3 s (±20%) apart.
const FAST: &str = "0,0.3,0.3,0.3,0.3";
/// The documented deadline of one attempt.
const DEADLINE: Duration = Duration::from_secs(10);
/// How long a test waits for something before it fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A service over a temporary SQLite database on the system clock, one read-write
/// key of [`ORG`], and (once started) a delivery worker.
struct Hooks {
    /// Holds the database file.
    _dir: TempDir,
    store: Arc<Store>,
    state: AppState,
    key: String,
    worker: Option<Deliverer>,
}

impl Hooks {
    async fn new() -> Hooks {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}/t.db", dir.path().display());
        let store = undertone_http::store::open(&url)
            .await
            .expect("database opens");
        let config = Config {
            allow_private_webhooks: true,
            ..Config::default()
        };
        let state = AppState::new(store.clone(), Arc::new(SystemClock), config);
        let (_, key) = keys::issue(
            &store,
            "delivery tests",
            ORG,
            Scope::ReadWrite,
            Plan::default(),
            Utc::now(),
        )
        .await
        .expect("key is stored");
        Hooks {
            _dir: dir,
            store,
            state,
            key,
            worker: None,
        }
    }

    /// Starts the worker with `schedule` and a per-attempt `timeout`.
    fn start(&mut self, schedule: &str, timeout: Duration) {
        let sender = local_sender(schedule, timeout);
        self.worker = Some(Deliverer::spawn(&self.state, sender));
    }

    /// Stops the worker, letting attempts in flight finish.
    async fn stop(mut self) {
        if let Some(worker) = self.worker.take() {
            worker.shutdown().await;
        }
    }

    /// Sends `request` through the router: status and JSON body.
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (StatusCode, Value) {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.key));
        if body.is_some() {
            request = request.header(header::CONTENT_TYPE, "application/json");
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        let response = undertone_http::service::app(self.state.clone())
            .oneshot(request.body(body).expect("valid request"))
            .await
            .expect("the router is infallible");
        let status = response.status();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body is readable")
            .to_bytes();
        let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, json)
    }

    /// Registers `url` for `events` through `POST /api/v1/webhooks`: (id, secret).
    async fn register(&self, url: &str, events: &[&str]) -> (String, String) {
        let (status, body) = self
            .call(
                Method::POST,
                "/api/v1/webhooks",
                Some(json!({"url": url, "events": events})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let id = body["id"].as_str().expect("an id").to_owned();
        let secret = body["secret"].as_str().expect("a secret").to_owned();
        assert!(secret.starts_with("whsec_"), "{secret}");
        (id, secret)
    }

    /// Queues `event` and wakes the worker; the deliveries queued.
    async fn emit(&self, event: &NewEvent) -> u32 {
        let queued = self
            .store
            .emit(std::slice::from_ref(event), Utc::now())
            .await
            .expect("the outbox takes it");
        self.state.deliveries.notify_one();
        queued
    }

    /// Deliveries of `webhook`, newest first.
    async fn deliveries(&self, webhook: &str) -> Vec<DeliveryRecord> {
        self.store
            .deliveries(webhook, None, 100)
            .await
            .expect("deliveries are readable")
    }

    /// Waits until `webhook` has exactly one delivery and `ready` holds for it.
    async fn delivery_when(
        &self,
        webhook: &str,
        what: &str,
        ready: impl Fn(&DeliveryRecord) -> bool,
    ) -> DeliveryRecord {
        let started = Instant::now();
        loop {
            let mut all = self.deliveries(webhook).await;
            if all.len() == 1 && ready(&all[0]) {
                return all.remove(0);
            }
            assert!(all.len() <= 1, "more than one delivery: {all:#?}");
            assert!(
                started.elapsed() < PATIENCE,
                "gave up waiting for {what}: {all:#?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the one delivery of `webhook` is no longer pending.
    async fn settled(&self, webhook: &str) -> DeliveryRecord {
        self.delivery_when(webhook, "the delivery to settle", |d| {
            d.status != DeliveryStatus::Pending
        })
        .await
    }
}

/// A port of 127.0.0.1 nobody listens on (for now).
async fn unused_port() -> u16 {
    let probe = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    probe.local_addr().expect("address").port()
}

/// A sender that may reach 127.0.0.1 over plain http.
fn local_sender(schedule: &str, timeout: Duration) -> Sender {
    let config = DeliveryConfig {
        schedule: schedule.parse().expect("valid schedule"),
        timeout,
        concurrency: 8,
        allow_private: true,
        ..DeliveryConfig::default()
    };
    Sender::new(config, SafeResolver::new(true)).expect("client builds")
}

/// An event of `kind` for every subscriber of [`ORG`], with its envelope.
fn event(id: &str, kind: &str) -> NewEvent {
    let created_at = Utc::now();
    let data = json!({"note": "delivery test", "event": id});
    NewEvent {
        id: id.to_owned(),
        kind: kind.to_owned(),
        org_id: ORG.to_owned(),
        deployment_id: "dep-1".to_owned(),
        created_at,
        body: envelope_bytes(id, kind, created_at, ORG, "dep-1", &data).expect("serialisable"),
        targets: Targets::Subscribers(None),
    }
}

/// Waits until `receiver` has had `n` requests.
async fn requests_reach(receiver: &Receiver, n: usize) {
    let started = Instant::now();
    while receiver.requests().len() < n {
        assert!(
            started.elapsed() < PATIENCE,
            "the receiver got {} requests, not {n}",
            receiver.requests().len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A job for `url` signed with a fresh secret.
fn job(url: &str) -> DeliveryJob {
    DeliveryJob {
        id: uuid::Uuid::new_v4().to_string(),
        kind: KIND.to_owned(),
        url: url.to_owned(),
        secret: keys::generate_secret(),
        body: br#"{"id":"evt-ssrf"}"#.to_vec(),
        attempt: 1,
        token: "t".to_owned(),
    }
}
