//! Job workers: claim a job, score it on the blocking pool, store the outcome.
//!
//! A job is leased, not taken: if a worker dies, the lease runs out and another
//! worker claims the job again (at most `max_attempts` claims in all, then the
//! session fails with an error). Finishing checks the claim, so a worker whose lease
//! ran out cannot overwrite the newer claim's result.

use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use undertone_core::{IngestRequest, drift, score, validate};

use crate::api::AppState;
use crate::store::{Job, Outcome, SessionKind};

/// How often an idle worker looks for work it was not woken for (another process's
/// jobs, expired leases).
const POLL: Duration = Duration::from_millis(250);
/// Wait after a database error before trying again.
const BACKOFF: Duration = Duration::from_secs(1);

/// Running workers and the switch that stops them.
#[derive(Debug)]
pub struct Workers {
    stop: watch::Sender<bool>,
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `n` workers.
    pub fn spawn(state: &AppState, n: usize) -> Self {
        let (stop, stopped) = watch::channel(false);
        let handles = (0..n.max(1))
            .map(|_| tokio::spawn(run(state.clone(), stopped.clone())))
            .collect();
        Workers { stop, handles }
    }

    /// Lets each worker finish the job it holds, then stops them all.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        for h in self.handles {
            let _ = h.await;
        }
    }
}

/// Claims and processes at most one job (requeueing expired leases first); returns
/// whether a job was processed. The workers loop over this; tests call it directly.
pub async fn run_one(state: &AppState) -> Result<bool, crate::store::StoreError> {
    let lease_ms = i64::try_from(state.config.lease.as_millis()).unwrap_or(i64::MAX / 2);
    let now_ms = state.clock.now().timestamp_millis();
    let (job, reaped) = state
        .store
        .claim(now_ms, lease_ms, state.config.max_attempts)
        .await?;
    if reaped.requeued + reaped.failed > 0 {
        tracing::warn!(
            requeued = reaped.requeued,
            failed = reaped.failed,
            "leases expired: jobs of lost workers were requeued or failed"
        );
    }
    match job {
        Some(job) => {
            process(state, job).await;
            Ok(true)
        }
        None => Ok(false),
    }
}

async fn run(state: AppState, mut stopped: watch::Receiver<bool>) {
    while !*stopped.borrow() {
        let pause = match run_one(&state).await {
            Ok(true) => continue,
            Ok(false) => POLL,
            Err(e) => {
                tracing::error!(error = %e, "claiming a job failed");
                BACKOFF
            }
        };
        tokio::select! {
            _ = state.wake.notified() => {}
            _ = tokio::time::sleep(pause) => {}
            _ = stopped.changed() => {}
        }
    }
}

async fn process(state: &AppState, job: Job) {
    let session_id = job.session_id.clone();
    let kind = job.kind;
    let body = job.body.clone();
    let validated = match kind {
        SessionKind::Ingest => state.handoff.take(&job.session_id),
        SessionKind::Drift => None,
    };
    let outcome = tokio::task::spawn_blocking(move || match validated {
        Some(request) => ingest_outcome(&request, &session_id),
        None => outcome(kind, &session_id, &body),
    })
    .await
    .unwrap_or_else(|e| {
        tracing::error!(error = %e, session = %job.session_id, "scoring panicked");
        Outcome::Failed("internal error while scoring; the failure has been logged".into())
    });
    match state.store.finish(&job, &outcome, state.clock.now()).await {
        Ok(true) => {
            let status = match &outcome {
                Outcome::Complete { .. } => "complete",
                Outcome::Failed(_) => "failed",
            };
            tracing::info!(session = %job.session_id, kind = kind.as_str(), attempt = job.attempt, status, "job finished");
        }
        Ok(false) => tracing::warn!(
            session = %job.session_id,
            "lease lost before the job finished; the newer claim's result stands"
        ),
        Err(e) => tracing::error!(
            error = %e,
            session = %job.session_id,
            "storing a result failed; the job will be retried when its lease expires"
        ),
    }
}

/// Scores a validated ingest request.
fn ingest_outcome(request: &IngestRequest, session_id: &str) -> Outcome {
    let result = score::score(request);
    let i = &result.intelligence;
    let serialised = (
        serde_json::to_string(&result),
        serde_json::to_string(&result.condensed(Some(session_id))),
        serde_json::to_string(&i.plain_recommendations),
        serde_json::to_value(i.archetype),
    );
    match serialised {
        (Ok(full), Ok(condensed), Ok(recommendations), Ok(archetype)) => Outcome::Complete {
            environment_type: archetype.as_str().map(str::to_owned),
            plain_summary: i.plain_summary.clone(),
            plain_recommendations: recommendations,
            condensed: Some(condensed),
            full_output: full,
        },
        _ => Outcome::Failed("the result could not be serialised".into()),
    }
}

/// Scores a stored request. Pure: the same body gives the same outcome.
pub fn outcome(kind: SessionKind, session_id: &str, body: &[u8]) -> Outcome {
    match kind {
        SessionKind::Ingest => {
            // The body passed the server's checks at ingest; the webhook URL rule does
            // not matter for scoring, so a server restarted with other settings still
            // scores what it acknowledged.
            let options = validate::Options {
                allow_private_webhooks: true,
                unlimited: false,
            };
            match validate::ingest_request_bytes(body, &options) {
                Ok(request) => ingest_outcome(&request, session_id),
                Err(e) => Outcome::Failed(format!("the stored request is invalid: {e}")),
            }
        }
        SessionKind::Drift => {
            let request = match validate::drift_request_bytes(body) {
                Ok(r) => r,
                Err(e) => return Outcome::Failed(format!("the stored request is invalid: {e}")),
            };
            let result = drift::drift(&request);
            match (
                serde_json::to_string(&result),
                serde_json::to_string(&result.plain_recommendations),
            ) {
                (Ok(full), Ok(recommendations)) => Outcome::Complete {
                    environment_type: None,
                    plain_summary: result.plain_summary.clone(),
                    plain_recommendations: recommendations,
                    condensed: None,
                    full_output: full,
                },
                _ => Outcome::Failed("the result could not be serialised".into()),
            }
        }
    }
}
