//! Durable storage (DESIGN.md §7 "Storage"): one [`Store`] over SQLite (the default)
//! or PostgreSQL (several server processes sharing one database, one queue and one
//! set of rate limits). Every query is written once; the conformance suite
//! (`http/tests/it/store`) runs the same assertions on both backends.
//!
//! Each resource has its own file, holding its record types and its share of
//! [`Store`]'s methods:
//!
//! | file | what |
//! |---|---|
//! | `keys.rs` | API keys and rate-limit windows |
//! | `jobs.rs` | sessions, their inputs and results, the job queue and its leases |
//! | `webhooks.rs` | registered endpoints |
//! | `deliveries.rs` | the outbox: events, deliveries and their attempts |
//! | `history.rs` | each deployment's conversation history, and what finishing a job writes |
//! | `deploys.rs` | deploy markers and their measurements |
//! | `reports.rs` | User Health Reports |
//! | `retention.rs` | the retention sweep |
//! | `db.rs` | the dialect layer: opening, binding, reading rows, locks, wake-ups |
//!
//! What the two databases do differently lives in `db.rs` only: the resource modules
//! write portable SQL with `$N` placeholders, and ask the layer for the row locks
//! (PostgreSQL; SQLite's `BEGIN IMMEDIATE` serialises writers instead) and
//! notifications they need. Policy stays out: what a lost job causes, for one, is a
//! rule of the webhooks module that [`Store::claim`] is given.

mod db;
mod deliveries;
mod deploys;
mod history;
mod jobs;
mod keys;
mod reports;
mod retention;
mod sessions;
mod webhooks;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

pub use deliveries::{
    AttemptRecord, DeliveryJob, DeliveryRecord, DeliveryStatus, DirectTarget, NewEvent, NextStep,
    Targets,
};
pub use deploys::{DeployRecord, MAX_DEPLOYS_PER_DEPLOYMENT, Measured, NewDeploy};
pub use history::Effects;
pub use jobs::{
    Earlier, Enqueued, Idempotency, Job, LostJob, NewSession, Outcome, QueueLimit, Reaped,
};
pub use keys::{KeyRecord, Scope};
pub use reports::ReportRecord;
pub use retention::Purged;
pub use sessions::{SessionKind, SessionRecord, SessionStatus};
pub use webhooks::{Disabled, Registered, WebhookRecord};

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
    /// The SQLite file was deleted or replaced while the server ran.
    #[error(
        "the database file {0} was deleted or replaced while the server ran; nothing more \
         is written to it (it would be lost at restart): restore it, or restart the server"
    )]
    FileGone(String),
}

impl StoreError {
    /// Whether a write broke a unique constraint.
    pub fn is_unique_violation(&self) -> bool {
        matches!(self, StoreError::Database(sqlx::Error::Database(db)) if db.is_unique_violation())
    }

    /// Why the database cannot take this request now but may soon: it is full, or
    /// another writer holds it too long, or no connection is free. `None` for a
    /// failure that retrying would not cure.
    pub fn transient(&self) -> Option<&'static str> {
        match self {
            StoreError::Database(sqlx::Error::PoolTimedOut) => {
                Some("busy: no connection came free in time")
            }
            StoreError::Database(sqlx::Error::Database(db)) => {
                let code = db.code();
                let code = code.as_deref().unwrap_or_default();
                if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                    sqlite_transient(code.parse().ok()?)
                } else {
                    postgres_transient(code)
                }
            }
            _ => None,
        }
    }
}

/// [`StoreError::transient`] for an SQLite result code (primary, the low byte of an
/// extended one): full, busy, locked.
fn sqlite_transient(code: i32) -> Option<&'static str> {
    match code & 0xff {
        13 => Some("full: the disk or the database's size limit has no room"),
        5 | 6 => Some("busy: another writer holds it"),
        _ => None,
    }
}

/// [`StoreError::transient`] for a PostgreSQL SQLSTATE: insufficient resources, a
/// server starting or stopping, a transaction that lost a race.
fn postgres_transient(sqlstate: &str) -> Option<&'static str> {
    match sqlstate {
        "53100" => Some("full: the disk has no room"),
        "53200" | "53300" => Some("out of resources"),
        "57P01" | "57P02" | "57P03" => Some("restarting"),
        "40001" | "40P01" => Some("busy: a concurrent transaction got in the way"),
        _ => None,
    }
}

/// Result of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// The storage the service runs on: a SQLite file or a PostgreSQL database. Its
/// methods are spread over the resource modules (see the module docs).
#[derive(Debug, Clone)]
pub struct Store {
    pool: db::Pool,
    /// PostgreSQL's `LISTEN` connection, for [`Store::listen`].
    listener: Option<db::Listener>,
}

impl Store {
    /// An error when the SQLite file this store opened was deleted or replaced since
    /// ([`StoreError::FileGone`]); every write checks it too.
    pub fn check_file(&self) -> StoreResult<()> {
        self.pool.check_file()
    }
}

/// Opens the database at `url` (`sqlite://PATH` or `postgres://…`) and brings its
/// schema up to date.
///
/// A PostgreSQL URL may end in `pool_size=N` among its query parameters: the
/// connections this process opens for requests and workers (default 10; one more is
/// opened for `LISTEN`). It is taken out before the URL reaches the driver.
pub async fn open(url: &str) -> StoreResult<Arc<Store>> {
    let (pool, listener) = db::open(url).await?;
    Ok(Arc::new(Store { pool, listener }))
}

impl Store {
    /// Starts a task that wakes this process's idle workers when another process
    /// queues a job or a delivery (PostgreSQL's `LISTEN`/`NOTIFY`: queueing notifies in
    /// the same transaction, delivered on commit); `None` on SQLite, which has no such
    /// signal (the workers' short poll then finds that work).
    pub fn listen(&self, wake: Wake) -> Option<JoinHandle<()>> {
        self.listener.as_ref().map(|l| l.spawn(wake))
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

/// Formats a stored time (SQLite keeps times as this text).
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

#[cfg(test)]
mod tests {
    use sqlx::Connection;

    use super::{StoreError, postgres_transient, sqlite_transient};

    #[test]
    fn full_busy_and_locked_are_transient_and_nothing_else_is() {
        // SQLite: SQLITE_FULL, SQLITE_BUSY, its extended BUSY_SNAPSHOT, SQLITE_LOCKED.
        let full = "full: the disk or the database's size limit has no room";
        assert_eq!(sqlite_transient(13), Some(full));
        for busy in [5, 517, 6] {
            assert_eq!(
                sqlite_transient(busy),
                Some("busy: another writer holds it")
            );
        }
        // A constraint (19, extended 2067) or a plain error is not.
        for lasting in [1, 19, 2067, 1555] {
            assert_eq!(sqlite_transient(lasting), None, "{lasting}");
        }
        assert_eq!(
            postgres_transient("53100"),
            Some("full: the disk has no room")
        );
        assert!(postgres_transient("40001").is_some());
        // 42501 (no privilege) has SQLite's BUSY in its low byte: codes are per backend.
        for lasting in ["23505", "42601", "42501"] {
            assert_eq!(postgres_transient(lasting), None, "{lasting}");
        }
        assert!(
            StoreError::Database(sqlx::Error::PoolTimedOut)
                .transient()
                .is_some()
        );
        assert_eq!(StoreError::Corrupt("x".into()).transient(), None);
    }

    #[tokio::test]
    async fn a_database_at_its_size_limit_is_full() {
        // A real SQLITE_FULL: the page limit stands in for a full disk.
        let mut conn = sqlx::SqliteConnection::connect("sqlite::memory:")
            .await
            .expect("opens");
        for sql in ["CREATE TABLE t (x BLOB)", "PRAGMA max_page_count = 4"] {
            sqlx::query(sql).execute(&mut conn).await.expect("runs");
        }
        let insert = sqlx::query("INSERT INTO t VALUES (zeroblob(100000))");
        let e = StoreError::from(insert.execute(&mut conn).await.expect_err("full"));
        assert_eq!(
            e.transient(),
            Some("full: the disk or the database's size limit has no room"),
            "{e}"
        );
    }
}
