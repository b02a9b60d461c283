//! The MCP server handler: lists the tools a key's scope allows, refuses write tools to
//! a read-only key, hands tool calls to the tool router ([`super::tools`]), and serves
//! the resource templates and the prompt.

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, IntoContents, ListPromptsResult,
    ListResourceTemplatesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ResourceTemplate, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};
use serde_json::Value;

use super::error::ToolError;
use super::rest;
use super::server::Undertone;
use super::tools;
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

// `list_tools` and `call_tool` are written out and `get_tool` comes from the router.
// rmcp's router lists every tool sorted by name, where a key must see only the tools
// its scope allows, in the documented order; and a read-only key's call of a write tool
// must be a FORBIDDEN tool result naming the tools it may call, not a protocol error.
#[tool_handler(router = tools::router())]
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
        let tools = tools::listed(call.scope == Scope::ReadWrite);
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let router = tools::router();
        let Some(tool) = router.get(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool named {:?}; call tools/list for the tools this key can use",
                    request.name
                ),
                None,
            ));
        };
        if !tools::reads_only(tool) && self.call(&context.extensions)?.scope == Scope::ReadOnly {
            let refused = ToolError::new(
                Code::Forbidden,
                format!(
                    "{} changes stored data and this key is read-only: use a read-write key \
                     (`undertone keys create --scope read-write`). Tools a read-only key can \
                     call: {}",
                    tool.name,
                    tools::read_tool_names()
                ),
            );
            return Ok(CallToolResult::error(refused.into_contents()).into());
        }
        router
            .call(ToolCallContext::new(self, request, context))
            .await
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
                rest::session_summary(call.backend.as_ref(), &id).await
            }
            Some(ResourceUri::HealthReport(id)) => {
                rest::health_report(call.backend.as_ref(), &id, None).await
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
