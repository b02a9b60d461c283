//! Prometheus metrics for the operator (`undertone serve --metrics-addr ADDR`): served on
//! their own listener, off the public API, and only when asked. Each process reports
//! its own numbers (the queue gauges read the shared database).
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `undertone_queue_depth` | gauge | jobs waiting or running |
//! | `undertone_queue_oldest_age_seconds` | gauge | age of the oldest of them (0 when none) |
//! | `undertone_jobs_finished_total` | counter | `kind` (ingest, drift), `status` (complete, failed) |
//! | `undertone_job_duration_seconds` | histogram | `kind` |
//! | `undertone_scored_turns_total` | counter | human turns scored by this process's workers |
//! | `undertone_webhook_attempts_total` | counter | `outcome` (succeeded, retry, failed) |
//! | `undertone_webhooks_disabled_total` | counter | endpoints disabled for failing |
//! | `undertone_rate_limited_total` | counter | 429 answers |
//! | `undertone_requests_shed_total` | counter | `reason` (requests, body_bytes) 503 answers |

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

use std::sync::Arc;

use crate::clock::Clock;
use crate::store::Store;

/// A job finished with `status` after `took`.
pub fn job_finished(kind: &'static str, status: &'static str, took: Duration) {
    metrics::counter!("undertone_jobs_finished_total", "kind" => kind, "status" => status)
        .increment(1);
    metrics::histogram!("undertone_job_duration_seconds", "kind" => kind)
        .record(took.as_secs_f64());
}

/// `n` human turns were scored.
pub fn turns_scored(n: usize) {
    metrics::counter!("undertone_scored_turns_total").increment(n as u64);
}

/// A webhook attempt ended with `outcome`.
pub fn webhook_attempt(outcome: &'static str) {
    metrics::counter!("undertone_webhook_attempts_total", "outcome" => outcome).increment(1);
}

/// An endpoint was disabled for failing every attempt too long.
pub fn webhook_disabled() {
    metrics::counter!("undertone_webhooks_disabled_total").increment(1);
}

/// A request was answered 429.
pub fn rate_limited() {
    metrics::counter!("undertone_rate_limited_total").increment(1);
}

/// A request was shed (503) for `reason`.
pub fn shed(reason: &'static str) {
    metrics::counter!("undertone_requests_shed_total", "reason" => reason).increment(1);
}

/// Installs the process-wide recorder; `None` when one is installed already.
pub fn install() -> Option<PrometheusHandle> {
    PrometheusBuilder::new().install_recorder().ok()
}

/// What a scrape reads: the recorder, and the database and clock for the queue gauges.
#[derive(Clone)]
struct Scrape {
    handle: PrometheusHandle,
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
}

/// Serves `GET /metrics` on `listener` until the task is aborted.
pub async fn serve(
    listener: tokio::net::TcpListener,
    handle: PrometheusHandle,
    store: Arc<Store>,
    clock: Arc<dyn Clock>,
) {
    let app = Router::new()
        .route("/metrics", get(render))
        .with_state(Scrape {
            handle,
            store,
            clock,
        });
    if let Err(e) = axum::serve(listener, app).await {
        tracing::error!(error = %e, "the metrics listener stopped");
    }
}

async fn render(State(s): State<Scrape>) -> impl IntoResponse {
    // The queue is read at scrape time, from the database every process shares.
    if let Ok(depth) = s.store.queue_depth().await {
        metrics::gauge!("undertone_queue_depth").set(depth as f64);
    }
    if let Ok(oldest) = s.store.queue_oldest().await {
        let age = oldest.map_or(0.0, |t| {
            (s.clock.now() - t).num_milliseconds().max(0) as f64 / 1000.0
        });
        metrics::gauge!("undertone_queue_oldest_age_seconds").set(age);
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        s.handle.render(),
    )
}

/// The metrics listener could not be opened.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen for metrics on {addr}: {source}")]
pub struct BindError {
    /// Where it was asked to listen.
    pub addr: SocketAddr,
    /// Why it could not.
    pub source: std::io::Error,
}

/// Binds the metrics listener at `addr`; its address, for the startup line.
pub async fn bind(addr: SocketAddr) -> Result<(tokio::net::TcpListener, SocketAddr), BindError> {
    let fail = |source| BindError { addr, source };
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(fail)?;
    let bound = listener.local_addr().map_err(fail)?;
    Ok((listener, bound))
}
