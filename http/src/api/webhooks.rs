//! Webhook endpoints (DESIGN.md §7 "Webhooks"): register, list, delete, send a test
//! event, and read an endpoint's deliveries with every attempt.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use undertone_core::validate;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{JsonBody, PathParam, QueryParams, parse};
use super::error::{ApiError, Code, ErrorEnvelope};
use super::paging::{self, PageQuery};
use super::sessions::time;
use super::{AppState, Caller};
use crate::keys;
use crate::resolver::ResolveError;
use crate::store::{DeliveryRecord, DeliveryStatus, NewEvent, Registered, Targets, WebhookRecord};
use crate::webhooks::{EventKind, TEST_KIND, derived_id, envelope_bytes};

/// Kinds one endpoint may subscribe to, at most.
pub const MAX_KINDS: usize = 5;
/// Active endpoints one key may register, at most.
pub const MAX_WEBHOOKS_PER_KEY: usize = 20;
/// How long registration waits for the URL's host name to resolve.
const REGISTRATION_LOOKUP: std::time::Duration = std::time::Duration::from_secs(2);

/// The routes, each `routes!` holding the handlers of one path.
pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create, list))
        .routes(routes!(show, remove))
        .routes(routes!(test))
        .routes(routes!(deliveries))
}

/// The body of `POST /webhooks`.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({"url": "https://hooks.example.com/undertone",
    "events": ["intelligence.ready", "layer_z_threshold_crossed"]}))]
#[serde(deny_unknown_fields)]
pub struct CreateWebhook {
    /// Where deliveries go: https, resolving to public addresses only.
    #[schema(format = Uri, max_length = 2048)]
    pub url: String,
    /// 1 to 5 distinct event kinds.
    #[schema(min_items = 1, max_items = 5, value_type = std::collections::BTreeSet<EventKind>)]
    pub events: Vec<EventKind>,
}

/// A registered endpoint, as created (with its secret, shown this once).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "wh_3f6c1e0b9a7d4c2e8f1a5b6c7d8e9f0a",
    "url": "https://hooks.example.com/undertone",
    "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=",
    "events": ["intelligence.ready"], "created_at": "2026-11-21T09:30:00.000Z"}))]
pub struct WebhookCreated {
    /// The endpoint.
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// Signing secret: `whsec_` + base64 of 32 random bytes. Shown only here; a lost
    /// secret means deleting the endpoint and registering it again.
    pub secret: String,
    /// Subscribed kinds.
    pub events: Vec<EventKind>,
    /// Registration time.
    pub created_at: String,
}

/// A registered endpoint, as listed.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookView {
    /// The endpoint.
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// Subscribed kinds.
    pub events: Vec<EventKind>,
    /// Registration time.
    pub created_at: String,
    /// When an attempt to it last finished.
    pub last_delivery_at: Option<String>,
    /// Failed attempts since its last successful one.
    pub failure_count: u32,
    /// The `webhook.disabled` record: set when every attempt to the endpoint failed for
    /// the server's `--webhook-disable-after` period; it then receives nothing more
    /// (delete it and register it again once it answers). `null` while enabled.
    pub disabled: Option<DisabledView>,
}

/// When and why an endpoint was disabled.
#[derive(Debug, Serialize, ToSchema)]
pub struct DisabledView {
    /// Always `webhook.disabled`.
    pub event_type: &'static str,
    /// When (RFC 3339, UTC).
    pub at: String,
    /// Why.
    pub reason: String,
}

/// The endpoints of the calling key.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookList {
    /// Oldest first.
    pub data: Vec<WebhookView>,
}

/// The answer to a test request.
#[derive(Debug, Serialize, ToSchema)]
pub struct TestQueued {
    /// The test event's id (the envelope's `id`).
    pub event_id: String,
    /// Always `webhook.test`.
    pub event_type: String,
    /// Where its delivery shows up.
    pub deliveries_url: String,
}

/// One attempt of a delivery.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptView {
    /// 1 for the first.
    pub attempt: u32,
    /// When it started.
    pub started_at: String,
    /// How long it took (null if the server stopped during it).
    pub duration_ms: Option<u64>,
    /// The endpoint's status code, when it answered.
    pub response_status: Option<u16>,
    /// What went wrong.
    pub error: Option<String>,
    /// The first 16 KiB of the answer, as text (invalid UTF-8 replaced).
    pub response_body: Option<String>,
}

/// A delivery of one event to one endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    /// The delivery id, sent as `X-Undertone-Delivery` and `webhook-id`, the same on
    /// every attempt.
    pub id: String,
    /// The event (the envelope's `id`).
    pub event_id: String,
    /// The event kind.
    pub event_type: String,
    /// `pending`, `succeeded` or `failed`.
    pub status: DeliveryStatus,
    /// Attempts made.
    pub attempts: u32,
    /// Status code of the last attempt.
    pub response_status: Option<u16>,
    /// Error of the last attempt.
    pub error: Option<String>,
    /// When it was queued.
    pub created_at: String,
    /// When the last attempt started.
    pub last_attempt_at: Option<String>,
    /// When the next attempt is due (pending only).
    pub next_attempt_at: Option<String>,
    /// When it succeeded or failed for good.
    pub completed_at: Option<String>,
    /// Every attempt, first first.
    pub attempt_log: Vec<AttemptView>,
}

/// A page of deliveries.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryPage {
    /// Newest first.
    pub data: Vec<DeliveryView>,
    /// Pass as `cursor` for the next page (the last delivery's id); null on the last
    /// page. A cursor that names no delivery of this endpoint gives an empty page.
    pub next_cursor: Option<String>,
}

/// Where one endpoint is read (the `Location` of its registration).
fn webhook_url(webhook_id: &str) -> String {
    format!("/api/v1/webhooks/{webhook_id}")
}

/// Where an endpoint's deliveries are listed.
fn deliveries_url(webhook_id: &str) -> String {
    format!("/api/v1/webhooks/{webhook_id}/deliveries")
}

fn view(w: &WebhookRecord) -> WebhookView {
    // The order registration answered with: the kinds' documentation order.
    let mut events: Vec<EventKind> = w
        .events
        .iter()
        .filter_map(|k| EventKind::parse(k))
        .collect();
    events.sort();
    WebhookView {
        id: w.id.clone(),
        url: w.url.clone(),
        events,
        created_at: time(&w.created_at),
        last_delivery_at: w.last_delivery_at.as_ref().map(time),
        failure_count: w.failure_count,
        disabled: w.disabled.as_ref().map(|d| DisabledView {
            event_type: "webhook.disabled",
            at: time(&d.at),
            reason: d.reason.clone(),
        }),
    }
}

/// Checks a URL for registration: the input contract's rules (https, no credentials,
/// no literal non-public address), then the addresses its host resolves to now.
async fn check_url(state: &AppState, url: &str) -> Result<String, ApiError> {
    let options = validate::Options {
        allow_private_webhooks: state.config.allow_private_webhooks,
        unlimited: false,
        repeated_keys: false,
    };
    let url = validate::webhook_url(url, &options).map_err(|e| {
        let message = e.to_string().replacen("webhook_url", "url", 1);
        ApiError::new(Code::ValidationError, message)
    })?;
    resolves_to_public(state, &url, "url").await?;
    Ok(url)
}

/// Refuses a webhook URL (already checked by the input contract, and named `field` in
/// the error) whose host name resolves now to an address that is not public, unless
/// private webhooks are allowed. A name that does not resolve (yet) is accepted: every
/// attempt resolves and checks it again, and records why it failed. Registration and
/// an ingest's `webhook_url` are checked alike.
pub(super) async fn resolves_to_public(
    state: &AppState,
    url: &str,
    field: &str,
) -> Result<(), ApiError> {
    if state.config.allow_private_webhooks {
        return Ok(());
    }
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| ApiError::new(Code::ValidationError, format!("{field}: {e}")))?;
    if let Some(url::Host::Domain(host)) = parsed.host() {
        // The lookup is bounded so a slow resolver cannot hold the request.
        let lookup = tokio::time::timeout(REGISTRATION_LOOKUP, state.resolver.lookup(host));
        if let Ok(Err(e @ ResolveError::NotPublic { .. })) = lookup.await {
            return Err(ApiError::new(
                Code::ValidationError,
                format!("{field}: {e}"),
            ));
        }
    }
    Ok(())
}

/// Register an endpoint.
///
/// The URL must be https and resolve only to public addresses (checked now and again
/// at every delivery). The answer holds the signing secret: it is shown only once.
#[utoipa::path(post, path = "/webhooks", tag = "webhooks",
    request_body(content = CreateWebhook, content_type = "application/json"),
    responses(
        (status = 201, description = "Registered", body = WebhookCreated,
            headers(("Location" = String, description = "The endpoint (`GET /webhooks/{webhook_id}`)"))),
        (status = 400, description = "Invalid URL or event kinds", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 409, description = "The key has 20 webhooks already, or one for this URL", body = ErrorEnvelope),
        (status = 415, description = "The body is not JSON", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    JsonBody(bytes): JsonBody,
) -> Result<Response, ApiError> {
    let body: CreateWebhook = parse(&bytes)?;
    let mut kinds = body.events.clone();
    kinds.sort();
    kinds.dedup();
    if body.events.is_empty() || body.events.len() > MAX_KINDS {
        return Err(ApiError::new(
            Code::ValidationError,
            format!(
                "events: must list 1 to {MAX_KINDS} event kinds, got {}",
                body.events.len()
            ),
        ));
    }
    if kinds.len() != body.events.len() {
        return Err(ApiError::new(
            Code::ValidationError,
            "events: each event kind may be listed once",
        ));
    }
    let url = check_url(&state, &body.url).await?;
    let record = WebhookRecord {
        id: format!("wh_{}", uuid::Uuid::new_v4().simple()),
        org_id: caller.key.org_id.clone(),
        key_id: caller.key.id.clone(),
        url,
        secret: keys::generate_secret(),
        events: kinds.iter().map(|k| k.as_str().to_owned()).collect(),
        created_at: state.clock.now(),
        last_delivery_at: None,
        failure_count: 0,
        disabled: None,
    };
    let cap = u32::try_from(MAX_WEBHOOKS_PER_KEY).unwrap_or(u32::MAX);
    match state.store.create_webhook(&record, cap).await? {
        Registered::Created => {}
        Registered::Full => {
            return Err(ApiError::new(
                Code::Conflict,
                format!(
                    "this key has {MAX_WEBHOOKS_PER_KEY} webhooks already, the most it may have; delete one first"
                ),
            ));
        }
        // One endpoint per URL and key: a second would receive every event again,
        // under other delivery ids (a client retrying a registration made one).
        Registered::Taken(id) => {
            return Err(ApiError::new(
                Code::Conflict,
                format!(
                    "this key has an endpoint for this URL already ({id}); use it, or \
                     delete it before registering the URL again"
                ),
            ));
        }
    }
    let location = webhook_url(&record.id);
    let created = WebhookCreated {
        id: record.id,
        url: record.url,
        secret: record.secret,
        events: kinds,
        created_at: time(&record.created_at),
    };
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(created),
    )
        .into_response())
}

/// List the calling key's endpoints.
#[utoipa::path(get, path = "/webhooks", tag = "webhooks",
    responses(
        (status = 200, description = "Active endpoints, oldest first", body = WebhookList),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<WebhookList>, ApiError> {
    let hooks = state.store.list_webhooks(Some(&caller.key.id)).await?;
    Ok(Json(WebhookList {
        data: hooks.iter().map(view).collect(),
    }))
}

async fn owned(state: &AppState, caller: &Caller, id: &str) -> Result<WebhookRecord, ApiError> {
    state
        .store
        .webhook(id, &caller.key.id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook"))
}

/// One endpoint of the calling key, as the list shows it (never its secret).
#[utoipa::path(get, path = "/webhooks/{webhook_id}", tag = "webhooks",
    params(("webhook_id" = String, Path, description = "The endpoint")),
    responses(
        (status = 200, description = "The endpoint", body = WebhookView),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 404, description = "No such endpoint for this key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn show(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(id): PathParam<String>,
) -> Result<Json<WebhookView>, ApiError> {
    Ok(Json(view(&owned(&state, &caller, &id).await?)))
}

/// Delete an endpoint; its pending deliveries fail.
#[utoipa::path(delete, path = "/webhooks/{webhook_id}", tag = "webhooks",
    params(("webhook_id" = String, Path, description = "The endpoint")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 404, description = "No such endpoint for this key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn remove(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(id): PathParam<String>,
) -> Result<StatusCode, ApiError> {
    if state
        .store
        .delete_webhook(&id, Some(&caller.key.id), state.clock.now())
        .await?
    {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("webhook"))
    }
}

/// The `data` of a test event.
#[derive(Debug, Serialize, ToSchema)]
pub struct TestData {
    /// The endpoint tested.
    pub webhook_id: String,
    /// A note for whoever reads the receiver's log.
    pub message: String,
}

/// Queue a signed test event to one endpoint.
///
/// The event (`webhook.test`) goes to this endpoint only, whatever it subscribed to,
/// signed and retried like any other; its delivery is listed with the others.
#[utoipa::path(post, path = "/webhooks/{webhook_id}/test", tag = "webhooks",
    params(("webhook_id" = String, Path, description = "The endpoint")),
    responses(
        (status = 202, description = "Queued", body = TestQueued),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 404, description = "No such endpoint for this key", body = ErrorEnvelope),
        (status = 409, description = "The endpoint was disabled for failing every attempt", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn test(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(id): PathParam<String>,
) -> Result<Response, ApiError> {
    let hook = owned(&state, &caller, &id).await?;
    // A disabled endpoint receives nothing, a test included: a 202 would claim a
    // delivery that is never made.
    if let Some(disabled) = &hook.disabled {
        return Err(ApiError::new(
            Code::Conflict,
            format!(
                "this webhook was disabled at {} ({}) and receives nothing, a test \
                 included; delete it and register it again once it answers",
                time(&disabled.at),
                disabled.reason
            ),
        ));
    }
    let now = state.clock.now();
    let event_id = derived_id(&[TEST_KIND, &hook.id, &uuid::Uuid::new_v4().to_string()]);
    let data = TestData {
        webhook_id: hook.id.clone(),
        message: "This is a test event from Undertone.".into(),
    };
    let body = envelope_bytes(
        &event_id,
        TEST_KIND,
        now,
        &hook.org_id,
        "webhook-test",
        &data,
    )
    .map_err(ApiError::internal)?;
    let event = NewEvent {
        id: event_id.clone(),
        kind: TEST_KIND.to_owned(),
        org_id: hook.org_id.clone(),
        deployment_id: "webhook-test".into(),
        created_at: now,
        body,
        targets: Targets::Webhook(hook.id.clone()),
    };
    state.store.emit(&[event], now).await?;
    state.deliveries.notify_one();
    let deliveries_url = deliveries_url(&hook.id);
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, deliveries_url.clone())],
        Json(TestQueued {
            event_id,
            event_type: TEST_KIND.to_owned(),
            deliveries_url,
        }),
    )
        .into_response())
}

fn delivery_view(d: DeliveryRecord) -> DeliveryView {
    DeliveryView {
        id: d.id,
        event_id: d.event_id,
        event_type: d.event_type,
        status: d.status,
        attempts: d.attempts,
        response_status: d.response_status,
        error: d.error,
        created_at: time(&d.created_at),
        last_attempt_at: d.last_attempt_at.as_ref().map(time),
        next_attempt_at: d.next_attempt_at.as_ref().map(time),
        completed_at: d.completed_at.as_ref().map(time),
        attempt_log: d
            .attempt_log
            .into_iter()
            .map(|a| AttemptView {
                attempt: a.attempt,
                started_at: time(&a.started_at),
                duration_ms: a.duration_ms,
                response_status: a.response_status,
                error: a.error,
                response_body: a
                    .response_body
                    .map(|b| String::from_utf8_lossy(&b).into_owned()),
            })
            .collect(),
    }
}

/// An endpoint's deliveries, newest first, with every attempt.
#[utoipa::path(get, path = "/webhooks/{webhook_id}/deliveries", tag = "webhooks",
    params(
        ("webhook_id" = String, Path, description = "The endpoint"),
        ("limit" = Option<u32>, Query, description = "Deliveries per page: 1 to 100 (default 20)", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page (a delivery id)", format = Uuid),
    ),
    responses(
        (status = 200, description = "A page of deliveries", body = DeliveryPage),
        (status = 400, description = "Invalid limit or cursor", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 404, description = "No such endpoint for this key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn deliveries(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(id): PathParam<String>,
    QueryParams(page): QueryParams<PageQuery>,
) -> Result<Json<DeliveryPage>, ApiError> {
    let (limit, after) = page.checked("a delivery id")?;
    let hook = owned(&state, &caller, &id).await?;
    let rows = state
        .store
        .deliveries(&hook.id, after.as_deref(), limit + 1)
        .await?;
    let (rows, next_cursor) = paging::page(rows, limit, |d| d.id.clone());
    Ok(Json(DeliveryPage {
        data: rows.into_iter().map(delivery_view).collect(),
        next_cursor,
    }))
}
