//! `--retain-days N`: an hourly sweep that deletes stored inputs and results older
//! than N days ([`crate::store::Store::purge`]). Off unless asked: nothing is deleted
//! by default.

use std::time::Duration;

use chrono::TimeDelta;
use tokio::task::JoinHandle;

use crate::api::AppState;
use crate::store::{Purged, StoreResult};

/// How often the sweep runs (and once at start).
const EVERY: Duration = Duration::from_secs(3600);

/// Deletes what was stored more than `days` days before the state's clock says now.
pub async fn sweep(state: &AppState, days: u32) -> StoreResult<Purged> {
    let before = state.clock.now() - TimeDelta::days(i64::from(days));
    let purged = state.store.purge(before).await?;
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
