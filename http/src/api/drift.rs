//! `POST /drift`, `POST /deployments/{id}/drift` and `GET /drift/{session_id}`:
//! significance-tested comparison of two periods, given as events or as two date
//! ranges of a deployment's history, run as a session (DESIGN.md §6).

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use undertone_core::monitor::{HistoryDriftRequest, HistoryPeriod};
use undertone_core::schema::{DriftRequest, limits};
use undertone_core::validate;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{JsonBody, PathParam, time_field};
use super::error::{ApiError, Code, ErrorEnvelope};
use super::sessions::{load, time};
use super::submit::{
    IdempotencyHeader, accepted, check_off_runtime, enqueue, idempotency, repeated,
};
use super::{AppState, Caller};
use crate::limits::Quota;
use crate::store::{Idempotency, NewSession, SessionKind, SessionStatus};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(start))
        .routes(routes!(start_history))
        .routes(routes!(read))
}

/// The 202 answer to a drift request.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"session_id": "5d1c7a2e-8b3f-4c6d-9e0a-1f2b3c4d5e6f",
    "status": "received", "poll_url": "/api/v1/drift/5d1c7a2e-8b3f-4c6d-9e0a-1f2b3c4d5e6f"}))]
pub struct DriftAccepted {
    /// The drift session.
    #[schema(format = Uuid)]
    pub session_id: String,
    /// Always `received`.
    pub status: SessionStatus,
    /// Where to poll for the result.
    pub poll_url: String,
}

/// Labels and question of a drift session, stored at acceptance.
#[derive(Debug, Serialize, Deserialize)]
struct Labels {
    before: String,
    after: String,
    question: Option<String>,
}

/// The drift result as stored (core's `DriftResult`), read back field by field.
#[derive(Debug, Default, Deserialize)]
struct StoredResult {
    scorer_version: Option<String>,
    before: Option<Value>,
    after: Option<Value>,
    overall_drift: Option<f64>,
    direction: Option<String>,
    plain_summary: Option<String>,
    plain_recommendations: Option<Vec<String>>,
    key_findings: Option<Vec<String>>,
    dimension_drifts: Option<Value>,
    outcome_shift: Option<Value>,
}

/// A drift session (SPEC.md §2.5). Result fields are `null` until `status` is
/// `complete`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"session_id": "5d1c7a2e-8b3f-4c6d-9e0a-1f2b3c4d5e6f",
    "status": "complete", "created_at": "2026-11-21T09:31:00.120Z",
    "completed_at": "2026-11-21T09:31:00.190Z", "error": null, "before_label": "model-v1",
    "after_label": "model-v2", "question": "Did v2 frustrate users more?", "event_count": 400,
    "scorer_version": "1.1.0", "overall_drift": 0.42, "direction": "regressed",
    "plain_summary": "Frustration buildup rose from 0.21 to 0.38 (p = 0.003).",
    "plain_recommendations": ["Review the v2 refusals that preceded repeated questions."],
    "key_findings": ["frustration_buildup regressed: median 0.21 → 0.38, Holm p = 0.003"],
    "dimension_drifts": {"frustration_buildup": {"before_median": 0.21, "after_median": 0.38,
        "shift": 0.16, "ci_low": 0.07, "ci_high": 0.25, "p_value": 0.0006, "p_adjusted": 0.003,
        "effect_size": 0.42, "significant": true, "verdict": "regressed"}},
    "before": {"label": "model-v1", "event_count": 200, "conversation_count": 40,
        "human_turn_count": 100, "resolved_rate": 0.6},
    "after": {"label": "model-v2", "event_count": 200, "conversation_count": 40,
        "human_turn_count": 100, "resolved_rate": 0.45},
    "outcome_shift": {"before_n": 40, "before_resolved": 24, "after_n": 40,
        "after_resolved": 18, "before_rate": 0.6, "after_rate": 0.45, "change_points": -15.0,
        "p_value": 0.18, "outcome_shift_detected": false}}))]
pub struct DriftView {
    /// The drift session.
    #[schema(format = Uuid)]
    pub session_id: String,
    /// `received` → `processing` → `complete` | `failed`.
    pub status: SessionStatus,
    /// When the request was accepted.
    pub created_at: String,
    /// When the comparison finished.
    pub completed_at: Option<String>,
    /// Why processing failed.
    pub error: Option<String>,
    /// Label of the baseline period.
    pub before_label: String,
    /// Label of the compared period.
    pub after_label: String,
    /// The question, as asked.
    pub question: Option<String>,
    /// Events in both periods (0 for a drift over a deployment's history, which
    /// keeps scores, not events).
    pub event_count: u64,
    /// Version of the scorer.
    pub scorer_version: Option<String>,
    /// Size of the largest significant change, in [0, 1].
    pub overall_drift: Option<f64>,
    /// `improved`, `regressed`, `mixed` or `stable`.
    pub direction: Option<String>,
    /// 2–4 sentences with the numbers.
    pub plain_summary: Option<String>,
    /// What to do about each regression.
    pub plain_recommendations: Option<Vec<String>>,
    /// One line per dimension, most important first.
    pub key_findings: Option<Vec<String>>,
    /// Per dimension: `{before_median, after_median, shift, ci_low, ci_high, p_value,
    /// p_adjusted, effect_size, significant, verdict}` (docs/drift.md).
    #[schema(value_type = Option<Object>)]
    pub dimension_drifts: Option<Value>,
    /// Counts of the baseline period.
    #[schema(value_type = Option<Object>)]
    pub before: Option<Value>,
    /// Counts of the compared period.
    #[schema(value_type = Option<Object>)]
    pub after: Option<Value>,
    /// Resolved rate before vs after (two-proportion z-test).
    #[schema(value_type = Option<Object>)]
    pub outcome_shift: Option<Value>,
}

/// Start a drift comparison between two periods.
///
/// Each period holds 5–2000 events. Per dimension the per-conversation scores are
/// compared with a two-sided Mann-Whitney U test, Holm-adjusted across dimensions.
/// Counts against the drift window (10 per hour by default) as well as the request
/// windows.
#[utoipa::path(post, path = "/drift", tag = "drift",
    params(IdempotencyHeader),
    request_body(content = DriftRequest, content_type = "application/json"),
    responses(
        (status = 202, description = "Accepted and queued", body = DriftAccepted,
            headers(("Location" = String, description = "The drift session's poll URL"), ("Idempotent-Replayed" = String, description = "`true` when this repeats the answer to an earlier request with the same Idempotency-Key"))),
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
pub(super) async fn start(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    JsonBody(bytes): JsonBody,
) -> Result<Response, ApiError> {
    let idempotency = idempotency(&headers, "POST /drift", &bytes).await?;
    if let Some(repeat) = repeated(&state, &caller, idempotency.as_ref(), answer).await? {
        return Ok(repeat);
    }
    let (checked, bytes) = check_off_runtime(bytes, |b| {
        validate::drift_request_bytes(b).map(|r| {
            let count = r.before.events.len() + r.after.events.len();
            let labels = Labels {
                before: r.before.label,
                after: r.after.label,
                question: r.question,
            };
            (count, labels, r.deployment_id)
        })
    })
    .await?;
    let (event_count, labels, deployment_id) = checked?;
    enqueue_drift(
        &state,
        &caller,
        labels,
        deployment_id,
        event_count,
        Vec::from(bytes),
        idempotency,
    )
    .await
}

/// Queues a drift session whose stored request is `body` and answers 202 with where
/// to poll (or the refusal of a full queue, or the repeat of what a request with the
/// same `Idempotency-Key` started).
async fn enqueue_drift(
    state: &AppState,
    caller: &Caller,
    labels: Labels,
    deployment_id: Option<String>,
    event_count: usize,
    body: Vec<u8>,
    idempotency: Option<Idempotency>,
) -> Result<Response, ApiError> {
    let session = NewSession {
        id: uuid::Uuid::new_v4().to_string(),
        kind: SessionKind::Drift,
        org_id: caller.key.org_id.clone(),
        key_id: caller.key.id.clone(),
        deployment_id,
        event_count,
        webhook_url: None,
        labels: Some(serde_json::to_string(&labels).map_err(ApiError::internal)?),
        body,
        created_at: state.clock.now(),
        idempotency,
    };
    let quota = match enqueue(state, caller, &session, answer).await {
        Ok(quota) => quota,
        Err(refused) => return Ok(refused),
    };
    Ok(answer(&session.id, event_count as u64, quota))
}

/// The 202 of a drift request that started session `session_id` (its repeats get it
/// too).
fn answer(session_id: &str, _event_count: u64, quota: Option<Quota>) -> Response {
    let poll_url = format!("/api/v1/drift/{session_id}");
    let body = DriftAccepted {
        session_id: session_id.to_owned(),
        status: SessionStatus::Received,
        poll_url: poll_url.clone(),
    };
    accepted(poll_url, body, quota)
}

/// One period of a deployment's history: `[from, to)`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryRange {
    /// The period's label; `from`'s and `to`'s times when omitted.
    #[schema(schema_with = undertone_core::schema::range_label_schema)]
    pub label: Option<String>,
    /// Conversations that started at or after this time (RFC 3339) are in the period.
    #[schema(format = DateTime)]
    pub from: String,
    /// Conversations that started before this time (RFC 3339) are in the period.
    #[schema(format = DateTime)]
    pub to: String,
}

/// The body of `POST /deployments/{deployment_id}/drift`.
#[derive(Debug, Deserialize, ToSchema)]
#[schema(example = json!({
    "before": {"label": "before the refund prompt", "from": "2026-11-01T00:00:00Z", "to": "2026-11-15T00:00:00Z"},
    "after": {"label": "after", "from": "2026-11-15T00:00:00Z", "to": "2026-11-29T00:00:00Z"},
    "question": "Are people more frustrated since the new refund prompt?"}))]
#[serde(deny_unknown_fields)]
pub struct HistoryDriftBody {
    /// The baseline period.
    pub before: HistoryRange,
    /// The compared period.
    pub after: HistoryRange,
    /// The question the analysis addresses first.
    #[schema(schema_with = undertone_core::schema::question_schema)]
    pub question: Option<String>,
}

/// Start a drift comparison between two date ranges of a deployment.
///
/// Compares the conversations of the deployment's kept history (`--retain-days`) that
/// started in each range, exactly as `POST /drift` compares scored events: per
/// dimension a two-sided Mann-Whitney U test, Holm-adjusted, with the Hodges–Lehmann
/// shift and interval, and the resolved rates. The conversations are read when the
/// request is accepted (at most 10,000 per range); the result is read at `GET
/// /drift/{session_id}`. History keeps scores, not events, so the recommendations
/// cannot quote evidence and `event_count` is 0. Counts against the drift window.
#[utoipa::path(post, path = "/deployments/{deployment_id}/drift", tag = "drift",
    operation_id = "start_history_drift",
    params(("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"), IdempotencyHeader),
    request_body(content = HistoryDriftBody, content_type = "application/json"),
    responses(
        (status = 202, description = "Accepted and queued", body = DriftAccepted,
            headers(("Location" = String, description = "The drift session's poll URL"), ("Idempotent-Replayed" = String, description = "`true` when this repeats the answer to an earlier request with the same Idempotency-Key"))),
        (status = 400, description = "Invalid deployment id, range, label or question, or too many conversations in a range", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 404, description = "The deployment has no conversation history", body = ErrorEnvelope),
        (status = 409, description = "The Idempotency-Key was sent before with a different request", body = ErrorEnvelope),
        (status = 415, description = "The body is not JSON", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
        (status = 503, description = "The queue is at capacity", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn start_history(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(deployment_id): PathParam<String>,
    headers: HeaderMap,
    JsonBody(bytes): JsonBody,
) -> Result<Response, ApiError> {
    validate::identifier(&deployment_id, "deployment_id")?;
    let route = format!("POST /deployments/{deployment_id}/drift");
    let idempotency = idempotency(&headers, &route, &bytes).await?;
    if let Some(repeat) = repeated(&state, &caller, idempotency.as_ref(), answer).await? {
        return Ok(repeat);
    }
    let body: HistoryDriftBody = super::body::parse(&bytes)?;
    // The question's rule is the drift request's (core), and it is kept trimmed as there.
    let question = match body.question {
        Some(q) => {
            validate::question(&q)?;
            Some(q.trim().to_owned())
        }
        None => None,
    };
    let before = read_range(&state, &caller, &deployment_id, body.before, "before").await?;
    let after = read_range(&state, &caller, &deployment_id, body.after, "after").await?;
    // A deployment with no history at all is most likely a typo: say so, and spend
    // no drift session on comparing nothing with nothing.
    if before.points.is_empty()
        && after.points.is_empty()
        && !state
            .store
            .has_history(&caller.key.org_id, &deployment_id)
            .await?
    {
        return Err(ApiError::new(
            Code::NotFound,
            format!(
                "deployment {deployment_id:?} has no conversation history for this key's \
                 organisation; GET /api/v1/deployments lists those that have"
            ),
        ));
    }
    let labels = Labels {
        before: before.label.clone(),
        after: after.label.clone(),
        question: question.clone(),
    };
    let request = HistoryDriftRequest {
        deployment_id: deployment_id.clone(),
        before,
        after,
        question,
    };
    let body = serde_json::to_vec(&request).map_err(ApiError::internal)?;
    // History keeps scores, not events: no events are compared.
    enqueue_drift(
        &state,
        &caller,
        labels,
        Some(deployment_id),
        0,
        body,
        idempotency,
    )
    .await
}

/// The conversations of `deployment_id` that started in `range`, checked, as the
/// period at `field` (`before` or `after`).
async fn read_range(
    state: &AppState,
    caller: &Caller,
    deployment_id: &str,
    range: HistoryRange,
    field: &str,
) -> Result<HistoryPeriod, ApiError> {
    let from = time_field(&format!("{field}.from"), &range.from)?;
    let to = time_field(&format!("{field}.to"), &range.to)?;
    if from >= to {
        return Err(ApiError::new(
            Code::ValidationError,
            format!("{field}: from must be earlier than to"),
        ));
    }
    let label = match range.label {
        Some(label) => {
            validate::identifier(&label, &format!("{field}.label"))?;
            label
        }
        None => format!(
            "{} – {}",
            from.format("%Y-%m-%d %H:%M"),
            to.format("%Y-%m-%d %H:%M")
        ),
    };
    let points = state
        .store
        .history(
            &caller.key.org_id,
            deployment_id,
            from.timestamp_millis(),
            to.timestamp_millis(),
        )
        .await?;
    if points.len() > limits::DRIFT_HISTORY_CONVERSATIONS_MAX {
        return Err(ApiError::new(
            Code::ValidationError,
            format!(
                "{field}: holds {} conversations, at most {} can be compared; narrow the range",
                points.len(),
                limits::DRIFT_HISTORY_CONVERSATIONS_MAX
            ),
        ));
    }
    Ok(HistoryPeriod { label, points })
}

/// Read a drift session.
#[utoipa::path(get, path = "/drift/{session_id}", tag = "drift",
    params(("session_id" = String, Path, description = "Drift session id")),
    responses(
        (status = 200, description = "The drift session", body = DriftView),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 404, description = "No such drift session", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn read(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(session_id): PathParam<String>,
) -> Result<Json<DriftView>, ApiError> {
    let s = load(&state, &caller, &session_id, SessionKind::Drift).await?;
    let labels: Labels = s
        .labels
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(ApiError::internal)?
        .ok_or_else(|| ApiError::internal("drift session without labels"))?;
    let result: StoredResult = match (&s.full_output, s.status) {
        (Some(json), SessionStatus::Complete) => {
            serde_json::from_str(json).map_err(ApiError::internal)?
        }
        _ => StoredResult::default(),
    };
    Ok(Json(DriftView {
        session_id: s.id,
        status: s.status,
        created_at: time(&s.created_at),
        completed_at: s.completed_at.as_ref().map(time),
        error: s.error,
        before_label: labels.before,
        after_label: labels.after,
        question: labels.question,
        event_count: s.event_count as u64,
        scorer_version: result.scorer_version,
        overall_drift: result.overall_drift,
        direction: result.direction,
        plain_summary: result.plain_summary,
        plain_recommendations: result.plain_recommendations,
        key_findings: result.key_findings,
        dimension_drifts: result.dimension_drifts,
        before: result.before,
        after: result.after,
        outcome_shift: result.outcome_shift,
    }))
}
