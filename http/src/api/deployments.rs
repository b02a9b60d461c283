//! Per-deployment routes: the organisation's deployments and each one's history by
//! day, deploy markers (which split a deployment's history into before and after for
//! `outcome_shift_detected`) and User Health Reports.

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{DateTime, Duration};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use undertone_core::schema::limits;
use undertone_core::validate;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::body::parse;
use super::body::{JsonBody, PathParam, QueryParams, time_field};
use super::error::{ApiError, Code, ErrorEnvelope};
use super::paging::PageQuery;
use super::sessions::time;
use super::{AppState, Caller};
use crate::store::{DeployRecord, NewDeploy, ReportRecord, StoreError};
use crate::webhooks::reports::{self, Trigger};

/// The routes, each `routes!` holding the handlers of one path.
pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_deploy, list_deploys))
        .routes(routes!(create_report, list_reports))
        .routes(routes!(read_report))
        .routes(routes!(list_deployments))
        .routes(routes!(history))
}

/// The body of `POST /deployments/{id}/deploys`; every field is optional.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[schema(example = json!({"release": "support-bot-2026.11.3",
    "description": "New refund prompt", "deployed_at": "2026-11-21T08:00:00Z"}))]
#[serde(deny_unknown_fields)]
pub struct CreateDeploy {
    /// The release deployed (a model version, prompt version, build); blank means
    /// not given; no NUL.
    #[schema(max_length = 256, pattern = r"^[^\u0000]*$")]
    pub release: Option<String>,
    /// What changed, for people; blank means not given; no NUL.
    #[schema(max_length = 2000, pattern = r"^[^\u0000]*$")]
    pub description: Option<String>,
    /// When it went live (RFC 3339); now when omitted.
    #[schema(format = DateTime)]
    pub deployed_at: Option<String>,
}

/// A deploy marker, with its outcome-shift measurement once its post-deploy window
/// settled.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeployView {
    /// The marker.
    pub id: String,
    /// The deployment.
    pub deployment_id: String,
    /// The release, when known.
    pub release: Option<String>,
    /// What changed.
    pub description: Option<String>,
    /// `api` (this route) or `metadata` (a new `release`/`model_version` in events).
    pub source: String,
    /// When it went live.
    pub deployed_at: String,
    /// When it was recorded.
    pub created_at: String,
    /// When the outcome-shift test ran (null until the window settles).
    pub measured_at: Option<String>,
    /// The test: counts and resolved rates before and after, change in points,
    /// p-value, and `outcome_shift_detected`.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Box<RawValue>>,
}

/// A deployment's deploy markers.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeployList {
    /// In time order.
    pub data: Vec<DeployView>,
}

/// A User Health Report.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportView {
    /// The report.
    pub id: String,
    /// The deployment.
    pub deployment_id: String,
    /// `schedule` (weekly) or `request`.
    pub trigger: String,
    /// Start of the period covered.
    pub period_start: String,
    /// End of the period covered (exclusive).
    pub period_end: String,
    /// When it was generated.
    pub created_at: String,
    /// Conversations, human turns, resolved rate; per dimension the median, p90 and
    /// broken-band rate with the week-over-week change and its significance; top
    /// findings (docs/webhooks.md).
    #[schema(value_type = Object)]
    pub report: Box<RawValue>,
}

/// A deployment's reports.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReportList {
    /// Newest first.
    pub data: Vec<ReportView>,
}

fn check_deployment(id: &str) -> Result<(), ApiError> {
    validate::identifier(id, "deployment_id").map_err(ApiError::from)
}

fn deploy_view(d: DeployRecord) -> Result<DeployView, ApiError> {
    Ok(DeployView {
        id: d.deploy.id,
        deployment_id: d.deploy.deployment_id,
        release: d.deploy.release,
        description: d.deploy.description,
        source: d.deploy.source.to_owned(),
        deployed_at: time(&d.deploy.at),
        created_at: time(&d.deploy.created_at),
        measured_at: d.measured_at.as_ref().map(time),
        result: d
            .result
            .map(RawValue::from_string)
            .transpose()
            .map_err(|e| StoreError::Corrupt(e.to_string()))?,
    })
}

fn report_view(r: ReportRecord) -> Result<ReportView, ApiError> {
    Ok(ReportView {
        id: r.id,
        deployment_id: r.deployment_id,
        trigger: r.trigger,
        period_start: time(&r.period_start),
        period_end: time(&r.period_end),
        created_at: time(&r.created_at),
        report: RawValue::from_string(r.report).map_err(|e| StoreError::Corrupt(e.to_string()))?,
    })
}

/// An optional text field: blank means absent; at most `max` characters, no NUL.
fn text_field(value: Option<String>, field: &str, max: usize) -> Result<Option<String>, ApiError> {
    let Some(v) = value else {
        return Ok(None);
    };
    let v = v.trim();
    if v.contains('\0') {
        return Err(ApiError::new(
            Code::ValidationError,
            format!("{field}: must not contain NUL characters (U+0000)"),
        ));
    }
    if v.chars().count() > max {
        return Err(ApiError::new(
            Code::ValidationError,
            format!("{field}: must be at most {max} characters"),
        ));
    }
    Ok((!v.is_empty()).then(|| v.to_owned()))
}

/// Record a deploy.
///
/// Conversations after it are compared with those before it; once the post-deploy
/// window settles (as many conversations after as before, at least 30), the
/// resolved rates are tested and `outcome_shift_detected` fires if they moved by at
/// least 3 points with p < 0.05. A new `release` or `model_version` in event
/// metadata records a marker too.
#[utoipa::path(post, path = "/deployments/{deployment_id}/deploys", tag = "deployments",
    params(("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$")),
    request_body(content = CreateDeploy, content_type = "application/json"),
    responses(
        (status = 201, description = "Recorded", body = DeployView),
        (status = 400, description = "Invalid body or deployment id", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 415, description = "The body is not JSON", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn create_deploy(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(deployment): PathParam<String>,
    JsonBody(bytes): JsonBody,
) -> Result<Response, ApiError> {
    check_deployment(&deployment)?;
    let body: CreateDeploy = parse(&bytes)?;
    let now = state.clock.now();
    let at = match body.deployed_at.as_deref() {
        None => now,
        Some(s) => time_field("deployed_at", s)?,
    };
    let deploy = NewDeploy {
        id: format!("dep_{}", uuid::Uuid::new_v4().simple()),
        org_id: caller.key.org_id.clone(),
        deployment_id: deployment.clone(),
        release: text_field(body.release, "release", limits::RELEASE_MAX_CHARS)?,
        description: text_field(
            body.description,
            "description",
            limits::DEPLOY_DESCRIPTION_MAX_CHARS,
        )?,
        source: "api",
        at,
        created_at: now,
    };
    state.store.create_deploy(&deploy).await?;
    let view = deploy_view(DeployRecord {
        deploy,
        measured_at: None,
        result: None,
    })?;
    let location = format!(
        "/api/v1/deployments/{}/deploys",
        crate::webhooks::path_segment(&deployment)
    );
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(view),
    )
        .into_response())
}

/// List a deployment's deploy markers with their measurements.
#[utoipa::path(get, path = "/deployments/{deployment_id}/deploys", tag = "deployments",
    params(("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$")),
    responses(
        (status = 200, description = "Deploy markers in time order", body = DeployList),
        (status = 400, description = "Invalid deployment id", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn list_deploys(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(deployment): PathParam<String>,
) -> Result<Json<DeployList>, ApiError> {
    check_deployment(&deployment)?;
    let deploys = state.store.deploys(&caller.key.org_id, &deployment).await?;
    Ok(Json(DeployList {
        data: deploys
            .into_iter()
            .map(deploy_view)
            .collect::<Result<_, _>>()?,
    }))
}

/// Generate a User Health Report now.
///
/// Covers the seven days before the request, compared with the seven days before
/// that, and sends `uhr_generated`. Weekly reports (Monday to Monday, UTC) are also
/// generated by the server once each week ends. No body is needed.
#[utoipa::path(post, path = "/deployments/{deployment_id}/health-reports", tag = "deployments",
    params(("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$")),
    responses(
        (status = 201, description = "Generated", body = ReportView),
        (status = 400, description = "Invalid deployment id", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 403, description = "The key is read-only", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn create_report(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(deployment): PathParam<String>,
) -> Result<Response, ApiError> {
    check_deployment(&deployment)?;
    let end = state.clock.now();
    let record = reports::generate(
        &state,
        &caller.key.org_id,
        &deployment,
        (end - Duration::days(7), end),
        Trigger::Request,
    )
    .await?
    .ok_or_else(|| ApiError::internal("an on-demand report id collided"))?;
    let location = reports::report_url(&deployment, &record.id);
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, location)],
        Json(report_view(record)?),
    )
        .into_response())
}

/// List a deployment's health reports.
#[utoipa::path(get, path = "/deployments/{deployment_id}/health-reports", tag = "deployments",
    params(("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$")),
    responses(
        (status = 200, description = "Reports, newest first", body = ReportList),
        (status = 400, description = "Invalid deployment id", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn list_reports(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(deployment): PathParam<String>,
) -> Result<Json<ReportList>, ApiError> {
    check_deployment(&deployment)?;
    let reports = state.store.reports(&caller.key.org_id, &deployment).await?;
    Ok(Json(ReportList {
        data: reports
            .into_iter()
            .map(report_view)
            .collect::<Result<_, _>>()?,
    }))
}

/// Read one health report.
#[utoipa::path(get, path = "/deployments/{deployment_id}/health-reports/{report_id}", tag = "deployments",
    params(
        ("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"),
        ("report_id" = String, Path, description = "The report"),
    ),
    responses(
        (status = 200, description = "The report", body = ReportView),
        (status = 400, description = "Invalid deployment id", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 404, description = "No such report", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn read_report(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam((deployment, id)): PathParam<(String, String)>,
) -> Result<Json<ReportView>, ApiError> {
    check_deployment(&deployment)?;
    let report = state
        .store
        .report(&caller.key.org_id, &deployment, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("health report"))?;
    Ok(Json(report_view(report)?))
}

/// One deployment with history.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeploymentSummary {
    /// The deployment.
    pub deployment_id: String,
    /// Scored conversations kept in its history.
    pub conversations: u64,
    /// When its latest conversation started.
    pub last_conversation_at: String,
}

/// A page of the organisation's deployments.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeploymentList {
    /// By deployment id.
    pub data: Vec<DeploymentSummary>,
    /// Pass as `cursor` for the next page (the last deployment id of this one); null
    /// on the last page.
    pub next_cursor: Option<String>,
}

/// Deployments on a page unless `?limit=` says otherwise: most organisations have
/// fewer, so one request lists them all.
const DEPLOYMENTS_PAGE: u32 = super::paging::PAGE_MAX;

/// List deployments.
///
/// Every deployment of the caller's organisation with scored conversations in its
/// history (kept for `--retain-days`), by deployment id, a page at a time.
#[utoipa::path(get, path = "/deployments", tag = "deployments", operation_id = "list_deployments",
    params(
        ("limit" = Option<u32>, Query, description = "Deployments per page: 1 to 100 (default 100)", minimum = 1, maximum = 100),
        ("cursor" = Option<String>, Query, description = "`next_cursor` of the previous page (a deployment id)", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"),
    ),
    responses(
        (status = 200, description = "A page of deployments", body = DeploymentList),
        (status = 400, description = "Invalid limit or cursor", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn list_deployments(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    QueryParams(page): QueryParams<PageQuery>,
) -> Result<Json<DeploymentList>, ApiError> {
    let (limit, after) = page.checked_names(DEPLOYMENTS_PAGE)?;
    let rows = state
        .store
        .deployments(&caller.key.org_id, after.as_deref(), limit + 1)
        .await?;
    let (rows, next_cursor) = super::paging::page(rows, limit, |d| d.0.clone());
    let data = rows
        .into_iter()
        .map(|(deployment_id, conversations, last_ms)| {
            let last = DateTime::from_timestamp_millis(last_ms).unwrap_or_default();
            DeploymentSummary {
                deployment_id,
                conversations,
                last_conversation_at: time(&last),
            }
        })
        .collect();
    Ok(Json(DeploymentList { data, next_cursor }))
}

/// `?days=` of `GET /deployments/{id}/history`; any other parameter is refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DaysQuery {
    #[serde(default, deserialize_with = "super::body::whole_number")]
    days: Option<String>,
}

/// Days of history by default, and at most.
const DAYS_DEFAULT: u32 = 30;
const DAYS_MAX: u32 = 366;

/// A deployment's history by day.
#[derive(Debug, Serialize, ToSchema)]
pub struct HistoryView {
    /// The deployment.
    pub deployment_id: String,
    /// Start of the window (RFC 3339, UTC).
    pub from: String,
    /// End of the window (now).
    pub to: String,
    /// Each UTC day with conversations, oldest first: `{date, conversations,
    /// resolved_share, dimensions: {dimension: {median, broken_share}}}` (median of the
    /// conversation scores; broken share of conversations in the broken band).
    #[schema(value_type = Vec<Object>)]
    pub days: Vec<undertone_core::monitor::Day>,
    /// The deploy markers in the window, with their outcome-shift results.
    pub deploys: Vec<DeployView>,
    /// Days whose mean risk on a dimension left the EWMA control limits:
    /// `{dimension, bucket (the date), conversations, value, baseline_mean, z, severity,
    /// direction, …}`.
    #[schema(value_type = Vec<Object>)]
    pub anomalies: Vec<undertone_core::monitor::anomaly::Anomaly>,
}

/// A deployment's history.
///
/// The last `days` (1 to 366, default 30) of the deployment's scored conversations,
/// by UTC day: each dimension's median score and broken share, the resolved share, deploy
/// markers and anomalies. What the app's deployment page draws.
#[utoipa::path(get, path = "/deployments/{deployment_id}/history", tag = "deployments",
    params(
        ("deployment_id" = String, Path, description = "The deployment", min_length = 1, max_length = 256, pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"),
        ("days" = Option<u32>, Query, description = "Days back from now: 1 to 366 (default 30)", minimum = 1, maximum = 366),
    ),
    responses(
        (status = 200, description = "The history", body = HistoryView),
        (status = 400, description = "Invalid deployment id or days", body = ErrorEnvelope),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn history(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    PathParam(deployment_id): PathParam<String>,
    QueryParams(query): QueryParams<DaysQuery>,
) -> Result<Json<HistoryView>, ApiError> {
    check_deployment(&deployment_id)?;
    let days = super::body::from_one_to("days", query.days, DAYS_DEFAULT, DAYS_MAX)?;
    let to = state.clock.now();
    let from = to - Duration::days(i64::from(days));
    let org = &caller.key.org_id;
    let points = state
        .store
        .history(
            org,
            &deployment_id,
            from.timestamp_millis(),
            to.timestamp_millis() + 1,
        )
        .await?;
    let deploys = state
        .store
        .deploys(org, &deployment_id)
        .await?
        .into_iter()
        .filter(|d| d.deploy.at >= from && d.deploy.at <= to)
        .map(deploy_view)
        .collect::<Result<_, _>>()?;
    let anomalies = undertone_core::monitor::anomaly::detect_points(
        &points,
        undertone_core::monitor::anomaly::Bucketing::Daily,
    );
    Ok(Json(HistoryView {
        deployment_id,
        from: time(&from),
        to: time(&to),
        days: undertone_core::monitor::daily(&points),
        deploys,
        anomalies,
    }))
}
