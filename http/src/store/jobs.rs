//! The job queue: a session enqueued with its input and its job, then claimed (with
//! the reaping of expired leases), renewed, finished or released; its depth and age.

use chrono::{DateTime, Utc};

use super::db::{Channel, Lock, Query, Row, Tx, query};
use super::history::{Effects, apply_effects};
use super::keys::charge_in;
use super::sessions::SessionKind;
use super::{Store, StoreResult, time_from_ms};
use crate::limits::{Decision, Quota, Window};

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
    /// The request's `Idempotency-Key`, when it sent one.
    pub idempotency: Option<Idempotency>,
}

/// An `Idempotency-Key` sent with a request that starts a session, and a digest of
/// that request (its route and body), which tells a repeat from a reuse of the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idempotency {
    /// The key, as the client sent it.
    pub key: String,
    /// Hex SHA-256 of the route and the body.
    pub digest: String,
}

/// The session an earlier request with the same `Idempotency-Key` started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Earlier {
    /// Its id.
    pub session_id: String,
    /// Its events, as its 202 said.
    pub event_count: u64,
    /// Whether that request was this one (same route, same body).
    pub same_request: bool,
}

/// Whether a session was queued.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// A request with the same `Idempotency-Key` started a session before; nothing was
    /// written or counted.
    Earlier(Earlier),
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

/// What a job that failed for good without finishing causes (its session's failed
/// `intelligence.ready`): a rule of the webhooks module, which the caller of
/// [`Store::claim`] passes in (`webhooks::emit::failure_effects`).
pub type LostJob = dyn Fn(&Job, &str, DateTime<Utc>) -> Effects + Send + Sync;

/// The error of a session whose job was claimed `attempts` times and never finished.
/// A running worker renews its lease, so a lease runs out only when its worker stopped
/// (the process ended or lost the database).
fn lost_worker_error(attempts: u32) -> String {
    format!(
        "processing stopped without finishing {attempts} times (the worker was lost each \
         time); giving up"
    )
}

/// The session of `key_id` that holds `Idempotency-Key` `key`.
fn earlier_query<'q>(key_id: &'q str, key: &'q str) -> Query<'q> {
    query(
        "SELECT id, event_count, request_digest FROM sessions \
         WHERE key_id = $1 AND idempotency_key = $2",
    )
    .bind(key_id)
    .bind(key)
}

/// [`Store::earlier`] inside a transaction.
async fn earlier_in(
    tx: &mut Tx,
    key_id: &str,
    idempotency: &Idempotency,
) -> StoreResult<Option<Earlier>> {
    let row = tx
        .fetch_optional(earlier_query(key_id, &idempotency.key))
        .await?;
    row.map(|r| earlier_from_row(&r, idempotency)).transpose()
}

fn earlier_from_row(row: &Row, idempotency: &Idempotency) -> StoreResult<Earlier> {
    Ok(Earlier {
        session_id: row.str("id")?,
        event_count: u64::try_from(row.i64("event_count")?).unwrap_or(0),
        same_request: row.opt_str("request_digest")?.as_deref() == Some(&idempotency.digest),
    })
}

/// A job from a row of `jobs` joined with its session.
fn job_from_row(row: &Row, attempt: u32, token: String, body: Vec<u8>) -> StoreResult<Job> {
    Ok(Job {
        session_id: row.str("session_id")?,
        kind: SessionKind::parse(&row.str("kind")?)?,
        org_id: row.str("org_id")?,
        key_id: row.str("key_id")?,
        deployment_id: row.opt_str("deployment_id")?,
        webhook_url: row.opt_str("webhook_url")?,
        event_count: usize::try_from(row.i64("event_count")?).unwrap_or(0),
        attempt,
        token,
        body,
    })
}

/// Fails the job of `row` for good (its lease expired once too often), or gives it
/// back to the queue; true when it failed.
async fn reap(
    tx: &mut Tx,
    row: &Row,
    now_ms: i64,
    max_attempts: u32,
    lost: &LostJob,
) -> StoreResult<bool> {
    let session_id = row.str("session_id")?;
    let attempts = row.u32("attempts")?;
    if attempts < max_attempts {
        tx.execute(
            query(
                "UPDATE jobs SET leased = FALSE, lease_token = NULL, lease_until_ms = NULL \
                 WHERE session_id = $1",
            )
            .bind(&session_id),
        )
        .await?;
        tx.execute(
            query("UPDATE sessions SET status = 'received' WHERE id = $1").bind(&session_id),
        )
        .await?;
        return Ok(false);
    }
    let error = lost_worker_error(attempts);
    tx.execute(query("DELETE FROM jobs WHERE session_id = $1").bind(&session_id))
        .await?;
    tx.execute(
        query(
            "UPDATE sessions SET status = 'failed', completed_at = NULL, error = $1 WHERE id = $2",
        )
        .bind(&error)
        .bind(&session_id),
    )
    .await?;
    // The session's `intelligence.ready` (failed) goes out with the failure.
    let job = job_from_row(row, attempts, String::new(), Vec::new())?;
    if job.kind == SessionKind::Ingest {
        let at = time_from_ms(now_ms)?;
        let effects = lost(&job, &error, at);
        apply_effects(tx, &job, &effects, at).await?;
    }
    Ok(true)
}

impl Store {
    /// Writes the session, its input and its job in one transaction, unless the queue
    /// already holds `capacity` jobs. With `charge`, the same transaction also counts
    /// the request against those windows of the session's key, and writes nothing
    /// when one is full: a session is started and counted, or neither.
    pub async fn enqueue(
        &self,
        s: &NewSession,
        limit: QueueLimit,
        charge: Option<&[Window]>,
    ) -> StoreResult<Enqueued> {
        let mut tx = self.pool.begin_write().await?;
        // A repeat is answered with what it started, whatever the queue holds now.
        if let Some(idempotency) = &s.idempotency
            && let Some(earlier) = earlier_in(&mut tx, &s.key_id, idempotency).await?
        {
            return Ok(Enqueued::Earlier(earlier));
        }
        let quota = match charge {
            Some(windows) => match charge_in(&mut tx, &s.key_id, windows).await? {
                Decision::Allowed(q) => Some(q),
                // Dropping the transaction rolls it back: nothing was counted.
                Decision::Refused(q) => return Ok(Enqueued::RateLimited(q)),
            },
            None => None,
        };
        // On PostgreSQL not locked: processes ingesting at the same moment may each see
        // room, so the queue can pass its capacity by the ingests in flight
        // (docs/deploy.md). SQLite's write lock makes the count exact.
        let depth = tx
            .fetch_one(query("SELECT COUNT(*) AS n FROM jobs"))
            .await?
            .i64("n")?;
        if u64::try_from(depth).unwrap_or(0) >= limit.capacity {
            return Ok(Enqueued::QueueFull);
        }
        let held = tx
            .fetch_one(
                query(
                    "SELECT COUNT(*) AS n FROM jobs j JOIN sessions s ON s.id = j.session_id \
                     WHERE s.key_id = $1",
                )
                .bind(&s.key_id),
            )
            .await?
            .i64("n")?;
        if u64::try_from(held).unwrap_or(0) >= limit.per_key {
            return Ok(Enqueued::KeyShareFull(limit.per_key));
        }
        let inserted = tx
            .execute(
                query(
                    "INSERT INTO sessions (id, kind, org_id, key_id, deployment_id, event_count, \
                     status, webhook_url, labels, created_at, idempotency_key, request_digest) \
                     VALUES ($1, $2, $3, $4, $5, $6, 'received', $7, $8, $9, $10, $11)",
                )
                .bind(&s.id)
                .bind(s.kind.as_str())
                .bind(&s.org_id)
                .bind(&s.key_id)
                .bind(&s.deployment_id)
                .bind(i64::try_from(s.event_count).unwrap_or(i64::MAX))
                .bind(&s.webhook_url)
                .bind(&s.labels)
                .bind(s.created_at)
                .bind(s.idempotency.as_ref().map(|i| i.key.as_str()))
                .bind(s.idempotency.as_ref().map(|i| i.digest.as_str())),
            )
            .await;
        match (inserted, &s.idempotency) {
            (Ok(_), _) => {}
            // A request with the same key committed first (PostgreSQL, where two
            // processes may both have found none): this one answers with its session.
            (Err(e), Some(idempotency)) if e.is_unique_violation() => {
                drop(tx);
                return match self.earlier(&s.key_id, idempotency).await? {
                    Some(earlier) => Ok(Enqueued::Earlier(earlier)),
                    None => Err(e),
                };
            }
            (Err(e), _) => return Err(e),
        }
        tx.execute(
            query("INSERT INTO session_inputs (session_id, body) VALUES ($1, $2)")
                .bind(&s.id)
                .bind(&s.body),
        )
        .await?;
        tx.execute(
            query("INSERT INTO jobs (session_id, kind) VALUES ($1, $2)")
                .bind(&s.id)
                .bind(s.kind.as_str()),
        )
        .await?;
        tx.notify(Channel::Jobs).await?;
        tx.commit().await?;
        Ok(Enqueued::Accepted(quota))
    }

    /// The session a request of `key_id` with the same `Idempotency-Key` started, if
    /// one did and is still kept.
    pub async fn earlier(
        &self,
        key_id: &str,
        idempotency: &Idempotency,
    ) -> StoreResult<Option<Earlier>> {
        let row = self
            .pool
            .fetch_optional(earlier_query(key_id, &idempotency.key))
            .await?;
        row.map(|r| earlier_from_row(&r, idempotency)).transpose()
    }

    /// Jobs waiting or running.
    pub async fn queue_depth(&self) -> StoreResult<u64> {
        let n = self
            .pool
            .fetch_one(query("SELECT COUNT(*) AS n FROM jobs"))
            .await?
            .i64("n")?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// When the oldest job waiting or running was accepted, if any.
    pub async fn queue_oldest(&self) -> StoreResult<Option<DateTime<Utc>>> {
        self.pool
            .fetch_one(query(
                "SELECT MIN(s.created_at) AS oldest FROM jobs j \
                 JOIN sessions s ON s.id = j.session_id",
            ))
            .await?
            .opt_time("oldest")
    }

    /// Requeues jobs whose lease ended before `now_ms` (or fails them after
    /// `max_attempts`, writing what `lost(job, error, at)` says such a failure causes,
    /// in the same transaction), then leases the oldest waiting job until
    /// `now_ms + lease_ms`.
    pub async fn claim(
        &self,
        now_ms: i64,
        lease_ms: i64,
        max_attempts: u32,
        lost: &LostJob,
    ) -> StoreResult<(Option<Job>, Reaped)> {
        let mut tx = self.pool.begin_write().await?;
        let mut reaped = Reaped::default();
        // Expired leases, oldest first; on PostgreSQL rows another process is reaping
        // right now are skipped.
        let expired = tx
            .fetch_all(
                query(
                    "SELECT j.session_id, j.attempts, j.kind, s.org_id, s.key_id, \
                     s.deployment_id, s.webhook_url, s.event_count FROM jobs j \
                     JOIN sessions s ON s.id = j.session_id \
                     WHERE j.leased = TRUE AND j.lease_until_ms <= $1 ORDER BY j.seq",
                )
                .bind(now_ms)
                .lock(Lock::SkipLocked("j")),
            )
            .await?;
        for row in &expired {
            if reap(&mut tx, row, now_ms, max_attempts, lost).await? {
                reaped.failed += 1;
            } else {
                reaped.requeued += 1;
            }
        }
        // The oldest waiting job no other worker holds. On PostgreSQL the job row is
        // locked; the session and input rows are only read.
        let next = tx
            .fetch_optional(
                query(
                    "SELECT j.session_id, j.kind, j.attempts, i.body, s.org_id, s.key_id, \
                     s.deployment_id, s.webhook_url, s.event_count FROM jobs j \
                     JOIN session_inputs i ON i.session_id = j.session_id \
                     JOIN sessions s ON s.id = j.session_id \
                     WHERE j.leased = FALSE ORDER BY j.seq LIMIT 1",
                )
                .lock(Lock::SkipLocked("j")),
            )
            .await?;
        let Some(row) = next else {
            tx.commit().await?;
            return Ok((None, reaped));
        };
        let token = uuid::Uuid::new_v4().simple().to_string();
        let job = job_from_row(&row, row.u32("attempts")? + 1, token, row.bytes("body")?)?;
        tx.execute(
            query(
                "UPDATE jobs SET leased = TRUE, attempts = $1, lease_token = $2, \
                 lease_until_ms = $3 WHERE session_id = $4",
            )
            .bind(job.attempt)
            .bind(&job.token)
            .bind(now_ms + lease_ms)
            .bind(&job.session_id),
        )
        .await?;
        tx.execute(
            query("UPDATE sessions SET status = 'processing' WHERE id = $1").bind(&job.session_id),
        )
        .await?;
        tx.commit().await?;
        Ok((Some(job), reaped))
    }

    /// Records the outcome of a claimed job and its effects (history, events and their
    /// deliveries, deploy markers) in one transaction; false, with nothing written,
    /// when the claim is no longer current (the lease expired and another worker took
    /// the job).
    pub async fn finish(
        &self,
        job: &Job,
        outcome: &Outcome,
        effects: &Effects,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        // Checks the claim: after a reclaim the token differs and nothing is written.
        // On PostgreSQL the row lock this takes makes a concurrent reaper skip the row.
        let held = tx
            .execute(
                query("DELETE FROM jobs WHERE session_id = $1 AND lease_token = $2")
                    .bind(&job.session_id)
                    .bind(&job.token),
            )
            .await?;
        if held != 1 {
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
                tx.execute(
                    query(
                        "UPDATE sessions SET status = 'complete', completed_at = $1, \
                         error = NULL, environment_type = $2, plain_summary = $3, \
                         plain_recommendations = $4, condensed = $5, full_output_lz4 = $6, \
                         completions = completions + 1 WHERE id = $7",
                    )
                    .bind(at)
                    .bind(environment_type)
                    .bind(plain_summary)
                    .bind(plain_recommendations)
                    .bind(condensed)
                    .bind(lz4_flex::compress_prepend_size(full_output.as_bytes()))
                    .bind(&job.session_id),
                )
                .await?;
            }
            Outcome::Failed(error) => {
                tx.execute(
                    query("UPDATE sessions SET status = 'failed', error = $1 WHERE id = $2")
                        .bind(error)
                        .bind(&job.session_id),
                )
                .await?;
            }
        }
        apply_effects(&mut tx, job, effects, at).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Gives a claimed job back unprocessed (shutdown), without counting the attempt.
    pub async fn release(&self, job: &Job) -> StoreResult<()> {
        let mut tx = self.pool.begin_write().await?;
        let held = tx
            .execute(
                query(
                    "UPDATE jobs SET leased = FALSE, attempts = attempts - 1, \
                     lease_token = NULL, lease_until_ms = NULL \
                     WHERE session_id = $1 AND lease_token = $2",
                )
                .bind(&job.session_id)
                .bind(&job.token),
            )
            .await?;
        if held == 1 {
            tx.execute(
                query("UPDATE sessions SET status = 'received' WHERE id = $1")
                    .bind(&job.session_id),
            )
            .await?;
            tx.notify(Channel::Jobs).await?;
        }
        tx.commit().await
    }

    /// Extends a claimed job's lease to `until_ms` (the worker's heartbeat); false when
    /// the claim is no longer current.
    pub async fn renew(&self, job: &Job, until_ms: i64) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        let held = tx
            .execute(
                query(
                    "UPDATE jobs SET lease_until_ms = $1 WHERE session_id = $2 \
                     AND lease_token = $3",
                )
                .bind(until_ms)
                .bind(&job.session_id)
                .bind(&job.token),
            )
            .await?;
        tx.commit().await?;
        Ok(held == 1)
    }
}
