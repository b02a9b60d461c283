//! Deploy markers of a deployment, and the outcome-shift measurement of each.

use chrono::{DateTime, Utc};

use super::db::{Row, Tx, query};
use super::{Store, StoreError, StoreResult, time_from_ms};

/// Deploy markers kept per deployment: the newest (by time) stay, older ones are
/// dropped as new ones arrive, so a deployment that releases on every request cannot
/// grow the table without bound.
pub const MAX_DEPLOYS_PER_DEPLOYMENT: u32 = 500;

/// A deploy marker to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDeploy {
    /// `dep_` + 32 hex characters; markers seen in metadata get an id derived from
    /// their deployment and release, so seeing one twice records it once.
    pub id: String,
    /// The organisation.
    pub org_id: String,
    /// The deployment.
    pub deployment_id: String,
    /// The release deployed, when known.
    pub release: Option<String>,
    /// What the caller said about it.
    pub description: Option<String>,
    /// `api` or `metadata`.
    pub source: &'static str,
    /// When the deploy happened.
    pub at: DateTime<Utc>,
    /// When it was recorded.
    pub created_at: DateTime<Utc>,
}

/// A stored deploy marker.
#[derive(Debug, Clone, PartialEq)]
pub struct DeployRecord {
    /// What was recorded.
    pub deploy: NewDeploy,
    /// When the outcome-shift test was run, once the post-deploy window settled.
    pub measured_at: Option<DateTime<Utc>>,
    /// The test's result, JSON.
    pub result: Option<String>,
}

/// The outcome-shift measurement of one deploy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measured {
    /// The deploy.
    pub deploy_id: String,
    /// The result, JSON.
    pub result: String,
}

/// Records a marker inside `tx` (a known id is kept as it is) and drops the
/// deployment's markers beyond the newest [`MAX_DEPLOYS_PER_DEPLOYMENT`].
pub(super) async fn create_in(tx: &mut Tx, d: &NewDeploy) -> StoreResult<()> {
    tx.execute(
        query(
            "INSERT INTO deploys (id, org_id, deployment_id, release, description, source, \
             at_ms, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&d.id)
        .bind(&d.org_id)
        .bind(&d.deployment_id)
        .bind(&d.release)
        .bind(&d.description)
        .bind(d.source)
        .bind(d.at.timestamp_millis())
        .bind(d.created_at),
    )
    .await?;
    tx.execute(
        query(
            "DELETE FROM deploys WHERE org_id = $1 AND deployment_id = $2 AND id NOT IN \
             (SELECT id FROM deploys WHERE org_id = $1 AND deployment_id = $2 \
             ORDER BY at_ms DESC, id DESC LIMIT $3)",
        )
        .bind(&d.org_id)
        .bind(&d.deployment_id)
        .bind(MAX_DEPLOYS_PER_DEPLOYMENT),
    )
    .await?;
    Ok(())
}

/// Records a marker's measurement inside `tx`, unless it has one already.
pub(super) async fn measure_in(tx: &mut Tx, m: &Measured, at: DateTime<Utc>) -> StoreResult<()> {
    tx.execute(
        query(
            "UPDATE deploys SET measured_at = $1, result = $2 \
             WHERE id = $3 AND measured_at IS NULL",
        )
        .bind(at)
        .bind(&m.result)
        .bind(&m.deploy_id),
    )
    .await?;
    Ok(())
}

fn deploy_from_row(row: &Row) -> StoreResult<DeployRecord> {
    let source = row.str("source")?;
    Ok(DeployRecord {
        deploy: NewDeploy {
            id: row.str("id")?,
            org_id: row.str("org_id")?,
            deployment_id: row.str("deployment_id")?,
            release: row.opt_str("release")?,
            description: row.opt_str("description")?,
            source: match source.as_str() {
                "api" => "api",
                "metadata" => "metadata",
                other => return Err(StoreError::Corrupt(format!("deploy source `{other}`"))),
            },
            at: time_from_ms(row.i64("at_ms")?)?,
            created_at: row.time("created_at")?,
        },
        measured_at: row.opt_time("measured_at")?,
        result: row.opt_str("result")?,
    })
}

impl Store {
    /// Records a deploy marker (a marker with a known id is kept as it is).
    pub async fn create_deploy(&self, deploy: &NewDeploy) -> StoreResult<()> {
        let mut tx = self.pool.begin_write().await?;
        create_in(&mut tx, deploy).await?;
        tx.commit().await
    }

    /// Deploy markers of a deployment, in time order.
    pub async fn deploys(
        &self,
        org_id: &str,
        deployment_id: &str,
    ) -> StoreResult<Vec<DeployRecord>> {
        self.pool
            .fetch_all(
                query(
                    "SELECT * FROM deploys WHERE org_id = $1 AND deployment_id = $2 \
                     ORDER BY at_ms, id",
                )
                .bind(org_id)
                .bind(deployment_id),
            )
            .await?
            .iter()
            .map(deploy_from_row)
            .collect()
    }
}
