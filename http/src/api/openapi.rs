//! The OpenAPI 3.1 document, generated from the server's own types and route
//! annotations; served at `GET /api/v1/openapi` and checked in as `spec/openapi.json`.
//!
//! [`ApiDoc`] holds what no route declares: the title, the tags, the security scheme
//! and the schemas no operation refers to (webhook bodies, core's results). The paths
//! come from the routes themselves (`routes` in `api/mod.rs`).

use std::sync::OnceLock;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

use axum::http::header;
use axum::response::{IntoResponse, Response};
use undertone_core::drift::DriftResult;
use undertone_core::schema::{DriftRequest, Event, IngestRequest, Period, Pipeline};
use undertone_core::score::{Condensed, SessionIntelligence};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::deployments::{CreateDeploy, DeployList, DeployView, ReportList, ReportView};
use super::drift::{DriftAccepted, DriftView};
use super::error::{Code, Detail, ErrorBody, ErrorEnvelope};
use super::ingest::IngestAccepted;
use super::key::{KeyView, Limits};
use super::meta::Health;
use super::sessions::{CondensedView, IntelligenceView, SessionView, ViewName};
use super::webhooks::{
    AttemptView, CreateWebhook, DeliveryPage, DeliveryView, TestData, TestQueued, WebhookCreated,
    WebhookList, WebhookView,
};
use crate::store::DeliveryStatus;
use crate::store::SessionStatus;
use crate::webhooks::emit::{AnomalyData, CrossingData, OutcomeShiftData, ReadyData};
use crate::webhooks::reports::ReportData;
use crate::webhooks::{EnvelopeDoc, EventKind};

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("ut_live_<32 base62><6 base62 CRC32>")
                    .description(Some(
                        "An API key from `undertone keys create` (or printed by `undertone \
                         serve` on first start): `Authorization: Bearer ut_live_…`.",
                    ))
                    .build(),
            ),
        );
    }
}

/// The document's frame, without paths.
#[derive(OpenApi)]
#[openapi(
    info(title = "Undertone API", description = "Scores the human side of AI conversations: \
        trust calibration, frustration buildup, dependency drift, silent-abandonment risk and \
        escalation friction per human turn, with evidence; significance-tested drift between \
        model versions. Every route except `/openapi` and `/healthz` needs a Bearer key; every \
        authenticated response carries X-RateLimit-Limit, X-RateLimit-Remaining and \
        X-RateLimit-Reset."),
    components(schemas(
        Event, Pipeline, IngestRequest, Period, DriftRequest, IngestAccepted,
        SessionView, CondensedView, IntelligenceView, ViewName, SessionStatus, DriftAccepted, DriftView, ErrorEnvelope,
        ErrorBody, Detail, Code, Health, EventKind, CreateWebhook, WebhookCreated, WebhookView,
        WebhookList, TestQueued, TestData, AttemptView, DeliveryView, DeliveryPage, DeliveryStatus,
        CreateDeploy, DeployView, DeployList, ReportView, ReportList, EnvelopeDoc, ReadyData,
        CrossingData, AnomalyData, OutcomeShiftData, ReportData, KeyView, Limits,
        // Core's results, named for the SDKs: `full_output` is a FullOutput, the
        // condensed view's numbers a CondensedOutput, a drift's result a DriftResult.
        SessionIntelligence, Condensed, DriftResult,
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "sessions", description = "Ingest conversations and read their scores"),
        (name = "drift", description = "Compare two periods"),
        (name = "webhooks", description = "Signed event deliveries: register endpoints, test them, read deliveries"),
        (name = "deployments", description = "Deploy markers and weekly User Health Reports"),
        (name = "meta", description = "The contract and the service's health"),
    )
)]
pub struct ApiDoc;

/// `GET /openapi`: no key needed.
pub(super) fn router() -> OpenApiRouter<crate::state::AppState> {
    OpenApiRouter::new().routes(routes!(openapi))
}

/// The OpenAPI 3.1 document of this API.
#[utoipa::path(get, path = "/openapi", tag = "meta",
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json")))]
pub(super) async fn openapi() -> Response {
    static DOC: OnceLock<String> = OnceLock::new();
    let doc = DOC.get_or_init(document);
    ([(header::CONTENT_TYPE, "application/json")], doc.clone()).into_response()
}

/// The document as pretty JSON with a trailing newline (the form checked in).
pub fn document() -> String {
    let mut s = super::routes(|keyed| keyed)
        .into_openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_in_spec_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/openapi.json");
        let checked_in = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            checked_in == document(),
            "spec/openapi.json is stale: regenerate it with \
             `cargo run --quiet --bin undertone -- openapi > spec/openapi.json`"
        );
    }

    #[test]
    fn document_is_openapi_3_1_with_bearer_security() {
        let doc: serde_json::Value = serde_json::from_str(&document()).unwrap();
        assert_eq!(doc["openapi"], "3.1.0");
        assert_eq!(
            doc["components"]["securitySchemes"]["bearer"]["scheme"],
            "bearer"
        );
        assert_eq!(doc["info"]["license"]["name"], "Apache-2.0");
        // Every authenticated operation documents the error envelope for 401 and 429.
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                if op.get("security").is_none() {
                    continue;
                }
                for status in ["401", "429", "500"] {
                    let schema = &op["responses"][status]["content"]["application/json"]["schema"];
                    assert_eq!(
                        schema["$ref"], "#/components/schemas/ErrorEnvelope",
                        "{method} {path} {status}"
                    );
                }
            }
        }
        for p in [
            "/api/v1/ingest",
            "/api/v1/intelligence/{session_id}",
            "/api/v1/drift",
            "/api/v1/drift/{session_id}",
            "/api/v1/openapi",
            "/api/v1/healthz",
        ] {
            assert!(doc["paths"].get(p).is_some(), "{p} missing");
        }
    }
}
