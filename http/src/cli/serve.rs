//! `undertone serve`: the REST service on an embedded SQLite database by default.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use super::error::CliError;
use super::keys::{DatabaseArg, runtime};
use crate::clock::SystemClock;
use crate::keys::{Scope, issue_first};
use crate::limits::Plan;
use crate::resolver::SafeResolver;
use crate::state::{AppState, Config};
use crate::store;
use crate::webhooks::deliver::{Deliverer, DeliveryConfig, Sender};
use crate::webhooks::reports::Scheduler;
use crate::webhooks::schedule::{self, RetrySchedule};
use crate::worker::Workers;

/// Options of `undertone serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (the address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    #[command(flatten)]
    database: DatabaseArg,
    /// Scoring workers, at least 1 [default: the number of CPUs].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    workers: Option<u32>,
    /// Jobs the queue may hold before ingest answers 503.
    #[arg(long, default_value_t = 1000)]
    queue_capacity: u64,
    /// Share of the queue one key may hold, above 0 and at most 1; beyond it that key
    /// gets 503 while the others still get 202.
    #[arg(long, default_value_t = 0.5, value_parser = parse_share)]
    queue_key_share: f64,
    /// Accept http:// and private-address webhook URLs (local development and tests).
    #[arg(long)]
    allow_private_webhooks: bool,
    /// Seconds a worker holds a job before another may take it over; a running worker
    /// renews its lease every third of this, so only a stopped worker loses its job.
    #[arg(long, default_value_t = 60)]
    lease_seconds: u64,
    /// Delete stored inputs and results (sessions, webhook events and their delivery
    /// logs, history, reports) older than this many days, hourly. Off by default.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    retain_days: Option<u32>,
    /// Requests in progress at once; more are answered 503 with Retry-After.
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..))]
    max_concurrent_requests: u64,
    /// MiB of request bodies being read and parsed at once; more are answered 503.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(16..))]
    max_inflight_body_mib: u64,
    /// Seconds a client may take to send a request's headers before it is disconnected.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout: u64,
    /// Seconds a request body may pause while it is read before the request fails.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,
    /// Serve Prometheus metrics at http://ADDR/metrics, a listener apart from the API
    /// (port 0 picks one; printed). Off by default.
    #[arg(long)]
    metrics_addr: Option<SocketAddr>,
    /// Log lines as text or as one JSON object per line.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Seconds a job may spend scoring before it ends `failed`, saying so (at least 1).
    #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    job_time_budget: u64,
    /// Webhook attempts: one delay per attempt, in seconds after the previous failure
    /// (fractions allowed), each with ±20% jitter.
    #[arg(long, env = "UNDERTONE_WEBHOOK_RETRY_SCHEDULE", default_value = schedule::DEFAULT)]
    webhook_retry_schedule: RetrySchedule,
    /// Webhook attempts in flight at once.
    #[arg(long, default_value_t = 16)]
    webhook_concurrency: usize,
    /// Webhook attempts in flight to one endpoint at once (across every process).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    webhook_endpoint_concurrency: u32,
    /// Hours after which an endpoint whose every attempt failed is disabled (fractions
    /// allowed).
    #[arg(long, default_value_t = 72.0, value_parser = parse_hours)]
    webhook_disable_after: f64,
}

/// Runs the service until SIGINT or SIGTERM; returns the exit status.
pub fn run(args: &ServeArgs) -> u8 {
    init_logging(args.log_format);
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(code) => return code,
    };
    match rt.block_on(serve(args)) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("error: {message}");
            1
        }
    }
}

/// A number of hours above 0 and at most ten years.
fn parse_hours(s: &str) -> Result<f64, CliError> {
    match s.parse::<f64>() {
        Ok(h) if h > 0.0 && h <= 24.0 * 3650.0 => Ok(h),
        _ => Err(CliError::Hours(s.to_owned())),
    }
}

/// A share in (0, 1].
fn parse_share(s: &str) -> Result<f64, CliError> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(CliError::Share(s.to_owned())),
    }
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line (timestamp, level, target, fields).
    Json,
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .try_init(),
        LogFormat::Json => builder.json().with_ansi(false).try_init(),
    };
}

async fn serve(args: &ServeArgs) -> Result<(), CliError> {
    let url = &store::redact(&args.database.database);
    let store = store::open(&args.database.database)
        .await
        .map_err(|source| CliError::OpenDatabase {
            url: url.clone(),
            source,
        })?;
    let listen = |source| CliError::Listen {
        addr: args.addr,
        source,
    };
    let listener = tokio::net::TcpListener::bind(args.addr)
        .await
        .map_err(listen)?;
    let addr = listener.local_addr().map_err(listen)?;

    let first = issue_first(
        store.as_ref(),
        "default",
        "default",
        Scope::ReadWrite,
        Plan::default(),
        chrono::Utc::now(),
    )
    .await
    .map_err(CliError::FirstKey)?;
    if let Some((record, key)) = first {
        super::say(&format!(
            "Created a read-write API key ({}). It is shown only this once; keep it:\n\n  \
             {key}\n\nIts webhook delivery secret (signs deliveries to an ingest's \
             webhook_url):\n\n  {}\n\nOpen the app at http://{addr}/app and sign in with the key, or try \
             it:\n\n  curl -s http://{addr}/api/v1/ingest \\\n    \
             -H 'Authorization: Bearer {key}' \\\n    \
             -H 'Content-Type: application/json' \\\n    \
             --data @examples/support-refund-goes-wrong.json\n",
            record.id, record.delivery_secret
        ));
    }
    if args.allow_private_webhooks {
        tracing::warn!(
            "--allow-private-webhooks: http:// and private-address webhook URLs are accepted; \
             use this for local development and tests only"
        );
    }
    let workers = args.workers.map(|n| n as usize).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    let config = Config {
        queue_capacity: args.queue_capacity,
        queue_key_share: args.queue_key_share,
        allow_private_webhooks: args.allow_private_webhooks,
        lease: Duration::from_secs(args.lease_seconds.max(1)),
        job_time_budget: Duration::from_secs(args.job_time_budget),
        max_concurrent_requests: usize::try_from(args.max_concurrent_requests)
            .unwrap_or(usize::MAX),
        max_inflight_body_bytes: usize::try_from(args.max_inflight_body_mib)
            .unwrap_or(usize::MAX / (1024 * 1024))
            .saturating_mul(1024 * 1024),
        body_read_timeout: Duration::from_secs(args.body_timeout),
        ..Config::default()
    };
    let delivery = DeliveryConfig {
        schedule: args.webhook_retry_schedule.clone(),
        concurrency: args.webhook_concurrency.max(1),
        disable_after: Duration::from_secs_f64(args.webhook_disable_after * 3600.0),
        per_endpoint: args.webhook_endpoint_concurrency,
        allow_private: args.allow_private_webhooks,
        ..DeliveryConfig::default()
    };
    let sender = Sender::new(delivery, SafeResolver::new(args.allow_private_webhooks))
        .map_err(CliError::HttpClient)?;
    let state = AppState::new(store, Arc::new(SystemClock), config);
    let notifications = state.store.listen(store::Wake {
        jobs: Arc::clone(&state.wake),
        deliveries: Arc::clone(&state.deliveries),
    });
    let running = Workers::spawn(&state, workers);
    let deliverer = Deliverer::spawn(&state, sender);
    let scheduler = Scheduler::spawn(&state);
    let retention = args
        .retain_days
        .map(|days| crate::retention::spawn(&state, days));
    let metrics = match args.metrics_addr {
        Some(at) => {
            let (listener, bound) = crate::metrics::bind(at).await?;
            let handle = crate::metrics::install().ok_or(CliError::MetricsRecorder)?;
            super::say(&format!("undertone: metrics on http://{bound}/metrics"));
            Some(tokio::spawn(crate::metrics::serve(
                listener,
                handle,
                Arc::clone(&state.store),
                Arc::clone(&state.clock),
            )))
        }
        None => None,
    };
    super::say(&format!(
        "undertone: listening on http://{addr} ({workers} workers, database {url}); \
         the app is at http://{addr}/app"
    ));
    tracing::info!(%addr, workers, database = %url, "listening");
    crate::transport::serve(
        listener,
        crate::service::app(state),
        Duration::from_secs(args.header_timeout),
        shutdown_signal(),
    )
    .await;
    tracing::info!("no longer accepting requests; finishing jobs in progress");
    tokio::join!(running.shutdown(), scheduler.shutdown());
    if let Some(retention) = retention {
        retention.abort();
    }
    if let Some(metrics) = metrics {
        metrics.abort();
    }
    if let Some(notifications) = notifications {
        notifications.abort();
    }
    tracing::info!("finishing webhook attempts in flight");
    deliverer.shutdown().await;
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {}
        _ = terminate => {}
    }
}
