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

#[tokio::test]
async fn a_receiver_down_for_two_attempts_gets_the_third() {
    let mut hooks = Hooks::new().await;
    let port = unused_port().await;
    let (hook, _) = hooks
        .register(&format!("http://127.0.0.1:{port}/hook"), &[KIND])
        .await;
    hooks.start("0,1,1,1,1", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-down", KIND)).await, 1);

    let failing = hooks
        .delivery_when(&hook, "two finished attempts", |d| {
            d.attempt_log.len() == 2 && d.attempt_log.iter().all(|a| a.duration_ms.is_some())
        })
        .await;
    assert_eq!(failing.status, DeliveryStatus::Pending);
    // The third attempt is due about 1 s (at least 0.8 s) after the second failed.
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("the port is free again");
    let receiver = Receiver::on(listener, vec![]);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 3);
    assert_eq!(done.response_status, Some(200));
    assert_eq!(done.error, None);
    assert_eq!(receiver.requests().len(), 1);
    let numbers: Vec<u32> = done.attempt_log.iter().map(|a| a.attempt).collect();
    assert_eq!(numbers, [1, 2, 3]);
    for refused in &done.attempt_log[..2] {
        assert_eq!(refused.response_status, None, "{refused:?}");
        let error = refused.error.as_deref().unwrap_or_default();
        assert!(
            error.to_ascii_lowercase().contains("connection refused"),
            "{error}"
        );
    }
    assert_eq!(done.attempt_log[2].response_status, Some(200));
    assert_eq!(done.attempt_log[2].error, None);
    hooks.stop().await;
}

#[tokio::test]
async fn an_endpoint_that_always_fails_gets_five_attempts_then_the_delivery_fails() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::Status(500)]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start(FAST, DEADLINE);
    assert_eq!(hooks.emit(&event("evt-500", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed, "{done:#?}");
    assert_eq!(done.attempts, 5);
    assert_eq!(done.response_status, Some(500));
    assert!(done.completed_at.is_some());
    assert_eq!(done.next_attempt_at, None);
    assert_eq!(receiver.requests().len(), 5);
    let numbers: Vec<u32> = done.attempt_log.iter().map(|a| a.attempt).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5]);
    for a in &done.attempt_log {
        assert_eq!(a.response_status, Some(500), "{a:?}");
        assert!(
            a.error.as_deref().is_some_and(|e| e.contains("500")),
            "{a:?}"
        );
        assert_eq!(a.response_body.as_deref(), Some(&b"answered"[..]));
    }
    hooks.stop().await;
}

#[tokio::test]
async fn every_retry_carries_the_same_delivery_id_body_and_signature() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![
        Answer::Status(500),
        Answer::Status(500),
        Answer::Status(200),
    ])
    .await;
    let (hook, secret) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start(FAST, DEADLINE);
    let sent = event("evt-retries", KIND);
    assert_eq!(hooks.emit(&sent).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 3);
    assert_eq!(done.event_id, "evt-retries");
    assert_eq!(done.event_type, KIND);
    let got = receiver.requests();
    assert_eq!(got.len(), 3);
    let signature = undertone_core::signature::sign(&secret, &sent.body);
    for r in &got {
        assert_eq!(r.body, sent.body, "the stored envelope, byte for byte");
        assert_eq!(r.header("x-undertone-delivery"), done.id);
        assert_eq!(r.header("webhook-id"), done.id);
        assert_eq!(r.header("x-undertone-event"), KIND);
        assert_eq!(r.header("x-undertone-signature"), signature);
        assert_eq!(r.header("content-type"), "application/json");
        assert!(r.header("user-agent").starts_with("Undertone-Webhooks/"));
        assert!(r.header("webhook-timestamp").parse::<i64>().is_ok());
        assert!(r.header("webhook-signature").starts_with("v1,"));
    }
    hooks.stop().await;
}

#[tokio::test]
async fn a_hanging_endpoint_times_out_at_ten_seconds_while_others_keep_flowing() {
    let mut hooks = Hooks::new().await;
    let slow = Receiver::start(vec![
        Answer::Sleep(Duration::from_secs(11)),
        Answer::Status(200),
    ])
    .await;
    let fast = Receiver::start(vec![]).await;
    let (slow_hook, _) = hooks.register(&slow.url("/slow"), &[KIND]).await;
    let (fast_hook, _) = hooks.register(&fast.url("/fast"), &[OTHER_KIND]).await;
    hooks.start(FAST, DEADLINE);
    assert_eq!(hooks.emit(&event("evt-slow", KIND)).await, 1);
    requests_reach(&slow, 1).await;

    // While the slow attempt hangs, another delivery goes through.
    assert_eq!(hooks.emit(&event("evt-fast", OTHER_KIND)).await, 1);
    let quick = hooks.settled(&fast_hook).await;
    assert_eq!(quick.status, DeliveryStatus::Succeeded, "{quick:#?}");
    assert_eq!(fast.requests().len(), 1);
    let hanging = hooks.deliveries(&slow_hook).await;
    assert_eq!(hanging.len(), 1);
    assert_eq!(hanging[0].status, DeliveryStatus::Pending);
    assert_eq!(
        hanging[0].attempt_log[0].duration_ms, None,
        "the slow attempt is still in flight: {hanging:#?}"
    );

    let done = hooks.settled(&slow_hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 2);
    assert_eq!(slow.requests().len(), 2);
    let timed_out = &done.attempt_log[0];
    assert_eq!(timed_out.response_status, None, "{timed_out:?}");
    assert!(
        timed_out
            .error
            .as_deref()
            .is_some_and(|e| e.contains("timed out")),
        "{timed_out:?}"
    );
    let took = timed_out.duration_ms.expect("a finished attempt");
    assert!((9_500..=10_500).contains(&took), "took {took} ms");
    assert_eq!(done.attempt_log[1].response_status, Some(200));
    hooks.stop().await;
}

#[tokio::test]
async fn a_redirect_is_a_failure_and_is_not_followed() {
    let mut hooks = Hooks::new().await;
    let elsewhere = Receiver::start(vec![]).await;
    let redirecting = Receiver::start(vec![Answer::Redirect(elsewhere.url("/landed"))]).await;
    let (hook, _) = hooks.register(&redirecting.url("/hook"), &[KIND]).await;
    hooks.start("0", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-302", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed, "{done:#?}");
    assert_eq!(done.attempts, 1);
    let a = &done.attempt_log[0];
    assert_eq!(a.response_status, Some(302));
    assert!(
        a.error
            .as_deref()
            .is_some_and(|e| e.contains("302") && e.contains("redirects are not followed")),
        "{a:?}"
    );
    assert_eq!(redirecting.requests().len(), 1);
    assert_eq!(elsewhere.requests().len(), 0);
    hooks.stop().await;
}

#[tokio::test]
async fn an_endless_answer_times_out_and_keeps_its_status_and_first_16_kib() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::Endless]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    // A 2 s deadline instead of 10 s keeps the test short; one attempt in all.
    hooks.start("0", Duration::from_secs(2));
    assert_eq!(hooks.emit(&event("evt-endless", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed, "{done:#?}");
    assert_eq!(done.attempts, 1);
    let a = &done.attempt_log[0];
    assert!(
        a.error.as_deref().is_some_and(|e| e.contains("timed out")),
        "{:?}",
        a.error
    );
    let took = a.duration_ms.expect("a finished attempt");
    assert!((2_000..=2_500).contains(&took), "took {took} ms");
    assert_eq!(
        a.response_status,
        Some(200),
        "the endpoint answered 200 before its body ran out of time: {a:?}"
    );
    let body = a.response_body.as_deref().unwrap_or_default();
    assert_eq!(body.len(), MAX_STORED_BODY);
    assert!(body.iter().all(|&b| b == b'x'));
    hooks.stop().await;
}

#[tokio::test]
async fn a_timed_out_answer_keeps_its_status_and_first_16_kib_every_time() {
    // The sender has two deadlines of the same length: the HTTP client's own, which
    // ends the body and keeps what was read, and a `tokio::time::timeout` around the
    // whole exchange, which drops it. Which fires first is down to chance (a few
    // percent of attempts, more on a busy machine, lose the answer), so this makes
    // many short attempts: the outcome must not vary.
    let receiver = Receiver::start(vec![Answer::Endless]).await;
    let sender = local_sender("0", Duration::from_millis(75));
    let mut lost = Vec::new();
    for i in 0..40 {
        let sent = sender.send(&job(&receiver.url("/hook")), 0).await;
        assert!(!sent.ok, "{sent:?}");
        let error = sent.error.as_deref().unwrap_or_default();
        assert!(error.contains("timed out"), "{error}");
        if sent.status != Some(200) || sent.body.len() != MAX_STORED_BODY {
            lost.push((i, sent.status, sent.body.len(), error.to_owned()));
        }
    }
    assert_eq!(receiver.requests().len(), 40);
    assert_eq!(lost, [], "attempts that lost the 200 and its first bytes");
}

#[tokio::test]
async fn a_huge_answer_succeeds_and_only_its_first_16_kib_are_stored() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::Huge(100 * 1024 * 1024)]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start("0", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-huge", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    let a = &done.attempt_log[0];
    assert_eq!(a.response_status, Some(200));
    assert_eq!(a.error, None);
    let body = a.response_body.as_deref().unwrap_or_default();
    assert_eq!(body.len(), MAX_STORED_BODY);
    assert!(body.iter().all(|&b| b == b'y'));
    hooks.stop().await;
}

/// Two receivers subscribed to [`KIND`], their webhook ids, and a worker started.
async fn two_subscribers(hooks: &mut Hooks) -> [(Receiver, String); 2] {
    let a = Receiver::start(vec![]).await;
    let b = Receiver::start(vec![]).await;
    let (a_hook, _) = hooks.register(&a.url("/a"), &[KIND, OTHER_KIND]).await;
    let (b_hook, _) = hooks.register(&b.url("/b"), &[KIND]).await;
    [(a, a_hook), (b, b_hook)]
}

/// Each endpoint got one delivery of `event_id`, which succeeded, and one request.
async fn delivered_once_each(hooks: &Hooks, subscribers: &[(Receiver, String); 2], event_id: &str) {
    for (receiver, hook) in subscribers {
        let done = hooks.settled(hook).await;
        assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
        assert_eq!(done.event_id, event_id);
        assert_eq!(done.attempts, 1);
        let got = receiver.requests();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header("x-undertone-delivery"), done.id);
    }
}

#[tokio::test]
async fn an_event_emitted_twice_is_delivered_once_per_endpoint() {
    let mut hooks = Hooks::new().await;
    let subscribers = two_subscribers(&mut hooks).await;
    let again = event("evt-twice", KIND);
    assert_eq!(hooks.emit(&again).await, 2);
    assert_eq!(hooks.emit(&again).await, 0);
    hooks.start(FAST, DEADLINE);
    hooks.state.deliveries.notify_one();
    delivered_once_each(&hooks, &subscribers, "evt-twice").await;
    // Emitted once more after delivery: still nothing new.
    assert_eq!(hooks.emit(&again).await, 0);
    for (_, hook) in &subscribers {
        assert_eq!(hooks.deliveries(hook).await.len(), 1);
    }
    hooks.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_emitted_eight_times_at_once_is_delivered_once_per_endpoint() {
    let mut hooks = Hooks::new().await;
    let subscribers = two_subscribers(&mut hooks).await;
    hooks.start(FAST, DEADLINE);
    let same = event("evt-concurrent", KIND);
    let gate = Arc::new(tokio::sync::Barrier::new(8));
    let mut emits = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (store, same, gate) = (hooks.store.clone(), same.clone(), gate.clone());
        emits.spawn(async move {
            gate.wait().await;
            store.emit(&[same], Utc::now()).await
        });
    }
    let mut queued = 0;
    while let Some(result) = emits.join_next().await {
        queued += result.expect("no panic").expect("the outbox takes it");
    }
    assert_eq!(queued, 2, "one delivery per endpoint in all");
    hooks.state.deliveries.notify_one();
    delivered_once_each(&hooks, &subscribers, "evt-concurrent").await;
    hooks.stop().await;
}

/// Counts TCP connections to a port on 127.0.0.1, closing each at once.
async fn connection_counter() -> (u16, Arc<AtomicUsize>, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let task = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            drop(socket);
        }
    });
    (port, count, task)
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

#[tokio::test]
async fn private_addresses_are_refused_at_send_time() {
    let ten: IpAddr = [10, 0, 0, 1].into();
    let loopback: IpAddr = [127, 0, 0, 1].into();
    let strict = Sender::new(
        DeliveryConfig {
            schedule: FAST.parse().expect("valid schedule"),
            timeout: Duration::from_secs(2),
            concurrency: 8,
            allow_private: false,
            ..DeliveryConfig::default()
        },
        SafeResolver::new(false)
            .with_fixed("inside.example", vec![ten])
            .with_fixed("rebound.example", vec![loopback]),
    )
    .expect("client builds");
    let receiver = Receiver::start(vec![]).await;
    let (tls_port, connections, counter) = connection_counter().await;
    let rport = receiver.addr.port();

    let not_public = [
        "https://127.0.0.1/".to_owned(),
        "https://localhost/".to_owned(),
        "https://[::1]/".to_owned(),
        "https://169.254.169.254/".to_owned(),
        "https://10.0.0.1/".to_owned(),
        "https://[::ffff:127.0.0.1]/".to_owned(),
        "https://0.0.0.0/".to_owned(),
        "https://2130706433/".to_owned(),
        "https://inside.example/".to_owned(),
        // The same, aimed at live ports on 127.0.0.1.
        format!("https://127.0.0.1:{tls_port}/"),
        format!("https://localhost:{tls_port}/"),
        format!("https://[::ffff:127.0.0.1]:{tls_port}/"),
        format!("https://2130706433:{tls_port}/"),
        format!("https://rebound.example:{tls_port}/"),
        format!("https://127.0.0.1:{rport}/"),
        format!("https://localhost:{rport}/"),
    ];
    for url in &not_public {
        let sent = strict.send(&job(url), Utc::now().timestamp()).await;
        assert!(!sent.ok, "{url}: {sent:?}");
        assert_eq!(sent.status, None, "{url}: {sent:?}");
        let error = sent.error.as_deref().unwrap_or_default();
        assert!(error.contains("not a public address"), "{url}: {error}");
    }
    let plain = [
        "http://93.184.215.14/".to_owned(),
        "http://example.com/hook".to_owned(),
        format!("http://localhost:{rport}/"),
        format!("http://127.0.0.1:{rport}/"),
    ];
    for url in &plain {
        let sent = strict.send(&job(url), Utc::now().timestamp()).await;
        assert!(!sent.ok, "{url}: {sent:?}");
        assert_eq!(sent.status, None, "{url}: {sent:?}");
        let error = sent.error.as_deref().unwrap_or_default();
        assert!(error.contains("https is required"), "{url}: {error}");
    }
    assert_eq!(receiver.requests().len(), 0);
    assert_eq!(connections.load(Ordering::SeqCst), 0);

    // The same ports are reachable when private addresses are allowed, so the
    // refusals above are the check's doing.
    let relaxed = local_sender(FAST, Duration::from_secs(2));
    let sent = relaxed
        .send(&job(&format!("http://localhost:{rport}/")), 0)
        .await;
    assert!(sent.ok, "{sent:?}");
    assert_eq!(receiver.requests().len(), 1);
    let sent = relaxed
        .send(&job(&format!("https://127.0.0.1:{tls_port}/")), 0)
        .await;
    assert!(!sent.ok, "no TLS there: {sent:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    counter.abort();
}

/// Checks both signatures of a delivery with Python's `hmac`, `hashlib` and
/// `base64`; prints `ok`, or `bad <github-style ok> <standard ok>`.
const VERIFY_PY: &str = r#"
import base64, hashlib, hmac, json, sys
d = json.load(sys.stdin)
body = base64.b64decode(d["body"])
secret = d["secret"]
expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
github = hmac.compare_digest(expected, d["x_signature"])
assert secret.startswith("whsec_")
key = base64.b64decode(secret[len("whsec_"):])
signed = d["id"].encode() + b"." + d["timestamp"].encode() + b"." + body
tag = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
standard = any(hmac.compare_digest(tag, s) for s in d["signature"].split(" "))
print("ok" if github and standard else f"bad {github} {standard}")
"#;

/// What [`VERIFY_PY`] prints for this input.
fn python_verifies(
    secret: &str,
    body: &[u8],
    x_signature: &str,
    id: &str,
    timestamp: &str,
    signature: &str,
) -> String {
    use std::io::Write as _;
    let input = json!({
        "secret": secret,
        "body": STANDARD.encode(body),
        "x_signature": x_signature,
        "id": id,
        "timestamp": timestamp,
        "signature": signature,
    });
    let mut child = std::process::Command::new("python3")
        .args(["-c", VERIFY_PY])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("python3 reads its input");
    let out = child.wait_with_output().expect("python3 finishes");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test]
async fn signatures_verify_with_pythons_hmac() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![]).await;
    let (hook, secret) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start(FAST, DEADLINE);
    // The test route queues a signed `webhook.test` event to this endpoint.
    let (status, queued) = hooks
        .call(Method::POST, &format!("/api/v1/webhooks/{hook}/test"), None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{queued}");
    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.event_type, "webhook.test");
    let got = receiver.requests();
    assert_eq!(got.len(), 1);
    let r = &got[0];
    let envelope: Value = serde_json::from_slice(&r.body).expect("a JSON envelope");
    assert_eq!(envelope["event_type"], "webhook.test");
    assert_eq!(envelope["id"], queued["event_id"]);
    assert_eq!(r.header("webhook-id"), done.id);

    let verify = |body: &[u8], timestamp: &str| {
        python_verifies(
            &secret,
            body,
            r.header("x-undertone-signature"),
            r.header("webhook-id"),
            timestamp,
            r.header("webhook-signature"),
        )
    };
    let timestamp = r.header("webhook-timestamp");
    assert_eq!(verify(&r.body, timestamp), "ok");
    let mut tampered = r.body.clone();
    tampered[1] ^= 0x01;
    assert_eq!(verify(&tampered, timestamp), "bad False False");
    let later = (timestamp.parse::<i64>().expect("unix seconds") + 1).to_string();
    assert_eq!(verify(&r.body, &later), "bad True False");
    hooks.stop().await;
}

#[tokio::test]
async fn retry_after_is_honoured_within_the_delay_and_twice_it() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::RetryAfter(503, 2), Answer::Status(200)]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start("0,0.5,0.5,0.5,0.5", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-retry-after", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 2);
    assert_eq!(done.attempt_log[0].response_status, Some(503));
    let got = receiver.requests();
    assert_eq!(got.len(), 2);
    let gap = got[1].at.duration_since(got[0].at).as_secs_f64();
    // Attempt 2's delay is 0.5 s with ±20% jitter: d in [0.4, 0.6] s. The endpoint
    // asked for 2 s, which is clamped into [d, 2d]; 2 s > 2d, so the wait is 2d, in
    // [0.8, 1.2] s — whereas ignoring Retry-After would wait at most 0.6 s. The wait
    // is counted from after the first answer (later than its arrival), less under
    // 1 ms of the clock's truncation to milliseconds: hence 0.79 s at least. On top
    // of 1.2 s come claiming, connecting and sending: 0.3 s of slack.
    assert!(
        (0.79..=1.5).contains(&gap),
        "{gap} s between the 503 and the retry"
    );
    hooks.stop().await;
}

#[tokio::test]
async fn a_stored_delivery_error_never_holds_the_urls_query_string() {
    let mut hooks = Hooks::new().await;
    // A credential in the query string.
    let port = unused_port().await;
    let (hook, _) = hooks
        .register(
            &format!("http://127.0.0.1:{port}/hook?token=s3cret-token"),
            &[KIND],
        )
        .await;
    hooks.start("0,1", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-query", KIND)).await, 1);
    let failing = hooks
        .delivery_when(&hook, "one finished attempt", |d| {
            d.attempt_log
                .first()
                .is_some_and(|a| a.duration_ms.is_some())
        })
        .await;
    let error = failing.attempt_log[0].error.clone().unwrap_or_default();
    assert!(
        error.to_ascii_lowercase().contains("connection refused"),
        "{error}"
    );
    assert!(!error.contains("s3cret"), "{error}");
    assert!(!error.contains("token="), "{error}");
    hooks.stop().await;
}

#[tokio::test]
async fn an_endpoint_that_fails_every_attempt_is_disabled_and_listed_so() {
    let mut hooks = Hooks::new().await;
    let port = unused_port().await;
    let (hook, _) = hooks
        .register(&format!("http://127.0.0.1:{port}/hook"), &[KIND])
        .await;
    // Disabled once every attempt failed for more than 0.5 s.
    let config = DeliveryConfig {
        schedule: "0,0.3,0.3,0.3,0.3".parse().expect("valid schedule"),
        timeout: DEADLINE,
        concurrency: 8,
        allow_private: true,
        disable_after: Duration::from_millis(500),
        ..DeliveryConfig::default()
    };
    let sender = Sender::new(config, SafeResolver::new(true)).expect("client builds");
    hooks.worker = Some(Deliverer::spawn(&hooks.state, sender));
    assert_eq!(hooks.emit(&event("evt-dead", KIND)).await, 1);
    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed);
    assert_eq!(
        done.error.as_deref(),
        Some("cancelled: the endpoint was disabled after failing every attempt"),
        "{done:#?}"
    );
    let (status, list) = hooks.call(Method::GET, "/api/v1/webhooks", None).await;
    assert_eq!(status, StatusCode::OK);
    let listed = &list["data"][0];
    assert_eq!(listed["id"], json!(hook));
    assert_eq!(listed["disabled"]["event_type"], "webhook.disabled");
    assert_eq!(
        listed["disabled"]["reason"],
        "every attempt failed for more than 0.5 s"
    );
    // A disabled endpoint gets no more events.
    assert_eq!(hooks.emit(&event("evt-after", KIND)).await, 0);
    hooks.stop().await;
}
