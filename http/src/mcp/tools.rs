//! The MCP tools: their names, descriptions and input schemas, which scope each needs,
//! and what each does. Tools that mirror a REST body (`ingest_conversation`,
//! `start_drift`, `create_deploy_marker`, `score_conversation`) take their schema from
//! the OpenAPI document, so the two contracts cannot drift apart; the others derive
//! theirs from the argument types below.

use std::sync::{Arc, OnceLock};

use axum::http::Method;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::backend::Backend;
use super::views;
use crate::api::error::Code;
use crate::webhooks::path_segment;

/// Whether a tool only reads, or changes what the server stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Listed and callable with any key.
    Read,
    /// Listed and callable only with a read-write key.
    Write,
}

/// One tool of the catalogue.
pub struct Spec {
    /// The tool's name.
    pub name: &'static str,
    /// Read or write.
    pub access: Access,
    /// What it does and when to use it, for an agent.
    pub description: &'static str,
    schema: fn() -> JsonObject,
}

/// Every tool, read tools first.
pub const TOOLS: &[Spec] = &[
    Spec {
        name: "get_session",
        access: Access::Read,
        description: "Read the scores of a conversation ingested with ingest_conversation. \
            `status` goes received -> processing -> complete | failed; until complete, \
            `scores` is null: call again after a second or two. The default `summary` view \
            gives, key numbers first: `scores` per dimension ({score, band, confidence}; \
            bands: healthy < 0.35 <= watch <= 0.55 < broken on the risk scale; \
            trust_calibration is higher-is-better, every other dimension higher-is-worse), \
            the key finding, one recommendation, and `flagged_turns` (the turns outside the \
            healthy band, worst first; pass an event_index to explain_score for its \
            evidence). view `condensed` returns the REST condensed view instead \
            (request-level scores with their evidence); view `full` the REST session \
            object with every conversation and turn (large).",
        schema: schema_of::<GetSession>,
    },
    Spec {
        name: "explain_score",
        access: Access::Read,
        description: "Explain why one human turn of a complete session scored as it did: per \
            dimension its score, band, confidence and evidence (signal, contribution, and \
            the quoted words that triggered it). `event_index` is the position of the turn \
            in the events that were ingested (0-based), as listed in get_session's \
            `flagged_turns`. Pass `dimension` to see only one.",
        schema: schema_of::<ExplainScore>,
    },
    Spec {
        name: "score_conversation",
        access: Access::Read,
        description: "Score events right now and return the summary (same shape as \
            get_session's summary, `status: \"scored\"`), without storing anything or \
            sending webhooks. Use it to try a conversation or a what-if; use \
            ingest_conversation to keep the result, feed the deployment's history, drift \
            checks and webhooks. Same body rules as ingest: 1 to 5000 events, each \
            {actor_id, content, timestamp (RFC 3339), conversation_id?, context?, \
            metadata?}; AI turns are recognised by metadata.role, by actor_id equal to \
            deployment_id, or an ai:/bot:/assistant prefix. `view: \"full\"` returns every \
            turn with evidence instead of the summary.",
        schema: score_schema,
    },
    Spec {
        name: "get_drift",
        access: Access::Read,
        description: "Read a drift comparison started with start_drift. Until `status` is \
            complete, call again after a second or two. When complete: `direction` \
            (improved, regressed, mixed or unchanged), `overall_drift`, `key_findings`, \
            and per dimension the before and after medians, shift, confidence interval, \
            Holm-adjusted p-value and verdict.",
        schema: schema_of::<GetDrift>,
    },
    Spec {
        name: "get_health_report",
        access: Access::Read,
        description: "Read a deployment's User Health Report (a week's scores, bands, \
            trends, crossings and deploy outcomes): the newest one, or the one with \
            `report_id`. Answers NOT_FOUND when the deployment has no report yet.",
        schema: schema_of::<GetHealthReport>,
    },
    Spec {
        name: "list_webhooks",
        access: Access::Read,
        description: "List the webhook endpoints registered with this key: id, url, \
            failure_count (consecutive failed deliveries), last_delivery_at, event kinds.",
        schema: schema_of::<ListWebhooks>,
    },
    Spec {
        name: "list_deliveries",
        access: Access::Read,
        description: "List a webhook endpoint's deliveries, newest first: status \
            (pending, succeeded, failed), the endpoint's response status, attempts and the \
            error of the last one. Page with `limit` (1-100, default 20) and the \
            `next_cursor` of the previous page.",
        schema: schema_of::<ListDeliveries>,
    },
    Spec {
        name: "ingest_conversation",
        access: Access::Write,
        description: "Store a conversation's events and score every human turn in context \
            (asynchronously). Returns {session_id, event_count, status: \"received\", \
            poll_url}; then call get_session with the session_id until status is \
            complete (usually within a second). The session joins the deployment's \
            history: threshold crossings, anomalies and deploy outcomes are computed and \
            webhooks sent. Body: deployment_id, 1 to 5000 events in order (each \
            {actor_id, content, timestamp (RFC 3339), conversation_id?, context?, \
            metadata?}), optional pipeline (auto, support, reviews) and webhook_url. \
            Needs a read-write key.",
        schema: ingest_schema,
    },
    Spec {
        name: "start_drift",
        access: Access::Write,
        description: "Compare two periods of events (e.g. before and after a model \
            change) with significance tests: `before` and `after` each hold 5 to 2000 \
            events and an optional label; `question` puts the dimensions it names first. \
            Returns {session_id, status: \"received\", poll_url}; then call get_drift \
            with the session_id. Counts against the key's drift sessions per hour. Needs a \
            read-write key.",
        schema: drift_schema,
    },
    Spec {
        name: "create_deploy_marker",
        access: Access::Write,
        description: "Record that a new release of a deployment went live (model, prompt \
            or build change). Conversations after `deployed_at` (default now) are \
            compared with those before, and the outcome shift (resolved rate, \
            significance-tested) appears on the marker and in health reports once the \
            post-deploy window settles. Returns the marker. Needs a read-write key.",
        schema: deploy_schema,
    },
];

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static Spec> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The names of the read tools, for error messages.
pub fn read_tool_names() -> String {
    TOOLS
        .iter()
        .filter(|t| t.access == Access::Read)
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Spec {
    /// The tool as listed to clients.
    pub fn tool(&self) -> Tool {
        let annotations = match self.access {
            Access::Read => ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
            Access::Write => ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(false)
                // An ingest's `webhook_url` makes the server call out.
                .open_world(self.name == "ingest_conversation"),
        };
        Tool::new(self.name, self.description, Arc::new((self.schema)())).annotate(annotations)
    }
}

// ---------------------------------------------------------------------------------
// Arguments

/// Which shape `get_session` answers with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "snake_case")]
pub enum SessionShape {
    /// Key numbers, the finding and the flagged turns (default).
    #[default]
    Summary,
    /// The REST condensed view: request-level scores with their evidence.
    Condensed,
    /// The REST session object with every conversation and turn (large).
    Full,
}

/// Arguments of `get_session`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct GetSession {
    /// The session id returned by ingest_conversation.
    pub session_id: String,
    /// `summary` (default), `condensed` or `full`.
    #[serde(default)]
    pub view: SessionShape,
}

/// Arguments of `explain_score`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ExplainScore {
    /// The session id returned by ingest_conversation.
    pub session_id: String,
    /// Position of the human turn in the ingested events (0-based).
    pub event_index: u64,
    /// Only this dimension, e.g. `frustration_buildup`; every dimension when omitted.
    pub dimension: Option<String>,
}

/// Arguments of `get_drift`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct GetDrift {
    /// The session id returned by start_drift.
    pub session_id: String,
}

/// Arguments of `get_health_report`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct GetHealthReport {
    /// The deployment, as sent in `deployment_id` at ingest.
    pub deployment_id: String,
    /// A report id; the newest report when omitted.
    pub report_id: Option<String>,
}

/// Arguments of `list_webhooks` (none).
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ListWebhooks {}

/// Arguments of `list_deliveries`.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(deny_unknown_fields)]
pub struct ListDeliveries {
    /// The webhook endpoint's id (from list_webhooks).
    pub webhook_id: String,
    /// Deliveries per page, 1 to 100 (default 20).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

fn schema_of<T: JsonSchema + 'static>() -> JsonObject {
    rmcp::handler::server::common::schema_for_type::<T>()
        .as_ref()
        .clone()
}

/// The OpenAPI document, parsed once.
fn openapi() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        serde_json::from_str(&crate::api::openapi::document()).unwrap_or(Value::Null)
    })
}

/// The OpenAPI component `name` as a standalone JSON Schema: the components it refers
/// to are copied into `$defs` and the references rewritten; OpenAPI's `example` is
/// dropped (a tool list is read by a model: every token counts).
fn component(name: &str) -> JsonObject {
    let schemas = &openapi()["components"]["schemas"];
    let mut defs = Map::new();
    let mut pending = Vec::new();
    let Value::Object(mut root) = rewrite(&schemas[name], &mut pending) else {
        return JsonObject::new();
    };
    while let Some(dep) = pending.pop() {
        if defs.contains_key(&dep) {
            continue;
        }
        let schema = rewrite(&schemas[&dep], &mut pending);
        defs.insert(dep, schema);
    }
    if !defs.is_empty() {
        root.insert("$defs".into(), Value::Object(defs));
    }
    root
}

fn rewrite(schema: &Value, pending: &mut Vec<String>) -> Value {
    const PREFIX: &str = "#/components/schemas/";
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "example")
                .map(|(k, v)| match (k.as_str(), v.as_str()) {
                    ("$ref", Some(r)) if r.starts_with(PREFIX) => {
                        let target = &r[PREFIX.len()..];
                        pending.push(target.to_owned());
                        (k.clone(), Value::String(format!("#/$defs/{target}")))
                    }
                    _ => (k.clone(), rewrite(v, pending)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| rewrite(v, pending)).collect()),
        other => other.clone(),
    }
}

fn ingest_schema() -> JsonObject {
    component("IngestRequest")
}

fn drift_schema() -> JsonObject {
    component("DriftRequest")
}

fn score_schema() -> JsonObject {
    let mut schema = component("IngestRequest");
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        props.shift_remove("webhook_url");
        props.insert(
            "view".into(),
            json!({"type": "string", "enum": ["summary", "full"],
                "description": "`summary` (default) or `full` (every turn with evidence)."}),
        );
    }
    schema.insert(
        "description".into(),
        json!("Events to score now; nothing is stored."),
    );
    schema
}

fn deploy_schema() -> JsonObject {
    let mut schema = component("CreateDeploy");
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        let mut with_id = Map::new();
        with_id.insert(
            "deployment_id".into(),
            json!({"type": "string", "minLength": 1, "maxLength": 256,
                "description": "The deployment, as sent in `deployment_id` at ingest."}),
        );
        with_id.append(props);
        *props = with_id;
    }
    schema.insert("required".into(), json!(["deployment_id"]));
    schema
}

// ---------------------------------------------------------------------------------
// Calling

/// A tool call that failed: the REST error object `{code, message, details?}`, plus
/// `retry_after_seconds` when the API said when to retry.
#[derive(Debug)]
pub struct ToolError(pub Value);

impl ToolError {
    /// An error with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ToolError(json!({"code": code, "message": message.into()}))
    }

    /// Adds `retry_after_seconds`: when to try again.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        if let Some(e) = self.0.as_object_mut() {
            e.insert("retry_after_seconds".into(), json!(seconds));
        }
        self
    }

    /// `{"error": {...}}`, as the tool result's text.
    pub fn envelope(&self) -> Value {
        json!({ "error": self.0 })
    }
}

/// Parses a tool's arguments; unknown fields and wrong types are VALIDATION_ERROR.
fn arguments<T: DeserializeOwned>(args: &JsonObject) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| ToolError::new(Code::ValidationError, format!("arguments: {e}")))
}

/// `id` as a path segment; `.` and `..` are refused (URL parsers would resolve them).
fn segment(id: &str, field: &str) -> Result<String, ToolError> {
    if id.is_empty() || id == "." || id == ".." {
        return Err(ToolError::new(
            Code::ValidationError,
            format!("{field}: must be a non-empty id other than `.` and `..`"),
        ));
    }
    Ok(path_segment(id))
}

/// A REST call; a non-2xx answer becomes the error it carried.
pub async fn rest(
    backend: &dyn Backend,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, ToolError> {
    let body = body.map(|b| serde_json::to_vec(b).unwrap_or_default());
    let reply = backend
        .send(method, path, body)
        .await
        .map_err(|e| ToolError::new(Code::ServiceUnavailable, e.to_string()))?;
    let parsed: Option<Value> = serde_json::from_slice(&reply.body).ok();
    if (200..300).contains(&reply.status) {
        return parsed.ok_or_else(|| {
            ToolError::new(
                Code::InternalError,
                format!(
                    "the API answered {} with a body that is not JSON",
                    reply.status
                ),
            )
        });
    }
    let error = match parsed.as_ref().and_then(|v| v.get("error")) {
        Some(Value::Object(e)) => Value::Object(e.clone()),
        // Not the API's envelope (a proxy's page, a plain-text 413): the status says
        // what happened.
        _ => {
            let code = match reply.status {
                400 | 413 => Code::ValidationError,
                401 => Code::Unauthorized,
                403 => Code::Forbidden,
                404 => Code::NotFound,
                429 => Code::RateLimited,
                502..=504 => Code::ServiceUnavailable,
                _ => Code::InternalError,
            };
            ToolError::new(
                code,
                format!(
                    "the API (or a proxy in front of it) answered HTTP {} without an error \
                     envelope",
                    reply.status
                ),
            )
            .0
        }
    };
    let error = ToolError(error);
    Err(match reply.retry_after {
        Some(s) => error.retry_after(s),
        None => error,
    })
}

/// Reads a session in the REST full view.
async fn full_session(backend: &dyn Backend, session_id: &str) -> Result<Value, ToolError> {
    let path = format!(
        "/intelligence/{}?view=full",
        segment(session_id, "session_id")?
    );
    rest(backend, Method::GET, &path, None).await
}

/// The `get_session` summary of a session (also the `undertone://sessions/{id}`
/// resource).
pub async fn session_summary(backend: &dyn Backend, session_id: &str) -> Result<Value, ToolError> {
    Ok(views::session_summary(
        &full_session(backend, session_id).await?,
    ))
}

/// The newest health report of a deployment, or the one named.
pub async fn health_report(
    backend: &dyn Backend,
    deployment_id: &str,
    report_id: Option<&str>,
) -> Result<Value, ToolError> {
    let deployment = segment(deployment_id, "deployment_id")?;
    let report = match report_id {
        Some(id) => {
            let path = format!(
                "/deployments/{deployment}/health-reports/{}",
                segment(id, "report_id")?
            );
            rest(backend, Method::GET, &path, None).await?
        }
        None => {
            let path = format!("/deployments/{deployment}/health-reports");
            let list = rest(backend, Method::GET, &path, None).await?;
            // The API lists reports newest first.
            let newest = list["data"].as_array().and_then(|d| d.first()).cloned();
            newest.ok_or_else(|| {
                ToolError::new(
                    Code::NotFound,
                    format!(
                        "deployment {deployment_id:?} has no health report yet: reports are \
                         made weekly for deployments with ingested conversations (or on \
                         request with POST /api/v1/deployments/{{id}}/health-reports)"
                    ),
                )
            })?
        }
    };
    Ok(views::key_numbers_first(
        report,
        &["report", "deployment_id", "period_start", "period_end"],
    ))
}

/// Scores `args` (an ingest body plus `view`) locally; nothing is stored.
pub fn score_locally(args: &JsonObject) -> Result<Value, ToolError> {
    let mut body = args.clone();
    let full = match body.shift_remove("view") {
        None => false,
        Some(Value::String(v)) if v == "summary" => false,
        Some(Value::String(v)) if v == "full" => true,
        Some(other) => {
            return Err(ToolError::new(
                Code::ValidationError,
                format!("view: must be `summary` or `full`, got {other}"),
            ));
        }
    };
    if body.contains_key("webhook_url") {
        return Err(ToolError::new(
            Code::ValidationError,
            "webhook_url: score_conversation sends nothing; pass webhook_url to \
             ingest_conversation instead",
        ));
    }
    // The REST body limit, on the body as REST would receive it.
    let body = Value::Object(body);
    let size = serde_json::to_vec(&body).map_or(usize::MAX, |b| b.len());
    if size > crate::api::MAX_BODY_BYTES {
        return Err(ToolError::new(
            Code::ValidationError,
            format!(
                "body: the request body is larger than {} MiB",
                crate::api::MAX_BODY_BYTES / (1024 * 1024)
            ),
        ));
    }
    let options = undertone_core::validate::Options {
        allow_private_webhooks: false,
        unlimited: false,
    };
    let request = undertone_core::validate::ingest_request(&body, &options)
        .map_err(|e| ToolError(e.to_envelope()["error"].clone()))?;
    let result = undertone_core::score::score(&request);
    // `{pipeline, intelligence}`: exactly what a complete session's `full_output` holds.
    let output = serde_json::to_value(&result)
        .map_err(|e| ToolError::new(Code::InternalError, format!("could not render: {e}")))?;
    if full {
        return Ok(json!({"status": "scored", "pipeline": output["pipeline"],
            "intelligence": output["intelligence"]}));
    }
    let intelligence = &output["intelligence"];
    let mut head = Map::new();
    head.insert("status".into(), json!("scored"));
    Ok(views::summary(head, Some(intelligence), Map::new()))
}

/// Runs the tool `spec` with `args` through `backend`. `score_conversation` is
/// answered by [`score_locally`] by the caller (it runs off the async runtime).
pub async fn call(
    spec: &Spec,
    args: &JsonObject,
    backend: &dyn Backend,
) -> Result<Value, ToolError> {
    match spec.name {
        "get_session" => {
            let a: GetSession = arguments(args)?;
            match a.view {
                SessionShape::Summary => session_summary(backend, &a.session_id).await,
                SessionShape::Full => full_session(backend, &a.session_id).await,
                SessionShape::Condensed => {
                    let path = format!(
                        "/intelligence/{}?view=condensed",
                        segment(&a.session_id, "session_id")?
                    );
                    rest(backend, Method::GET, &path, None).await
                }
            }
        }
        "explain_score" => {
            let a: ExplainScore = arguments(args)?;
            explain(backend, &a).await
        }
        "get_drift" => {
            let a: GetDrift = arguments(args)?;
            let path = format!("/drift/{}", segment(&a.session_id, "session_id")?);
            let drift = rest(backend, Method::GET, &path, None).await?;
            Ok(views::key_numbers_first(
                drift,
                &[
                    "status",
                    "direction",
                    "overall_drift",
                    "key_findings",
                    "dimension_drifts",
                    "outcome_shift",
                    "before",
                    "after",
                    "plain_summary",
                    "plain_recommendations",
                    "session_id",
                ],
            ))
        }
        "get_health_report" => {
            let a: GetHealthReport = arguments(args)?;
            health_report(backend, &a.deployment_id, a.report_id.as_deref()).await
        }
        "list_webhooks" => {
            let _: ListWebhooks = arguments(args)?;
            rest(backend, Method::GET, "/webhooks", None).await
        }
        "list_deliveries" => {
            let a: ListDeliveries = arguments(args)?;
            let mut path = format!(
                "/webhooks/{}/deliveries?limit={}",
                segment(&a.webhook_id, "webhook_id")?,
                a.limit.unwrap_or(20)
            );
            if let Some(cursor) = &a.cursor {
                path.push_str("&cursor=");
                path.push_str(&path_segment(cursor));
            }
            rest(backend, Method::GET, &path, None).await
        }
        "ingest_conversation" => {
            rest(
                backend,
                Method::POST,
                "/ingest",
                Some(&Value::Object(args.clone())),
            )
            .await
        }
        "start_drift" => {
            rest(
                backend,
                Method::POST,
                "/drift",
                Some(&Value::Object(args.clone())),
            )
            .await
        }
        "create_deploy_marker" => {
            let mut body = args.clone();
            let id = match body.shift_remove("deployment_id") {
                Some(Value::String(id)) => id,
                Some(_) => {
                    return Err(ToolError::new(
                        Code::ValidationError,
                        "deployment_id: must be a string",
                    ));
                }
                None => {
                    return Err(ToolError::new(
                        Code::ValidationError,
                        "deployment_id: is required",
                    ));
                }
            };
            let path = format!("/deployments/{}/deploys", segment(&id, "deployment_id")?);
            rest(backend, Method::POST, &path, Some(&Value::Object(body))).await
        }
        other => Err(ToolError::new(
            Code::NotFound,
            format!("no tool named {other:?}"),
        )),
    }
}

async fn explain(backend: &dyn Backend, a: &ExplainScore) -> Result<Value, ToolError> {
    let session = full_session(backend, &a.session_id).await?;
    let status = session["status"].as_str().unwrap_or("");
    if status == "failed" {
        return Err(ToolError::new(
            Code::Conflict,
            format!(
                "session {} failed, so it has no scores to explain: {}",
                a.session_id,
                session["error"].as_str().unwrap_or("no reason recorded")
            ),
        ));
    }
    if status != "complete" {
        return Err(ToolError::new(
            Code::Conflict,
            format!(
                "session {} is {status}, not complete: call get_session until its status is \
                 complete, then explain_score",
                a.session_id
            ),
        ));
    }
    let intelligence = &session["full_output"]["intelligence"];
    if let Some(d) = &a.dimension {
        let known = intelligence["layer_z"]
            .as_object()
            .map(|m| m.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default();
        if !known.contains(d) {
            return Err(ToolError::new(
                Code::ValidationError,
                format!("dimension: must be one of {}, got {d:?}", known.join(", ")),
            ));
        }
    }
    views::explain(
        &a.session_id,
        intelligence,
        a.event_index,
        a.dimension.as_deref(),
    )
    .ok_or_else(|| {
        let indexes = views::human_turn_indexes(intelligence);
        let shown: Vec<String> = indexes.iter().take(30).map(u64::to_string).collect();
        let more = if indexes.len() > 30 { ", …" } else { "" };
        ToolError::new(
            Code::NotFound,
            format!(
                "event {} is not a scored human turn of session {} (AI turns are \
                     context, not scored); its human turns are at event_index {}{more}",
                a.event_index,
                a.session_id,
                shown.join(", ")
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_without_dangling_references() {
        for spec in TOOLS {
            let schema = Value::Object((spec.schema)());
            assert_eq!(schema["type"], "object", "{}", spec.name);
            let text = schema.to_string();
            assert!(!text.contains("#/components/"), "{}: {text}", spec.name);
            let defs = schema.get("$defs").and_then(Value::as_object);
            for (i, _) in text.match_indices("#/$defs/") {
                let name: String = text[i + 8..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric())
                    .collect();
                assert!(
                    defs.is_some_and(|d| d.contains_key(&name)),
                    "{}: $defs lacks {name}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn the_ingest_tool_takes_exactly_the_rest_body() {
        let schema = Value::Object(ingest_schema());
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            props,
            ["deployment_id", "events", "pipeline", "webhook_url"]
        );
        assert_eq!(schema["required"], json!(["deployment_id", "events"]));
        assert_eq!(
            schema["properties"]["events"]["items"]["$ref"],
            "#/$defs/BIEEvent"
        );
        assert!(schema["$defs"]["BIEEvent"]["properties"]["content"].is_object());
    }

    #[test]
    fn the_deploy_marker_tool_adds_the_path_parameter() {
        let schema = Value::Object(deploy_schema());
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            props,
            ["deployment_id", "release", "description", "deployed_at"]
        );
        assert_eq!(schema["required"], json!(["deployment_id"]));
    }

    #[test]
    fn local_scoring_refuses_bad_input_with_paths() {
        let args: JsonObject =
            serde_json::from_value(json!({"deployment_id": "d", "events": []})).unwrap();
        let e = score_locally(&args).unwrap_err();
        assert_eq!(e.0["code"], "VALIDATION_ERROR");
        assert_eq!(e.0["details"][0]["path"], "events");
        let args: JsonObject = serde_json::from_value(json!({"deployment_id": "d",
            "events": [{"actor_id": "u", "content": "hi", "timestamp": "2026-01-01T00:00:00Z"}],
            "webhook_url": "https://example.com"}))
        .unwrap();
        assert!(
            score_locally(&args).unwrap_err().0["message"]
                .as_str()
                .unwrap()
                .starts_with("webhook_url")
        );
    }

    #[test]
    fn dot_segments_are_refused() {
        assert!(segment("..", "session_id").is_err());
        assert_eq!(segment("a b/c", "x").unwrap(), "a%20b%2Fc");
    }
}
