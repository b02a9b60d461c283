//! Durable storage behind one trait (DESIGN.md §7 "Storage"): keys, rate-limit
//! windows, sessions with their inputs and results, and the job queue.
//!
//! SQLite is the default ([`sqlite::SqliteStore`]); PostgreSQL
//! ([`postgres::PgStore`]) lets several server processes share one database, one
//! queue and one set of rate limits. The service and the workers use the trait only;
//! the conformance suite (`http/tests/it/store`) holds both to the same assertions.

pub mod postgres;
pub mod sqlite;
pub mod webhooks;

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::limits::{Decision, Plan, Quota, Window};
pub use webhooks::{
    AttemptRecord, DeliveryJob, DeliveryRecord, DeliveryStatus, DeployRecord, DirectTarget,
    Disabled, Effects, Measured, NewDeploy, NewEvent, NextStep, ReportRecord, Targets,
    WebhookRecord, WebhookStore,
};

/// The database URL used when none is given: a file in the working directory.
pub const DEFAULT_DATABASE: &str = "sqlite://./undertone.db";

/// A storage failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database refused or failed a statement.
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// The schema could not be brought up to date.
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database URL names no supported backend.
    #[error("unsupported database URL `{0}`: expected sqlite://PATH or postgres://…")]
    UnsupportedUrl(String),
    /// A stored value does not have the shape this version writes.
    #[error("stored data is not readable: {0}")]
    Corrupt(String),
}

/// Result of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum Scope {
    /// GET and HEAD only.
    #[value(name = "read-only")]
    ReadOnly,
    /// Every route.
    #[value(name = "read-write")]
    ReadWrite,
}

impl Scope {
    /// The scope as stored and shown: `read-only` or `read-write`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ReadOnly => "read-only",
            Scope::ReadWrite => "read-write",
        }
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "read-only" => Some(Scope::ReadOnly),
            "read-write" => Some(Scope::ReadWrite),
            _ => None,
        }
    }
}

/// An API key as stored (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    /// `key_` + 32 hex characters.
    pub id: String,
    /// The organisation the key belongs to; sessions are visible across its keys.
    pub org_id: String,
    /// Name given at creation.
    pub name: String,
    /// What the key may do.
    pub scope: Scope,
    /// SHA-256 of the key.
    pub digest: Vec<u8>,
    /// The key's first 12 characters.
    pub display_prefix: String,
    /// Secret that signs deliveries to an ingest's `webhook_url`.
    pub delivery_secret: String,
    /// Rate limits.
    pub plan: Plan,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
    /// When the key was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// Which operation a session runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// `POST /ingest`: score the events.
    Ingest,
    /// `POST /drift`: score two periods and compare them.
    Drift,
}

impl SessionKind {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionKind::Ingest => "ingest",
            SessionKind::Drift => "drift",
        }
    }

    fn parse(s: &str) -> StoreResult<Self> {
        match s {
            "ingest" => Ok(SessionKind::Ingest),
            "drift" => Ok(SessionKind::Drift),
            other => Err(StoreError::Corrupt(format!(
                "unknown session kind `{other}`"
            ))),
        }
    }
}

/// Where a session is (DESIGN.md §5).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    /// Accepted and queued; also after a lost worker's lease expired.
    Received,
    /// A worker holds it.
    Processing,
    /// Results are available.
    Complete,
    /// Processing failed; `error` says why.
    Failed,
}

impl SessionStatus {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Received => "received",
            SessionStatus::Processing => "processing",
            SessionStatus::Complete => "complete",
            SessionStatus::Failed => "failed",
        }
    }

    fn parse(s: &str) -> StoreResult<Self> {
        match s {
            "received" => Ok(SessionStatus::Received),
            "processing" => Ok(SessionStatus::Processing),
            "complete" => Ok(SessionStatus::Complete),
            "failed" => Ok(SessionStatus::Failed),
            other => Err(StoreError::Corrupt(format!("unknown status `{other}`"))),
        }
    }
}

/// A session to create together with its input and its job.
#[derive(Debug, Clone)]
pub struct NewSession {
    /// UUID v4, as text.
    pub id: String,
    /// Ingest or drift.
    pub kind: SessionKind,
    /// Organisation of the key that created it.
    pub org_id: String,
    /// The key that created it.
    pub key_id: String,
    /// The deployment, when the request named one.
    pub deployment_id: Option<String>,
    /// Events in the request (both periods for a drift).
    pub event_count: usize,
    /// Where to deliver the result.
    pub webhook_url: Option<String>,
    /// Drift only: `{"before":…, "after":…, "question":…}` as JSON.
    pub labels: Option<String>,
    /// The validated request body, as received.
    pub body: Vec<u8>,
    /// Acceptance time.
    pub created_at: DateTime<Utc>,
}

/// Whether a session was queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// Written with its job; it will be processed. With a charge, the quota after it.
    Accepted(Option<Quota>),
    /// The queue holds `capacity` jobs already; nothing was written or counted.
    QueueFull,
    /// A charged window was full; nothing was written or counted.
    RateLimited(Quota),
    /// The session's key holds its share of the queue already (`per_key` jobs); nothing
    /// was written or counted.
    KeyShareFull(u64),
}

/// How many jobs the queue may hold: in all, and of one key (so that one tenant
/// flooding ingest leaves room for the others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueLimit {
    /// Jobs waiting or running, of every key.
    pub capacity: u64,
    /// Jobs waiting or running of one key.
    pub per_key: u64,
}

impl QueueLimit {
    /// A limit on the total only (one key may fill the queue).
    pub const fn total(capacity: u64) -> Self {
        QueueLimit {
            capacity,
            per_key: capacity,
        }
    }
}

/// A stored session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRecord {
    /// UUID.
    pub id: String,
    /// Ingest or drift.
    pub kind: SessionKind,
    /// The deployment, when named.
    pub deployment_id: Option<String>,
    /// Events in the request.
    pub event_count: usize,
    /// Where it is.
    pub status: SessionStatus,
    /// Drift only: labels and question as JSON.
    pub labels: Option<String>,
    /// Acceptance time.
    pub created_at: DateTime<Utc>,
    /// Completion time.
    pub completed_at: Option<DateTime<Utc>>,
    /// Why it failed.
    pub error: Option<String>,
    /// Detected environment.
    pub environment_type: Option<String>,
    /// Summary for a person.
    pub plain_summary: Option<String>,
    /// Recommendations, a JSON array of strings.
    pub plain_recommendations: Option<String>,
    /// The condensed view, JSON.
    pub condensed: Option<String>,
    /// `full_output` (ingest) or the drift result, JSON.
    pub full_output: Option<String>,
    /// How many times the session was completed (1 when complete; a check on the queue).
    pub completions: u32,
}

/// A claimed job.
#[derive(Debug, Clone)]
pub struct Job {
    /// The session to process.
    pub session_id: String,
    /// Ingest or drift.
    pub kind: SessionKind,
    /// The organisation of the session.
    pub org_id: String,
    /// The key that created it.
    pub key_id: String,
    /// The deployment, when the request named one.
    pub deployment_id: Option<String>,
    /// Where the ingest request asked for its result.
    pub webhook_url: Option<String>,
    /// Events in the request.
    pub event_count: usize,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// Proves this claim when finishing; a newer claim of the same job changes it.
    pub token: String,
    /// The validated request body.
    pub body: Vec<u8>,
}

/// What processing produced.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Results to store.
    Complete {
        /// Detected environment (ingest only).
        environment_type: Option<String>,
        /// Summary for a person.
        plain_summary: String,
        /// Recommendations, JSON array.
        plain_recommendations: String,
        /// Condensed view, JSON (ingest only).
        condensed: Option<String>,
        /// `full_output` or the drift result, JSON.
        full_output: String,
    },
    /// The error to show.
    Failed(String),
}

/// Counts of what a claim call did besides claiming.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reaped {
    /// Jobs whose lease expired and that went back to `received`.
    pub requeued: u32,
    /// Jobs whose lease expired once too often and that were marked `failed`.
    pub failed: u32,
}

/// What a retention sweep ([`Store::purge`]) deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// Finished sessions, with their stored input and result.
    pub sessions: u64,
    /// Webhook events whose every delivery had finished, with their deliveries.
    pub events: u64,
    /// Rows of the deployment history (per-conversation scores).
    pub history: u64,
    /// User Health Reports.
    pub reports: u64,
}

/// What a job that failed for good without finishing causes (its session's failed
/// `intelligence.ready`): a rule of the webhooks module, which the caller of
/// [`Store::claim`] passes in (`webhooks::emit::failure_effects`).
pub type LostJob = dyn Fn(&Job, &str, DateTime<Utc>) -> Effects + Send + Sync;

/// The storage the service runs on.
#[async_trait]
pub trait Store: WebhookStore + Send + Sync + 'static {
    /// Stores a new key.
    async fn create_key(&self, key: &KeyRecord) -> StoreResult<()>;
    /// Stores `key` only when the database holds no key at all; false (nothing
    /// written) otherwise. Atomic, so of several servers started together on an empty
    /// database exactly one creates the first key.
    async fn create_first_key(&self, key: &KeyRecord) -> StoreResult<bool>;
    /// Every key, oldest first.
    async fn list_keys(&self) -> StoreResult<Vec<KeyRecord>>;
    /// Revokes a key; false when no unrevoked key has that id.
    async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> StoreResult<bool>;
    /// Looks a key up by its SHA-256 digest (revoked keys included).
    async fn find_key(&self, digest: &[u8; 32]) -> StoreResult<Option<KeyRecord>>;

    /// Counts one request against every window, atomically, only when all have room.
    async fn charge(&self, key_id: &str, windows: &[Window]) -> StoreResult<Decision>;
    /// How much of each window is used, without counting anything.
    async fn usage(&self, key_id: &str, windows: &[Window]) -> StoreResult<Vec<u32>>;

    /// Writes the session, its input and its job in one transaction, unless the queue
    /// already holds `capacity` jobs. With `charge`, the same transaction also counts
    /// the request against those windows of the session's key, and writes nothing
    /// when one is full: a session is started and counted, or neither.
    async fn enqueue(
        &self,
        session: &NewSession,
        limit: QueueLimit,
        charge: Option<&[Window]>,
    ) -> StoreResult<Enqueued>;
    /// A session of `org_id`.
    async fn session(&self, id: &str, org_id: &str) -> StoreResult<Option<SessionRecord>>;
    /// Jobs waiting or running.
    async fn queue_depth(&self) -> StoreResult<u64>;
    /// When the oldest job waiting or running was accepted, if any.
    async fn queue_oldest(&self) -> StoreResult<Option<DateTime<Utc>>>;

    /// Requeues jobs whose lease ended before `now_ms` (or fails them after
    /// `max_attempts`, writing what `lost(job, error, at)` says such a failure causes,
    /// in the same transaction), then leases the oldest waiting job until
    /// `now_ms + lease_ms`.
    async fn claim(
        &self,
        now_ms: i64,
        lease_ms: i64,
        max_attempts: u32,
        lost: &LostJob,
    ) -> StoreResult<(Option<Job>, Reaped)>;
    /// Records the outcome of a claimed job and its effects (history, events and their
    /// deliveries, deploy markers) in one transaction; false, with nothing written,
    /// when the claim is no longer current (the lease expired and another worker took
    /// the job).
    async fn finish(
        &self,
        job: &Job,
        outcome: &Outcome,
        effects: &Effects,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Gives a claimed job back unprocessed (shutdown), without counting the attempt.
    async fn release(&self, job: &Job) -> StoreResult<()>;
    /// Extends a claimed job's lease to `until_ms` (the worker's heartbeat); false when
    /// the claim is no longer current.
    async fn renew(&self, job: &Job, until_ms: i64) -> StoreResult<bool>;
    /// Deletes what was stored before `before` (`--retain-days`): finished sessions
    /// with their input and result, webhook events none of whose deliveries is still
    /// pending (with the deliveries and their attempts), and reports; and history rows
    /// of conversations that started before `history_before`. Keys, endpoints, deploy
    /// markers and unfinished work stay.
    async fn purge(
        &self,
        before: DateTime<Utc>,
        history_before: DateTime<Utc>,
    ) -> StoreResult<Purged>;

    /// Starts a task that wakes this process's idle workers when another process
    /// queues a job or a delivery; `None` when the backend has no such signal (the
    /// workers' short poll then finds that work).
    fn listen(&self, _wake: Wake) -> Option<JoinHandle<()>> {
        None
    }
}

/// What a [`Store::listen`] task wakes.
#[derive(Debug, Clone)]
pub struct Wake {
    /// Idle job workers.
    pub jobs: Arc<Notify>,
    /// The delivery worker.
    pub deliveries: Arc<Notify>,
}

/// Opens the database at `url` (`sqlite://PATH` or `postgres://…`) and brings its
/// schema up to date.
pub async fn open(url: &str) -> StoreResult<Arc<dyn Store>> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(sqlite::SqliteStore::open(url).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(postgres::PgStore::open(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl(redact(url)))
    }
}

/// `url` without its password, for messages and logs.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

/// The count of each of `windows` among a key's stored `(kind, window start, used)`
/// rows; a row from an earlier window of its kind counts as 0.
fn current_counts(windows: &[Window], stored: &[(String, i64, u32)]) -> Vec<u32> {
    windows
        .iter()
        .map(|w| {
            stored
                .iter()
                .find(|(kind, start, _)| kind == w.kind.as_str() && *start == w.start)
                .map_or(0, |(_, _, used)| *used)
        })
        .collect()
}

/// The error of a session whose job was claimed `attempts` times and never finished.
/// A running worker renews its lease, so a lease runs out only when its worker stopped
/// (the process ended or lost the database).
fn lost_worker_error(attempts: u32) -> String {
    format!(
        "processing stopped without finishing {attempts} times (the worker was lost each \
         time); giving up"
    )
}

/// Decompresses a stored result.
fn unpack(packed: &[u8]) -> StoreResult<String> {
    let bytes = lz4_flex::decompress_size_prepended(packed)
        .map_err(|e| StoreError::Corrupt(format!("compressed result: {e}")))?;
    String::from_utf8(bytes).map_err(|e| StoreError::Corrupt(format!("compressed result: {e}")))
}

/// Formats a stored time.
fn format_time(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A stored time in unix milliseconds.
fn time_from_ms(ms: i64) -> StoreResult<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| StoreError::Corrupt(format!("time {ms} ms")))
}

/// Parses a stored time.
fn parse_time(s: &str) -> StoreResult<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| StoreError::Corrupt(format!("time `{s}`: {e}")))
}
