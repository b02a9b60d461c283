//! Each deployment's conversation history (one row of scores per conversation), and
//! [`apply_effects`]: everything finishing an ingest job writes besides the session.

use chrono::{DateTime, Utc};
use undertone_core::monitor::ConversationPoint;
use undertone_core::score::layer_z::ByDimension;

use super::db::{Row, Tx, query};
use super::deliveries::emit_in;
use super::deploys::{self, Measured, NewDeploy};
use super::{Job, NewEvent, Store, StoreError, StoreResult, time_from_ms};

/// What finishing an ingest job writes besides the session, in the same transaction.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    /// The deployment's history rows of the session's conversations.
    pub history: Vec<ConversationPoint>,
    /// Events to queue.
    pub events: Vec<NewEvent>,
    /// Deploy markers seen in event metadata.
    pub deploys: Vec<NewDeploy>,
    /// Deploys whose outcome shift was measured.
    pub measured: Vec<Measured>,
}

/// Writes what an ingest job's completion causes, inside the transaction that
/// completes it. Rows are written in key order (history by conversation, deploy
/// markers and measurements by id, events by id), so two sessions that share
/// conversations or derived events take their row locks in the same order and never
/// deadlock.
pub(super) async fn apply_effects(
    tx: &mut Tx,
    job: &Job,
    effects: &Effects,
    at: DateTime<Utc>,
) -> StoreResult<()> {
    if let Some(deployment) = &job.deployment_id {
        let mut history: Vec<&ConversationPoint> = effects.history.iter().collect();
        history.sort_by(|a, b| a.conversation_id.cmp(&b.conversation_id));
        for p in history {
            write_point(tx, job, deployment, p).await?;
        }
    }
    let mut markers: Vec<&NewDeploy> = effects.deploys.iter().collect();
    markers.sort_by(|a, b| a.id.cmp(&b.id));
    for d in markers {
        deploys::create_in(tx, d).await?;
    }
    let mut measured: Vec<&Measured> = effects.measured.iter().collect();
    measured.sort_by(|a, b| a.deploy_id.cmp(&b.deploy_id));
    for m in measured {
        deploys::measure_in(tx, m, at).await?;
    }
    emit_in(tx, &effects.events, at).await?;
    Ok(())
}

/// Writes (or replaces) the history row of one conversation of `job`'s session.
async fn write_point(
    tx: &mut Tx,
    job: &Job,
    deployment: &str,
    p: &ConversationPoint,
) -> StoreResult<()> {
    let s = &p.scores;
    tx.execute(
        query(
            "INSERT INTO conversation_history (org_id, deployment_id, conversation_id, \
             session_id, started_at_ms, human_turns, resolved, abandoned, release, \
             trust_calibration, frustration_buildup, dependency_drift, \
             silent_abandonment_risk, escalation_friction, comprehension_gap) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) \
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
        .bind(s.comprehension_gap),
    )
    .await?;
    Ok(())
}

fn point_from_row(row: &Row) -> StoreResult<ConversationPoint> {
    let turns = row.i64("human_turns")?;
    Ok(ConversationPoint {
        conversation_id: row.str("conversation_id")?,
        started_at: time_from_ms(row.i64("started_at_ms")?)?,
        human_turns: usize::try_from(turns)
            .map_err(|_| StoreError::Corrupt(format!("human turns {turns}")))?,
        resolved: row.bool("resolved")?,
        abandoned: row.bool("abandoned")?,
        release: row.opt_str("release")?,
        scores: ByDimension {
            trust_calibration: row.f64("trust_calibration")?,
            frustration_buildup: row.f64("frustration_buildup")?,
            dependency_drift: row.f64("dependency_drift")?,
            silent_abandonment_risk: row.f64("silent_abandonment_risk")?,
            escalation_friction: row.f64("escalation_friction")?,
            comprehension_gap: row.f64("comprehension_gap")?,
        },
    })
}

impl Store {
    /// History of a deployment: conversations that started in `[from_ms, to_ms)`.
    pub async fn history(
        &self,
        org_id: &str,
        deployment_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> StoreResult<Vec<ConversationPoint>> {
        self.pool
            .fetch_all(
                query(
                    "SELECT * FROM conversation_history WHERE org_id = $1 \
                     AND deployment_id = $2 AND started_at_ms >= $3 AND started_at_ms < $4 \
                     ORDER BY started_at_ms, conversation_id",
                )
                .bind(org_id)
                .bind(deployment_id)
                .bind(from_ms)
                .bind(to_ms),
            )
            .await?
            .iter()
            .map(point_from_row)
            .collect()
    }

    /// Whether `org_id` keeps any conversation history of `deployment_id`.
    pub async fn has_history(&self, org_id: &str, deployment_id: &str) -> StoreResult<bool> {
        let row = self
            .pool
            .fetch_optional(
                query(
                    "SELECT 1 AS kept FROM conversation_history \
                     WHERE org_id = $1 AND deployment_id = $2 LIMIT 1",
                )
                .bind(org_id)
                .bind(deployment_id),
            )
            .await?;
        Ok(row.is_some())
    }

    /// The deployments of `org_id` that have history: each with its conversation count
    /// and the start of its latest conversation (epoch ms), by deployment id; the
    /// first `limit` after deployment `after` (from the first when `None`).
    pub async fn deployments(
        &self,
        org_id: &str,
        after: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<(String, u64, i64)>> {
        let rows = self
            .pool
            .fetch_all(
                query(
                    "SELECT deployment_id, COUNT(*) AS conversations, \
                     MAX(started_at_ms) AS last_ms FROM conversation_history \
                     WHERE org_id = $1 AND ($2 IS NULL OR deployment_id > $2) \
                     GROUP BY deployment_id ORDER BY deployment_id LIMIT $3",
                )
                .bind(org_id)
                .bind(after)
                .bind(i64::from(limit)),
            )
            .await?;
        rows.iter()
            .map(|r| {
                let n = r.i64("conversations")?;
                Ok((
                    r.str("deployment_id")?,
                    u64::try_from(n).unwrap_or(0),
                    r.i64("last_ms")?,
                ))
            })
            .collect()
    }

    /// Deployments with conversations that started in `[from_ms, to_ms)`, as
    /// (org, deployment).
    pub async fn active_deployments(
        &self,
        from_ms: i64,
        to_ms: i64,
    ) -> StoreResult<Vec<(String, String)>> {
        self.pool
            .fetch_all(
                query(
                    "SELECT DISTINCT org_id, deployment_id FROM conversation_history \
                     WHERE started_at_ms >= $1 AND started_at_ms < $2 \
                     ORDER BY org_id, deployment_id",
                )
                .bind(from_ms)
                .bind(to_ms),
            )
            .await?
            .iter()
            .map(|r| Ok((r.str("org_id")?, r.str("deployment_id")?)))
            .collect()
    }
}
