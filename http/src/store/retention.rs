//! The retention sweep (`--retain-days`): what is old enough and finished is deleted.

use chrono::{DateTime, Utc};

use super::db::query;
use super::{Store, StoreResult};

/// The webhook events older than the cutoff (`$1`) none of whose deliveries is still
/// pending. A macro, so that `concat!` builds each statement that needs it at compile
/// time and the text is written once.
macro_rules! finished_events {
    () => {
        "SELECT id FROM webhook_events e WHERE e.created_at < $1 AND NOT EXISTS \
         (SELECT 1 FROM deliveries d WHERE d.event_id = e.id AND d.status = 'pending')"
    };
}

/// What a retention sweep ([`Store::purge`]) deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    /// Finished sessions, with their stored input and result.
    pub sessions: u64,
    /// Webhook events whose every delivery had finished, with their deliveries.
    pub events: u64,
    /// Rows of the deployment history (per-conversation scores).
    pub history: u64,
    /// User Health Reports.
    pub reports: u64,
}

impl Store {
    /// Deletes what was stored before `before` (`--retain-days`): finished sessions
    /// with their input and result, webhook events none of whose deliveries is still
    /// pending (with the deliveries and their attempts), and reports; and history rows
    /// of conversations that started before `history_before`. Keys, endpoints, deploy
    /// markers and unfinished work stay.
    pub async fn purge(
        &self,
        before: DateTime<Utc>,
        history_before: DateTime<Utc>,
    ) -> StoreResult<Purged> {
        let mut tx = self.pool.begin_write().await?;
        tx.execute(
            query(
                "DELETE FROM session_inputs WHERE session_id IN (SELECT id FROM sessions \
                 WHERE created_at < $1 AND status IN ('complete', 'failed'))",
            )
            .bind(before),
        )
        .await?;
        let sessions = tx
            .execute(
                query(
                    "DELETE FROM sessions WHERE created_at < $1 \
                     AND status IN ('complete', 'failed')",
                )
                .bind(before),
            )
            .await?;
        // Events older than the cutoff none of whose deliveries is pending: their
        // attempts, then their deliveries, then the events.
        tx.execute(
            query(concat!(
                "DELETE FROM delivery_attempts WHERE delivery_id IN ",
                "(SELECT id FROM deliveries WHERE event_id IN (",
                finished_events!(),
                "))"
            ))
            .bind(before),
        )
        .await?;
        tx.execute(
            query(concat!(
                "DELETE FROM deliveries WHERE event_id IN (",
                finished_events!(),
                ")"
            ))
            .bind(before),
        )
        .await?;
        let events = tx
            .execute(
                query(concat!(
                    "DELETE FROM webhook_events WHERE id IN (",
                    finished_events!(),
                    ")"
                ))
                .bind(before),
            )
            .await?;
        let history = tx
            .execute(
                query("DELETE FROM conversation_history WHERE started_at_ms < $1")
                    .bind(history_before.timestamp_millis()),
            )
            .await?;
        let reports = tx
            .execute(query("DELETE FROM health_reports WHERE created_at < $1").bind(before))
            .await?;
        tx.commit().await?;
        Ok(Purged {
            sessions,
            events,
            history,
            reports,
        })
    }
}
