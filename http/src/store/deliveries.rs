//! The outbox and its deliveries: emit events (one delivery per target endpoint),
//! claim due deliveries fairly across endpoints, record each attempt, list an
//! endpoint's delivery log, and say when the next one is due.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::db::{Channel, Lock, Row, Tx, query};
use super::{Store, StoreError, StoreResult, time_from_ms};

/// The error of an attempt cut off by its server stopping.
const INTERRUPTED: &str = "interrupted: the server stopped during this attempt";
/// The error of a delivery whose last attempt was cut off.
const INTERRUPTED_LAST: &str = "interrupted: the server stopped during the last attempt";
/// The error of a delivery that has no secret to sign it with any more.
const NO_SECRET: &str = "no signing secret: the endpoint or key is gone";

/// Who receives an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Targets {
    /// The organisation's endpoints subscribed to the event's kind, and optionally one
    /// more URL (an ingest request's `webhook_url`).
    Subscribers(Option<DirectTarget>),
    /// One endpoint, whatever it subscribed to (a test event).
    Webhook(String),
}

/// A URL that is not a registered endpoint: an ingest request's `webhook_url`, signed
/// with its key's delivery secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectTarget {
    /// The uniqueness key of the delivery (`ingest:` + session id).
    pub endpoint: String,
    /// The key whose delivery secret signs it.
    pub key_id: String,
    /// Where it goes.
    pub url: String,
}

/// An event to write to the outbox, with the exact bytes every delivery will send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// Stable event id (the envelope's `id`).
    pub id: String,
    /// The event kind.
    pub kind: String,
    /// The organisation.
    pub org_id: String,
    /// The deployment.
    pub deployment_id: String,
    /// The envelope's `created_at`.
    pub created_at: DateTime<Utc>,
    /// The envelope, serialised.
    pub body: Vec<u8>,
    /// Who receives it.
    pub targets: Targets,
}

/// Where a delivery is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Waiting for its next attempt (or in one).
    Pending,
    /// An attempt got a 2xx answer.
    Succeeded,
    /// Every attempt failed, or its endpoint was deleted first.
    Failed,
}

impl DeliveryStatus {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Succeeded => "succeeded",
            DeliveryStatus::Failed => "failed",
        }
    }

    pub(super) fn parse(s: &str) -> StoreResult<Self> {
        match s {
            "pending" => Ok(DeliveryStatus::Pending),
            "succeeded" => Ok(DeliveryStatus::Succeeded),
            "failed" => Ok(DeliveryStatus::Failed),
            other => Err(StoreError::Corrupt(format!(
                "unknown delivery status `{other}`"
            ))),
        }
    }
}

/// One attempt as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    /// 1 for the first.
    pub attempt: u32,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// How long it took (none when the server stopped during it).
    pub duration_ms: Option<u64>,
    /// The endpoint's status code, when it answered.
    pub response_status: Option<u16>,
    /// What went wrong.
    pub error: Option<String>,
    /// The first 16 KiB of the response body.
    pub response_body: Option<Vec<u8>>,
}

/// A delivery as stored, with its attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRecord {
    /// The delivery id, sent as `X-Undertone-Delivery` and `webhook-id`.
    pub id: String,
    /// The event.
    pub event_id: String,
    /// The event kind.
    pub event_type: String,
    /// Where it is.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// Status code of the last attempt.
    pub response_status: Option<u16>,
    /// Error of the last attempt.
    pub error: Option<String>,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
    /// When the last attempt started.
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// When the next attempt is due, while pending.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When it succeeded or failed for good.
    pub completed_at: Option<DateTime<Utc>>,
    /// Every attempt, first first.
    pub attempt_log: Vec<AttemptRecord>,
}

/// A claimed delivery: what the sender needs.
#[derive(Debug, Clone)]
pub struct DeliveryJob {
    /// The delivery id.
    pub id: String,
    /// The event kind.
    pub kind: String,
    /// Where to send it.
    pub url: String,
    /// The secret that signs it.
    pub secret: String,
    /// The envelope bytes.
    pub body: Vec<u8>,
    /// This attempt's number, 1 for the first.
    pub attempt: u32,
    /// Proves this claim when recording the attempt.
    pub token: String,
}

/// What happens to a delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// The attempt succeeded.
    Succeeded,
    /// Try again at this time (unix milliseconds).
    RetryAt(i64),
    /// No attempts left.
    Failed,
}

/// Where an event goes: the uniqueness key of the delivery, the endpoint (or the key
/// whose delivery secret signs it) and the URL.
struct Target {
    endpoint: String,
    webhook_id: Option<String>,
    key_id: Option<String>,
    url: String,
}

/// The endpoints an event goes to now (revoked keys' and disabled endpoints' none).
async fn targets(tx: &mut Tx, event: &NewEvent) -> StoreResult<Vec<Target>> {
    let mut out = Vec::new();
    match &event.targets {
        Targets::Subscribers(direct) => {
            let rows = tx
                .fetch_all(
                    query(
                        "SELECT w.id, w.url FROM webhooks w \
                         JOIN webhook_kinds k ON k.webhook_id = w.id \
                         JOIN api_keys a ON a.id = w.key_id AND a.revoked_at IS NULL \
                         WHERE w.org_id = $1 AND w.deleted_at IS NULL \
                         AND w.disabled_at IS NULL AND k.kind = $2 \
                         ORDER BY w.created_at, w.id",
                    )
                    .bind(&event.org_id)
                    .bind(&event.kind),
                )
                .await?;
            for row in rows {
                let id = row.str("id")?;
                out.push(Target {
                    endpoint: id.clone(),
                    webhook_id: Some(id),
                    key_id: None,
                    url: row.str("url")?,
                });
            }
            if let Some(d) = direct {
                out.push(Target {
                    endpoint: d.endpoint.clone(),
                    webhook_id: None,
                    key_id: Some(d.key_id.clone()),
                    url: d.url.clone(),
                });
            }
        }
        Targets::Webhook(id) => {
            let row = tx
                .fetch_optional(
                    query(
                        "SELECT w.url FROM webhooks w JOIN api_keys a ON a.id = w.key_id \
                         AND a.revoked_at IS NULL WHERE w.id = $1 AND w.deleted_at IS NULL \
                         AND w.disabled_at IS NULL",
                    )
                    .bind(id),
                )
                .await?;
            if let Some(row) = row {
                out.push(Target {
                    endpoint: id.clone(),
                    webhook_id: Some(id.clone()),
                    key_id: None,
                    url: row.str("url")?,
                });
            }
        }
    }
    Ok(out)
}

/// Writes events and their deliveries inside `tx`; returns the deliveries queued.
/// Queuing any announces it to every process's delivery worker on commit.
pub(super) async fn emit_in(
    tx: &mut Tx,
    events: &[NewEvent],
    at: DateTime<Utc>,
) -> StoreResult<u32> {
    let now_ms = at.timestamp_millis();
    let mut queued = 0;
    // In id order: events with derived ids (the same anomaly seen by two sessions)
    // are then locked in the same order by every transaction, never crosswise.
    let mut events: Vec<&NewEvent> = events.iter().collect();
    events.sort_by(|a, b| a.id.cmp(&b.id));
    for event in events {
        let targets = targets(tx, event).await?;
        if targets.is_empty() {
            continue;
        }
        tx.execute(
            query(
                "INSERT INTO webhook_events (id, kind, org_id, deployment_id, created_at, body) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
            )
            .bind(&event.id)
            .bind(&event.kind)
            .bind(&event.org_id)
            .bind(&event.deployment_id)
            .bind(event.created_at)
            .bind(&event.body),
        )
        .await?;
        for t in targets {
            let done = tx
                .execute(
                    query(
                        "INSERT INTO deliveries (id, event_id, endpoint, webhook_id, key_id, \
                         url, status, attempts, next_attempt_ms, created_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $8) \
                         ON CONFLICT (event_id, endpoint) DO NOTHING",
                    )
                    .bind(uuid::Uuid::new_v4().to_string())
                    .bind(&event.id)
                    .bind(&t.endpoint)
                    .bind(&t.webhook_id)
                    .bind(&t.key_id)
                    .bind(&t.url)
                    .bind(now_ms)
                    .bind(at),
                )
                .await?;
            queued += u32::try_from(done).unwrap_or(0);
        }
    }
    if queued > 0 {
        tx.notify(Channel::Deliveries).await?;
    }
    Ok(queued)
}

fn status_code(v: Option<i64>) -> Option<u16> {
    v.and_then(|c| u16::try_from(c).ok())
}

fn attempt_from_row(a: &Row) -> StoreResult<AttemptRecord> {
    Ok(AttemptRecord {
        attempt: a.u32("attempt")?,
        started_at: a.time("started_at")?,
        duration_ms: a
            .opt_i64("duration_ms")?
            .and_then(|d| u64::try_from(d).ok()),
        response_status: status_code(a.opt_i64("response_status")?),
        error: a.opt_str("error")?,
        response_body: a.opt_bytes("response_body")?,
    })
}

fn delivery_from_row(row: &Row, attempt_log: Vec<AttemptRecord>) -> StoreResult<DeliveryRecord> {
    let status = DeliveryStatus::parse(&row.str("status")?)?;
    Ok(DeliveryRecord {
        id: row.str("id")?,
        event_id: row.str("event_id")?,
        event_type: row.str("kind")?,
        status,
        attempts: row.u32("attempts")?,
        response_status: status_code(row.opt_i64("response_status")?),
        error: row.opt_str("error")?,
        created_at: row.time("created_at")?,
        last_attempt_at: row.opt_time("last_attempt_at")?,
        next_attempt_at: if status == DeliveryStatus::Pending {
            Some(time_from_ms(row.i64("next_attempt_ms")?)?)
        } else {
            None
        },
        completed_at: row.opt_time("completed_at")?,
        attempt_log,
    })
}

/// Leases the claimed delivery of `row` for its next attempt, or fails it (no attempts
/// left, or no secret to sign it with any more); the job to send, if any.
async fn lease(
    tx: &mut Tx,
    row: &Row,
    now_ms: i64,
    lease_ms: i64,
    max_attempts: u32,
) -> StoreResult<Option<DeliveryJob>> {
    let id = row.str("id")?;
    let attempts = row.u32("attempts")?;
    let now = time_from_ms(now_ms)?;
    if row.opt_i64("lease_until_ms")?.is_some() {
        // Its last attempt's lease ran out: the server stopped during it.
        tx.execute(
            query(
                "UPDATE delivery_attempts SET error = $1 \
                 WHERE delivery_id = $2 AND attempt = $3 AND duration_ms IS NULL",
            )
            .bind(INTERRUPTED)
            .bind(&id)
            .bind(attempts),
        )
        .await?;
    }
    let (Some(secret), true) = (row.opt_str("secret")?, attempts < max_attempts) else {
        let error = if attempts >= max_attempts {
            INTERRUPTED_LAST
        } else {
            NO_SECRET
        };
        tx.execute(
            query(
                "UPDATE deliveries SET status = 'failed', error = $1, completed_at = $2, \
                 lease_token = NULL, lease_until_ms = NULL WHERE id = $3",
            )
            .bind(error)
            .bind(now)
            .bind(&id),
        )
        .await?;
        return Ok(None);
    };
    let job = DeliveryJob {
        id,
        kind: row.str("kind")?,
        url: row.str("url")?,
        secret,
        body: row.bytes("body")?,
        attempt: attempts + 1,
        token: uuid::Uuid::new_v4().simple().to_string(),
    };
    tx.execute(
        query(
            "UPDATE deliveries SET attempts = $1, lease_token = $2, lease_until_ms = $3, \
             last_attempt_at = $4 WHERE id = $5",
        )
        .bind(job.attempt)
        .bind(&job.token)
        .bind(now_ms + lease_ms)
        .bind(now)
        .bind(&job.id),
    )
    .await?;
    tx.execute(
        query(
            "INSERT INTO delivery_attempts (delivery_id, attempt, started_at) \
             VALUES ($1, $2, $3) ON CONFLICT (delivery_id, attempt) DO NOTHING",
        )
        .bind(&job.id)
        .bind(job.attempt)
        .bind(now),
    )
    .await?;
    Ok(Some(job))
}

/// Fails the pending deliveries of an endpoint inside `tx`, with `error` saying why
/// (the endpoint was deleted or disabled).
pub(super) async fn cancel_pending(
    tx: &mut Tx,
    webhook_id: &str,
    error: &str,
    at: DateTime<Utc>,
) -> StoreResult<()> {
    tx.execute(
        query(
            "UPDATE deliveries SET status = 'failed', error = $1, completed_at = $2, \
             lease_token = NULL, lease_until_ms = NULL \
             WHERE webhook_id = $3 AND status = 'pending'",
        )
        .bind(error)
        .bind(at)
        .bind(webhook_id),
    )
    .await?;
    Ok(())
}

impl Store {
    /// Writes events to the outbox with one delivery per target endpoint; an event
    /// already stored, or a delivery already queued for an endpoint, is not written
    /// again. Returns the deliveries queued.
    pub async fn emit(&self, events: &[NewEvent], at: DateTime<Utc>) -> StoreResult<u32> {
        let mut tx = self.pool.begin_write().await?;
        let n = emit_in(&mut tx, events, at).await?;
        tx.commit().await?;
        Ok(n)
    }

    /// Claims up to `limit` deliveries due at `now_ms` (including those whose lease
    /// expired mid-attempt: that attempt is recorded as interrupted, and a delivery
    /// with no attempts left fails). Fair across endpoints: round robin counting the
    /// attempts already in flight (an endpoint with none gets a free slot before one
    /// holding three, whichever delivery is older; then each endpoint's oldest due
    /// delivery first, then each one's second …), and no endpoint gets more than
    /// `per_endpoint` attempts in flight, so one slow or flooded endpoint cannot take
    /// every slot, nor keep the slots that free up.
    pub async fn claim_deliveries(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
        per_endpoint: u32,
        max_attempts: u32,
    ) -> StoreResult<Vec<DeliveryJob>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // A read first, so that an idle poll takes no write lock (SQLite) and opens no
        // transaction.
        let due = self
            .pool
            .fetch_optional(
                query(
                    "SELECT 1 AS due FROM deliveries WHERE status = 'pending' \
                     AND next_attempt_ms <= $1 \
                     AND (lease_until_ms IS NULL OR lease_until_ms <= $1) LIMIT 1",
                )
                .bind(now_ms),
            )
            .await?;
        if due.is_none() {
            return Ok(Vec::new());
        }
        let mut tx = self.pool.begin_write().await?;
        // Which ones, fairly across endpoints (round robin, per-endpoint cap). Window
        // functions cannot lock, so on PostgreSQL the rows are locked (and checked
        // again) after, passing over those another process is claiming or finishing.
        let ids = tx
            .fetch_all(
                query(
                    "WITH busy AS (SELECT endpoint, COUNT(*) AS n FROM deliveries \
                     WHERE status = 'pending' AND lease_until_ms > $1 GROUP BY endpoint), \
                     due AS (SELECT id, endpoint, next_attempt_ms, created_at, ROW_NUMBER() \
                     OVER (PARTITION BY endpoint ORDER BY next_attempt_ms, created_at, id) \
                     AS turn FROM deliveries WHERE status = 'pending' \
                     AND next_attempt_ms <= $1 \
                     AND (lease_until_ms IS NULL OR lease_until_ms <= $1)) \
                     SELECT due.id FROM due LEFT JOIN busy ON busy.endpoint = due.endpoint \
                     WHERE due.turn + COALESCE(busy.n, 0) <= $2 \
                     ORDER BY due.turn + COALESCE(busy.n, 0), due.turn, due.next_attempt_ms, \
                     due.created_at, due.id LIMIT $3",
                )
                .bind(now_ms)
                .bind(per_endpoint)
                .bind(limit),
            )
            .await?
            .iter()
            .map(|r| r.str("id"))
            .collect::<StoreResult<Vec<_>>>()?;
        let mut rows = tx
            .fetch_all(
                query(
                    "SELECT d.id, d.url, d.attempts, d.lease_until_ms, e.kind, e.body, \
                     COALESCE(w.secret, k.delivery_secret) AS secret \
                     FROM deliveries d JOIN webhook_events e ON e.id = d.event_id \
                     LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.deleted_at IS NULL \
                     AND w.disabled_at IS NULL \
                     AND w.key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NULL) \
                     LEFT JOIN api_keys k ON k.id = d.key_id AND k.revoked_at IS NULL \
                     WHERE d.status = 'pending' AND d.next_attempt_ms <= $1 \
                     AND (d.lease_until_ms IS NULL OR d.lease_until_ms <= $1) \
                     AND d.id IN ($list)",
                )
                .bind(now_ms)
                .bind_list(&ids)
                .lock(Lock::SkipLocked("d")),
            )
            .await?;
        // In the fair order.
        rows.sort_by_key(|r| {
            let id = r.str("id").unwrap_or_default();
            ids.iter().position(|x| *x == id)
        });
        let mut jobs = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(job) = lease(&mut tx, row, now_ms, lease_ms, max_attempts).await? {
                jobs.push(job);
            }
        }
        tx.commit().await?;
        Ok(jobs)
    }

    /// Records a claimed attempt and what comes next; false when the claim is stale.
    pub async fn finish_delivery(
        &self,
        job: &DeliveryJob,
        attempt: &AttemptRecord,
        next: NextStep,
    ) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        let finished = attempt.started_at
            + chrono::Duration::milliseconds(
                i64::try_from(attempt.duration_ms.unwrap_or(0)).unwrap_or(0),
            );
        let (status, next_ms, completed) = match next {
            NextStep::Succeeded => ("succeeded", None, Some(finished)),
            NextStep::RetryAt(at) => ("pending", Some(at), None),
            NextStep::Failed => ("failed", None, Some(finished)),
        };
        // The webhook's row first, as delete_webhook locks it before the deliveries:
        // both take webhook then delivery, never crosswise. A stale claim rolls this
        // back below.
        tx.execute(
            query(
                "UPDATE webhooks SET last_delivery_at = $1, \
                 failure_count = CASE WHEN $2 THEN 0 ELSE failure_count + 1 END, \
                 failing_since = CASE WHEN $2 THEN NULL ELSE COALESCE(failing_since, $4) END \
                 WHERE id = (SELECT webhook_id FROM deliveries WHERE id = $3)",
            )
            .bind(finished)
            .bind(next == NextStep::Succeeded)
            .bind(&job.id)
            .bind(attempt.started_at),
        )
        .await?;
        let held = tx
            .execute(
                query(
                    "UPDATE deliveries SET status = $1, \
                     next_attempt_ms = COALESCE($2, next_attempt_ms), \
                     lease_token = NULL, lease_until_ms = NULL, \
                     response_status = $3, error = $4, completed_at = $5 \
                     WHERE id = $6 AND lease_token = $7",
                )
                .bind(status)
                .bind(next_ms)
                .bind(attempt.response_status.map(i64::from))
                .bind(&attempt.error)
                .bind(completed)
                .bind(&job.id)
                .bind(&job.token),
            )
            .await?;
        if held != 1 {
            return Ok(false);
        }
        tx.execute(
            query(
                "UPDATE delivery_attempts SET duration_ms = $1, response_status = $2, \
                 error = $3, response_body = $4 WHERE delivery_id = $5 AND attempt = $6",
            )
            .bind(
                attempt
                    .duration_ms
                    .map(|d| i64::try_from(d).unwrap_or(i64::MAX)),
            )
            .bind(attempt.response_status.map(i64::from))
            .bind(&attempt.error)
            .bind(&attempt.response_body)
            .bind(&job.id)
            .bind(job.attempt),
        )
        .await?;
        if matches!(next, NextStep::RetryAt(_)) {
            // Another process's delivery worker may be the one to retry it.
            tx.notify(Channel::Deliveries).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The earliest time (unix ms) a pending delivery is due, if any: its next attempt,
    /// or the end of its lease when that is later.
    pub async fn next_delivery_due(&self) -> StoreResult<Option<i64>> {
        self.pool
            .fetch_one(query(
                "SELECT MIN(CASE WHEN lease_until_ms > next_attempt_ms THEN lease_until_ms \
                 ELSE next_attempt_ms END) AS due FROM deliveries WHERE status = 'pending'",
            ))
            .await?
            .opt_i64("due")
    }

    /// Deliveries of an endpoint, newest first, after the delivery `after` (a cursor).
    pub async fn deliveries(
        &self,
        webhook_id: &str,
        after: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<DeliveryRecord>> {
        // Newest first by (created_at, id); the cursor is the last delivery seen (one
        // of another endpoint, or none at all, ends the list).
        let rows = self
            .pool
            .fetch_all(
                query(
                    "SELECT d.*, e.kind FROM deliveries d \
                     JOIN webhook_events e ON e.id = d.event_id \
                     LEFT JOIN deliveries c ON c.id = $2 AND c.webhook_id = d.webhook_id \
                     WHERE d.webhook_id = $1 AND ($2 IS NULL OR d.created_at < c.created_at \
                     OR (d.created_at = c.created_at AND d.id < c.id)) \
                     ORDER BY d.created_at DESC, d.id DESC LIMIT $3",
                )
                .bind(webhook_id)
                .bind(after)
                .bind(limit),
            )
            .await?;
        let ids = rows
            .iter()
            .map(|r| r.str("id"))
            .collect::<StoreResult<Vec<_>>>()?;
        // Every attempt of the page's deliveries in one query.
        let mut log: HashMap<String, Vec<AttemptRecord>> = HashMap::new();
        if !ids.is_empty() {
            let attempts = self
                .pool
                .fetch_all(
                    query(
                        "SELECT * FROM delivery_attempts WHERE delivery_id IN ($list) \
                         ORDER BY delivery_id, attempt",
                    )
                    .bind_list(&ids),
                )
                .await?;
            for a in &attempts {
                log.entry(a.str("delivery_id")?)
                    .or_default()
                    .push(attempt_from_row(a)?);
            }
        }
        rows.iter()
            .zip(&ids)
            .map(|(row, id)| delivery_from_row(row, log.remove(id).unwrap_or_default()))
            .collect()
    }
}
