//! `GET /intelligence/{session_id}`: a session, full or condensed; `GET /sessions`: the
//! organisation's ingest sessions; `GET /sessions/{session_id}/transcript`: a session's
//! conversations as scored, with their text (what the app draws).

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::{PathParam, QueryParams};
use super::error::{ApiError, Code, ErrorEnvelope};
use super::paging::{self, PageQuery};
use super::{AppState, Caller};
use crate::store::{SessionKind, SessionRecord, SessionStatus, StoreError};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(intelligence))
        .routes(routes!(list))
        .routes(routes!(transcript))
}

/// A session (SPEC.md §2.3). Result fields are `null` until `status` is `complete`.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"session_id": "0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c",
    "status": "complete", "event_count": 20, "environment_type": "cx_chatbot",
    "created_at": "2026-11-21T09:31:00.120Z", "completed_at": "2026-11-21T09:31:00.161Z",
    "plain_summary": "Undertone scored 11 human turns in 2 conversations of deployment acme-support-bot.",
    "plain_recommendations": ["Offer a human handoff when a customer asks twice."],
    "full_output": {"pipeline": "support", "intelligence": {"scorer_version": "1.1.0"}},
    "error": null}))]
pub struct SessionView {
    /// The session.
    #[schema(format = Uuid)]
    pub session_id: String,
    /// `received` → `processing` → `complete` | `failed`.
    pub status: SessionStatus,
    /// Events in the request.
    pub event_count: u64,
    /// Detected deployment archetype (e.g. `cx_chatbot`).
    pub environment_type: Option<String>,
    /// When the session was accepted (RFC 3339, UTC).
    pub created_at: String,
    /// When scoring finished.
    pub completed_at: Option<String>,
    /// 3–5 sentences for a product manager.
    pub plain_summary: Option<String>,
    /// Actions tied to evidence.
    pub plain_recommendations: Option<Vec<String>>,
    /// `{pipeline, intelligence}`: every conversation, turn and dimension with its
    /// evidence (docs/scoring.md).
    #[schema(value_type = Option<Object>)]
    pub full_output: Option<Box<RawValue>>,
    /// Why processing failed.
    pub error: Option<String>,
}

/// The condensed view (SPEC.md §2.3); result fields are `null` until complete.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"session_id": "0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c",
    "status": "complete", "archetype": "cx_chatbot",
    "layer_z": {"frustration_buildup": {"score": 0.61, "risk": 0.61, "band": "broken",
        "direction": "higher_is_worse", "confidence": 0.7, "evidence": []}},
    "key_finding": "Frustration builds across repeated refund questions.",
    "falsifiable": true, "recommendation": "Offer a human handoff when a customer asks twice."}))]
#[serde(deny_unknown_fields)]
pub struct CondensedView {
    /// The session.
    #[schema(format = Uuid)]
    pub session_id: String,
    /// Where the session is.
    #[serde(default = "received")]
    pub status: SessionStatus,
    /// Detected deployment archetype.
    pub archetype: Option<String>,
    /// Request-level dimensions: `{dimension: {score, risk, band, direction,
    /// confidence, evidence}}`.
    #[schema(value_type = Option<Object>)]
    pub layer_z: Option<Box<RawValue>>,
    /// The most important finding.
    pub key_finding: Option<String>,
    /// Whether the finding states a measurable prediction.
    pub falsifiable: Option<bool>,
    /// The first recommendation.
    pub recommendation: Option<String>,
}

fn received() -> SessionStatus {
    SessionStatus::Received
}

/// What `GET /intelligence/{session_id}` answers: the full session, or the condensed
/// view with `view=condensed`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum IntelligenceView {
    /// `view=full` (the default).
    Full(SessionView),
    /// `view=condensed`.
    Condensed(CondensedView),
}

/// Which shape to return; any other parameter is refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewQuery {
    view: Option<String>,
}

/// The shapes a session can be read in.
#[derive(Debug, ToSchema)]
#[allow(dead_code)] // documents the `view` parameter
pub enum ViewName {
    /// Every conversation, turn and piece of evidence.
    #[schema(rename = "full")]
    Full,
    /// Archetype, request-level Layer Z, key finding.
    #[schema(rename = "condensed")]
    Condensed,
}

/// Poll a session.
///
/// `?view=condensed` returns the short shape: archetype, request-level Layer Z, key
/// finding, recommendation.
#[utoipa::path(get, path = "/intelligence/{session_id}", tag = "sessions",
    params(
        ("session_id" = String, Path, description = "Session id from ingest"),
        ("view" = Option<ViewName>, Query, description = "`full` (default) or `condensed`"),
    ),
    responses(
        (status = 200, description = "The session: SessionView, or CondensedView with `view=condensed`",
            body = IntelligenceView),
        (status = 400, description = "Unknown view", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 404, description = "No such session", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn intelligence(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(session_id): PathParam<String>,
    QueryParams(query): QueryParams<ViewQuery>,
) -> Result<Response, ApiError> {
    let condensed = match query.view.as_deref() {
        None | Some("full") => false,
        Some("condensed") => true,
        Some(other) => {
            return Err(ApiError::new(
                Code::ValidationError,
                format!("view: must be `full` or `condensed`, got `{other}`"),
            ));
        }
    };
    let s = load(&state, &caller, &session_id, SessionKind::Ingest).await?;
    let view = if condensed {
        IntelligenceView::Condensed(condensed_view(&s)?)
    } else {
        IntelligenceView::Full(session_view(s)?)
    };
    Ok(Json(view).into_response())
}

/// A session of the caller's organisation, of `kind`; 404 otherwise.
pub(super) async fn load(
    state: &AppState,
    caller: &Caller,
    id: &str,
    kind: SessionKind,
) -> Result<SessionRecord, ApiError> {
    let what = match kind {
        SessionKind::Ingest => "session",
        SessionKind::Drift => "drift session",
    };
    // Ids are stored as lowercase hyphenated UUIDs; a UUID is the same in capitals
    // (RFC 9562 §4), so any spelling of it names the same session.
    let Ok(id) = uuid::Uuid::parse_str(id) else {
        return Err(ApiError::not_found(what));
    };
    state
        .store
        .session(&id.hyphenated().to_string(), &caller.key.org_id)
        .await?
        .filter(|s| s.kind == kind)
        .ok_or_else(|| ApiError::not_found(what))
}

fn raw(json: Option<String>) -> Result<Option<Box<RawValue>>, StoreError> {
    json.map(RawValue::from_string)
        .transpose()
        .map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn session_view(s: SessionRecord) -> Result<SessionView, ApiError> {
    let recommendations = s
        .plain_recommendations
        .as_deref()
        .map(serde_json::from_str::<Vec<String>>)
        .transpose()
        .map_err(ApiError::internal)?;
    Ok(SessionView {
        session_id: s.id,
        status: s.status,
        event_count: s.event_count as u64,
        environment_type: s.environment_type,
        created_at: time(&s.created_at),
        completed_at: s.completed_at.as_ref().map(time),
        plain_summary: s.plain_summary,
        plain_recommendations: recommendations,
        full_output: raw(s.full_output)?,
        error: s.error,
    })
}

fn condensed_view(s: &SessionRecord) -> Result<CondensedView, ApiError> {
    match &s.condensed {
        Some(json) if s.status == SessionStatus::Complete => {
            let mut view: CondensedView = serde_json::from_str(json).map_err(ApiError::internal)?;
            view.status = s.status;
            Ok(view)
        }
        _ => Ok(CondensedView {
            session_id: s.id.clone(),
            status: s.status,
            archetype: None,
            layer_z: None,
            key_finding: None,
            falsifiable: None,
            recommendation: None,
        }),
    }
}

/// RFC 3339 in UTC with milliseconds.
pub(super) fn time(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// One listed session: where it is and what it holds; the result is read with
/// `GET /intelligence/{session_id}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionSummary {
    /// The session.
    #[schema(format = Uuid)]
    pub session_id: String,
    /// `received` → `processing` → `complete` | `failed`.
    pub status: SessionStatus,
    /// The deployment the events came from.
    pub deployment_id: Option<String>,
    /// Events in the request.
    pub event_count: u64,
    /// Detected deployment archetype, once complete.
    pub environment_type: Option<String>,
    /// When the session was accepted (RFC 3339, UTC).
    pub created_at: String,
    /// When scoring finished.
    pub completed_at: Option<String>,
    /// Why processing failed.
    pub error: Option<String>,
}

/// A page of sessions.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionPage {
    /// Newest first.
    pub data: Vec<SessionSummary>,
    /// Pass as `cursor` for the next page (the last session's id); null on the last page.
    pub next_cursor: Option<String>,
}

/// List ingest sessions.
///
/// The caller's organisation's ingest sessions, newest first, a page at a time.
#[utoipa::path(get, path = "/sessions", tag = "sessions", operation_id = "list_sessions",
    params(
        ("limit" = Option<u32>, Query, description = "Sessions per page: 1 to 100 (default 20)", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page (a session id)", format = Uuid),
    ),
    responses(
        (status = 200, description = "A page of sessions", body = SessionPage),
        (status = 400, description = "Invalid limit or cursor", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn list(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    QueryParams(page): QueryParams<PageQuery>,
) -> Result<Json<SessionPage>, ApiError> {
    let (limit, cursor) = page.checked("a session id")?;
    let rows = state
        .store
        .list_sessions(&caller.key.org_id, limit + 1, cursor.as_deref())
        .await?;
    let (rows, next_cursor) = paging::page(rows, limit, |s| s.id.clone());
    let data = rows
        .into_iter()
        .map(|s| SessionSummary {
            session_id: s.id,
            status: s.status,
            deployment_id: s.deployment_id,
            event_count: s.event_count as u64,
            environment_type: s.environment_type,
            created_at: time(&s.created_at),
            completed_at: s.completed_at.as_ref().map(time),
            error: s.error,
        })
        .collect();
    Ok(Json(SessionPage { data, next_cursor }))
}

/// A session's conversations with their text.
///
/// Each conversation as Undertone assembled it from the request: its turns in order,
/// each with its role (`human` or `ai`), actor, time, text and metadata. Available
/// while the request is kept (`--retain-days`).
#[utoipa::path(get, path = "/sessions/{session_id}/transcript", tag = "sessions",
    params(("session_id" = String, Path, description = "Session id from ingest")),
    responses(
        (status = 200, description = "`{deployment_id, conversations: [{conversation_id, turns: [...]}]}`", body = Object),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 404, description = "No such session, or its request is no longer kept", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn transcript(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(session_id): PathParam<String>,
) -> Result<Response, ApiError> {
    let s = load(&state, &caller, &session_id, SessionKind::Ingest).await?;
    let body = state
        .store
        .session_input(&s.id, &caller.key.org_id)
        .await?
        .ok_or_else(|| ApiError::not_found("session transcript"))?;
    let options = undertone_core::validate::Options::STORED;
    let request = undertone_core::validate::ingest_request_bytes(&body, &options)
        .map_err(ApiError::internal)?;
    let assembly = undertone_core::assemble(&request.events, Some(&request.deployment_id));
    Ok(Json(assembly).into_response())
}
