//! The SQLite store: one file in WAL mode, write transactions taken with
//! `BEGIN IMMEDIATE` so concurrent writers wait for each other instead of failing.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteRow,
    SqliteSynchronous,
};
use sqlx::{Row, Sqlite, Transaction};

mod webhooks;

use super::{
    Effects, Enqueued, Job, KeyRecord, LostJob, NewSession, Outcome, Purged, QueueLimit, Reaped,
    Scope, SessionKind, SessionRecord, SessionStatus, Store, StoreError, StoreResult, format_time,
    parse_time,
};
use crate::limits::{self, Decision, Plan, Window};

/// The schema, embedded in the binary.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");

/// How long a statement waits for another connection's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A SQLite database.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating if needed) the database at a `sqlite://PATH` URL and migrates it.
    ///
    /// WAL with `synchronous = NORMAL`: a committed transaction survives the process
    /// being killed; a power cut may lose the last few (docs/service.md).
    pub async fn open(url: &str) -> StoreResult<Self> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        create_private(options.get_filename())?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(Self { pool })
    }

    async fn write(&self) -> StoreResult<Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }
}

/// Creates a missing database file readable and writable by its owner only (0600):
/// it holds conversations. SQLite gives the `-wal` and `-shm` files it creates beside
/// it the database file's permissions. An existing file is left as it is.
fn create_private(path: &std::path::Path) -> StoreResult<()> {
    if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" || path.exists() {
        return Ok(());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        // Another process created it first: it is that process's file now.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::Database(sqlx::Error::Io(e))),
    }
}

fn key_from_row(row: &SqliteRow) -> StoreResult<KeyRecord> {
    let scope: String = row.try_get("scope")?;
    let revoked: Option<String> = row.try_get("revoked_at")?;
    Ok(KeyRecord {
        id: row.try_get("id")?,
        org_id: row.try_get("org_id")?,
        name: row.try_get("name")?,
        scope: Scope::parse(&scope)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown scope `{scope}`")))?,
        digest: row.try_get("key_digest")?,
        display_prefix: row.try_get("display_prefix")?,
        delivery_secret: row.try_get("delivery_secret")?,
        plan: Plan {
            per_hour: row.try_get("per_hour")?,
            per_day: row.try_get("per_day")?,
            drift_per_hour: row.try_get("drift_per_hour")?,
        },
        created_at: parse_time(&row.try_get::<String, _>("created_at")?)?,
        revoked_at: revoked.as_deref().map(parse_time).transpose()?,
    })
}

fn session_from_row(row: &SqliteRow) -> StoreResult<SessionRecord> {
    let completed: Option<String> = row.try_get("completed_at")?;
    let event_count: i64 = row.try_get("event_count")?;
    Ok(SessionRecord {
        id: row.try_get("id")?,
        kind: SessionKind::parse(&row.try_get::<String, _>("kind")?)?,
        deployment_id: row.try_get("deployment_id")?,
        event_count: usize::try_from(event_count)
            .map_err(|_| StoreError::Corrupt(format!("event count {event_count}")))?,
        status: SessionStatus::parse(&row.try_get::<String, _>("status")?)?,
        labels: row.try_get("labels")?,
        created_at: parse_time(&row.try_get::<String, _>("created_at")?)?,
        completed_at: completed.as_deref().map(parse_time).transpose()?,
        error: row.try_get("error")?,
        environment_type: row.try_get("environment_type")?,
        plain_summary: row.try_get("plain_summary")?,
        plain_recommendations: row.try_get("plain_recommendations")?,
        condensed: row.try_get("condensed")?,
        full_output: match row.try_get::<Option<Vec<u8>>, _>("full_output_lz4")? {
            Some(packed) => Some(super::unpack(&packed)?),
            None => row.try_get("full_output")?,
        },
        completions: row.try_get("completions")?,
    })
}

/// Current counts of `windows` for a key; a stored count from an earlier window is 0.
async fn window_counts(
    tx: &mut Transaction<'static, Sqlite>,
    key_id: &str,
    windows: &[Window],
) -> StoreResult<Vec<u32>> {
    let stored: Vec<(String, i64, u32)> =
        sqlx::query_as("SELECT kind, window_start, used FROM rate_windows WHERE key_id = ?")
            .bind(key_id)
            .fetch_all(&mut **tx)
            .await?;
    Ok(super::current_counts(windows, &stored))
}

/// Counts one request against every window inside `tx` when all have room.
async fn charge_in(
    tx: &mut Transaction<'static, Sqlite>,
    key_id: &str,
    windows: &[Window],
) -> StoreResult<Decision> {
    let used = window_counts(tx, key_id, windows).await?;
    let decision = limits::decide(windows, &used);
    if let Decision::Allowed(_) = decision {
        for (w, u) in windows.iter().zip(&used) {
            sqlx::query(
                "INSERT INTO rate_windows (key_id, kind, window_start, used) \
                 VALUES (?, ?, ?, ?) \
                 ON CONFLICT (key_id, kind) DO UPDATE SET \
                 window_start = excluded.window_start, used = excluded.used",
            )
            .bind(key_id)
            .bind(w.kind.as_str())
            .bind(w.start)
            .bind(u + 1)
            .execute(&mut **tx)
            .await?;
        }
    }
    Ok(decision)
}

async fn insert_key(tx: &mut Transaction<'static, Sqlite>, key: &KeyRecord) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO api_keys (id, org_id, name, scope, key_digest, display_prefix, \
         delivery_secret, per_hour, per_day, drift_per_hour, created_at, revoked_at) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&key.id)
    .bind(&key.org_id)
    .bind(&key.name)
    .bind(key.scope.as_str())
    .bind(&key.digest)
    .bind(&key.display_prefix)
    .bind(&key.delivery_secret)
    .bind(key.plan.per_hour)
    .bind(key.plan.per_day)
    .bind(key.plan.drift_per_hour)
    .bind(format_time(&key.created_at))
    .bind(key.revoked_at.as_ref().map(format_time))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_key(&self, key: &KeyRecord) -> StoreResult<()> {
        let mut tx = self.write().await?;
        insert_key(&mut tx, key).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn create_first_key(&self, key: &KeyRecord) -> StoreResult<bool> {
        // BEGIN IMMEDIATE holds the write lock from the count to the insert.
        let mut tx = self.write().await?;
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM api_keys")
            .fetch_one(&mut *tx)
            .await?;
        if n > 0 {
            return Ok(false);
        }
        insert_key(&mut tx, key).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn list_keys(&self) -> StoreResult<Vec<KeyRecord>> {
        sqlx::query("SELECT * FROM api_keys ORDER BY created_at, id")
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(key_from_row)
            .collect()
    }

    async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> StoreResult<bool> {
        let mut tx = self.write().await?;
        let done =
            sqlx::query("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")
                .bind(format_time(&at))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        // Revocation is total: what was still to be delivered to the key's endpoints
        // (its webhooks, and the webhook_url of its ingests) is cancelled with it.
        sqlx::query(
            "UPDATE deliveries SET status = 'failed', error = ?, completed_at = ?, \
             lease_token = NULL, lease_until_ms = NULL WHERE status = 'pending' \
             AND (key_id = ? OR webhook_id IN (SELECT id FROM webhooks WHERE key_id = ?))",
        )
        .bind(super::webhooks::KEY_REVOKED)
        .bind(format_time(&at))
        .bind(id)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn find_key(&self, digest: &[u8; 32]) -> StoreResult<Option<KeyRecord>> {
        sqlx::query("SELECT * FROM api_keys WHERE key_digest = ?")
            .bind(&digest[..])
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(key_from_row)
            .transpose()
    }

    async fn charge(&self, key_id: &str, windows: &[Window]) -> StoreResult<Decision> {
        let mut tx = self.write().await?;
        let decision = charge_in(&mut tx, key_id, windows).await?;
        tx.commit().await?;
        Ok(decision)
    }

    async fn usage(&self, key_id: &str, windows: &[Window]) -> StoreResult<Vec<u32>> {
        let mut tx = self.pool.begin().await?;
        let used = window_counts(&mut tx, key_id, windows).await?;
        tx.commit().await?;
        Ok(used)
    }

    async fn enqueue(
        &self,
        s: &NewSession,
        limit: QueueLimit,
        charge: Option<&[Window]>,
    ) -> StoreResult<Enqueued> {
        let mut tx = self.write().await?;
        let quota = match charge {
            Some(windows) => match charge_in(&mut tx, &s.key_id, windows).await? {
                Decision::Allowed(q) => Some(q),
                // Dropping the transaction rolls it back: nothing was counted.
                Decision::Refused(q) => return Ok(Enqueued::RateLimited(q)),
            },
            None => None,
        };
        let depth: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&mut *tx)
            .await?;
        if u64::try_from(depth).unwrap_or(0) >= limit.capacity {
            return Ok(Enqueued::QueueFull);
        }
        let held: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM jobs j JOIN sessions s ON s.id = j.session_id \
             WHERE s.key_id = ?",
        )
        .bind(&s.key_id)
        .fetch_one(&mut *tx)
        .await?;
        if u64::try_from(held).unwrap_or(0) >= limit.per_key {
            return Ok(Enqueued::KeyShareFull(limit.per_key));
        }
        sqlx::query(
            "INSERT INTO sessions (id, kind, org_id, key_id, deployment_id, event_count, \
             status, webhook_url, labels, created_at) \
             VALUES (?, ?, ?, ?, ?, ?, 'received', ?, ?, ?)",
        )
        .bind(&s.id)
        .bind(s.kind.as_str())
        .bind(&s.org_id)
        .bind(&s.key_id)
        .bind(&s.deployment_id)
        .bind(s.event_count as i64)
        .bind(&s.webhook_url)
        .bind(&s.labels)
        .bind(format_time(&s.created_at))
        .execute(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO session_inputs (session_id, body) VALUES (?, ?)")
            .bind(&s.id)
            .bind(&s.body)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO jobs (session_id, kind) VALUES (?, ?)")
            .bind(&s.id)
            .bind(s.kind.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Enqueued::Accepted(quota))
    }

    async fn session(&self, id: &str, org_id: &str) -> StoreResult<Option<SessionRecord>> {
        sqlx::query("SELECT * FROM sessions WHERE id = ? AND org_id = ?")
            .bind(id)
            .bind(org_id)
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(session_from_row)
            .transpose()
    }

    async fn queue_depth(&self) -> StoreResult<u64> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&self.pool)
            .await?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    async fn queue_oldest(&self) -> StoreResult<Option<DateTime<Utc>>> {
        let oldest: Option<String> = sqlx::query_scalar(
            "SELECT MIN(s.created_at) FROM jobs j JOIN sessions s ON s.id = j.session_id",
        )
        .fetch_one(&self.pool)
        .await?;
        oldest.as_deref().map(parse_time).transpose()
    }

    async fn claim(
        &self,
        now_ms: i64,
        lease_ms: i64,
        max_attempts: u32,
        lost: &LostJob,
    ) -> StoreResult<(Option<Job>, Reaped)> {
        let mut tx = self.write().await?;
        let mut reaped = Reaped::default();
        let expired = sqlx::query(
            "SELECT j.session_id, j.attempts, j.kind, s.org_id, s.key_id, s.deployment_id, \
             s.webhook_url, s.event_count FROM jobs j JOIN sessions s ON s.id = j.session_id \
             WHERE j.leased = 1 AND j.lease_until_ms <= ?",
        )
        .bind(now_ms)
        .fetch_all(&mut *tx)
        .await?;
        for row in expired {
            let session_id: String = row.try_get("session_id")?;
            let attempts: u32 = row.try_get("attempts")?;
            if attempts >= max_attempts {
                let error = super::lost_worker_error(attempts);
                sqlx::query("DELETE FROM jobs WHERE session_id = ?")
                    .bind(&session_id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE sessions SET status = 'failed', completed_at = NULL, error = ? \
                     WHERE id = ?",
                )
                .bind(&error)
                .bind(&session_id)
                .execute(&mut *tx)
                .await?;
                // The session's `intelligence.ready` (failed) goes out with the failure.
                let kind = SessionKind::parse(&row.try_get::<String, _>("kind")?)?;
                if kind == SessionKind::Ingest {
                    let job = Job {
                        session_id: session_id.clone(),
                        kind,
                        org_id: row.try_get("org_id")?,
                        key_id: row.try_get("key_id")?,
                        deployment_id: row.try_get("deployment_id")?,
                        webhook_url: row.try_get("webhook_url")?,
                        event_count: usize::try_from(row.try_get::<i64, _>("event_count")?)
                            .unwrap_or(0),
                        attempt: attempts,
                        token: String::new(),
                        body: Vec::new(),
                    };
                    let at = super::time_from_ms(now_ms)?;
                    let effects = lost(&job, &error, at);
                    webhooks::apply_effects(&mut tx, &job, &effects, at).await?;
                }
                reaped.failed += 1;
            } else {
                sqlx::query(
                    "UPDATE jobs SET leased = 0, lease_token = NULL, lease_until_ms = NULL \
                     WHERE session_id = ?",
                )
                .bind(&session_id)
                .execute(&mut *tx)
                .await?;
                sqlx::query("UPDATE sessions SET status = 'received' WHERE id = ?")
                    .bind(&session_id)
                    .execute(&mut *tx)
                    .await?;
                reaped.requeued += 1;
            }
        }
        let next = sqlx::query(
            "SELECT j.session_id, j.kind, j.attempts, i.body, s.org_id, s.key_id, \
             s.deployment_id, s.webhook_url, s.event_count FROM jobs j \
             JOIN session_inputs i ON i.session_id = j.session_id \
             JOIN sessions s ON s.id = j.session_id \
             WHERE j.leased = 0 ORDER BY j.seq LIMIT 1",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = next else {
            tx.commit().await?;
            return Ok((None, reaped));
        };
        let attempts: u32 = row.try_get("attempts")?;
        let job = Job {
            session_id: row.try_get("session_id")?,
            kind: SessionKind::parse(&row.try_get::<String, _>("kind")?)?,
            org_id: row.try_get("org_id")?,
            key_id: row.try_get("key_id")?,
            deployment_id: row.try_get("deployment_id")?,
            webhook_url: row.try_get("webhook_url")?,
            event_count: usize::try_from(row.try_get::<i64, _>("event_count")?).unwrap_or(0),
            attempt: attempts + 1,
            token: uuid::Uuid::new_v4().simple().to_string(),
            body: row.try_get("body")?,
        };
        sqlx::query(
            "UPDATE jobs SET leased = 1, attempts = ?, lease_token = ?, lease_until_ms = ? \
             WHERE session_id = ?",
        )
        .bind(job.attempt)
        .bind(&job.token)
        .bind(now_ms + lease_ms)
        .bind(&job.session_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE sessions SET status = 'processing' WHERE id = ?")
            .bind(&job.session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok((Some(job), reaped))
    }

    async fn finish(
        &self,
        job: &Job,
        outcome: &Outcome,
        effects: &Effects,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.write().await?;
        let held = sqlx::query("DELETE FROM jobs WHERE session_id = ? AND lease_token = ?")
            .bind(&job.session_id)
            .bind(&job.token)
            .execute(&mut *tx)
            .await?;
        if held.rows_affected() != 1 {
            return Ok(false);
        }
        match outcome {
            Outcome::Complete {
                environment_type,
                plain_summary,
                plain_recommendations,
                condensed,
                full_output,
            } => {
                sqlx::query(
                    "UPDATE sessions SET status = 'complete', completed_at = ?, error = NULL, \
                     environment_type = ?, plain_summary = ?, plain_recommendations = ?, \
                     condensed = ?, full_output_lz4 = ?, completions = completions + 1 \
                     WHERE id = ?",
                )
                .bind(format_time(&at))
                .bind(environment_type)
                .bind(plain_summary)
                .bind(plain_recommendations)
                .bind(condensed)
                .bind(lz4_flex::compress_prepend_size(full_output.as_bytes()))
                .bind(&job.session_id)
                .execute(&mut *tx)
                .await?;
            }
            Outcome::Failed(error) => {
                sqlx::query("UPDATE sessions SET status = 'failed', error = ? WHERE id = ?")
                    .bind(error)
                    .bind(&job.session_id)
                    .execute(&mut *tx)
                    .await?;
            }
        }
        webhooks::apply_effects(&mut tx, job, effects, at).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn release(&self, job: &Job) -> StoreResult<()> {
        let mut tx = self.write().await?;
        let held = sqlx::query(
            "UPDATE jobs SET leased = 0, attempts = attempts - 1, lease_token = NULL, \
             lease_until_ms = NULL WHERE session_id = ? AND lease_token = ?",
        )
        .bind(&job.session_id)
        .bind(&job.token)
        .execute(&mut *tx)
        .await?;
        if held.rows_affected() == 1 {
            sqlx::query("UPDATE sessions SET status = 'received' WHERE id = ?")
                .bind(&job.session_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn renew(&self, job: &Job, until_ms: i64) -> StoreResult<bool> {
        let mut tx = self.write().await?;
        let held = sqlx::query(
            "UPDATE jobs SET lease_until_ms = ? WHERE session_id = ? AND lease_token = ?",
        )
        .bind(until_ms)
        .bind(&job.session_id)
        .bind(&job.token)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(held.rows_affected() == 1)
    }

    async fn purge(
        &self,
        before: DateTime<Utc>,
        history_before: DateTime<Utc>,
    ) -> StoreResult<Purged> {
        let mut tx = self.write().await?;
        let cutoff = format_time(&before);
        sqlx::query(concat!(
            "DELETE FROM session_inputs WHERE session_id IN (",
            "SELECT id FROM sessions WHERE created_at < ? AND status IN ('complete', 'failed'))"
        ))
        .bind(&cutoff)
        .execute(&mut *tx)
        .await?;
        let sessions = sqlx::query(
            "DELETE FROM sessions WHERE created_at < ? AND status IN ('complete', 'failed')",
        )
        .bind(&cutoff)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        sqlx::query(concat!(
            "DELETE FROM delivery_attempts WHERE delivery_id IN ",
            "(SELECT id FROM deliveries WHERE event_id IN (",
            "SELECT id FROM webhook_events e WHERE e.created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')))"
        ))
        .bind(&cutoff)
        .execute(&mut *tx)
        .await?;
        sqlx::query(concat!(
            "DELETE FROM deliveries WHERE event_id IN (",
            "SELECT id FROM webhook_events e WHERE e.created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending'))"
        ))
        .bind(&cutoff)
        .execute(&mut *tx)
        .await?;
        let events = sqlx::query(concat!(
            "DELETE FROM webhook_events WHERE id IN (",
            "SELECT id FROM webhook_events e WHERE e.created_at < ? AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending'))"
        ))
            .bind(&cutoff)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let history = sqlx::query("DELETE FROM conversation_history WHERE started_at_ms < ?")
            .bind(history_before.timestamp_millis())
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let reports = sqlx::query("DELETE FROM health_reports WHERE created_at < ?")
            .bind(&cutoff)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        tx.commit().await?;
        Ok(Purged {
            sessions,
            events,
            history,
            reports,
        })
    }
}
