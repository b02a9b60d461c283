//! `GET /healthz`: no key needed (it shows the queue's depth only to a valid key).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::AppState;
use super::error::{ApiError, ErrorEnvelope};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(healthz))
}

/// The service's health.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"status": "ok", "scorer_version": "2.3.0", "queue_depth": 3}))]
pub struct Health {
    /// `ok` when the database answers.
    pub status: String,
    /// Version of the scoring rules this server applies.
    pub scorer_version: String,
    /// Jobs waiting or running; shown only to a caller with a valid key (the queue's
    /// depth is the service's load, not for anyone who can reach it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u64>,
}

/// Whether the service and its database answer.
#[utoipa::path(get, path = "/healthz", tag = "meta",
    responses(
        (status = 200, description = "Healthy", body = Health),
        (status = 500, description = "The database does not answer", body = ErrorEnvelope),
        (status = 503, description = "The SQLite file was deleted or replaced under the server", body = ErrorEnvelope),
    ))]
pub(super) async fn healthz(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Json<Health>, ApiError> {
    // The database is asked either way: that is what the check is for. A SQLite file
    // deleted under the server still answers queries; it is looked for by name too.
    state.store.check_file()?;
    let depth = state.store.queue_depth().await?;
    let keyed = headers.contains_key(header::AUTHORIZATION)
        && super::identify(&state, &headers).await.is_ok();
    let queue_depth = keyed.then_some(depth);
    Ok(Json(Health {
        status: "ok".to_owned(),
        scorer_version: undertone_core::score::SCORER_VERSION.to_owned(),
        queue_depth,
    }))
}
