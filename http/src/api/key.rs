//! `GET /key`: what the calling key is and may do, so a client (the stdio MCP server,
//! an SDK) can show or gate on its scope and limits without trying a write.

use axum::{Extension, Json};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ErrorEnvelope;
use super::sessions::time;
use super::{AppState, Caller};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(read_key))
}

/// The calling key (never the key itself).
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "key_394f0b7b2f4b4c7c8ac7448e7dd4baf4", "name": "support-agent",
    "scope": "read-only", "prefix": "ut_live_eht9", "created_at": "2026-11-21T09:00:00.000Z",
    "limits": {"per_hour": 1000, "per_day": 10000, "drift_per_hour": 10}}))]
pub struct KeyView {
    /// The key's id (`key_` + 32 hex characters).
    pub id: String,
    /// The name given at creation.
    pub name: String,
    /// `read-only` (GET and HEAD routes, MCP read tools) or `read-write` (everything).
    #[schema(value_type = String, pattern = "^(read-only|read-write)$")]
    pub scope: &'static str,
    /// The key's first 12 characters.
    pub prefix: String,
    /// When the key was created.
    pub created_at: String,
    /// The key's rate limits.
    pub limits: Limits,
}

/// Rate limits of a key.
#[derive(Debug, Serialize, ToSchema)]
pub struct Limits {
    /// Requests per UTC hour.
    pub per_hour: u32,
    /// Requests per UTC day.
    pub per_day: u32,
    /// Drift sessions per UTC hour.
    pub drift_per_hour: u32,
}

/// The calling key: its id, name, scope and limits.
///
/// Counts as one request. Useful to check a key before relying on it, and to learn
/// whether it may write.
#[utoipa::path(get, path = "/key", tag = "meta",
    responses(
        (status = 200, description = "The calling key", body = KeyView),
        (status = 401, description = "Missing or invalid API key", body = ErrorEnvelope),
        (status = 429, description = "A rate-limit window is full", body = ErrorEnvelope),
        (status = 500, description = "Server failure", body = ErrorEnvelope),
    ),
    security(("bearer" = [])))]
pub(super) async fn read_key(Extension(caller): Extension<Caller>) -> Json<KeyView> {
    let key = &caller.key;
    Json(KeyView {
        id: key.id.clone(),
        name: key.name.clone(),
        scope: key.scope.as_str(),
        prefix: key.display_prefix.clone(),
        created_at: time(&key.created_at),
        limits: Limits {
            per_hour: key.plan.per_hour,
            per_day: key.plan.per_day,
            drift_per_hour: key.plan.drift_per_hour,
        },
    })
}
