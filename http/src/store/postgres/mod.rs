//! The PostgreSQL store, for several server processes on one database
//! (docs/deploy.md).
//!
//! - **Migrations** are embedded and run on start. sqlx's migrator holds a
//!   PostgreSQL advisory lock while it runs, so servers started together apply each
//!   migration once and the others wait for it.
//! - **Jobs and deliveries** are claimed with `FOR UPDATE … SKIP LOCKED` and a lease:
//!   two workers never take the same row, and a row whose worker died is taken again
//!   when its lease ends.
//! - **Wake-ups** go through `LISTEN`/`NOTIFY`: queueing a job or a delivery notifies
//!   in the same transaction (delivered on commit), and every process's listener
//!   wakes its idle workers, so queued work starts within milliseconds on any process.
//! - **Rate limits**: a charge locks its key's row (`FOR NO KEY UPDATE`) before it
//!   reads the windows, so charges of one key are serialised across every process and
//!   the limit is exact.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::postgres::{PgConnectOptions, PgListener, PgPool, PgPoolOptions, PgRow};
use sqlx::{Postgres, Row, Transaction};
use tokio::task::JoinHandle;

mod webhooks;

use super::{
    Effects, Enqueued, Job, KeyRecord, LostJob, NewSession, Outcome, Purged, QueueLimit, Reaped,
    Scope, SessionKind, SessionRecord, SessionStatus, Store, StoreError, StoreResult, Wake,
};
use crate::limits::{self, Decision, Plan, Window};

/// The schema, embedded in the binary.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

/// The channel a queued job is announced on.
const JOBS_CHANNEL: &str = "undertone_jobs";
/// The channel queued deliveries are announced on.
const DELIVERIES_CHANNEL: &str = "undertone_deliveries";
/// Connections per process unless the URL says otherwise (`?max_connections=N` is
/// not a PostgreSQL parameter; see [`PgStore::open`]).
const DEFAULT_MAX_CONNECTIONS: u32 = 10;
/// How long a request waits for a free connection before failing.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);
/// Wait before the listener reconnects after losing its connection.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

/// A PostgreSQL database shared by any number of server processes.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    /// One connection of its own for `LISTEN`, opened when [`Store::listen`] starts,
    /// so the listener never takes a connection from the requests and workers.
    listen_pool: PgPool,
}

impl PgStore {
    /// Connects to a `postgres://` URL and migrates the database.
    ///
    /// The URL may end in `pool_size=N` among its query parameters: the connections
    /// this process opens for requests and workers (default 10; one more is opened
    /// for `LISTEN`). It is taken out before the URL reaches the driver.
    pub async fn open(url: &str) -> StoreResult<Self> {
        let (url, pool_size) = split_pool_size(url)?;
        let options = PgConnectOptions::from_str(&url)?.application_name("undertone");
        let pool = PgPoolOptions::new()
            .max_connections(pool_size)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options.clone())
            .await?;
        MIGRATOR.run(&pool).await?;
        let listen_pool = PgPoolOptions::new()
            .max_connections(1)
            .max_lifetime(None)
            .idle_timeout(None)
            .connect_lazy_with(options);
        Ok(Self { pool, listen_pool })
    }

    /// The connection pool (tests read the tables through it).
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }
}

/// The URL without `pool_size`, and the pool size.
fn split_pool_size(url: &str) -> StoreResult<(String, u32)> {
    let mut parsed =
        url::Url::parse(url).map_err(|e| StoreError::UnsupportedUrl(format!("{url}: {e}")))?;
    let mut size = DEFAULT_MAX_CONNECTIONS;
    let mut kept = Vec::new();
    for (k, v) in parsed.query_pairs() {
        if k == "pool_size" {
            size = v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                StoreError::UnsupportedUrl(format!(
                    "pool_size must be a positive integer, got `{v}`"
                ))
            })?;
        } else {
            kept.push((k.into_owned(), v.into_owned()));
        }
    }
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    Ok((parsed.to_string(), size))
}

/// `t` to the millisecond, as SQLite keeps it, so both stores read back equal times.
fn ms(t: &DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(*t)
}

/// A stored count as `u32`.
fn count(row: &PgRow, column: &str) -> StoreResult<u32> {
    let v: i64 = row.try_get(column)?;
    u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{column} {v}")))
}

fn key_from_row(row: &PgRow) -> StoreResult<KeyRecord> {
    let scope: String = row.try_get("scope")?;
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
            per_hour: count(row, "per_hour")?,
            per_day: count(row, "per_day")?,
            drift_per_hour: count(row, "drift_per_hour")?,
        },
        created_at: row.try_get("created_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

fn session_from_row(row: &PgRow) -> StoreResult<SessionRecord> {
    let event_count: i64 = row.try_get("event_count")?;
    Ok(SessionRecord {
        id: row.try_get("id")?,
        kind: SessionKind::parse(&row.try_get::<String, _>("kind")?)?,
        deployment_id: row.try_get("deployment_id")?,
        event_count: usize::try_from(event_count)
            .map_err(|_| StoreError::Corrupt(format!("event count {event_count}")))?,
        status: SessionStatus::parse(&row.try_get::<String, _>("status")?)?,
        labels: row.try_get("labels")?,
        created_at: row.try_get("created_at")?,
        completed_at: row.try_get("completed_at")?,
        error: row.try_get("error")?,
        environment_type: row.try_get("environment_type")?,
        plain_summary: row.try_get("plain_summary")?,
        plain_recommendations: row.try_get("plain_recommendations")?,
        condensed: row.try_get("condensed")?,
        full_output: row
            .try_get::<Option<Vec<u8>>, _>("full_output_lz4")?
            .map(|packed| super::unpack(&packed))
            .transpose()?,
        completions: count(row, "completions")?,
    })
}

/// A job from a row of `jobs` joined with its session.
fn job_from_row(row: &PgRow, attempt: u32, token: String, body: Vec<u8>) -> StoreResult<Job> {
    Ok(Job {
        session_id: row.try_get("session_id")?,
        kind: SessionKind::parse(&row.try_get::<String, _>("kind")?)?,
        org_id: row.try_get("org_id")?,
        key_id: row.try_get("key_id")?,
        deployment_id: row.try_get("deployment_id")?,
        webhook_url: row.try_get("webhook_url")?,
        event_count: usize::try_from(row.try_get::<i64, _>("event_count")?).unwrap_or(0),
        attempt,
        token,
        body,
    })
}

/// Counts one request against every window inside `tx` when all have room. The key's
/// row is locked first: charges of one key wait for each other, in every process.
async fn charge_in(
    tx: &mut Transaction<'static, Postgres>,
    key_id: &str,
    windows: &[Window],
) -> StoreResult<Decision> {
    sqlx::query("SELECT id FROM api_keys WHERE id = $1 FOR NO KEY UPDATE")
        .bind(key_id)
        .fetch_optional(&mut **tx)
        .await?;
    let used = window_counts(tx, key_id, windows).await?;
    let decision = limits::decide(windows, &used);
    if let Decision::Allowed(_) = decision {
        for (w, u) in windows.iter().zip(&used) {
            sqlx::query(
                "INSERT INTO rate_windows (key_id, kind, window_start, used) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (key_id, kind) DO UPDATE SET \
                 window_start = excluded.window_start, used = excluded.used",
            )
            .bind(key_id)
            .bind(w.kind.as_str())
            .bind(w.start)
            .bind(i64::from(*u) + 1)
            .execute(&mut **tx)
            .await?;
        }
    }
    Ok(decision)
}

/// Current counts of `windows` for a key; a stored count from an earlier window is 0.
async fn window_counts(
    tx: &mut Transaction<'static, Postgres>,
    key_id: &str,
    windows: &[Window],
) -> StoreResult<Vec<u32>> {
    let rows: Vec<(String, i64, i64)> =
        sqlx::query_as("SELECT kind, window_start, used FROM rate_windows WHERE key_id = $1")
            .bind(key_id)
            .fetch_all(&mut **tx)
            .await?;
    let stored = rows
        .into_iter()
        .map(|(kind, start, used)| {
            let used = u32::try_from(used)
                .map_err(|_| StoreError::Corrupt(format!("rate window count {used}")))?;
            Ok((kind, start, used))
        })
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(super::current_counts(windows, &stored))
}

async fn insert_key(tx: &mut Transaction<'static, Postgres>, key: &KeyRecord) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO api_keys (id, org_id, name, scope, key_digest, display_prefix, \
         delivery_secret, per_hour, per_day, drift_per_hour, created_at, revoked_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(&key.id)
    .bind(&key.org_id)
    .bind(&key.name)
    .bind(key.scope.as_str())
    .bind(&key.digest)
    .bind(&key.display_prefix)
    .bind(&key.delivery_secret)
    .bind(i64::from(key.plan.per_hour))
    .bind(i64::from(key.plan.per_day))
    .bind(i64::from(key.plan.drift_per_hour))
    .bind(ms(&key.created_at))
    .bind(key.revoked_at.as_ref().map(ms))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Announces on `channel`; delivered to listeners when the transaction commits.
async fn notify(tx: &mut Transaction<'static, Postgres>, channel: &str) -> StoreResult<()> {
    sqlx::query("SELECT pg_notify($1, '')")
        .bind(channel)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

#[async_trait]
impl Store for PgStore {
    async fn create_key(&self, key: &KeyRecord) -> StoreResult<()> {
        let mut tx = self.pool.begin().await?;
        insert_key(&mut tx, key).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn create_first_key(&self, key: &KeyRecord) -> StoreResult<bool> {
        let mut tx = self.pool.begin().await?;
        // Blocks other writers of api_keys (and this same statement in other
        // processes) until commit; readers are not blocked.
        sqlx::query("LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE")
            .execute(&mut *tx)
            .await?;
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
        let mut tx = self.pool.begin().await?;
        let done =
            sqlx::query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
                .bind(ms(&at))
                .bind(id)
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        // Revocation is total: what was still to be delivered to the key's endpoints
        // (its webhooks, and the webhook_url of its ingests) is cancelled with it.
        sqlx::query(
            "UPDATE deliveries SET status = 'failed', error = $1, completed_at = $2, \
             lease_token = NULL, lease_until_ms = NULL WHERE status = 'pending' \
             AND (key_id = $3 OR webhook_id IN (SELECT id FROM webhooks WHERE key_id = $3))",
        )
        .bind(super::webhooks::KEY_REVOKED)
        .bind(ms(&at))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn find_key(&self, digest: &[u8; 32]) -> StoreResult<Option<KeyRecord>> {
        sqlx::query("SELECT * FROM api_keys WHERE key_digest = $1")
            .bind(&digest[..])
            .fetch_optional(&self.pool)
            .await?
            .as_ref()
            .map(key_from_row)
            .transpose()
    }

    async fn charge(&self, key_id: &str, windows: &[Window]) -> StoreResult<Decision> {
        let mut tx = self.pool.begin().await?;
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
        let mut tx = self.pool.begin().await?;
        let quota = match charge {
            Some(windows) => match charge_in(&mut tx, &s.key_id, windows).await? {
                Decision::Allowed(q) => Some(q),
                // Dropping the transaction rolls it back: nothing was counted.
                Decision::Refused(q) => return Ok(Enqueued::RateLimited(q)),
            },
            None => None,
        };
        // Not locked: processes ingesting at the same moment may each see room, so
        // the queue can pass its capacity by the ingests in flight (docs/deploy.md).
        let depth: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&mut *tx)
            .await?;
        if u64::try_from(depth).unwrap_or(0) >= limit.capacity {
            return Ok(Enqueued::QueueFull);
        }
        let held: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM jobs j JOIN sessions s ON s.id = j.session_id \
             WHERE s.key_id = $1",
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
             VALUES ($1, $2, $3, $4, $5, $6, 'received', $7, $8, $9)",
        )
        .bind(&s.id)
        .bind(s.kind.as_str())
        .bind(&s.org_id)
        .bind(&s.key_id)
        .bind(&s.deployment_id)
        .bind(i64::try_from(s.event_count).unwrap_or(i64::MAX))
        .bind(&s.webhook_url)
        .bind(&s.labels)
        .bind(ms(&s.created_at))
        .execute(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO session_inputs (session_id, body) VALUES ($1, $2)")
            .bind(&s.id)
            .bind(&s.body)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO jobs (session_id, kind) VALUES ($1, $2)")
            .bind(&s.id)
            .bind(s.kind.as_str())
            .execute(&mut *tx)
            .await?;
        notify(&mut tx, JOBS_CHANNEL).await?;
        tx.commit().await?;
        Ok(Enqueued::Accepted(quota))
    }

    async fn session(&self, id: &str, org_id: &str) -> StoreResult<Option<SessionRecord>> {
        sqlx::query("SELECT * FROM sessions WHERE id = $1 AND org_id = $2")
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
        Ok(sqlx::query_scalar(
            "SELECT MIN(s.created_at) FROM jobs j JOIN sessions s ON s.id = j.session_id",
        )
        .fetch_one(&self.pool)
        .await?)
    }

    async fn claim(
        &self,
        now_ms: i64,
        lease_ms: i64,
        max_attempts: u32,
        lost: &LostJob,
    ) -> StoreResult<(Option<Job>, Reaped)> {
        let mut tx = self.pool.begin().await?;
        let mut reaped = Reaped::default();
        // Expired leases: rows another process is reaping right now are skipped.
        let expired = sqlx::query(
            "SELECT j.session_id, j.attempts, j.kind, s.org_id, s.key_id, s.deployment_id, \
             s.webhook_url, s.event_count FROM jobs j JOIN sessions s ON s.id = j.session_id \
             WHERE j.leased AND j.lease_until_ms <= $1 \
             ORDER BY j.seq FOR UPDATE OF j SKIP LOCKED",
        )
        .bind(now_ms)
        .fetch_all(&mut *tx)
        .await?;
        for row in expired {
            let session_id: String = row.try_get("session_id")?;
            let attempts = count(&row, "attempts")?;
            if attempts >= max_attempts {
                let error = super::lost_worker_error(attempts);
                sqlx::query("DELETE FROM jobs WHERE session_id = $1")
                    .bind(&session_id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "UPDATE sessions SET status = 'failed', completed_at = NULL, error = $1 \
                     WHERE id = $2",
                )
                .bind(&error)
                .bind(&session_id)
                .execute(&mut *tx)
                .await?;
                // The session's `intelligence.ready` (failed) goes out with the failure.
                let job = job_from_row(&row, attempts, String::new(), Vec::new())?;
                if job.kind == SessionKind::Ingest {
                    let at = super::time_from_ms(now_ms)?;
                    let effects = lost(&job, &error, at);
                    webhooks::apply_effects(&mut tx, &job, &effects, at).await?;
                }
                reaped.failed += 1;
            } else {
                sqlx::query(
                    "UPDATE jobs SET leased = FALSE, lease_token = NULL, lease_until_ms = NULL \
                     WHERE session_id = $1",
                )
                .bind(&session_id)
                .execute(&mut *tx)
                .await?;
                sqlx::query("UPDATE sessions SET status = 'received' WHERE id = $1")
                    .bind(&session_id)
                    .execute(&mut *tx)
                    .await?;
                reaped.requeued += 1;
            }
        }
        // The oldest waiting job no other worker holds. The job row is locked; the
        // session and input rows are only read.
        let next = sqlx::query(
            "SELECT j.session_id, j.kind, j.attempts, i.body, s.org_id, s.key_id, \
             s.deployment_id, s.webhook_url, s.event_count FROM jobs j \
             JOIN session_inputs i ON i.session_id = j.session_id \
             JOIN sessions s ON s.id = j.session_id \
             WHERE NOT j.leased ORDER BY j.seq LIMIT 1 FOR UPDATE OF j SKIP LOCKED",
        )
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = next else {
            tx.commit().await?;
            return Ok((None, reaped));
        };
        let attempts = count(&row, "attempts")?;
        let token = uuid::Uuid::new_v4().simple().to_string();
        let job = job_from_row(&row, attempts + 1, token, row.try_get("body")?)?;
        sqlx::query(
            "UPDATE jobs SET leased = TRUE, attempts = $1, lease_token = $2, \
             lease_until_ms = $3 WHERE session_id = $4",
        )
        .bind(i64::from(job.attempt))
        .bind(&job.token)
        .bind(now_ms + lease_ms)
        .bind(&job.session_id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE sessions SET status = 'processing' WHERE id = $1")
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
        let mut tx = self.pool.begin().await?;
        // Checks the claim: after a reclaim the token differs and nothing is written.
        // The row lock this takes makes a concurrent reaper skip the row.
        let held = sqlx::query("DELETE FROM jobs WHERE session_id = $1 AND lease_token = $2")
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
                    "UPDATE sessions SET status = 'complete', completed_at = $1, error = NULL, \
                     environment_type = $2, plain_summary = $3, plain_recommendations = $4, \
                     condensed = $5, full_output_lz4 = $6, completions = completions + 1 \
                     WHERE id = $7",
                )
                .bind(ms(&at))
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
                sqlx::query("UPDATE sessions SET status = 'failed', error = $1 WHERE id = $2")
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
        let mut tx = self.pool.begin().await?;
        let held = sqlx::query(
            "UPDATE jobs SET leased = FALSE, attempts = attempts - 1, lease_token = NULL, \
             lease_until_ms = NULL WHERE session_id = $1 AND lease_token = $2",
        )
        .bind(&job.session_id)
        .bind(&job.token)
        .execute(&mut *tx)
        .await?;
        if held.rows_affected() == 1 {
            sqlx::query("UPDATE sessions SET status = 'received' WHERE id = $1")
                .bind(&job.session_id)
                .execute(&mut *tx)
                .await?;
            notify(&mut tx, JOBS_CHANNEL).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn renew(&self, job: &Job, until_ms: i64) -> StoreResult<bool> {
        let mut tx = self.pool.begin().await?;
        let held = sqlx::query(
            "UPDATE jobs SET lease_until_ms = $1 WHERE session_id = $2 AND lease_token = $3",
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
        let mut tx = self.pool.begin().await?;
        let cutoff = ms(&before);
        sqlx::query(concat!(
            "DELETE FROM session_inputs WHERE session_id IN (",
            "SELECT id FROM sessions WHERE created_at < $1 AND status IN ('complete', 'failed'))"
        ))
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
        let sessions = sqlx::query(
            "DELETE FROM sessions WHERE created_at < $1 AND status IN ('complete', 'failed')",
        )
        .bind(cutoff)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        sqlx::query(concat!(
            "DELETE FROM delivery_attempts WHERE delivery_id IN ",
            "(SELECT id FROM deliveries WHERE event_id IN (",
            "SELECT id FROM webhook_events e WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')))"
        ))
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
        sqlx::query(concat!(
            "DELETE FROM deliveries WHERE event_id IN (",
            "SELECT id FROM webhook_events e WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending'))"
        ))
        .bind(cutoff)
        .execute(&mut *tx)
        .await?;
        let events = sqlx::query(concat!(
            "DELETE FROM webhook_events WHERE id IN (",
            "SELECT id FROM webhook_events e WHERE e.created_at < $1 AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending'))"
        ))
            .bind(cutoff)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let history = sqlx::query("DELETE FROM conversation_history WHERE started_at_ms < $1")
            .bind(history_before.timestamp_millis())
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let reports = sqlx::query("DELETE FROM health_reports WHERE created_at < $1")
            .bind(cutoff)
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

    fn listen(&self, wake: Wake) -> Option<JoinHandle<()>> {
        let pool = self.listen_pool.clone();
        Some(tokio::spawn(async move {
            loop {
                if let Err(e) = relay(&pool, &wake).await {
                    tracing::warn!(error = %e, "LISTEN connection lost; polling until it is back");
                }
                tokio::time::sleep(LISTEN_RETRY).await;
                // Anything announced while disconnected is found by the next claim.
                wake.jobs.notify_one();
                wake.deliveries.notify_one();
            }
        }))
    }
}

/// Listens on both channels and wakes the matching workers until the connection
/// fails.
async fn relay(pool: &PgPool, wake: &Wake) -> StoreResult<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener
        .listen_all([JOBS_CHANNEL, DELIVERIES_CHANNEL])
        .await?;
    loop {
        // `None`: the connection was lost (notifications meanwhile may be lost too);
        // the caller wakes everyone and listens again.
        let Some(n) = listener.try_recv().await? else {
            return Ok(());
        };
        if n.channel() == JOBS_CHANNEL {
            wake.jobs.notify_one();
        } else {
            wake.deliveries.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_size_is_taken_out_of_the_url() {
        let (url, n) = split_pool_size("postgres://u:p@db:5432/ut?pool_size=3&sslmode=require")
            .expect("valid");
        assert_eq!(
            (url.as_str(), n),
            ("postgres://u:p@db:5432/ut?sslmode=require", 3)
        );
        let (url, n) = split_pool_size("postgres://db/ut?pool_size=7").expect("valid");
        assert_eq!((url.as_str(), n), ("postgres://db/ut", 7));
        let (url, n) = split_pool_size("postgres://db/ut").expect("valid");
        assert_eq!(
            (url.as_str(), n),
            ("postgres://db/ut", DEFAULT_MAX_CONNECTIONS)
        );
        assert!(split_pool_size("postgres://db/ut?pool_size=0").is_err());
        assert!(split_pool_size("postgres://db/ut?pool_size=x").is_err());
    }
}
