//! API keys and their rate-limit windows.

use chrono::{DateTime, Utc};

use super::db::{Lock, Query, Row, Tx, query};
use super::{Store, StoreError, StoreResult};
use crate::limits::{self, Decision, Plan, Window};

/// Error of the pending deliveries cancelled when their key was revoked.
const KEY_REVOKED: &str = "cancelled: the API key that registered the endpoint was revoked";

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

fn key_from_row(row: &Row) -> StoreResult<KeyRecord> {
    let scope = row.str("scope")?;
    Ok(KeyRecord {
        id: row.str("id")?,
        org_id: row.str("org_id")?,
        name: row.str("name")?,
        scope: Scope::parse(&scope)
            .ok_or_else(|| StoreError::Corrupt(format!("unknown scope `{scope}`")))?,
        digest: row.bytes("key_digest")?,
        display_prefix: row.str("display_prefix")?,
        delivery_secret: row.str("delivery_secret")?,
        plan: Plan {
            per_hour: row.u32("per_hour")?,
            per_day: row.u32("per_day")?,
            drift_per_hour: row.u32("drift_per_hour")?,
        },
        created_at: row.time("created_at")?,
        revoked_at: row.opt_time("revoked_at")?,
    })
}

/// The stored windows of a key.
fn stored_windows(key_id: &str) -> Query<'_> {
    query("SELECT kind, window_start, used FROM rate_windows WHERE key_id = $1").bind(key_id)
}

/// The count of each of `windows` among a key's stored window rows; a row from an
/// earlier window of its kind counts as 0.
fn current_counts(windows: &[Window], stored: &[Row]) -> StoreResult<Vec<u32>> {
    let stored = stored
        .iter()
        .map(|r| Ok((r.str("kind")?, r.i64("window_start")?, r.u32("used")?)))
        .collect::<StoreResult<Vec<_>>>()?;
    Ok(windows
        .iter()
        .map(|w| {
            stored
                .iter()
                .find(|(kind, start, _)| kind == w.kind.as_str() && *start == w.start)
                .map_or(0, |(_, _, used)| *used)
        })
        .collect())
}

/// Counts one request against every window inside `tx` when all have room. On
/// PostgreSQL the key's row is locked first, so charges of one key wait for each other
/// in every process and the limit is exact.
pub(super) async fn charge_in(
    tx: &mut Tx,
    key_id: &str,
    windows: &[Window],
) -> StoreResult<Decision> {
    tx.lock_rows(
        query("SELECT id FROM api_keys WHERE id = $1")
            .bind(key_id)
            .lock(Lock::NoKeyUpdate),
    )
    .await?;
    let used = current_counts(windows, &tx.fetch_all(stored_windows(key_id)).await?)?;
    let decision = limits::decide(windows, &used);
    if let Decision::Allowed(_) = decision {
        for (w, u) in windows.iter().zip(&used) {
            tx.execute(
                query(
                    "INSERT INTO rate_windows (key_id, kind, window_start, used) \
                     VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (key_id, kind) DO UPDATE SET \
                     window_start = excluded.window_start, used = excluded.used",
                )
                .bind(key_id)
                .bind(w.kind.as_str())
                .bind(w.start)
                .bind(i64::from(*u) + 1),
            )
            .await?;
        }
    }
    Ok(decision)
}

async fn insert_key(tx: &mut Tx, key: &KeyRecord) -> StoreResult<()> {
    tx.execute(
        query(
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
        .bind(key.plan.per_hour)
        .bind(key.plan.per_day)
        .bind(key.plan.drift_per_hour)
        .bind(key.created_at)
        .bind(key.revoked_at),
    )
    .await?;
    Ok(())
}

impl Store {
    /// Stores a new key.
    pub async fn create_key(&self, key: &KeyRecord) -> StoreResult<()> {
        let mut tx = self.pool.begin_write().await?;
        insert_key(&mut tx, key).await?;
        tx.commit().await
    }

    /// Stores `key` only when the database holds no key at all; false (nothing
    /// written) otherwise. Atomic, so of several servers started together on an empty
    /// database exactly one creates the first key.
    pub async fn create_first_key(&self, key: &KeyRecord) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        // Other writers of api_keys (and this same call in other processes) wait from
        // the count to the commit.
        tx.lock_table("api_keys").await?;
        let n = tx
            .fetch_one(query("SELECT COUNT(*) AS n FROM api_keys"))
            .await?
            .i64("n")?;
        if n > 0 {
            return Ok(false);
        }
        insert_key(&mut tx, key).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Every key, oldest first.
    pub async fn list_keys(&self) -> StoreResult<Vec<KeyRecord>> {
        self.pool
            .fetch_all(query("SELECT * FROM api_keys ORDER BY created_at, id"))
            .await?
            .iter()
            .map(key_from_row)
            .collect()
    }

    /// Revokes a key; false when no unrevoked key has that id.
    pub async fn revoke_key(&self, id: &str, at: DateTime<Utc>) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        let done = tx
            .execute(
                query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
                    .bind(at)
                    .bind(id),
            )
            .await?;
        if done != 1 {
            return Ok(false);
        }
        // Revocation is total: what was still to be delivered to the key's endpoints
        // (its webhooks, and the webhook_url of its ingests) is cancelled with it.
        tx.execute(
            query(
                "UPDATE deliveries SET status = 'failed', error = $1, completed_at = $2, \
                 lease_token = NULL, lease_until_ms = NULL WHERE status = 'pending' \
                 AND (key_id = $3 OR webhook_id IN (SELECT id FROM webhooks WHERE key_id = $3))",
            )
            .bind(KEY_REVOKED)
            .bind(at)
            .bind(id),
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Looks a key up by its SHA-256 digest (revoked keys included).
    pub async fn find_key(&self, digest: &[u8; 32]) -> StoreResult<Option<KeyRecord>> {
        self.pool
            .fetch_optional(query("SELECT * FROM api_keys WHERE key_digest = $1").bind(&digest[..]))
            .await?
            .as_ref()
            .map(key_from_row)
            .transpose()
    }

    /// Counts one request against every window, atomically, only when all have room.
    pub async fn charge(&self, key_id: &str, windows: &[Window]) -> StoreResult<Decision> {
        let mut tx = self.pool.begin_write().await?;
        let decision = charge_in(&mut tx, key_id, windows).await?;
        tx.commit().await?;
        Ok(decision)
    }

    /// How much of each window is used, without counting anything.
    pub async fn usage(&self, key_id: &str, windows: &[Window]) -> StoreResult<Vec<u32>> {
        current_counts(windows, &self.pool.fetch_all(stored_windows(key_id)).await?)
    }
}
