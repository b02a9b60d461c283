//! Registered webhook endpoints: create (under a per-key cap), list, get, delete, and
//! disable those that have failed every attempt for too long.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::db::{Lock, Row, query};
use super::deliveries::cancel_pending;
use super::{Store, StoreResult};

/// Error of the pending deliveries cancelled when their endpoint was disabled.
const ENDPOINT_DISABLED: &str = "cancelled: the endpoint was disabled after failing every attempt";
/// Error of the pending deliveries failed when their endpoint was deleted.
const DELETED: &str = "the webhook was deleted";

/// A registered endpoint as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    /// `wh_` + 32 hex characters.
    pub id: String,
    /// The organisation whose events it receives.
    pub org_id: String,
    /// The key that registered it; lists are per key.
    pub key_id: String,
    /// Where deliveries go.
    pub url: String,
    /// Signing secret (`whsec_…`).
    pub secret: String,
    /// Subscribed kinds, sorted.
    pub events: Vec<String>,
    /// Registration time.
    pub created_at: DateTime<Utc>,
    /// When an attempt last finished, successful or not.
    pub last_delivery_at: Option<DateTime<Utc>>,
    /// Failed attempts since the last successful one.
    pub failure_count: u32,
    /// Set when the endpoint was disabled for failing every attempt too long.
    pub disabled: Option<Disabled>,
}

/// When and why an endpoint was disabled (it receives nothing more; delete it and
/// register it again once it answers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disabled {
    /// When.
    pub at: DateTime<Utc>,
    /// Why, in a sentence.
    pub reason: String,
}

fn webhook_from_row(row: &Row, events: Vec<String>) -> StoreResult<WebhookRecord> {
    Ok(WebhookRecord {
        id: row.str("id")?,
        org_id: row.str("org_id")?,
        key_id: row.str("key_id")?,
        url: row.str("url")?,
        secret: row.str("secret")?,
        events,
        created_at: row.time("created_at")?,
        last_delivery_at: row.opt_time("last_delivery_at")?,
        failure_count: row.u32("failure_count")?,
        disabled: match row.opt_time("disabled_at")? {
            Some(at) => Some(Disabled {
                at,
                reason: row.opt_str("disabled_reason")?.unwrap_or_default(),
            }),
            None => None,
        },
    })
}

/// What registering an endpoint did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registered {
    /// Stored.
    Created,
    /// Its key has the most active endpoints it may have; nothing was written.
    Full,
    /// Its key has an active endpoint for the same URL, this one; nothing was written.
    Taken(String),
}

impl Store {
    /// Stores a new endpoint, unless its key already has `max_per_key` active ones or
    /// one for the same URL (nothing written then). The checks and the insert are one
    /// step, so concurrent creates cannot pass the cap or share a URL together.
    pub async fn create_webhook(
        &self,
        w: &WebhookRecord,
        max_per_key: u32,
    ) -> StoreResult<Registered> {
        let mut tx = self.pool.begin_write().await?;
        // Concurrent creates of one key queue on its row (PostgreSQL) or on the write
        // lock (SQLite), so each counts the others.
        tx.lock_rows(
            query("SELECT id FROM api_keys WHERE id = $1")
                .bind(&w.key_id)
                .lock(Lock::Update),
        )
        .await?;
        let active = tx
            .fetch_one(
                query(
                    "SELECT COUNT(*) AS n FROM webhooks WHERE key_id = $1 \
                     AND deleted_at IS NULL",
                )
                .bind(&w.key_id),
            )
            .await?
            .i64("n")?;
        if active >= i64::from(max_per_key) {
            return Ok(Registered::Full);
        }
        // Two endpoints at one URL would receive every event twice.
        let taken = tx
            .fetch_optional(
                query(
                    "SELECT id FROM webhooks WHERE key_id = $1 AND url = $2 \
                     AND deleted_at IS NULL",
                )
                .bind(&w.key_id)
                .bind(&w.url),
            )
            .await?;
        if let Some(row) = taken {
            return Ok(Registered::Taken(row.str("id")?));
        }
        tx.execute(
            query(
                "INSERT INTO webhooks (id, org_id, key_id, url, secret, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&w.id)
            .bind(&w.org_id)
            .bind(&w.key_id)
            .bind(&w.url)
            .bind(&w.secret)
            .bind(w.created_at),
        )
        .await?;
        for kind in &w.events {
            tx.execute(
                query(
                    "INSERT INTO webhook_kinds (webhook_id, kind) VALUES ($1, $2) \
                     ON CONFLICT DO NOTHING",
                )
                .bind(&w.id)
                .bind(kind),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(Registered::Created)
    }

    /// The active endpoints a key registered, oldest first; with `None`, every active
    /// endpoint of the database (the operator's `undertone webhooks list`).
    pub async fn list_webhooks(&self, key_id: Option<&str>) -> StoreResult<Vec<WebhookRecord>> {
        let rows = self
            .pool
            .fetch_all(
                query(
                    "SELECT * FROM webhooks WHERE ($1 IS NULL OR key_id = $1) \
                     AND deleted_at IS NULL ORDER BY created_at, id",
                )
                .bind(key_id),
            )
            .await?;
        // Every kind of those endpoints in one query.
        let mut kinds: HashMap<String, Vec<String>> = HashMap::new();
        for k in self
            .pool
            .fetch_all(
                query(
                    "SELECT webhook_id, kind FROM webhook_kinds WHERE webhook_id IN \
                     (SELECT id FROM webhooks WHERE ($1 IS NULL OR key_id = $1) \
                     AND deleted_at IS NULL) ORDER BY webhook_id, kind",
                )
                .bind(key_id),
            )
            .await?
        {
            kinds
                .entry(k.str("webhook_id")?)
                .or_default()
                .push(k.str("kind")?);
        }
        rows.iter()
            .map(|row| webhook_from_row(row, kinds.remove(&row.str("id")?).unwrap_or_default()))
            .collect()
    }

    /// One active endpoint of a key.
    pub async fn webhook(&self, id: &str, key_id: &str) -> StoreResult<Option<WebhookRecord>> {
        let row = self
            .pool
            .fetch_optional(
                query(
                    "SELECT * FROM webhooks WHERE id = $1 AND key_id = $2 AND deleted_at IS NULL",
                )
                .bind(id)
                .bind(key_id),
            )
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let kinds = self
            .pool
            .fetch_all(
                query("SELECT kind FROM webhook_kinds WHERE webhook_id = $1 ORDER BY kind")
                    .bind(id),
            )
            .await?
            .iter()
            .map(|k| k.str("kind"))
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Some(webhook_from_row(&row, kinds)?))
    }

    /// Disables every active endpoint whose attempts have all failed since before
    /// `failing_before` (its run of failures began then, and no attempt succeeded
    /// since), recording `reason` at `at`, and cancels its pending deliveries; the ids
    /// disabled.
    pub async fn disable_failing_webhooks(
        &self,
        failing_before: DateTime<Utc>,
        at: DateTime<Utc>,
        reason: &str,
    ) -> StoreResult<Vec<String>> {
        let mut tx = self.pool.begin_write().await?;
        // Locked on PostgreSQL, so two processes sweeping at once disable each endpoint
        // once.
        let ids = tx
            .fetch_all(
                query(
                    "SELECT id FROM webhooks WHERE deleted_at IS NULL AND disabled_at IS NULL \
                     AND failing_since IS NOT NULL AND failing_since < $1 ORDER BY id",
                )
                .bind(failing_before)
                .lock(Lock::Update),
            )
            .await?
            .iter()
            .map(|r| r.str("id"))
            .collect::<StoreResult<Vec<_>>>()?;
        for id in &ids {
            tx.execute(
                query("UPDATE webhooks SET disabled_at = $1, disabled_reason = $2 WHERE id = $3")
                    .bind(at)
                    .bind(reason)
                    .bind(id),
            )
            .await?;
            cancel_pending(&mut tx, id, ENDPOINT_DISABLED, at).await?;
        }
        tx.commit().await?;
        Ok(ids)
    }

    /// Deletes an endpoint of a key (`None`: of any key, the operator's `undertone
    /// webhooks delete`); its pending deliveries fail. False when unknown.
    pub async fn delete_webhook(
        &self,
        id: &str,
        key_id: Option<&str>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        // The webhook's row first, then its deliveries: finish_delivery takes them in
        // the same order, so the two never wait for each other crosswise.
        let done = tx
            .execute(
                query(
                    "UPDATE webhooks SET deleted_at = $1 \
                     WHERE id = $2 AND ($3 IS NULL OR key_id = $3) AND deleted_at IS NULL",
                )
                .bind(at)
                .bind(id)
                .bind(key_id),
            )
            .await?;
        if done != 1 {
            return Ok(false);
        }
        cancel_pending(&mut tx, id, DELETED, at).await?;
        tx.commit().await?;
        Ok(true)
    }
}
