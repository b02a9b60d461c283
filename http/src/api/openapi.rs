//! The OpenAPI 3.1 document, generated from the server's own types and route
//! annotations; served at `GET /api/v1/openapi` and checked in as `spec/openapi.json`.

use serde::Deserialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

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
use crate::webhooks::EventKind;
use crate::webhooks::emit::{AnomalyData, CrossingData, OutcomeShiftData, ReadyData};
use crate::webhooks::reports::ReportData;

/// One turn of a conversation, as sent (DESIGN.md §2).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = BIEEvent, example = json!({"actor_id": "cust-1", "content": "Where is my order?",
    "timestamp": "2026-11-21T09:30:00Z", "conversation_id": "c-1"}))]
#[serde(deny_unknown_fields)]
pub struct EventDoc {
    /// Who wrote the turn: a person, or the AI (`metadata.role`, `actor_id ==
    /// deployment_id`, or an `ai:`/`bot:`/`assistant` prefix marks AI turns).
    #[schema(
        min_length = 1,
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"
    )]
    pub actor_id: String,
    /// The message text: 1–32768 bytes of UTF-8 after trimming, no NUL.
    // Whitespace as Rust's `char::is_whitespace` has it (JSON Schema's `\s` lacks
    // U+0085 and has U+FEFF), so the schema and the validator agree.
    #[schema(
        min_length = 1,
        max_length = 32768,
        pattern = r"^[^\u0000]*[^\u0000\t\n\u000B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000][^\u0000]*$"
    )]
    pub content: String,
    /// When the turn happened: RFC 3339 with an offset (normalised to UTC).
    #[schema(format = DateTime)]
    pub timestamp: String,
    /// Channel, thread, category or topic.
    #[schema(
        min_length = 1,
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"
    )]
    pub context: Option<String>,
    /// Arbitrary key/value pairs (≤ 16 KiB serialised, depth ≤ 8), preserved in the
    /// output. `role`/`speaker`, `conversation_id`, `resolved`, `release` and
    /// `model_version` are read (docs/input.md).
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Groups the turns of one conversation.
    #[schema(
        min_length = 1,
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"
    )]
    pub conversation_id: Option<String>,
}

/// Which analysis pipeline to run.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PipelineDoc {
    /// Pick from the shape of the events (default).
    Auto,
    /// Multi-turn human↔AI conversations.
    Support,
    /// Standalone human texts without AI turns.
    Reviews,
}

/// The body of `POST /ingest` (SPEC.md §2.2).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = IngestRequest, example = json!({"deployment_id": "acme-support-bot",
    "events": [
        {"actor_id": "cust-1", "content": "My refund still hasn't arrived.",
         "timestamp": "2026-11-21T09:30:00Z", "conversation_id": "c-1"},
        {"actor_id": "acme-support-bot", "content": "Refunds take 5-7 days.",
         "timestamp": "2026-11-21T09:30:04Z", "conversation_id": "c-1"}]}))]
#[serde(deny_unknown_fields)]
pub struct IngestRequestDoc {
    /// Stable identifier of the AI deployment.
    #[schema(
        min_length = 1,
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"
    )]
    pub deployment_id: String,
    /// The conversation turns, in order: 1 to 5000.
    #[schema(min_items = 1, max_items = 5000)]
    pub events: Vec<EventDoc>,
    /// `auto` (default), `support` or `reviews`.
    pub pipeline: Option<PipelineDoc>,
    /// Where to deliver `intelligence.ready`: https, public address.
    #[schema(format = Uri, max_length = 2048)]
    pub webhook_url: Option<String>,
}

/// One period of a drift comparison.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PeriodDoc {
    /// Name of the period, e.g. `model-v3`; defaults to `before`/`after`.
    #[schema(
        min_length = 1,
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"
    )]
    pub label: Option<String>,
    /// The period's events: 5 to 2000.
    #[schema(min_items = 5, max_items = 2000)]
    pub events: Vec<EventDoc>,
}

/// The body of `POST /drift` (SPEC.md §2.4).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = DriftRequest)]
#[serde(deny_unknown_fields)]
pub struct DriftRequestDoc {
    /// The baseline period.
    pub before: PeriodDoc,
    /// The compared period.
    pub after: PeriodDoc,
    /// Optional question; its dimensions are reported first.
    #[schema(
        min_length = 1,
        max_length = 2000,
        pattern = r"[^\t\n\u000B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]"
    )]
    pub question: Option<String>,
    /// Deployment the events come from (recognises AI turns by `actor_id`).
    #[schema(
        min_length = 1,
        max_length = 256,
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]+$"
    )]
    pub deployment_id: Option<String>,
}

/// The body of every webhook delivery (SPEC.md §2.7). Headers: `X-Undertone-Event`
/// (the kind), `X-Undertone-Delivery` (the delivery id, the same on every retry),
/// `X-Undertone-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`, and the
/// Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`
/// (docs/webhooks.md).
#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = WebhookEnvelope, example = json!({"id": "5b0e7c1a-2f3d-8e4b-9a6c-7d8e9f0a1b2c",
    "event_type": "layer_z_threshold_crossed", "version": "webhooks-v1.0",
    "created_at": "2026-11-21T09:31:00.161Z", "org_id": "org_3f6c1e0b9a7d4c2e",
    "deployment_id": "acme-support-bot", "data": {"dimension": "frustration_buildup",
        "score": 0.7495, "threshold": 0.55, "band": "broken",
        "conversation_id": "9c1d2e3f-4a5b-8c6d-9e7f-0a1b2c3d4e5f", "conversation_external_id": "c-1",
        "signal_id": "1a2b3c4d-5e6f-8a7b-8c9d-0e1f2a3b4c5d", "occurred_at": "2026-11-21T09:30:40Z",
        "session_id": "0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c", "event_index": 4,
        "signal": "repeated_question", "evidence": []}}))]
#[allow(dead_code)] // documents the delivery body
pub struct EnvelopeDoc {
    /// Stable event id: the same event computed twice has the same id.
    id: String,
    /// The event kind (or `webhook.test`).
    event_type: String,
    /// `webhooks-v1.0`.
    version: String,
    /// When the event was created.
    #[schema(format = DateTime)]
    created_at: String,
    /// The organisation.
    org_id: String,
    /// The deployment (`webhook-test` for test events).
    deployment_id: String,
    /// Per kind: ReadyData, CrossingData, AnomalyData, ReportData, OutcomeShiftData or
    /// TestData.
    #[schema(value_type = Object)]
    data: serde_json::Value,
}

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

/// The document.
#[derive(OpenApi)]
#[openapi(
    info(title = "Undertone API", description = "Scores the human side of AI conversations: \
        trust calibration, frustration buildup, dependency drift, silent-abandonment risk and \
        escalation friction per human turn, with evidence; significance-tested drift between \
        model versions. Every route except `/openapi` and `/healthz` needs a Bearer key; every \
        authenticated response carries X-RateLimit-Limit, X-RateLimit-Remaining and \
        X-RateLimit-Reset."),
    paths(
        super::ingest::ingest,
        super::sessions::intelligence,
        super::drift::start,
        super::drift::read,
        super::webhooks::create,
        super::webhooks::list,
        super::webhooks::remove,
        super::webhooks::test,
        super::webhooks::deliveries,
        super::deployments::create_deploy,
        super::deployments::list_deploys,
        super::deployments::create_report,
        super::deployments::list_reports,
        super::deployments::read_report,
        super::key::read_key,
        super::meta::openapi,
        super::meta::healthz,
    ),
    components(schemas(
        EventDoc, PipelineDoc, IngestRequestDoc, PeriodDoc, DriftRequestDoc, IngestAccepted,
        SessionView, CondensedView, IntelligenceView, ViewName, SessionStatus, DriftAccepted, DriftView, ErrorEnvelope,
        ErrorBody, Detail, Code, Health, EventKind, CreateWebhook, WebhookCreated, WebhookView,
        WebhookList, TestQueued, TestData, AttemptView, DeliveryView, DeliveryPage, DeliveryStatus,
        CreateDeploy, DeployView, DeployList, ReportView, ReportList, EnvelopeDoc, ReadyData,
        CrossingData, AnomalyData, OutcomeShiftData, ReportData, KeyView, Limits,
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

/// The document as pretty JSON with a trailing newline (the form checked in).
pub fn document() -> String {
    let mut s = ApiDoc::openapi()
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
