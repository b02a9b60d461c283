//! Job workers: claim a job, score it on the blocking pool, store the outcome.
//!
//! A job is leased, not taken: if a worker dies, the lease runs out and another
//! worker claims the job again (at most `max_attempts` claims in all, then the
//! session fails with an error). Finishing checks the claim, so a worker whose lease
//! ran out cannot overwrite the newer claim's result.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;
use undertone_core::monitor::HistoryDriftRequest;
use undertone_core::monitor::{self, ConversationPoint};
use undertone_core::score::{SessionIntelligence, Stopped};
use undertone_core::{IngestRequest, drift, score, sdk, validate};

use crate::state::AppState;
use crate::stopping::{GRACE, unless_stopped};
use crate::store::{Effects, Job, Outcome, SessionKind};
use crate::webhooks::emit;

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
    match claim(state).await? {
        Some(job) => {
            process(state, job).await;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Claims a job, requeueing or failing the jobs of expired leases first.
async fn claim(state: &AppState) -> Result<Option<Job>, crate::store::StoreError> {
    let lease_ms = i64::try_from(state.config.lease.as_millis()).unwrap_or(i64::MAX / 2);
    let now_ms = state.clock.now().timestamp_millis();
    let (job, reaped) = state
        .store
        .claim(
            now_ms,
            lease_ms,
            state.config.max_attempts,
            &emit::failure_effects,
        )
        .await?;
    if reaped.requeued + reaped.failed > 0 {
        tracing::warn!(
            requeued = reaped.requeued,
            failed = reaped.failed,
            "leases expired: jobs of lost workers were requeued or failed"
        );
    }
    Ok(job)
}

async fn run(state: AppState, mut stopped: watch::Receiver<bool>) {
    while !*stopped.borrow() {
        // Looking for work gives way to a stop (the database may be gone); a job
        // once claimed is finished.
        let Some(claimed) = unless_stopped(claim(&state), &stopped, GRACE).await else {
            break;
        };
        let pause = match claimed {
            Ok(Some(job)) => {
                process(&state, job).await;
                continue;
            }
            Ok(None) => POLL,
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

/// Renews `job`'s lease every third of the lease while it runs, so that a job that
/// takes longer than one lease is not taken over by another worker.
pub fn heartbeat(state: &AppState, job: &Job) -> JoinHandle<()> {
    let (state, job) = (state.clone(), job.clone());
    let lease = state.config.lease;
    let lease_ms = i64::try_from(lease.as_millis()).unwrap_or(i64::MAX / 2);
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(lease / 3).await;
            let until = state
                .clock
                .now()
                .timestamp_millis()
                .saturating_add(lease_ms);
            match state.store.renew(&job, until).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::warn!(session = %job.session_id, "the job's lease was lost; its result will not be kept");
                    return;
                }
                // A later beat may succeed; the lease still runs until it ends.
                Err(e) => {
                    tracing::error!(error = %e, session = %job.session_id, "renewing a job's lease failed")
                }
            }
        }
    })
}

async fn process(state: &AppState, job: Job) {
    let beat = heartbeat(state, &job);
    process_leased(state, job).await;
    beat.abort();
}

/// The error of a job stopped by its time budget.
fn over_budget(budget: Duration, stopped: Stopped) -> Outcome {
    Outcome::Failed(format!(
        "scoring took longer than the job time budget of {} s ({} of {} conversations \
         scored); split the request into smaller ones, or raise the server's \
         --job-time-budget",
        budget.as_secs(),
        stopped.done,
        stopped.total
    ))
}

async fn process_leased(state: &AppState, job: Job) {
    let session_id = job.session_id.clone();
    let kind = job.kind;
    let body = job.body.clone();
    let validated = match kind {
        SessionKind::Ingest => state.handoff.take(&job.session_id),
        SessionKind::Drift => None,
    };
    let budget = state.config.job_time_budget;
    let started = Instant::now();
    let scored = tokio::task::spawn_blocking(move || match kind {
        SessionKind::Ingest => {
            let request = match validated {
                Some(r) => Ok(r),
                None => parse_ingest(&body).map(Arc::new),
            };
            match request {
                Ok(request) => {
                    let started = Instant::now();
                    let over = || started.elapsed() >= budget;
                    match score::score_until(&request, |_, _| {}, over) {
                        Ok(result) => {
                            crate::metrics::turns_scored(result.intelligence.human_turn_count);
                            let outcome = ingest_outcome_of(&result, &session_id);
                            let points = monitor::points(&request, &result);
                            (outcome, Some((request, result, points)))
                        }
                        Err(stopped) => (over_budget(budget, stopped), None),
                    }
                }
                Err(failed) => (failed, None),
            }
        }
        SessionKind::Drift => (outcome(kind, &session_id, &body), None),
    })
    .await;
    let (outcome, scored) = scored.unwrap_or_else(|e| {
        tracing::error!(error = %e, session = %job.session_id, "scoring panicked");
        (
            Outcome::Failed("internal error while scoring; the failure has been logged".into()),
            None,
        )
    });
    let effects = match (&outcome, scored) {
        (Outcome::Complete { .. }, Some((request, result, points))) => {
            ingest_effects(state, &job, request, result, points).await
        }
        (Outcome::Failed(error), _) if kind == SessionKind::Ingest => {
            emit::failure_effects(&job, error, state.clock.now())
        }
        _ => Effects::default(),
    };
    let queues_deliveries = !effects.events.is_empty();
    match state
        .store
        .finish(&job, &outcome, &effects, state.clock.now())
        .await
    {
        Ok(true) => {
            let status = match &outcome {
                Outcome::Complete { .. } => "complete",
                Outcome::Failed(_) => "failed",
            };
            if queues_deliveries {
                state.deliveries.notify_one();
            }
            crate::metrics::job_finished(kind.as_str(), status, started.elapsed());
            tracing::info!(session = %job.session_id, kind = kind.as_str(), attempt = job.attempt, status, events = effects.events.len(), "job finished");
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

/// What a completed ingest causes: history, events, deploy markers. A failure to read
/// the history loses only the events that need it; the result and its
/// `intelligence.ready` are still written.
async fn ingest_effects(
    state: &AppState,
    job: &Job,
    request: Arc<IngestRequest>,
    result: SessionIntelligence,
    points: Vec<ConversationPoint>,
) -> Effects {
    let org = job.org_id.clone();
    let deployment = request.deployment_id.clone();
    let deploys = state.store.deploys(&org, &deployment).await;
    let from = emit::history_from(&points, deploys.as_deref().unwrap_or(&[]));
    let prior = state.store.history(&org, &deployment, from, i64::MAX).await;
    let (deploys, prior) = match (deploys, prior) {
        (Ok(d), Ok(p)) => (d, p),
        (Err(e), _) | (_, Err(e)) => {
            tracing::error!(error = %e, session = %job.session_id, "reading the deployment history failed; anomaly and outcome-shift checks skipped for this session");
            (Vec::new(), Vec::new())
        }
    };
    let job = job.clone();
    let at = state.clock.now();
    tokio::task::spawn_blocking(move || {
        emit::ingest_effects(&job, &request, &result, points, &prior, &deploys, at)
    })
    .await
    .unwrap_or_else(|e| {
        tracing::error!(error = %e, "computing webhook events panicked");
        Effects::default()
    })
}

/// Parses a stored ingest body, or the failure to report.
fn parse_ingest(body: &[u8]) -> Result<IngestRequest, Outcome> {
    validate::ingest_request_bytes(body, &validate::Options::STORED)
        .map_err(|e| Outcome::Failed(format!("the stored request is invalid: {e}")))
}

/// Scores a validated ingest request.
fn ingest_outcome(request: &IngestRequest, session_id: &str) -> Outcome {
    ingest_outcome_of(&score::score(request), session_id)
}

/// The stored outcome of a scored ingest request.
fn ingest_outcome_of(result: &SessionIntelligence, session_id: &str) -> Outcome {
    let i = &result.intelligence;
    // The full result as every other surface writes it (the command line, the SDKs).
    let full = sdk::render_score(result, sdk::View::Full);
    let serialised = (
        serde_json::to_string(&result.condensed(Some(session_id))),
        serde_json::to_string(&i.plain_recommendations),
        serde_json::to_value(i.archetype),
    );
    match serialised {
        (Ok(condensed), Ok(recommendations), Ok(archetype)) => Outcome::Complete {
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
        SessionKind::Ingest => match parse_ingest(body) {
            Ok(request) => ingest_outcome(&request, session_id),
            Err(failed) => failed,
        },
        SessionKind::Drift => {
            // A drift over a deployment's history stores its snapshot of the two
            // periods; any other drift body is the request as posted.
            let result = match serde_json::from_slice::<HistoryDriftRequest>(body) {
                Ok(history) => monitor::drift_history(&history),
                Err(_) => {
                    match validate::drift_request_bytes_with(body, &validate::Options::STORED) {
                        Ok(request) => drift::drift(&request),
                        Err(e) => {
                            return Outcome::Failed(format!("the stored request is invalid: {e}"));
                        }
                    }
                }
            };
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
