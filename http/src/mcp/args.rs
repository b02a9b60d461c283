//! The tools' arguments: one type per tool, whose JSON Schema is the tool's input
//! schema (rmcp takes it from the type of the `Parameters` argument).
//!
//! Tools with arguments of their own derive their schema. Tools that take a REST body
//! ([`Body`]) take its schema from the OpenAPI document, which derives it from core's
//! own types, so the MCP and REST contracts cannot drift apart; their arguments are
//! passed on as they came and the REST route validates them.

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::OnceLock;

use rmcp::model::JsonObject;
use rmcp::schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value, json};
use undertone_core::schema::IngestRequest;
use undertone_core::schema::limits;
use undertone_core::validate::type_name;

use super::error::ToolError;
use crate::api::error::Code;
use crate::api::{IDEMPOTENCY_KEY_MAX, check_idempotency_key, in_core_words};

/// A tool's arguments, or why they do not fit its type: a malformed call is a tool
/// result with `VALIDATION_ERROR`, as a REST body would be, not a protocol error. The
/// violation names the argument (`arguments` when it is about them all), in the words
/// of a REST body's ([`in_core_words`]).
pub struct Args<T>(pub Result<T, ToolError>);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Args<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Ok(Args(serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." { "arguments" } else { &path };
            let v = in_core_words(path, e.into_inner().to_string(), "field");
            ToolError::new(Code::ValidationError, format!("{}: {}", v.path, v.message))
        })))
    }
}

impl<T: JsonSchema> JsonSchema for Args<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

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

/// A REST body of type `T` (a type of the OpenAPI document), passed on as it came.
pub struct Body<T>(pub JsonObject, PhantomData<T>);

impl<'de, T> Deserialize<'de> for Body<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonObject::deserialize(deserializer).map(|body| Body(body, PhantomData))
    }
}

impl<T: utoipa::ToSchema> JsonSchema for Body<T> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        T::name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        component(&T::name(), generator)
    }
}

/// A REST body of type `T` sent to a route that takes an `Idempotency-Key`
/// (`ingest_conversation`, `start_drift`), with the key as the argument
/// `idempotency_key`: taken out of the body, sent as the header.
pub struct Keyed<T> {
    /// The body, passed on as it came.
    pub body: Body<T>,
    /// The argument as given (checked by [`Keyed::into_parts`]).
    given: Option<Value>,
}

impl<T> Keyed<T> {
    /// The body, and the `Idempotency-Key` to send (`None` when the argument is absent
    /// or null), checked as the route checks the header: a key that is no header value
    /// could not reach it. What is wrong is a `VALIDATION_ERROR` at the argument.
    pub fn into_parts(self) -> Result<(Value, Option<String>), ToolError> {
        let refuse = |what: String| {
            ToolError::new(Code::ValidationError, format!("idempotency_key: {what}"))
        };
        let key = match self.given {
            None | Some(Value::Null) => None,
            Some(Value::String(key)) => {
                check_idempotency_key(key.as_bytes()).map_err(refuse)?;
                Some(key)
            }
            Some(other) => {
                return Err(refuse(format!(
                    "must be a string, got {}",
                    type_name(&other)
                )));
            }
        };
        Ok((Value::Object(self.body.0), key))
    }
}

impl<'de, T> Deserialize<'de> for Keyed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut body = JsonObject::deserialize(deserializer)?;
        // Taken out in place: the body keeps its order.
        let given = body.shift_remove("idempotency_key");
        Ok(Keyed {
            body: Body(body, PhantomData),
            given,
        })
    }
}

/// [`Body`]'s schema, with the `idempotency_key` property added.
impl<T: utoipa::ToSchema> JsonSchema for Keyed<T> {
    fn inline_schema() -> bool {
        Body::<T>::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        Body::<T>::schema_name()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = Body::<T>::json_schema(generator);
        if let Some(Value::Object(props)) = schema.get_mut("properties") {
            props.insert(
                "idempotency_key".into(),
                json!({
                    "type": ["string", "null"],
                    "minLength": 1,
                    "maxLength": IDEMPOTENCY_KEY_MAX,
                    "pattern": format!("^[!-~]{{1,{IDEMPOTENCY_KEY_MAX}}}$"),
                    "description": format!(
                        "Makes the call safe to repeat (e.g. after a timeout): a repeat with \
                         the same key and arguments starts nothing and answers the first \
                         call's result again; the same key with other arguments is CONFLICT. \
                         1 to {IDEMPOTENCY_KEY_MAX} visible ASCII characters, such as a UUID."
                    )
                }),
            );
        }
        schema
    }
}

/// How `score_conversation` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
#[serde(rename_all = "snake_case")]
pub enum ScoreView {
    /// Key numbers, the finding and the flagged turns (default).
    Summary,
    /// Every turn with its evidence.
    Full,
}

/// Arguments of `score_conversation`: an ingest body without `webhook_url` (nothing is
/// sent), plus `view`. Validated by core as `POST /ingest` validates it.
pub struct ScoreConversation(pub JsonObject);

impl<'de> Deserialize<'de> for ScoreConversation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonObject::deserialize(deserializer).map(ScoreConversation)
    }
}

impl JsonSchema for ScoreConversation {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "ScoreConversation".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = Body::<IngestRequest>::json_schema(generator);
        let view = generator.subschema_for::<ScoreView>();
        if let Some(Value::Object(props)) = schema.get_mut("properties") {
            props.shift_remove("webhook_url");
            let mut view = view.to_value();
            if let Value::Object(v) = &mut view {
                v.insert(
                    "description".into(),
                    json!("`summary` (default) or `full` (every turn with evidence)."),
                );
            }
            props.insert("view".into(), view);
        }
        schema
    }
}

/// Arguments of `create_deploy_marker`: the deployment (the route's path parameter)
/// and the `POST /deployments/{id}/deploys` body.
pub struct DeployMarker(pub JsonObject);

impl<'de> Deserialize<'de> for DeployMarker {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        JsonObject::deserialize(deserializer).map(DeployMarker)
    }
}

impl JsonSchema for DeployMarker {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        "DeployMarker".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = component("CreateDeploy", generator);
        if let Some(Value::Object(props)) = schema.get_mut("properties") {
            let mut with_id = Map::new();
            with_id.insert(
                "deployment_id".into(),
                json!({"type": "string", "minLength": 1, "maxLength": limits::ID_MAX_CHARS,
                    "description": "The deployment, as sent in `deployment_id` at ingest."}),
            );
            with_id.append(props);
            *props = with_id;
        }
        schema.insert("required".into(), json!(["deployment_id"]));
        schema
    }
}

/// The OpenAPI document's component schemas, parsed once.
fn components() -> &'static Value {
    static SCHEMAS: OnceLock<Value> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        serde_json::from_str::<Value>(&crate::api::openapi::document())
            .map(|doc| doc["components"]["schemas"].clone())
            .unwrap_or(Value::Null)
    })
}

/// The OpenAPI component `name` as a JSON Schema: the components it refers to become
/// the generator's definitions (`$defs`) and the references point there; OpenAPI's
/// `example` is dropped (a tool list is read by a model: every token counts).
fn component(name: &str, generator: &mut SchemaGenerator) -> Schema {
    let prefix = format!("#{}/", generator.settings().definitions_path);
    let schemas = components();
    let mut pending = Vec::new();
    let root = rewrite(&schemas[name], &prefix, &mut pending);
    while let Some(dep) = pending.pop() {
        if generator.definitions().contains_key(&dep) {
            continue;
        }
        let schema = rewrite(&schemas[&dep], &prefix, &mut pending);
        generator.definitions_mut().insert(dep, schema);
    }
    Schema::try_from(root).unwrap_or_default()
}

/// `schema` with `#/components/schemas/` references pointing under `prefix` (each
/// target pushed on `pending`) and without `example`.
fn rewrite(schema: &Value, prefix: &str, pending: &mut Vec<String>) -> Value {
    const COMPONENTS: &str = "#/components/schemas/";
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "example")
                .map(|(k, v)| match (k.as_str(), v.as_str()) {
                    ("$ref", Some(r)) if r.starts_with(COMPONENTS) => {
                        let target = &r[COMPONENTS.len()..];
                        pending.push(target.to_owned());
                        (k.clone(), Value::String(format!("{prefix}{target}")))
                    }
                    _ => (k.clone(), rewrite(v, prefix, pending)),
                })
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| rewrite(v, prefix, pending)).collect())
        }
        other => other.clone(),
    }
}
