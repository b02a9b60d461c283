//! Validated input types: events, ingest requests and drift requests.
//!
//! [`crate::validate`] is the way to build these from input: what it returns satisfies
//! the contract of DESIGN.md §2. The fields are public so that callers and tests can
//! read and construct values directly; a value built by hand is not checked.

pub mod limits;
#[cfg(feature = "openapi")]
mod openapi;
/// Schemas of input-contract fields that the service's own request types share.
#[cfg(feature = "openapi")]
pub use openapi::{question as question_schema, range_label as range_label_schema};

use std::fmt;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// `metadata.responder` of an answering-side turn a person wrote (a helpdesk's human
/// agent, as the connectors mark it): the handoff a human asked for has happened.
pub const HUMAN_AGENT: &str = "human_agent";

/// One turn of a conversation, validated: timestamps are UTC, content is trimmed.
///
/// With the `openapi` feature its schema is the event as sent (the input contract);
/// `deny_unknown_fields` there only tells the schema that the validator refuses other
/// fields, since this type is built by [`crate::validate`], never deserialised.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    serde(deny_unknown_fields)
)]
#[cfg_attr(feature = "openapi", schema(as = BIEEvent,
    description = "One turn of a conversation, as sent (DESIGN.md §2).",
    example = json!({"actor_id": "cust-1", "content": "Where is my order?",
        "timestamp": "2026-11-21T09:30:00Z", "conversation_id": "c-1"})))]
pub struct Event {
    /// Stable identifier of whoever wrote the turn (a person or the AI).
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::actor_id))]
    pub actor_id: String,
    /// The turn's text, with surrounding whitespace trimmed.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::content))]
    pub content: String,
    /// When the turn happened: RFC 3339 with an offset (normalised to UTC).
    #[serde(serialize_with = "serialize_utc")]
    pub timestamp: DateTime<Utc>,
    /// Channel, thread, category or topic.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::context))]
    pub context: Option<String>,
    /// Caller-supplied key/value pairs, preserved as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::metadata))]
    pub metadata: Option<Map<String, Value>>,
    /// Caller-supplied conversation identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::conversation_id))]
    pub conversation_id: Option<String>,
}

/// Serialises a UTC time as RFC 3339 with a `Z` suffix and only the sub-second digits it needs.
pub fn serialize_utc<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format_utc(t))
}

/// Formats a UTC time as RFC 3339 with a `Z` suffix, e.g. `2026-11-21T09:30:00Z`.
pub fn format_utc(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// Which analysis pipeline an ingest asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = PipelineDoc,
    description = "Which analysis pipeline to run."))]
#[serde(rename_all = "snake_case")]
pub enum Pipeline {
    /// Pick `support` or `reviews` from the shape of the events.
    #[default]
    Auto,
    /// Multi-turn human↔AI conversations.
    Support,
    /// Standalone human texts (feedback, app reviews) without AI turns.
    Reviews,
}

impl Pipeline {
    /// Every accepted value, in the order documented.
    pub const ALL: [Pipeline; 3] = [Pipeline::Auto, Pipeline::Support, Pipeline::Reviews];

    /// The value as written in requests.
    pub fn as_str(self) -> &'static str {
        match self {
            Pipeline::Auto => "auto",
            Pipeline::Support => "support",
            Pipeline::Reviews => "reviews",
        }
    }

    /// Parses a request value; `None` when it is not one of [`Pipeline::ALL`].
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A validated `POST /ingest` body (with the `openapi` feature, its schema is the body
/// as sent).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    serde(deny_unknown_fields)
)]
#[cfg_attr(feature = "openapi", schema(
    description = "The body of `POST /ingest` (SPEC.md §2.2).",
    example = json!({"deployment_id": "acme-support-bot",
        "events": [
            {"actor_id": "cust-1", "content": "My refund still hasn't arrived.",
             "timestamp": "2026-11-21T09:30:00Z", "conversation_id": "c-1"},
            {"actor_id": "acme-support-bot", "content": "Refunds take 5-7 days.",
             "timestamp": "2026-11-21T09:30:04Z", "conversation_id": "c-1"}]})))]
pub struct IngestRequest {
    /// Stable identifier of the AI deployment the events come from.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::ingest_deployment_id))]
    pub deployment_id: String,
    /// The events, in input order (`event_index` refers to positions here).
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::ingest_events))]
    pub events: Vec<Event>,
    /// `auto` (default), `support` or `reviews`.
    // Optional (and nullable) as sent; `auto` when not given.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Pipeline>))]
    pub pipeline: Pipeline,
    /// Where to deliver the result on completion.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::webhook_url))]
    pub webhook_url: Option<String>,
}

/// One side of a drift comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    serde(deny_unknown_fields)
)]
#[cfg_attr(feature = "openapi", schema(as = PeriodDoc,
    description = "One period of a drift comparison."))]
pub struct Period {
    /// Human-readable name of the period, e.g. `model-v3`.
    // Optional as sent: `before` or `after` when not given.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::label, required = false))]
    pub label: String,
    /// The period's events, in input order.
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::period_events))]
    pub events: Vec<Event>,
}

/// A validated `POST /drift` body (with the `openapi` feature, its schema is the body
/// as sent).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    serde(deny_unknown_fields)
)]
#[cfg_attr(
    feature = "openapi",
    schema(description = "The body of `POST /drift` (SPEC.md §2.4).")
)]
pub struct DriftRequest {
    /// The baseline period.
    pub before: Period,
    /// The compared period.
    pub after: Period,
    /// Free-text question the analysis should address first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::question))]
    pub question: Option<String>,
    /// Deployment the events come from; used to recognise AI turns by `actor_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(schema_with = openapi::drift_deployment_id))]
    pub deployment_id: Option<String>,
}

/// A deployment id passed beside an input, and the name it was passed under, which
/// error paths use (`deployment_id` in Python, `deploymentId` in JavaScript,
/// `--deployment-id` on the command line).
#[derive(Debug, Clone, Copy)]
pub struct DeploymentId<'a> {
    /// The id, if one was passed.
    pub value: Option<&'a str>,
    /// What the caller calls it.
    pub name: &'a str,
}

impl Default for DeploymentId<'_> {
    fn default() -> Self {
        Self::new(None)
    }
}

impl<'a> DeploymentId<'a> {
    /// `value` passed under the name `deployment_id`.
    pub fn new(value: Option<&'a str>) -> Self {
        Self {
            value,
            name: "deployment_id",
        }
    }
}
