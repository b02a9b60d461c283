//! `--retain-days N`: an hourly sweep that deletes stored inputs and results older
//! than N days ([`crate::store::Store::purge`]). Off unless asked: nothing is deleted
//! by default.

use std::time::Duration;

use chrono::TimeDelta;
use tokio::task::JoinHandle;

use crate::state::AppState;
use crate::store::{Purged, StoreResult};

/// How often the sweep runs (and once at start).
const EVERY: Duration = Duration::from_secs(3600);

/// History rows are kept at least this many days, whatever `--retain-days` says: an
/// anomaly check reads 20 days back, an outcome-shift measurement 30 days either side
/// of a deploy, a health report two weeks. They hold scores and conversation ids, no
/// text.
pub const MIN_HISTORY_DAYS: u32 = 31;

/// Deletes what was stored more than `days` days before the state's clock says now
/// (history rows: more than `max(days, MIN_HISTORY_DAYS)`).
pub async fn sweep(state: &AppState, days: u32) -> StoreResult<Purged> {
    let now = state.clock.now();
    let before = now - TimeDelta::days(i64::from(days));
    let history_before = now - TimeDelta::days(i64::from(days.max(MIN_HISTORY_DAYS)));
    let purged = state.store.purge(before, history_before).await?;
    if purged != Purged::default() {
        tracing::info!(
            days,
            sessions = purged.sessions,
            events = purged.events,
            history = purged.history,
            reports = purged.reports,
            "retention: deleted what was stored before the window"
        );
    }
    Ok(purged)
}

/// Runs [`sweep`] now and every hour until aborted.
pub fn spawn(state: &AppState, days: u32) -> JoinHandle<()> {
    let state = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(EVERY);
        loop {
            tick.tick().await;
            if let Err(e) = sweep(&state, days).await {
                tracing::error!(error = %e, "retention sweep failed; it runs again in an hour");
            }
        }
    })
}
