//! What every handler and worker of one process shares: settings, the store, the
//! clock, the wake-ups, the ingest handoff and the admission budgets. It sits below
//! the API, the MCP endpoint, the workers and the webhook tasks, which all read it.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};
use undertone_core::IngestRequest;

use crate::clock::Clock;
use crate::resolver::SafeResolver;
use crate::store::Store;

/// Server settings the routes and workers read.
#[derive(Debug, Clone)]
pub struct Config {
    /// Jobs the queue may hold before ingest answers 503.
    pub queue_capacity: u64,
    /// Share of the queue one key may hold (0 to 1); beyond it that key's ingests and
    /// drifts answer 503 while other keys still get 202s.
    pub queue_key_share: f64,
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
    /// Requests in progress at once; more are answered 503 (load shedding).
    pub max_concurrent_requests: usize,
    /// Bytes of request bodies being read and parsed at once; more are answered 503.
    pub max_inflight_body_bytes: usize,
    /// Longest pause while a request body is read before the request fails.
    pub body_read_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            queue_capacity: 1000,
            queue_key_share: 0.5,
            allow_private_webhooks: false,
            lease: Duration::from_secs(60),
            max_attempts: 4,
            queue_retry_after: 5,
            job_time_budget: Duration::from_secs(600),
            max_concurrent_requests: 512,
            max_inflight_body_bytes: 256 * 1024 * 1024,
            body_read_timeout: Duration::from_secs(30),
        }
    }
}

/// What every handler and worker shares.
#[derive(Clone)]
pub struct AppState {
    /// The database.
    pub store: Arc<Store>,
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
    /// The request and body-byte budgets of this process.
    pub admission: Arc<Admission>,
}

/// Validated ingest requests passed from the handler to a worker in the same process,
/// bounded in count and in bytes (of the request bodies they were read from).
#[derive(Debug, Default)]
pub struct Handoff(std::sync::Mutex<HandoffMap>);

#[derive(Debug, Default)]
struct HandoffMap {
    held: std::collections::HashMap<String, (std::time::Instant, usize, Arc<IngestRequest>)>,
    bytes: usize,
}

impl Handoff {
    /// Requests held at most; beyond this, workers parse from the database.
    const CAPACITY: usize = 64;
    /// Body bytes held at most (a parsed request takes a few times its body).
    const MAX_BYTES: usize = 64 * 1024 * 1024;
    /// Entries older than this are dropped (their job went to another process).
    const MAX_AGE: Duration = Duration::from_secs(120);

    /// Offers a validated request read from a body of `bytes`; dropped when the
    /// handoff is full (the worker then parses the stored body).
    pub fn put(&self, session_id: &str, request: Arc<IngestRequest>, bytes: usize) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let full =
            |m: &HandoffMap| m.held.len() >= Self::CAPACITY || m.bytes + bytes > Self::MAX_BYTES;
        if full(&map) {
            let HandoffMap { held, bytes: total } = &mut *map;
            held.retain(|_, (at, size, _)| {
                let keep = at.elapsed() < Self::MAX_AGE;
                if !keep {
                    *total -= *size;
                }
                keep
            });
        }
        if !full(&map) {
            map.bytes += bytes;
            map.held.insert(
                session_id.to_owned(),
                (std::time::Instant::now(), bytes, request),
            );
        }
    }

    /// Takes the request of a session, if this process still holds it.
    pub fn take(&self, session_id: &str) -> Option<Arc<IngestRequest>> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (_, size, request) = map.held.remove(session_id)?;
        map.bytes -= size;
        Some(request)
    }

    /// Body bytes held now.
    pub fn bytes(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).bytes
    }
}

impl Config {
    /// The queue's limits: its capacity, and the jobs one key may hold (its share of
    /// the capacity, at least 1).
    pub fn queue_limit(&self) -> crate::store::QueueLimit {
        let share = self.queue_key_share.clamp(0.0, 1.0);
        let per_key = ((self.queue_capacity as f64) * share).floor() as u64;
        crate::store::QueueLimit {
            capacity: self.queue_capacity,
            per_key: per_key.max(1),
        }
    }
}

impl AppState {
    /// State over `store` and `clock` with `config`.
    pub fn new(store: Arc<Store>, clock: Arc<dyn Clock>, config: Config) -> Self {
        Self {
            store,
            clock,
            resolver: SafeResolver::new(config.allow_private_webhooks),
            admission: Arc::new(Admission::new(
                config.max_concurrent_requests,
                config.max_inflight_body_bytes,
            )),
            config: Arc::new(config),
            wake: Arc::new(Notify::new()),
            handoff: Arc::new(Handoff::default()),
            deliveries: Arc::new(Notify::new()),
        }
    }
}

/// The two budgets, shared by every request of the process.
#[derive(Debug)]
pub struct Admission {
    pub(crate) requests: Arc<Semaphore>,
    pub(crate) max_requests: usize,
    pub(crate) body_kib: Arc<Semaphore>,
    pub(crate) max_body_kib: usize,
}

impl Admission {
    /// `max_requests` in progress at once, `max_body_bytes` of bodies in flight.
    pub fn new(max_requests: usize, max_body_bytes: usize) -> Self {
        let max_body_kib = max_body_bytes.div_ceil(1024).max(1);
        Admission {
            requests: Arc::new(Semaphore::new(max_requests.max(1))),
            max_requests: max_requests.max(1),
            body_kib: Arc::new(Semaphore::new(max_body_kib)),
            max_body_kib,
        }
    }
}

#[cfg(test)]
mod handoff {
    use std::sync::Arc;

    use undertone_core::IngestRequest;

    use super::Handoff;

    fn request() -> Arc<IngestRequest> {
        let body = serde_json::json!({"deployment_id": "d", "events": [{
            "actor_id": "u", "content": "hi", "timestamp": "2026-11-21T09:00:00Z"}]});
        Arc::new(
            undertone_core::validate::ingest_request(&body, &Default::default()).expect("valid"),
        )
    }

    #[test]
    fn the_handoff_holds_at_most_its_bytes() {
        let h = Handoff::default();
        let mib = 1024 * 1024;
        h.put("a", request(), 40 * mib);
        h.put("b", request(), 30 * mib);
        // 70 MiB would be over the 64 MiB bound: `b` is not held, its worker parses.
        assert_eq!(h.bytes(), 40 * mib);
        assert!(h.take("b").is_none());
        h.put("c", request(), 20 * mib);
        assert_eq!(h.bytes(), 60 * mib);
        assert!(h.take("a").is_some());
        assert_eq!(h.bytes(), 20 * mib);
        assert!(h.take("a").is_none(), "taken once");
    }
}
