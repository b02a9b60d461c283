//! The input contract and the webhook envelope as the OpenAPI document shows them:
//! the shapes core's validator accepts (DESIGN.md §2), written as types for the
//! document. A leaf: the routes that take these bodies and the document both read it.

use serde::Deserialize;
use utoipa::ToSchema;

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
