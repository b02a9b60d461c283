//! The MCP server handler: lists the tools a key's scope allows, runs tool calls, and
//! serves the resource templates and the prompt.

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, header, request::Parts};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::backend::{Backend, InProcess};
use super::tools::{self, Access, TOOLS, ToolError};
use crate::api::Caller;
use crate::api::error::Code;
use crate::keys::Scope;

/// What the server tells a client about itself at initialisation.
const INSTRUCTIONS: &str = "Undertone scores the human side of AI conversations: for every \
human turn, trust calibration, frustration buildup, dependency drift, silent-abandonment \
risk, escalation friction and comprehension gap, each with a band (healthy, watch, broken) \
and evidence. Typical flow: ingest_conversation (read-write key) -> get_session until \
status is complete -> explain_score for a flagged turn. score_conversation scores without \
storing. start_drift/get_drift compare two periods; get_health_report reads a \
deployment's weekly report. Every tool answers JSON (summaries key numbers first); an \
error is {\"error\": {\"code\", \"message\"}} with the REST API's codes. On the hosted \
endpoint every MCP message counts as one request against the key's rate limits.";

/// Where calls go and with which scope.
#[derive(Clone)]
enum Mode {
    /// The server's own `/mcp` endpoint: each HTTP request carries its key.
    Hosted {
        /// The REST router tool calls go through.
        rest: Router,
        /// Permits for `score_conversation`, which scores in this process.
        scoring: Arc<Scoring>,
    },
    /// `undertone mcp`: one key, checked at start, and a remote REST API.
    Remote {
        backend: Arc<dyn Backend>,
        scope: Scope,
    },
}

/// The MCP server.
#[derive(Clone)]
pub struct Undertone {
    mode: Mode,
}

/// The caller of one MCP request.
struct Call {
    backend: Arc<dyn Backend>,
    scope: Scope,
    /// Permits for local scoring on a shared server, and the key asking (hosted only;
    /// `undertone mcp` scores on the agent's own machine).
    scoring: Option<(Arc<Scoring>, String)>,
}

/// The slots of `score_conversation` on a shared server: as many at once as there are
/// cores, and at most half of them (at least one) for any one key, so one key cannot
/// hold every slot.
pub struct Scoring {
    all: Arc<Semaphore>,
    per_key: usize,
    keys: std::sync::Mutex<std::collections::HashMap<String, Arc<Semaphore>>>,
}

/// Which limit refused a scoring slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// Every slot of the server is taken.
    Server,
    /// This key holds its share already.
    Key,
}

impl Scoring {
    /// `slots` at once in all, `per_key` of them for one key.
    pub fn new(slots: usize, per_key: usize) -> Self {
        Scoring {
            all: Arc::new(Semaphore::new(slots.max(1))),
            per_key: per_key.max(1),
            keys: std::sync::Mutex::default(),
        }
    }

    /// A slot for `key_id`, held until the permits are dropped.
    pub fn try_acquire(
        &self,
        key_id: &str,
    ) -> Result<(OwnedSemaphorePermit, OwnedSemaphorePermit), Busy> {
        let mine = {
            let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
            if keys.len() > 4096 {
                // Forget keys that hold nothing, so the map stays small.
                let idle = self.per_key;
                keys.retain(|_, s| s.available_permits() < idle);
            }
            keys.entry(key_id.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(self.per_key)))
                .clone()
        };
        let key = mine.try_acquire_owned().map_err(|_| Busy::Key)?;
        let server = self
            .all
            .clone()
            .try_acquire_owned()
            .map_err(|_| Busy::Server)?;
        Ok((key, server))
    }
}

impl Undertone {
    /// The handler of the hosted endpoint; tool calls go through `rest`.
    pub fn hosted(rest: Router) -> Self {
        // As many scores at once as there are cores: more would only queue for CPU
        // while holding memory.
        let permits = std::thread::available_parallelism().map_or(2, usize::from);
        Self {
            mode: Mode::Hosted {
                rest,
                scoring: Arc::new(Scoring::new(permits, permits / 2)),
            },
        }
    }

    /// The handler of `undertone mcp`, calling `backend` with a key of `scope`.
    pub fn remote(backend: Arc<dyn Backend>, scope: Scope) -> Self {
        Self {
            mode: Mode::Remote { backend, scope },
        }
    }

    fn call(&self, extensions: &rmcp::model::Extensions) -> Result<Call, ErrorData> {
        match &self.mode {
            Mode::Remote { backend, scope } => Ok(Call {
                backend: backend.clone(),
                scope: *scope,
                scoring: None,
            }),
            Mode::Hosted { rest, scoring } => {
                let parts = extensions.get::<Parts>().ok_or_else(|| {
                    ErrorData::internal_error("the HTTP request is not available", None)
                })?;
                let caller = parts.extensions.get::<Caller>().cloned().ok_or_else(|| {
                    ErrorData::internal_error("the request was not authenticated", None)
                })?;
                let authorization = parts
                    .headers
                    .get(header::AUTHORIZATION)
                    .cloned()
                    .unwrap_or_else(|| HeaderValue::from_static(""));
                Ok(Call {
                    backend: Arc::new(InProcess {
                        rest: rest.clone(),
                        authorization,
                    }),
                    scope: caller.key.scope,
                    scoring: Some((scoring.clone(), caller.key.id.clone())),
                })
            }
        }
    }
}

fn text_result(value: &Value, is_error: bool) -> CallToolResult {
    let content = vec![ContentBlock::text(value.to_string())];
    if is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

async fn run_tool(
    call: &Call,
    spec: &tools::Spec,
    args: &rmcp::model::JsonObject,
) -> Result<Value, ToolError> {
    if spec.access == Access::Write && call.scope == Scope::ReadOnly {
        return Err(ToolError::new(
            Code::Forbidden,
            format!(
                "{} changes stored data and this key is read-only: use a read-write key \
                 (`undertone keys create --scope read-write`). Tools a read-only key can \
                 call: {}",
                spec.name,
                tools::read_tool_names()
            ),
        ));
    }
    if spec.name == "score_conversation" {
        let permit = match &call.scoring {
            Some((scoring, key_id)) => match scoring.try_acquire(key_id) {
                Ok(permits) => Some(permits),
                Err(busy) => {
                    let why = match busy {
                        Busy::Server => "every scoring slot of this server is busy",
                        Busy::Key => "this key already holds its share of the scoring slots",
                    };
                    return Err(ToolError::new(
                        Code::ServiceUnavailable,
                        format!(
                            "{why}: retry in a second, or ingest_conversation to queue the work"
                        ),
                    )
                    .retry_after(1));
                }
            },
            None => None,
        };
        let args = args.clone();
        return tokio::task::spawn_blocking(move || {
            let _permit = permit;
            tools::score_locally(&args)
        })
        .await
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "local scoring panicked");
            Err(ToolError::new(
                Code::InternalError,
                "scoring failed; it has been logged",
            ))
        });
    }
    tools::call(spec, args, call.backend.as_ref()).await
}

/// `undertone://sessions/{session_id}` or
/// `undertone://deployments/{deployment_id}/health-report`, decoded.
enum ResourceUri {
    Session(String),
    HealthReport(String),
}

fn parse_uri(uri: &str) -> Option<ResourceUri> {
    let rest = uri.strip_prefix("undertone://")?;
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(s)
            .decode_utf8()
            .ok()
            .map(|c| c.into_owned())
            .filter(|s| !s.is_empty())
    };
    if let Some(id) = rest.strip_prefix("sessions/") {
        return decode(id).map(ResourceUri::Session);
    }
    let id = rest
        .strip_prefix("deployments/")?
        .strip_suffix("/health-report")?;
    decode(id).map(ResourceUri::HealthReport)
}

impl ServerHandler for Undertone {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("undertone", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let call = self.call(&context.extensions)?;
        let tools = TOOLS
            .iter()
            .filter(|t| t.access == Access::Read || call.scope == Scope::ReadWrite)
            .map(tools::Spec::tool)
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(spec) = tools::find(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named {:?}; call tools/list for the tools this key can use",
                    request.name
                ),
                None,
            ));
        };
        let call = self.call(&context.extensions)?;
        let args = request.arguments.unwrap_or_default();
        let result = match run_tool(&call, spec, &args).await {
            Ok(value) => text_result(&value, false),
            Err(e) => text_result(&e.envelope(), true),
        };
        Ok(result.into())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("undertone://sessions/{session_id}", "session")
                .with_title("Scores of an ingested conversation")
                .with_description(
                    "The get_session summary of a session: status, scores per dimension, \
                     key finding, flagged turns.",
                )
                .with_mime_type("application/json"),
            ResourceTemplate::new(
                "undertone://deployments/{deployment_id}/health-report",
                "latest-health-report",
            )
            .with_title("Latest User Health Report of a deployment")
            .with_description(
                "The newest weekly User Health Report of a deployment: scores, bands, \
                 trends, crossings and deploy outcomes.",
            )
            .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let call = self.call(&context.extensions)?;
        let value = match parse_uri(&uri) {
            Some(ResourceUri::Session(id)) => {
                tools::session_summary(call.backend.as_ref(), &id).await
            }
            Some(ResourceUri::HealthReport(id)) => {
                tools::health_report(call.backend.as_ref(), &id, None).await
            }
            None => {
                return Err(ErrorData::resource_not_found(
                    format!(
                        "unknown resource {uri:?}: use undertone://sessions/{{session_id}} or \
                         undertone://deployments/{{deployment_id}}/health-report"
                    ),
                    None,
                ));
            }
        };
        match value {
            Ok(v) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(v.to_string(), uri).with_mime_type("application/json"),
            ])
            .into()),
            Err(e) if e.0["code"] == "NOT_FOUND" => Err(ErrorData::resource_not_found(
                e.0["message"].as_str().unwrap_or("not found").to_owned(),
                Some(e.envelope()),
            )),
            Err(e) if e.0["code"] == "VALIDATION_ERROR" => Err(ErrorData::invalid_params(
                e.0["message"].as_str().unwrap_or("invalid").to_owned(),
                Some(e.envelope()),
            )),
            Err(e) => Err(ErrorData::internal_error(
                e.0["message"].as_str().unwrap_or("failed").to_owned(),
                Some(e.envelope()),
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "investigate_deployment",
            Some(
                "Review how a deployment's AI is treating its users: the latest health \
                     report, the worst dimensions, their evidence, and what to change.",
            ),
            Some(vec![
                PromptArgument::new("deployment_id")
                    .with_description("The deployment to review")
                    .with_required(true),
            ]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "investigate_deployment" {
            return Err(ErrorData::invalid_params(
                format!(
                    "no prompt named {:?}; the prompt is investigate_deployment",
                    request.name
                ),
                None,
            ));
        }
        let deployment = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("deployment_id"))
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| ErrorData::invalid_params("deployment_id is required", None))?;
        let text = format!(
            "Review how the AI deployment {deployment:?} is treating its users.\n\
             1. Call get_health_report with deployment_id {deployment:?}. If it has no report \
             yet, ask for a session id or a sample conversation (score_conversation).\n\
             2. Name the dimensions in the watch or broken band, with their scores and \
             trends; trust_calibration is higher-is-better, the others higher-is-worse.\n\
             3. For the worst dimension, read the evidence of two flagged turns \
             (get_session, then explain_score) and quote the words that triggered it.\n\
             4. Say whether a recent deploy changed outcomes (deploy outcomes in the \
             report), and recommend one concrete change to the AI, tied to that evidence."
        );
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description(format!("Investigate deployment {deployment}"))
                .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_uris_decode() {
        assert!(
            matches!(parse_uri("undertone://sessions/abc"), Some(ResourceUri::Session(s)) if s == "abc")
        );
        assert!(matches!(
            parse_uri("undertone://deployments/acme%20bot/health-report"),
            Some(ResourceUri::HealthReport(s)) if s == "acme bot"
        ));
        assert!(parse_uri("undertone://deployments//health-report").is_none());
        assert!(parse_uri("https://x/sessions/abc").is_none());
    }
}

#[cfg(test)]
mod scoring_slots {
    use super::{Busy, Scoring};

    #[test]
    fn one_key_holds_at_most_its_share_and_the_server_at_most_all() {
        let slots = Scoring::new(3, 2);
        let a1 = slots.try_acquire("key_a").expect("first slot");
        let a2 = slots.try_acquire("key_a").expect("second slot");
        assert_eq!(slots.try_acquire("key_a").err(), Some(Busy::Key));
        let b1 = slots.try_acquire("key_b").expect("another key's slot");
        assert_eq!(slots.try_acquire("key_c").err(), Some(Busy::Server));
        drop(a1);
        let a3 = slots.try_acquire("key_a").expect("a slot freed");
        drop((a2, a3, b1));
        assert!(slots.try_acquire("key_c").is_ok());
    }
}
