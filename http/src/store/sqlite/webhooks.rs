//! The SQLite side of [`WebhookStore`]: endpoints, the outbox, deliveries and
//! attempts, history, deploy markers and health reports.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, Sqlite, Transaction};
use undertone_core::monitor::ConversationPoint;
use undertone_core::score::layer_z::ByDimension;

use super::SqliteStore;
use crate::store::webhooks::{
    AttemptRecord, DeliveryJob, DeliveryRecord, DeliveryStatus, DeployRecord, Disabled,
    ENDPOINT_DISABLED, Effects, INTERRUPTED, INTERRUPTED_LAST, NO_SECRET, NewDeploy, NewEvent,
    NextStep, ReportRecord, Targets, WebhookRecord, WebhookStore,
};
use crate::store::{Job, StoreError, StoreResult, format_time, parse_time, time_from_ms};

fn webhook_from_row(row: &SqliteRow, events: Vec<String>) -> StoreResult<WebhookRecord> {
    let last: Option<String> = row.try_get("last_delivery_at")?;
    Ok(WebhookRecord {
        id: row.try_get("id")?,
        org_id: row.try_get("org_id")?,
        key_id: row.try_get("key_id")?,
        url: row.try_get("url")?,
        secret: row.try_get("secret")?,
        events,
        created_at: parse_time(&row.try_get::<String, _>("created_at")?)?,
        last_delivery_at: last.as_deref().map(parse_time).transpose()?,
        failure_count: row.try_get("failure_count")?,
        disabled: match opt_time(row, "disabled_at")? {
            Some(at) => Some(Disabled {
                at,
                reason: row
                    .try_get::<Option<String>, _>("disabled_reason")?
                    .unwrap_or_default(),
            }),
            None => None,
        },
    })
}

fn opt_time(row: &SqliteRow, column: &str) -> StoreResult<Option<DateTime<Utc>>> {
    let t: Option<String> = row.try_get(column)?;
    t.as_deref().map(parse_time).transpose()
}

fn status_code(v: Option<i64>) -> Option<u16> {
    v.and_then(|c| u16::try_from(c).ok())
}

/// Writes events and their deliveries inside `tx`; returns the deliveries queued.
pub(super) async fn emit_in(
    tx: &mut Transaction<'static, Sqlite>,
    events: &[NewEvent],
    at: DateTime<Utc>,
) -> StoreResult<u32> {
    let now_ms = at.timestamp_millis();
    let created = format_time(&at);
    let mut queued = 0;
    for event in events {
        // (endpoint, webhook id, key id, url)
        let mut targets: Vec<(String, Option<String>, Option<String>, String)> = Vec::new();
        match &event.targets {
            Targets::Subscribers(direct) => {
                let rows = sqlx::query(
                    "SELECT w.id, w.url FROM webhooks w \
                     JOIN webhook_kinds k ON k.webhook_id = w.id \
                     JOIN api_keys a ON a.id = w.key_id AND a.revoked_at IS NULL \
                     WHERE w.org_id = ? AND w.deleted_at IS NULL AND w.disabled_at IS NULL AND k.kind = ? \
                     ORDER BY w.created_at, w.id",
                )
                .bind(&event.org_id)
                .bind(&event.kind)
                .fetch_all(&mut **tx)
                .await?;
                for row in rows {
                    let id: String = row.try_get("id")?;
                    targets.push((id.clone(), Some(id), None, row.try_get("url")?));
                }
                if let Some(d) = direct {
                    targets.push((
                        d.endpoint.clone(),
                        None,
                        Some(d.key_id.clone()),
                        d.url.clone(),
                    ));
                }
            }
            Targets::Webhook(id) => {
                let url: Option<String> = sqlx::query_scalar(
                    "SELECT w.url FROM webhooks w JOIN api_keys a ON a.id = w.key_id \
                     AND a.revoked_at IS NULL WHERE w.id = ? AND w.deleted_at IS NULL \
                     AND w.disabled_at IS NULL",
                )
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?;
                if let Some(url) = url {
                    targets.push((id.clone(), Some(id.clone()), None, url));
                }
            }
        }
        if targets.is_empty() {
            continue;
        }
        sqlx::query(
            "INSERT INTO webhook_events (id, kind, org_id, deployment_id, created_at, body) \
             VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&event.id)
        .bind(&event.kind)
        .bind(&event.org_id)
        .bind(&event.deployment_id)
        .bind(format_time(&event.created_at))
        .bind(&event.body)
        .execute(&mut **tx)
        .await?;
        for (endpoint, webhook_id, key_id, url) in targets {
            let done = sqlx::query(
                "INSERT INTO deliveries (id, event_id, endpoint, webhook_id, key_id, url, \
                 status, attempts, next_attempt_ms, created_at) \
                 VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) \
                 ON CONFLICT (event_id, endpoint) DO NOTHING",
            )
            .bind(uuid::Uuid::new_v4().to_string())
            .bind(&event.id)
            .bind(&endpoint)
            .bind(&webhook_id)
            .bind(&key_id)
            .bind(&url)
            .bind(now_ms)
            .bind(&created)
            .execute(&mut **tx)
            .await?;
            queued += u32::try_from(done.rows_affected()).unwrap_or(0);
        }
    }
    Ok(queued)
}

async fn create_deploy_in(tx: &mut Transaction<'static, Sqlite>, d: &NewDeploy) -> StoreResult<()> {
    sqlx::query(
        "INSERT INTO deploys (id, org_id, deployment_id, release, description, source, at_ms, \
         created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&d.id)
    .bind(&d.org_id)
    .bind(&d.deployment_id)
    .bind(&d.release)
    .bind(&d.description)
    .bind(d.source)
    .bind(d.at.timestamp_millis())
    .bind(format_time(&d.created_at))
    .execute(&mut **tx)
    .await?;
    // Only the newest markers of the deployment are kept.
    sqlx::query(
        "DELETE FROM deploys WHERE org_id = ? AND deployment_id = ? AND id NOT IN \
         (SELECT id FROM deploys WHERE org_id = ? AND deployment_id = ? \
         ORDER BY at_ms DESC, id DESC LIMIT ?)",
    )
    .bind(&d.org_id)
    .bind(&d.deployment_id)
    .bind(&d.org_id)
    .bind(&d.deployment_id)
    .bind(super::super::webhooks::MAX_DEPLOYS_PER_DEPLOYMENT)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Writes what an ingest job's completion causes, inside the transaction that
/// completes it.
pub(super) async fn apply_effects(
    tx: &mut Transaction<'static, Sqlite>,
    job: &Job,
    effects: &Effects,
    at: DateTime<Utc>,
) -> StoreResult<()> {
    if let Some(deployment) = &job.deployment_id {
        for p in &effects.history {
            let s = &p.scores;
            sqlx::query(
                "INSERT INTO conversation_history (org_id, deployment_id, conversation_id, \
                 session_id, started_at_ms, human_turns, resolved, abandoned, release, \
                 trust_calibration, frustration_buildup, dependency_drift, \
                 silent_abandonment_risk, escalation_friction, comprehension_gap) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) \
                 ON CONFLICT (org_id, deployment_id, conversation_id) DO UPDATE SET \
                 session_id = excluded.session_id, started_at_ms = excluded.started_at_ms, \
                 human_turns = excluded.human_turns, resolved = excluded.resolved, \
                 abandoned = excluded.abandoned, release = excluded.release, \
                 trust_calibration = excluded.trust_calibration, \
                 frustration_buildup = excluded.frustration_buildup, \
                 dependency_drift = excluded.dependency_drift, \
                 silent_abandonment_risk = excluded.silent_abandonment_risk, \
                 escalation_friction = excluded.escalation_friction, \
                 comprehension_gap = excluded.comprehension_gap",
            )
            .bind(&job.org_id)
            .bind(deployment)
            .bind(&p.conversation_id)
            .bind(&job.session_id)
            .bind(p.started_at.timestamp_millis())
            .bind(i64::try_from(p.human_turns).unwrap_or(i64::MAX))
            .bind(p.resolved)
            .bind(p.abandoned)
            .bind(&p.release)
            .bind(s.trust_calibration)
            .bind(s.frustration_buildup)
            .bind(s.dependency_drift)
            .bind(s.silent_abandonment_risk)
            .bind(s.escalation_friction)
            .bind(s.comprehension_gap)
            .execute(&mut **tx)
            .await?;
        }
    }
    for d in &effects.deploys {
        create_deploy_in(tx, d).await?;
    }
    for m in &effects.measured {
        sqlx::query(
            "UPDATE deploys SET measured_at = ?, result = ? WHERE id = ? AND measured_at IS NULL",
        )
        .bind(format_time(&at))
        .bind(&m.result)
        .bind(&m.deploy_id)
        .execute(&mut **tx)
        .await?;
    }
    emit_in(tx, &effects.events, at).await?;
    Ok(())
}

fn point_from_row(row: &SqliteRow) -> StoreResult<ConversationPoint> {
    let ms: i64 = row.try_get("started_at_ms")?;
    let turns: i64 = row.try_get("human_turns")?;
    Ok(ConversationPoint {
        conversation_id: row.try_get("conversation_id")?,
        started_at: time_from_ms(ms)?,
        human_turns: usize::try_from(turns)
            .map_err(|_| StoreError::Corrupt(format!("human turns {turns}")))?,
        resolved: row.try_get("resolved")?,
        abandoned: row.try_get("abandoned")?,
        release: row.try_get("release")?,
        scores: ByDimension {
            trust_calibration: row.try_get("trust_calibration")?,
            frustration_buildup: row.try_get("frustration_buildup")?,
            dependency_drift: row.try_get("dependency_drift")?,
            silent_abandonment_risk: row.try_get("silent_abandonment_risk")?,
            escalation_friction: row.try_get("escalation_friction")?,
            comprehension_gap: row.try_get("comprehension_gap")?,
        },
    })
}

fn deploy_from_row(row: &SqliteRow) -> StoreResult<DeployRecord> {
    let source: String = row.try_get("source")?;
    Ok(DeployRecord {
        deploy: NewDeploy {
            id: row.try_get("id")?,
            org_id: row.try_get("org_id")?,
            deployment_id: row.try_get("deployment_id")?,
            release: row.try_get("release")?,
            description: row.try_get("description")?,
            source: match source.as_str() {
                "api" => "api",
                "metadata" => "metadata",
                other => return Err(StoreError::Corrupt(format!("deploy source `{other}`"))),
            },
            at: time_from_ms(row.try_get("at_ms")?)?,
            created_at: parse_time(&row.try_get::<String, _>("created_at")?)?,
        },
        measured_at: opt_time(row, "measured_at")?,
        result: row.try_get("result")?,
    })
}

fn report_from_row(row: &SqliteRow) -> StoreResult<ReportRecord> {
    Ok(ReportRecord {
        id: row.try_get("id")?,
        org_id: row.try_get("org_id")?,
        deployment_id: row.try_get("deployment_id")?,
        period_start: parse_time(&row.try_get::<String, _>("period_start")?)?,
        period_end: parse_time(&row.try_get::<String, _>("period_end")?)?,
        trigger: row.try_get("trigger")?,
        created_at: parse_time(&row.try_get::<String, _>("created_at")?)?,
        report: row.try_get("report")?,
    })
}

impl SqliteStore {
    async fn webhook_kinds(&self, id: &str) -> StoreResult<Vec<String>> {
        Ok(
            sqlx::query_scalar("SELECT kind FROM webhook_kinds WHERE webhook_id = ? ORDER BY kind")
                .bind(id)
                .fetch_all(&self.pool)
                .await?,
        )
    }
}

#[async_trait]
impl WebhookStore for SqliteStore {
    async fn create_webhook(&self, w: &WebhookRecord, max_per_key: u32) -> StoreResult<bool> {
        // The write lock (BEGIN IMMEDIATE) is held from the count to the commit.
        let mut tx = self.write().await?;
        let active: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM webhooks WHERE key_id = ? AND deleted_at IS NULL",
        )
        .bind(&w.key_id)
        .fetch_one(&mut *tx)
        .await?;
        if active >= i64::from(max_per_key) {
            return Ok(false);
        }
        sqlx::query(
            "INSERT INTO webhooks (id, org_id, key_id, url, secret, created_at) \
             VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(&w.id)
        .bind(&w.org_id)
        .bind(&w.key_id)
        .bind(&w.url)
        .bind(&w.secret)
        .bind(format_time(&w.created_at))
        .execute(&mut *tx)
        .await?;
        for kind in &w.events {
            sqlx::query(
                "INSERT INTO webhook_kinds (webhook_id, kind) VALUES (?, ?) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(&w.id)
            .bind(kind)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn list_webhooks(&self, key_id: Option<&str>) -> StoreResult<Vec<WebhookRecord>> {
        let rows = sqlx::query(
            "SELECT * FROM webhooks WHERE (? IS NULL OR key_id = ?) AND deleted_at IS NULL \
             ORDER BY created_at, id",
        )
        .bind(key_id)
        .bind(key_id)
        .fetch_all(&self.pool)
        .await?;
        // Every kind of the key's endpoints in one query.
        let mut kinds: std::collections::HashMap<String, Vec<String>> =
            std::collections::HashMap::new();
        for k in sqlx::query(
            "SELECT webhook_id, kind FROM webhook_kinds WHERE webhook_id IN \
             (SELECT id FROM webhooks WHERE (? IS NULL OR key_id = ?) AND deleted_at IS NULL) \
             ORDER BY webhook_id, kind",
        )
        .bind(key_id)
        .bind(key_id)
        .fetch_all(&self.pool)
        .await?
        {
            kinds
                .entry(k.try_get("webhook_id")?)
                .or_default()
                .push(k.try_get("kind")?);
        }
        rows.iter()
            .map(|row| {
                let id: String = row.try_get("id")?;
                webhook_from_row(row, kinds.remove(&id).unwrap_or_default())
            })
            .collect()
    }

    async fn webhook(&self, id: &str, key_id: &str) -> StoreResult<Option<WebhookRecord>> {
        let row = sqlx::query(
            "SELECT * FROM webhooks WHERE id = ? AND key_id = ? AND deleted_at IS NULL",
        )
        .bind(id)
        .bind(key_id)
        .fetch_optional(&self.pool)
        .await?;
        match row {
            Some(row) => Ok(Some(webhook_from_row(&row, self.webhook_kinds(id).await?)?)),
            None => Ok(None),
        }
    }

    async fn disable_failing_webhooks(
        &self,
        failing_before: DateTime<Utc>,
        at: DateTime<Utc>,
        reason: &str,
    ) -> StoreResult<Vec<String>> {
        let mut tx = self.write().await?;
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM webhooks WHERE deleted_at IS NULL AND disabled_at IS NULL \
             AND failing_since IS NOT NULL AND failing_since < ? ORDER BY id",
        )
        .bind(format_time(&failing_before))
        .fetch_all(&mut *tx)
        .await?;
        for id in &ids {
            sqlx::query("UPDATE webhooks SET disabled_at = ?, disabled_reason = ? WHERE id = ?")
                .bind(format_time(&at))
                .bind(reason)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "UPDATE deliveries SET status = 'failed', error = ?, completed_at = ?, \
                 lease_token = NULL, lease_until_ms = NULL \
                 WHERE webhook_id = ? AND status = 'pending'",
            )
            .bind(ENDPOINT_DISABLED)
            .bind(format_time(&at))
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(ids)
    }

    async fn delete_webhook(
        &self,
        id: &str,
        key_id: Option<&str>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "UPDATE webhooks SET deleted_at = ? WHERE id = ? AND (? IS NULL OR key_id = ?) \
             AND deleted_at IS NULL",
        )
        .bind(format_time(&at))
        .bind(id)
        .bind(key_id)
        .bind(key_id)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE deliveries SET status = 'failed', error = 'the webhook was deleted', \
             completed_at = ?, lease_token = NULL, lease_until_ms = NULL \
             WHERE webhook_id = ? AND status = 'pending'",
        )
        .bind(format_time(&at))
        .bind(id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn deliveries(
        &self,
        webhook_id: &str,
        after: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<DeliveryRecord>> {
        // Newest first by (created_at, id); the cursor is the last delivery seen.
        let rows = match after {
            Some(cursor) => sqlx::query(
                "SELECT d.*, e.kind FROM deliveries d JOIN webhook_events e ON e.id = d.event_id \
                     JOIN deliveries c ON c.id = ? AND c.webhook_id = d.webhook_id \
                     WHERE d.webhook_id = ? AND (d.created_at < c.created_at \
                       OR (d.created_at = c.created_at AND d.id < c.id)) \
                     ORDER BY d.created_at DESC, d.id DESC LIMIT ?",
            )
            .bind(cursor)
            .bind(webhook_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?,
            None => sqlx::query(
                "SELECT d.*, e.kind FROM deliveries d JOIN webhook_events e ON e.id = d.event_id \
                     WHERE d.webhook_id = ? ORDER BY d.created_at DESC, d.id DESC LIMIT ?",
            )
            .bind(webhook_id)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?,
        };
        // Every attempt of the page's deliveries in one query.
        let ids: Vec<String> = rows
            .iter()
            .map(|r| r.try_get("id"))
            .collect::<Result<_, _>>()?;
        let mut log: std::collections::HashMap<String, Vec<AttemptRecord>> =
            std::collections::HashMap::new();
        if !ids.is_empty() {
            // Only `?` placeholders are formatted in; the ids are bound.
            let sql = format!(
                "SELECT * FROM delivery_attempts WHERE delivery_id IN ({}) \
                 ORDER BY delivery_id, attempt",
                vec!["?"; ids.len()].join(", ")
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for id in &ids {
                query = query.bind(id);
            }
            for a in query.fetch_all(&self.pool).await? {
                let duration: Option<i64> = a.try_get("duration_ms")?;
                log.entry(a.try_get("delivery_id")?)
                    .or_default()
                    .push(AttemptRecord {
                        attempt: a.try_get("attempt")?,
                        started_at: parse_time(&a.try_get::<String, _>("started_at")?)?,
                        duration_ms: duration.and_then(|d| u64::try_from(d).ok()),
                        response_status: status_code(a.try_get("response_status")?),
                        error: a.try_get("error")?,
                        response_body: a.try_get("response_body")?,
                    });
            }
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in &rows {
            let id: String = row.try_get("id")?;
            let status = DeliveryStatus::parse(&row.try_get::<String, _>("status")?)?;
            let next_ms: i64 = row.try_get("next_attempt_ms")?;
            let attempts = log.remove(&id).unwrap_or_default();
            out.push(DeliveryRecord {
                id,
                event_id: row.try_get("event_id")?,
                event_type: row.try_get("kind")?,
                status,
                attempts: row.try_get("attempts")?,
                response_status: status_code(row.try_get("response_status")?),
                error: row.try_get("error")?,
                created_at: parse_time(&row.try_get::<String, _>("created_at")?)?,
                last_attempt_at: opt_time(row, "last_attempt_at")?,
                next_attempt_at: if status == DeliveryStatus::Pending {
                    Some(time_from_ms(next_ms)?)
                } else {
                    None
                },
                completed_at: opt_time(row, "completed_at")?,
                attempt_log: attempts,
            });
        }
        Ok(out)
    }

    async fn emit(&self, events: &[NewEvent], at: DateTime<Utc>) -> StoreResult<u32> {
        let mut tx = self.write().await?;
        let n = emit_in(&mut tx, events, at).await?;
        tx.commit().await?;
        Ok(n)
    }

    async fn claim_deliveries(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
        per_endpoint: u32,
        max_attempts: u32,
    ) -> StoreResult<Vec<DeliveryJob>> {
        // A read first, so an idle poll never takes the write lock.
        let due: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM deliveries WHERE status = 'pending' AND next_attempt_ms <= ? \
             AND (lease_until_ms IS NULL OR lease_until_ms <= ?) LIMIT 1",
        )
        .bind(now_ms)
        .bind(now_ms)
        .fetch_optional(&self.pool)
        .await?;
        if due.is_none() || limit == 0 {
            return Ok(Vec::new());
        }
        let mut tx = self.write().await?;
        let now = time_from_ms(now_ms)?;
        // Which ones, fairly across endpoints (round robin, per-endpoint cap).
        let ids: Vec<String> = sqlx::query_scalar(
            "WITH busy AS (SELECT endpoint, COUNT(*) AS n FROM deliveries \
             WHERE status = 'pending' AND lease_until_ms > ? GROUP BY endpoint), \
             due AS (SELECT id, endpoint, next_attempt_ms, created_at, ROW_NUMBER() OVER \
             (PARTITION BY endpoint ORDER BY next_attempt_ms, created_at, id) AS turn \
             FROM deliveries WHERE status = 'pending' AND next_attempt_ms <= ? \
             AND (lease_until_ms IS NULL OR lease_until_ms <= ?)) \
             SELECT due.id FROM due LEFT JOIN busy ON busy.endpoint = due.endpoint \
             WHERE due.turn + COALESCE(busy.n, 0) <= ? \
             ORDER BY due.turn, due.next_attempt_ms, due.created_at, due.id LIMIT ?",
        )
        .bind(now_ms)
        .bind(now_ms)
        .bind(now_ms)
        .bind(per_endpoint)
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
        let listed = serde_json::to_string(&ids)
            .map_err(|e| StoreError::Corrupt(format!("delivery ids: {e}")))?;
        let mut rows = sqlx::query(
            "SELECT d.id, d.url, d.attempts, d.lease_until_ms, e.kind, e.body, \
             COALESCE(w.secret, k.delivery_secret) AS secret \
             FROM deliveries d JOIN webhook_events e ON e.id = d.event_id \
             LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.deleted_at IS NULL \
             AND w.disabled_at IS NULL \
             AND w.key_id IN (SELECT id FROM api_keys WHERE revoked_at IS NULL) \
             LEFT JOIN api_keys k ON k.id = d.key_id AND k.revoked_at IS NULL \
             WHERE d.id IN (SELECT value FROM json_each(?))",
        )
        .bind(listed)
        .fetch_all(&mut *tx)
        .await?;
        // In the fair order.
        rows.sort_by_key(|r| {
            let id: String = r.try_get("id").unwrap_or_default();
            ids.iter().position(|x| *x == id)
        });
        let mut jobs = Vec::with_capacity(rows.len());
        for row in rows {
            let id: String = row.try_get("id")?;
            let attempts: u32 = row.try_get("attempts")?;
            let interrupted = row.try_get::<Option<i64>, _>("lease_until_ms")?.is_some();
            if interrupted {
                sqlx::query(
                    "UPDATE delivery_attempts SET error = ? \
                     WHERE delivery_id = ? AND attempt = ? AND duration_ms IS NULL",
                )
                .bind(INTERRUPTED)
                .bind(&id)
                .bind(attempts)
                .execute(&mut *tx)
                .await?;
            }
            let secret: Option<String> = row.try_get("secret")?;
            let (Some(secret), true) = (secret, attempts < max_attempts) else {
                let error = if attempts >= max_attempts {
                    INTERRUPTED_LAST
                } else {
                    NO_SECRET
                };
                sqlx::query(
                    "UPDATE deliveries SET status = 'failed', error = ?, completed_at = ?, \
                     lease_token = NULL, lease_until_ms = NULL WHERE id = ?",
                )
                .bind(error)
                .bind(format_time(&now))
                .bind(&id)
                .execute(&mut *tx)
                .await?;
                continue;
            };
            let job = DeliveryJob {
                id,
                kind: row.try_get("kind")?,
                url: row.try_get("url")?,
                secret,
                body: row.try_get("body")?,
                attempt: attempts + 1,
                token: uuid::Uuid::new_v4().simple().to_string(),
            };
            sqlx::query(
                "UPDATE deliveries SET attempts = ?, lease_token = ?, lease_until_ms = ?, \
                 last_attempt_at = ? WHERE id = ?",
            )
            .bind(job.attempt)
            .bind(&job.token)
            .bind(now_ms + lease_ms)
            .bind(format_time(&now))
            .bind(&job.id)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO delivery_attempts (delivery_id, attempt, started_at) VALUES (?, ?, ?) \
                 ON CONFLICT (delivery_id, attempt) DO NOTHING",
            )
            .bind(&job.id)
            .bind(job.attempt)
            .bind(format_time(&now))
            .execute(&mut *tx)
            .await?;
            jobs.push(job);
        }
        tx.commit().await?;
        Ok(jobs)
    }

    async fn finish_delivery(
        &self,
        job: &DeliveryJob,
        attempt: &AttemptRecord,
        next: NextStep,
    ) -> StoreResult<bool> {
        let mut tx = self.write().await?;
        let finished = attempt.started_at
            + chrono::Duration::milliseconds(
                i64::try_from(attempt.duration_ms.unwrap_or(0)).unwrap_or(0),
            );
        let (status, next_ms, completed) = match next {
            NextStep::Succeeded => ("succeeded", 0, Some(format_time(&finished))),
            NextStep::RetryAt(ms) => ("pending", ms, None),
            NextStep::Failed => ("failed", 0, Some(format_time(&finished))),
        };
        let held = sqlx::query(
            "UPDATE deliveries SET status = ?, next_attempt_ms = CASE WHEN ? > 0 THEN ? \
             ELSE next_attempt_ms END, lease_token = NULL, lease_until_ms = NULL, \
             response_status = ?, error = ?, completed_at = ? \
             WHERE id = ? AND lease_token = ?",
        )
        .bind(status)
        .bind(next_ms)
        .bind(next_ms)
        .bind(attempt.response_status.map(i64::from))
        .bind(&attempt.error)
        .bind(completed)
        .bind(&job.id)
        .bind(&job.token)
        .execute(&mut *tx)
        .await?;
        if held.rows_affected() != 1 {
            return Ok(false);
        }
        sqlx::query(
            "UPDATE delivery_attempts SET duration_ms = ?, response_status = ?, error = ?, \
             response_body = ? WHERE delivery_id = ? AND attempt = ?",
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
        .bind(job.attempt)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE webhooks SET last_delivery_at = ?, \
             failure_count = CASE WHEN ? THEN 0 ELSE failure_count + 1 END, \
             failing_since = CASE WHEN ? THEN NULL ELSE COALESCE(failing_since, ?) END \
             WHERE id = (SELECT webhook_id FROM deliveries WHERE id = ?)",
        )
        .bind(format_time(&finished))
        .bind(next == NextStep::Succeeded)
        .bind(next == NextStep::Succeeded)
        .bind(format_time(&attempt.started_at))
        .bind(&job.id)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn next_delivery_due(&self) -> StoreResult<Option<i64>> {
        Ok(sqlx::query_scalar(
            "SELECT MIN(COALESCE(MAX(next_attempt_ms, lease_until_ms), next_attempt_ms)) \
             FROM deliveries WHERE status = 'pending'",
        )
        .fetch_one(&self.pool)
        .await?)
    }

    async fn history(
        &self,
        org_id: &str,
        deployment_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> StoreResult<Vec<ConversationPoint>> {
        sqlx::query(
            "SELECT * FROM conversation_history WHERE org_id = ? AND deployment_id = ? \
             AND started_at_ms >= ? AND started_at_ms < ? ORDER BY started_at_ms, conversation_id",
        )
        .bind(org_id)
        .bind(deployment_id)
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(point_from_row)
        .collect()
    }

    async fn active_deployments(
        &self,
        from_ms: i64,
        to_ms: i64,
    ) -> StoreResult<Vec<(String, String)>> {
        let rows = sqlx::query(
            "SELECT DISTINCT org_id, deployment_id FROM conversation_history \
             WHERE started_at_ms >= ? AND started_at_ms < ? ORDER BY org_id, deployment_id",
        )
        .bind(from_ms)
        .bind(to_ms)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("org_id")?, r.try_get("deployment_id")?)))
            .collect()
    }

    async fn create_deploy(&self, deploy: &NewDeploy) -> StoreResult<()> {
        let mut tx = self.write().await?;
        create_deploy_in(&mut tx, deploy).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn deploys(&self, org_id: &str, deployment_id: &str) -> StoreResult<Vec<DeployRecord>> {
        sqlx::query(
            "SELECT * FROM deploys WHERE org_id = ? AND deployment_id = ? ORDER BY at_ms, id",
        )
        .bind(org_id)
        .bind(deployment_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(deploy_from_row)
        .collect()
    }

    async fn save_report(
        &self,
        r: &ReportRecord,
        event: &NewEvent,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.write().await?;
        let done = sqlx::query(
            "INSERT INTO health_reports (id, org_id, deployment_id, period_start, period_end, \
             trigger, created_at, report) VALUES (?, ?, ?, ?, ?, ?, ?, ?) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&r.id)
        .bind(&r.org_id)
        .bind(&r.deployment_id)
        .bind(format_time(&r.period_start))
        .bind(format_time(&r.period_end))
        .bind(&r.trigger)
        .bind(format_time(&r.created_at))
        .bind(&r.report)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        emit_in(&mut tx, std::slice::from_ref(event), at).await?;
        tx.commit().await?;
        Ok(true)
    }

    async fn reports(&self, org_id: &str, deployment_id: &str) -> StoreResult<Vec<ReportRecord>> {
        sqlx::query(
            "SELECT * FROM health_reports WHERE org_id = ? AND deployment_id = ? \
             ORDER BY created_at DESC, id DESC",
        )
        .bind(org_id)
        .bind(deployment_id)
        .fetch_all(&self.pool)
        .await?
        .iter()
        .map(report_from_row)
        .collect()
    }

    async fn report(
        &self,
        org_id: &str,
        deployment_id: &str,
        id: &str,
    ) -> StoreResult<Option<ReportRecord>> {
        sqlx::query(
            "SELECT * FROM health_reports WHERE id = ? AND org_id = ? AND deployment_id = ?",
        )
        .bind(id)
        .bind(org_id)
        .bind(deployment_id)
        .fetch_optional(&self.pool)
        .await?
        .as_ref()
        .map(report_from_row)
        .transpose()
    }
}
