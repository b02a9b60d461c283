//! `POST /ingest`: validate, store session + events + job in one transaction, answer 202.

use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::Serialize;
use undertone_core::schema::IngestRequest;
use undertone_core::validate;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::JsonBody;
use super::error::{ApiError, ErrorEnvelope};
use super::submit::{
    IdempotencyHeader, accepted, check_off_runtime, enqueue, idempotency, queue_full, repeated,
};
use super::{AppState, Caller};
use crate::limits::Quota;
use crate::store::{NewSession, SessionKind, SessionStatus};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ingest))
}

/// The 202 answer to an ingest.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"session_id": "0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c",
    "event_count": 12, "status": "received",
    "poll_url": "/api/v1/intelligence/0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c"}))]
pub struct IngestAccepted {
    /// The new session.
    #[schema(format = Uuid)]
    pub session_id: String,
    /// Events accepted.
    pub event_count: u64,
    /// Always `received`.
    pub status: SessionStatus,
    /// Where to poll for the result.
    pub poll_url: String,
}

/// Submit a conversation's events for scoring.
///
/// The body is validated in full before anything is stored; on success the session,
/// its events and its job are committed together, then 202 is returned. Poll
/// `poll_url` until `status` is `complete` or `failed`.
#[utoipa::path(post, path = "/ingest", tag = "sessions",
    params(IdempotencyHeader),
    request_body(content = IngestRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "Accepted and queued", body = IngestAccepted,
            headers(("Location" = String, description = "The session's poll URL"), ("Idempotent-Replayed" = String, description = "`true` when this repeats the answer to an earlier request with the same Idempotency-Key"))),
        (status = 400, description = "The body broke the input contract", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 409, description = "The Idempotency-Key was sent before with a different request", body = ErrorEnvelope),
        (status = 415, description = "The body is not JSON", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
        (status = 503, description = "The queue is at capacity", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn ingest(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    JsonBody(bytes): JsonBody,
) -> Result<Response, ApiError> {
    // A repeat gets what its first sending started, whatever the queue holds now.
    let idempotency = idempotency(&headers, "POST /ingest", &bytes).await?;
    if let Some(repeat) = repeated(&state, &caller, idempotency.as_ref(), answer).await? {
        return Ok(repeat);
    }
    // Refuse before parsing when the queue is already full; `enqueue` checks again
    // inside its transaction.
    if state.store.queue_depth().await? >= state.config.queue_capacity {
        return Err(queue_full(&state));
    }
    let options = validate::Options {
        allow_private_webhooks: state.config.allow_private_webhooks,
        unlimited: false,
        repeated_keys: false,
    };
    let (checked, bytes) =
        check_off_runtime(bytes, move |b| validate::ingest_request_bytes(b, &options)).await?;
    let request = Arc::new(checked?);
    if let Some(url) = &request.webhook_url {
        super::webhooks::resolves_to_public(&state, url, "webhook_url").await?;
    }
    let event_count = request.events.len();
    let session = NewSession {
        id: uuid::Uuid::new_v4().to_string(),
        kind: SessionKind::Ingest,
        org_id: caller.key.org_id.clone(),
        key_id: caller.key.id.clone(),
        deployment_id: Some(request.deployment_id.clone()),
        event_count,
        webhook_url: request.webhook_url.clone(),
        labels: None,
        body: Vec::from(bytes),
        created_at: state.clock.now(),
        idempotency,
    };
    let quota = match enqueue(&state, &caller, &session, answer).await {
        Ok(quota) => quota,
        Err(refused) => return Ok(refused),
    };
    state.handoff.put(&session.id, request, session.body.len());
    Ok(answer(&session.id, event_count as u64, quota))
}

/// The 202 of an ingest that started session `session_id` (its repeats get it too).
fn answer(session_id: &str, event_count: u64, quota: Option<Quota>) -> Response {
    let poll_url = crate::webhooks::emit::poll_url(session_id);
    let body = IngestAccepted {
        session_id: session_id.to_owned(),
        event_count,
        status: SessionStatus::Received,
        poll_url: poll_url.clone(),
    };
    accepted(poll_url, body, quota)
}
