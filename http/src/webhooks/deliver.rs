//! The delivery worker: claims due deliveries, POSTs the stored envelope with its
//! signatures, records the attempt and schedules the next one.
//!
//! An attempt succeeds on a 2xx answer whose body arrives in full within the deadline
//! (10 s from connecting to the last byte). Redirects are not followed (a 3xx is a
//! failure). At most [`MAX_STORED_BODY`] bytes of an answer are kept; the rest is read
//! and dropped, so an endless or huge answer costs time (up to the deadline), never
//! memory. Deliveries are leased while in flight: if the server dies mid-attempt the
//! lease runs out and another worker (or the restarted server) tries again with the
//! same delivery id.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use tokio::sync::{Notify, Semaphore, watch};
use tokio::task::{JoinHandle, JoinSet};
use undertone_core::signature;
use undertone_core::validate::address::is_public;

use super::schedule::RetrySchedule;
use crate::resolver::SafeResolver;
use crate::state::AppState;
use crate::stopping::{GRACE, unless_stopped};
use crate::store::{AttemptRecord, DeliveryJob, NextStep};

/// Bytes of an endpoint's answer that are stored.
pub const MAX_STORED_BODY: usize = 16 * 1024;
/// `User-Agent` of deliveries.
pub const USER_AGENT: &str = concat!("Undertone-Webhooks/", env!("CARGO_PKG_VERSION"));

/// How deliveries are made.
#[derive(Debug, Clone)]
pub struct DeliveryConfig {
    /// Delays between attempts; its length is the number of attempts.
    pub schedule: RetrySchedule,
    /// Deadline of one attempt, from connecting to the last byte of the answer.
    pub timeout: Duration,
    /// Attempts in flight at once, per process.
    pub concurrency: usize,
    /// Accept `http://` and non-public addresses (tests and local development).
    pub allow_private: bool,
    /// An endpoint whose every attempt failed for this long is disabled.
    pub disable_after: Duration,
    /// Attempts in flight to one endpoint at once, per process and across processes.
    pub per_endpoint: u32,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        DeliveryConfig {
            schedule: RetrySchedule::default(),
            timeout: Duration::from_secs(10),
            concurrency: 16,
            allow_private: false,
            // Stripe disables an endpoint after about three days of failures.
            disable_after: Duration::from_secs(72 * 3600),
            per_endpoint: 4,
        }
    }
}

impl DeliveryConfig {
    /// How long a claimed delivery stays leased: the deadline plus room to record it.
    pub fn lease(&self) -> Duration {
        self.timeout + Duration::from_secs(5)
    }
}

/// What one attempt produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Whether it succeeded.
    pub ok: bool,
    /// The endpoint's status code, when it answered.
    pub status: Option<u16>,
    /// What went wrong.
    pub error: Option<String>,
    /// The first [`MAX_STORED_BODY`] bytes of the answer.
    pub body: Vec<u8>,
    /// The answer's `Retry-After`, in seconds or as a date.
    pub retry_after: Option<Duration>,
    /// How long the attempt took.
    pub duration: Duration,
}

/// The HTTP client of deliveries.
#[derive(Debug, Clone)]
pub struct Sender {
    client: reqwest::Client,
    config: Arc<DeliveryConfig>,
}

impl Sender {
    /// A client that resolves names through `resolver`, follows no redirects and uses
    /// no proxy. The attempt's deadline is kept by [`send`](Self::send), so an answer
    /// cut off by it still has its status and first bytes recorded.
    pub fn new(config: DeliveryConfig, resolver: SafeResolver) -> reqwest::Result<Self> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(resolver)
            .connect_timeout(config.timeout)
            .user_agent(USER_AGENT)
            .build()?;
        Ok(Sender {
            client,
            config: Arc::new(config),
        })
    }

    /// The settings.
    pub fn config(&self) -> &DeliveryConfig {
        &self.config
    }

    /// Makes one attempt of `job`, signed at `timestamp` (unix seconds).
    pub async fn send(&self, job: &DeliveryJob, timestamp: i64) -> Sent {
        let started = Instant::now();
        let deadline = tokio::time::Instant::from_std(started) + self.config.timeout;
        let mut sent = match self.request(job, timestamp) {
            Ok(request) => exchange(request, deadline, self.config.timeout).await,
            Err(refused) => Sent::failed(refused.to_string()),
        };
        sent.duration = started.elapsed();
        sent
    }

    /// The request of an attempt, or why it may not be made.
    fn request(
        &self,
        job: &DeliveryJob,
        timestamp: i64,
    ) -> Result<reqwest::RequestBuilder, Refused> {
        let url = reqwest::Url::parse(&job.url).map_err(Refused::Url)?;
        let allow = self.config.allow_private;
        match url.scheme() {
            "https" => {}
            "http" if allow => {}
            other => return Err(Refused::Scheme(other.to_owned())),
        }
        // Literal addresses never reach the resolver; check them here.
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) => Some(std::net::IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => Some(std::net::IpAddr::V6(ip)),
            Some(url::Host::Domain(_)) => None,
            None => return Err(Refused::NoHost),
        };
        if let Some(ip) = literal
            && !allow
            && !is_public(ip)
        {
            return Err(Refused::Private(ip));
        }
        let standard = signature::sign_standard(&job.secret, &job.id, timestamp, &job.body)
            .map_err(Refused::Sign)?;
        let mut headers = HeaderMap::new();
        let mut put = |name: &'static str, value: &str| -> Result<(), Refused> {
            let v = HeaderValue::from_str(value).map_err(|e| Refused::Header(name, e))?;
            headers.insert(name, v);
            Ok(())
        };
        put("content-type", "application/json")?;
        put("x-undertone-event", &job.kind)?;
        put("x-undertone-delivery", &job.id)?;
        put(
            "x-undertone-signature",
            &signature::sign(&job.secret, &job.body),
        )?;
        put("webhook-id", &job.id)?;
        put("webhook-timestamp", &timestamp.to_string())?;
        put("webhook-signature", &standard)?;
        Ok(self
            .client
            .post(url)
            .headers(headers)
            .body(job.body.clone()))
    }
}

/// Why an attempt was not made; stored as the attempt's error.
#[derive(Debug, thiserror::Error)]
enum Refused {
    /// The stored URL does not parse.
    #[error("invalid URL: {0}")]
    Url(url::ParseError),
    /// Not https (nor http when private webhooks are allowed).
    #[error("refused: scheme `{0}` (https is required)")]
    Scheme(String),
    /// No host to connect to.
    #[error("refused: the URL has no host")]
    NoHost,
    /// A literal address that is not public.
    #[error("refused: {0} is not a public address")]
    Private(std::net::IpAddr),
    /// The signature could not be computed.
    #[error("cannot sign: {0}")]
    Sign(undertone_core::Error),
    /// A header value is not valid.
    #[error("header {0}: {1}")]
    Header(&'static str, reqwest::header::InvalidHeaderValue),
}

impl Sent {
    fn failed(error: String) -> Sent {
        Sent {
            ok: false,
            status: None,
            error: Some(error),
            body: Vec::new(),
            retry_after: None,
            duration: Duration::ZERO,
        }
    }
}

/// Sends the request and reads the answer, keeping its first bytes, all before
/// `deadline`. An answer cut off by the deadline keeps its status and first bytes.
async fn exchange(
    request: reqwest::RequestBuilder,
    deadline: tokio::time::Instant,
    timeout: Duration,
) -> Sent {
    let timed_out = || {
        format!(
            "timed out: no complete answer within {} s",
            timeout.as_secs_f64()
        )
    };
    let mut response = match tokio::time::timeout_at(deadline, request.send()).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return Sent::failed(describe_request_error(e)),
        Err(_) => return Sent::failed(timed_out()),
    };
    let status = response.status();
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    let mut body = Vec::new();
    let mut read_error = None;
    loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                let room = MAX_STORED_BODY.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok(Ok(None)) => break,
            Ok(Err(e)) => {
                read_error = Some(format!(
                    "reading the answer failed: {}",
                    describe_request_error(e)
                ));
                break;
            }
            Err(_) => {
                read_error = Some(timed_out());
                break;
            }
        }
    }
    let ok = status.is_success() && read_error.is_none();
    let error = read_error.or_else(|| {
        (!status.is_success()).then(|| {
            if status.is_redirection() {
                format!("answered {status}; redirects are not followed")
            } else {
                format!("answered {status}")
            }
        })
    });
    Sent {
        ok,
        status: Some(status.as_u16()),
        error,
        body,
        retry_after,
        duration: Duration::ZERO,
    }
}

/// An error with its causes, on one line.
/// A failed exchange, for the stored attempt: the error chain, with the URL as
/// [`super::shown_url`] shows it.
fn describe_request_error(e: reqwest::Error) -> String {
    let to = e.url().map(|u| super::shown_url(u.as_str()));
    let text = describe(&e.without_url());
    match to {
        Some(to) => format!("{text} (to {to})"),
        None => text,
    }
}

fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// `Retry-After` as seconds, or as an HTTP date (counted from now).
fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let wait = at.timestamp() - chrono::Utc::now().timestamp();
    Some(Duration::from_secs(u64::try_from(wait).unwrap_or(0)))
}

/// Makes one attempt of a claimed delivery and records it.
pub async fn attempt(state: &AppState, sender: &Sender, job: DeliveryJob) {
    let started_at = state.clock.now();
    let sent = sender.send(&job, started_at.timestamp()).await;
    let next = if sent.ok {
        NextStep::Succeeded
    } else {
        match sender
            .config
            .schedule
            .wait_random(job.attempt + 1, sent.retry_after)
        {
            Some(wait) => NextStep::RetryAt(
                state.clock.now().timestamp_millis()
                    + i64::try_from(wait.as_millis()).unwrap_or(i64::MAX / 4),
            ),
            None => NextStep::Failed,
        }
    };
    let record = AttemptRecord {
        attempt: job.attempt,
        started_at,
        duration_ms: Some(u64::try_from(sent.duration.as_millis()).unwrap_or(u64::MAX)),
        response_status: sent.status,
        error: sent.error.clone(),
        response_body: (!sent.body.is_empty()).then_some(sent.body),
    };
    let recorded = state.store.finish_delivery(&job, &record, next).await;
    if matches!(recorded, Ok(true)) && next != NextStep::Succeeded {
        disable_failing(state, &sender.config).await;
    }
    match recorded {
        Ok(true) => {
            crate::metrics::webhook_attempt(match next {
                NextStep::Succeeded => "succeeded",
                NextStep::RetryAt(_) => "retry",
                NextStep::Failed => "failed",
            });
            tracing::info!(
            delivery = %job.id,
            kind = %job.kind,
            attempt = job.attempt,
            status = ?sent.status,
            error = ?sent.error,
            next = ?next,
            "webhook attempt"
            )
        }
        Ok(false) => {
            tracing::warn!(delivery = %job.id, "webhook attempt finished after its lease ran out")
        }
        Err(e) => {
            tracing::error!(error = %e, delivery = %job.id, "recording a webhook attempt failed")
        }
    }
}

/// Disables the endpoints whose every attempt failed for longer than
/// `config.disable_after` (their pending deliveries are cancelled).
async fn disable_failing(state: &AppState, config: &DeliveryConfig) {
    let now = state.clock.now();
    let period = chrono::Duration::from_std(config.disable_after).unwrap_or(chrono::Duration::MAX);
    let reason = format!(
        "every attempt failed for more than {}",
        span(config.disable_after)
    );
    match state
        .store
        .disable_failing_webhooks(now - period, now, &reason)
        .await
    {
        Ok(ids) => {
            for id in ids {
                crate::metrics::webhook_disabled();
                tracing::warn!(webhook = %id, %reason, "webhook endpoint disabled");
            }
        }
        Err(e) => tracing::error!(error = %e, "disabling failing webhook endpoints failed"),
    }
}

/// "72 h", "1.5 h", "0.5 s".
fn span(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 3600.0 {
        format!("{} h", (secs / 360.0).round() / 10.0)
    } else {
        format!("{} s", (secs * 10.0).round() / 10.0)
    }
}

/// The running delivery worker.
#[derive(Debug)]
pub struct Deliverer {
    stop: watch::Sender<bool>,
    handle: JoinHandle<()>,
}

/// Longest idle wait between looks at the outbox (deliveries queued by another
/// process, retries coming due).
const POLL: Duration = Duration::from_millis(500);

impl Deliverer {
    /// Starts the worker; `state.deliveries` wakes it when events are queued.
    pub fn spawn(state: &AppState, sender: Sender) -> Self {
        let (stop, stopped) = watch::channel(false);
        let handle = tokio::spawn(run(state.clone(), Arc::new(sender), stopped));
        Deliverer { stop, handle }
    }

    /// Stops claiming, lets attempts in flight finish (each within its deadline).
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.handle.await;
    }
}

async fn run(state: AppState, sender: Arc<Sender>, mut stopped: watch::Receiver<bool>) {
    let config = sender.config.clone();
    let permits = Arc::new(Semaphore::new(config.concurrency.max(1)));
    let done = Arc::new(Notify::new());
    let lease_ms = i64::try_from(config.lease().as_millis()).unwrap_or(i64::MAX / 4);
    let mut tasks = JoinSet::new();
    while !*stopped.borrow() {
        while tasks.try_join_next().is_some() {}
        let free = u32::try_from(permits.available_permits()).unwrap_or(0);
        let now_ms = state.clock.now().timestamp_millis();
        if free > 0 {
            // Looking for work gives way to a stop (the database may be gone); an
            // attempt once started is finished.
            let claim = state.store.claim_deliveries(
                now_ms,
                lease_ms,
                free,
                config.per_endpoint,
                config.schedule.attempts(),
            );
            let Some(claimed) = unless_stopped(claim, &stopped, GRACE).await else {
                break;
            };
            match claimed {
                Ok(jobs) => {
                    for job in jobs {
                        let Ok(permit) = permits.clone().acquire_owned().await else {
                            break;
                        };
                        let (state, sender, done) = (state.clone(), sender.clone(), done.clone());
                        tasks.spawn(async move {
                            attempt(&state, &sender, job).await;
                            drop(permit);
                            done.notify_one();
                        });
                    }
                }
                Err(e) => tracing::error!(error = %e, "claiming webhook deliveries failed"),
            }
        }
        let busy = permits.available_permits() == 0;
        let Some(due) = unless_stopped(state.store.next_delivery_due(), &stopped, GRACE).await
        else {
            break;
        };
        let pause = match due {
            // Every slot is taken: wait for one to free up (or a wake-up).
            _ if busy => POLL,
            Ok(Some(due)) => {
                let wait = due.saturating_sub(state.clock.now().timestamp_millis());
                Duration::from_millis(u64::try_from(wait).unwrap_or(0))
                    .clamp(Duration::from_millis(5), POLL)
            }
            Ok(None) => POLL,
            Err(e) => {
                tracing::error!(error = %e, "reading the webhook outbox failed");
                POLL
            }
        };
        tokio::select! {
            _ = state.deliveries.notified() => {}
            _ = done.notified() => {}
            _ = tokio::time::sleep(pause) => {}
            _ = stopped.changed() => {}
        }
    }
    while tasks.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        assert_eq!(parse_retry_after("120"), Some(Duration::from_secs(120)));
        assert_eq!(parse_retry_after(" 0 "), Some(Duration::ZERO));
        // A date in the past means "now".
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }
}
