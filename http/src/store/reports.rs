//! User Health Reports: saved together with their event, listed, read.

use chrono::{DateTime, Utc};

use super::db::{Query, Row, query};
use super::deliveries::emit_in;
use super::{NewEvent, Store, StoreResult};

/// A health report as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRecord {
    /// `uhr_` + 32 hex characters.
    pub id: String,
    /// The organisation.
    pub org_id: String,
    /// The deployment.
    pub deployment_id: String,
    /// Start of the period covered.
    pub period_start: DateTime<Utc>,
    /// End of the period covered (exclusive).
    pub period_end: DateTime<Utc>,
    /// `schedule` or `request`.
    pub trigger: String,
    /// When it was generated.
    pub created_at: DateTime<Utc>,
    /// The report, JSON.
    pub report: String,
}

fn report_from_row(row: &Row) -> StoreResult<ReportRecord> {
    Ok(ReportRecord {
        id: row.str("id")?,
        org_id: row.str("org_id")?,
        deployment_id: row.str("deployment_id")?,
        period_start: row.time("period_start")?,
        period_end: row.time("period_end")?,
        trigger: row.str("trigger")?,
        created_at: row.time("created_at")?,
        report: row.str("report")?,
    })
}

/// The reports of a deployment, newest first; with `id`, that one only.
fn select<'a>(org_id: &'a str, deployment_id: &'a str, id: Option<&'a str>) -> Query<'a> {
    query(
        "SELECT * FROM health_reports WHERE org_id = $1 AND deployment_id = $2 \
         AND ($3 IS NULL OR id = $3) ORDER BY created_at DESC, id DESC",
    )
    .bind(org_id)
    .bind(deployment_id)
    .bind(id)
}

impl Store {
    /// Stores a health report and its event in one transaction; false (nothing
    /// written) when a report with its id exists.
    pub async fn save_report(
        &self,
        r: &ReportRecord,
        event: &NewEvent,
        at: DateTime<Utc>,
    ) -> StoreResult<bool> {
        let mut tx = self.pool.begin_write().await?;
        let done = tx
            .execute(
                query(
                    "INSERT INTO health_reports (id, org_id, deployment_id, period_start, \
                     period_end, trigger, created_at, report) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING",
                )
                .bind(&r.id)
                .bind(&r.org_id)
                .bind(&r.deployment_id)
                .bind(r.period_start)
                .bind(r.period_end)
                .bind(&r.trigger)
                .bind(r.created_at)
                .bind(&r.report),
            )
            .await?;
        if done != 1 {
            return Ok(false);
        }
        emit_in(&mut tx, std::slice::from_ref(event), at).await?;
        tx.commit().await?;
        Ok(true)
    }

    /// Health reports of a deployment, newest first.
    pub async fn reports(
        &self,
        org_id: &str,
        deployment_id: &str,
    ) -> StoreResult<Vec<ReportRecord>> {
        let rows = self
            .pool
            .fetch_all(select(org_id, deployment_id, None))
            .await?;
        rows.iter().map(report_from_row).collect()
    }

    /// One health report.
    pub async fn report(
        &self,
        org_id: &str,
        deployment_id: &str,
        id: &str,
    ) -> StoreResult<Option<ReportRecord>> {
        let row = self
            .pool
            .fetch_optional(select(org_id, deployment_id, Some(id)))
            .await?;
        row.as_ref().map(report_from_row).transpose()
    }
}
