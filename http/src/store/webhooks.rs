//! What webhooks store (DESIGN.md §7 "Webhooks"): endpoints, the outbox of events,
//! deliveries with their attempts, and what the event kinds are computed from — each
//! deployment's conversation history, deploy markers and health reports.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use undertone_core::monitor::ConversationPoint;

use super::StoreResult;

/// The error of an attempt cut off by its server stopping.
pub(super) const INTERRUPTED: &str = "interrupted: the server stopped during this attempt";
/// The error of a delivery whose last attempt was cut off.
pub(super) const INTERRUPTED_LAST: &str = "interrupted: the server stopped during the last attempt";
/// The error of a delivery that has no secret to sign it with any more.
pub(super) const NO_SECRET: &str = "no signing secret: the endpoint or key is gone";
/// Deploy markers kept per deployment: the newest (by time) stay, older ones are
/// dropped as new ones arrive, so a deployment that releases on every request cannot
/// grow the table without bound.
pub const MAX_DEPLOYS_PER_DEPLOYMENT: u32 = 500;

/// Error of the pending deliveries cancelled when their endpoint was disabled.
pub(super) const ENDPOINT_DISABLED: &str =
    "cancelled: the endpoint was disabled after failing every attempt";

/// Error of the pending deliveries cancelled when their key was revoked.
pub(super) const KEY_REVOKED: &str =
    "cancelled: the API key that registered the endpoint was revoked";

/// A registered endpoint as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRecord {
    /// `wh_` + 32 hex characters.
    pub id: String,
    /// The organisation whose events it receives.
    pub org_id: String,
    /// The key that registered it; lists are per key.
    pub key_id: String,
    /// Where deliveries go.
    pub url: String,
    /// Signing secret (`whsec_…`).
    pub secret: String,
    /// Subscribed kinds, sorted.
    pub events: Vec<String>,
    /// Registration time.
    pub created_at: DateTime<Utc>,
    /// When an attempt last finished, successful or not.
    pub last_delivery_at: Option<DateTime<Utc>>,
    /// Failed attempts since the last successful one.
    pub failure_count: u32,
    /// Set when the endpoint was disabled for failing every attempt too long.
    pub disabled: Option<Disabled>,
}

/// When and why an endpoint was disabled (it receives nothing more; delete it and
/// register it again once it answers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disabled {
    /// When.
    pub at: DateTime<Utc>,
    /// Why, in a sentence.
    pub reason: String,
}

/// Who receives an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Targets {
    /// The organisation's endpoints subscribed to the event's kind, and optionally one
    /// more URL (an ingest request's `webhook_url`).
    Subscribers(Option<DirectTarget>),
    /// One endpoint, whatever it subscribed to (a test event).
    Webhook(String),
}

/// A URL that is not a registered endpoint: an ingest request's `webhook_url`, signed
/// with its key's delivery secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectTarget {
    /// The uniqueness key of the delivery (`ingest:` + session id).
    pub endpoint: String,
    /// The key whose delivery secret signs it.
    pub key_id: String,
    /// Where it goes.
    pub url: String,
}

/// An event to write to the outbox, with the exact bytes every delivery will send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// Stable event id (the envelope's `id`).
    pub id: String,
    /// The event kind.
    pub kind: String,
    /// The organisation.
    pub org_id: String,
    /// The deployment.
    pub deployment_id: String,
    /// The envelope's `created_at`.
    pub created_at: DateTime<Utc>,
    /// The envelope, serialised.
    pub body: Vec<u8>,
    /// Who receives it.
    pub targets: Targets,
}

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

/// Where a delivery is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// Waiting for its next attempt (or in one).
    Pending,
    /// An attempt got a 2xx answer.
    Succeeded,
    /// Every attempt failed, or its endpoint was deleted first.
    Failed,
}

impl DeliveryStatus {
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Succeeded => "succeeded",
            DeliveryStatus::Failed => "failed",
        }
    }

    pub(super) fn parse(s: &str) -> StoreResult<Self> {
        match s {
            "pending" => Ok(DeliveryStatus::Pending),
            "succeeded" => Ok(DeliveryStatus::Succeeded),
            "failed" => Ok(DeliveryStatus::Failed),
            other => Err(super::StoreError::Corrupt(format!(
                "unknown delivery status `{other}`"
            ))),
        }
    }
}

/// One attempt as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptRecord {
    /// 1 for the first.
    pub attempt: u32,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// How long it took (none when the server stopped during it).
    pub duration_ms: Option<u64>,
    /// The endpoint's status code, when it answered.
    pub response_status: Option<u16>,
    /// What went wrong.
    pub error: Option<String>,
    /// The first 16 KiB of the response body.
    pub response_body: Option<Vec<u8>>,
}

/// A delivery as stored, with its attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRecord {
    /// The delivery id, sent as `X-Undertone-Delivery` and `webhook-id`.
    pub id: String,
    /// The event.
    pub event_id: String,
    /// The event kind.
    pub event_type: String,
    /// Where it is.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// Status code of the last attempt.
    pub response_status: Option<u16>,
    /// Error of the last attempt.
    pub error: Option<String>,
    /// When it was queued.
    pub created_at: DateTime<Utc>,
    /// When the last attempt started.
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// When the next attempt is due, while pending.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// When it succeeded or failed for good.
    pub completed_at: Option<DateTime<Utc>>,
    /// Every attempt, first first.
    pub attempt_log: Vec<AttemptRecord>,
}

/// A claimed delivery: what the sender needs.
#[derive(Debug, Clone)]
pub struct DeliveryJob {
    /// The delivery id.
    pub id: String,
    /// The event kind.
    pub kind: String,
    /// Where to send it.
    pub url: String,
    /// The secret that signs it.
    pub secret: String,
    /// The envelope bytes.
    pub body: Vec<u8>,
    /// This attempt's number, 1 for the first.
    pub attempt: u32,
    /// Proves this claim when recording the attempt.
    pub token: String,
}

/// What happens to a delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// The attempt succeeded.
    Succeeded,
    /// Try again at this time (unix milliseconds).
    RetryAt(i64),
    /// No attempts left.
    Failed,
}

/// A health report as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportRecord {
    /// `uhr_` + 32 hex characters.
    pub id: String,
    /// The organisation.
    pub org_id: String,
    /// The deployment.
    pub deployment_id: String,
    /// Start of the period covered.
    pub period_start: DateTime<Utc>,
    /// End of the period covered (exclusive).
    pub period_end: DateTime<Utc>,
    /// `schedule` or `request`.
    pub trigger: String,
    /// When it was generated.
    pub created_at: DateTime<Utc>,
    /// The report, JSON.
    pub report: String,
}

/// Webhook, history and report storage.
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Stores a new endpoint, unless its key already has `max_per_key` active ones
    /// (false, nothing written). The count and the insert are one step, so concurrent
    /// creates cannot pass the cap together.
    async fn create_webhook(&self, webhook: &WebhookRecord, max_per_key: u32) -> StoreResult<bool>;
    /// The active endpoints a key registered, oldest first; with `None`, every active
    /// endpoint of the database (the operator's `undertone webhooks list`).
    async fn list_webhooks(&self, key_id: Option<&str>) -> StoreResult<Vec<WebhookRecord>>;
    /// One active endpoint of a key.
    async fn webhook(&self, id: &str, key_id: &str) -> StoreResult<Option<WebhookRecord>>;
    /// Disables every active endpoint whose attempts have all failed since before
    /// `failing_before` (its run of failures began then, and no attempt succeeded
    /// since), recording `reason` at `at`, and cancels its pending deliveries; the ids
    /// disabled.
    async fn disable_failing_webhooks(
        &self,
        failing_before: DateTime<Utc>,
        at: DateTime<Utc>,
        reason: &str,
    ) -> StoreResult<Vec<String>>;
    /// Deletes an endpoint of a key (`None`: of any key, the operator's `undertone
    /// webhooks delete`); its pending deliveries fail. False when unknown.
    async fn delete_webhook(
        &self,
        id: &str,
        key_id: Option<&str>,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Deliveries of an endpoint, newest first, after the delivery `after` (a cursor).
    async fn deliveries(
        &self,
        webhook_id: &str,
        after: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<DeliveryRecord>>;

    /// Writes events to the outbox with one delivery per target endpoint; an event
    /// already stored, or a delivery already queued for an endpoint, is not written
    /// again. Returns the deliveries queued.
    async fn emit(&self, events: &[NewEvent], at: DateTime<Utc>) -> StoreResult<u32>;
    /// Claims up to `limit` deliveries due at `now_ms` (including those whose lease
    /// expired mid-attempt: that attempt is recorded as interrupted, and a delivery
    /// with no attempts left fails). Fair across endpoints: round robin (each
    /// endpoint's oldest due delivery first, then each one's second …), and no endpoint
    /// gets more than `per_endpoint` attempts in flight, those already leased included,
    /// so one slow or flooded endpoint cannot take every slot.
    async fn claim_deliveries(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
        per_endpoint: u32,
        max_attempts: u32,
    ) -> StoreResult<Vec<DeliveryJob>>;
    /// Records a claimed attempt and what comes next; false when the claim is stale.
    async fn finish_delivery(
        &self,
        job: &DeliveryJob,
        attempt: &AttemptRecord,
        next: NextStep,
    ) -> StoreResult<bool>;
    /// The earliest time (unix ms) a pending delivery is due, if any.
    async fn next_delivery_due(&self) -> StoreResult<Option<i64>>;

    /// History of a deployment: conversations that started in `[from_ms, to_ms)`.
    async fn history(
        &self,
        org_id: &str,
        deployment_id: &str,
        from_ms: i64,
        to_ms: i64,
    ) -> StoreResult<Vec<ConversationPoint>>;
    /// Deployments with conversations that started in `[from_ms, to_ms)`, as
    /// (org, deployment).
    async fn active_deployments(
        &self,
        from_ms: i64,
        to_ms: i64,
    ) -> StoreResult<Vec<(String, String)>>;
    /// Records a deploy marker (a marker with a known id is kept as it is).
    async fn create_deploy(&self, deploy: &NewDeploy) -> StoreResult<()>;
    /// Deploy markers of a deployment, in time order.
    async fn deploys(&self, org_id: &str, deployment_id: &str) -> StoreResult<Vec<DeployRecord>>;
    /// Stores a health report and its event in one transaction; false (nothing
    /// written) when a report with its id exists.
    async fn save_report(
        &self,
        report: &ReportRecord,
        event: &NewEvent,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Health reports of a deployment, newest first.
    async fn reports(&self, org_id: &str, deployment_id: &str) -> StoreResult<Vec<ReportRecord>>;
    /// One health report.
    async fn report(
        &self,
        org_id: &str,
        deployment_id: &str,
        id: &str,
    ) -> StoreResult<Option<ReportRecord>>;
}
