//! Sessions as they are read back: their kinds and statuses, the stored record with
//! its results, the listing, and the stored request.

use chrono::{DateTime, Utc};

use super::db::{Row, query};
use super::{Store, StoreError, StoreResult};

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

    /// Reads the stored form.
    pub(super) fn parse(s: &str) -> StoreResult<Self> {
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

/// Decompresses a stored result.
fn unpack(packed: &[u8]) -> StoreResult<String> {
    let bytes = lz4_flex::decompress_size_prepended(packed)
        .map_err(|e| StoreError::Corrupt(format!("compressed result: {e}")))?;
    String::from_utf8(bytes).map_err(|e| StoreError::Corrupt(format!("compressed result: {e}")))
}

/// A listed session: the columns of [`Store::list_sessions`], results left out.
fn summary_from_row(row: &Row) -> StoreResult<SessionRecord> {
    let event_count = row.i64("event_count")?;
    Ok(SessionRecord {
        id: row.str("id")?,
        kind: SessionKind::parse(&row.str("kind")?)?,
        deployment_id: row.opt_str("deployment_id")?,
        event_count: usize::try_from(event_count)
            .map_err(|_| StoreError::Corrupt(format!("event count {event_count}")))?,
        status: SessionStatus::parse(&row.str("status")?)?,
        labels: None,
        created_at: row.time("created_at")?,
        completed_at: row.opt_time("completed_at")?,
        error: row.opt_str("error")?,
        environment_type: row.opt_str("environment_type")?,
        plain_summary: None,
        plain_recommendations: None,
        condensed: None,
        full_output: None,
        completions: 0,
    })
}

/// A whole session: the listed columns, then its labels and results.
fn session_from_row(row: &Row) -> StoreResult<SessionRecord> {
    Ok(SessionRecord {
        labels: row.opt_str("labels")?,
        plain_summary: row.opt_str("plain_summary")?,
        plain_recommendations: row.opt_str("plain_recommendations")?,
        condensed: row.opt_str("condensed")?,
        full_output: match row.opt_bytes("full_output_lz4")? {
            Some(packed) => Some(unpack(&packed)?),
            // SQLite sessions completed before results were compressed (its migration
            // 0002) keep them as text; the PostgreSQL schema never had that column.
            None if row.has("full_output") => row.opt_str("full_output")?,
            None => None,
        },
        completions: row.u32("completions")?,
        ..summary_from_row(row)?
    })
}

impl Store {
    /// Ingest sessions of `org_id`, newest first: at most `limit`, and only those after
    /// (older than) the session `before` when given. Results are not read.
    pub async fn list_sessions(
        &self,
        org_id: &str,
        limit: u32,
        before: Option<&str>,
    ) -> StoreResult<Vec<SessionRecord>> {
        // Newest first; `before` is a session of the same organisation.
        let q = match before {
            None => query(
                "SELECT id, kind, deployment_id, event_count, status, created_at, completed_at, \
                 error, environment_type FROM sessions \
                 WHERE org_id = $1 AND kind = 'ingest' ORDER BY created_at DESC, id DESC LIMIT $2",
            ),
            Some(_) => query(
                "SELECT s.id, s.kind, s.deployment_id, s.event_count, s.status, s.created_at, \
                 s.completed_at, s.error, s.environment_type FROM sessions s \
                 JOIN sessions b ON b.id = $3 AND b.org_id = $1 \
                 WHERE s.org_id = $1 AND s.kind = 'ingest' AND (s.created_at < b.created_at \
                 OR (s.created_at = b.created_at AND s.id < b.id)) \
                 ORDER BY s.created_at DESC, s.id DESC LIMIT $2",
            ),
        };
        let mut q = q.bind(org_id).bind(i64::from(limit));
        if let Some(id) = before {
            q = q.bind(id);
        }
        let rows = self.pool.fetch_all(q).await?;
        rows.iter().map(summary_from_row).collect()
    }

    /// The stored request of a session of `org_id`, while retention keeps it.
    pub async fn session_input(&self, id: &str, org_id: &str) -> StoreResult<Option<Vec<u8>>> {
        let row = self
            .pool
            .fetch_optional(
                query(
                    "SELECT i.body FROM session_inputs i JOIN sessions s ON s.id = i.session_id \
                     WHERE s.id = $1 AND s.org_id = $2",
                )
                .bind(id)
                .bind(org_id),
            )
            .await?;
        row.map(|r| r.bytes("body")).transpose()
    }

    /// A session of `org_id`.
    pub async fn session(&self, id: &str, org_id: &str) -> StoreResult<Option<SessionRecord>> {
        self.pool
            .fetch_optional(
                query("SELECT * FROM sessions WHERE id = $1 AND org_id = $2")
                    .bind(id)
                    .bind(org_id),
            )
            .await?
            .as_ref()
            .map(session_from_row)
            .transpose()
    }
}
