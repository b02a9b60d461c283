//! The MCP server's state, and what one request brings to a tool: where its REST calls
//! go, with which scope, and the permits for local scoring. The handler
//! ([`super::handler`]) and the tools ([`super::tools`]) both build on it.

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderValue, header, request::Parts};
use rmcp::ErrorData;
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;

use super::backend::{Backend, InProcess};
use super::score::Scoring;
use crate::api::Caller;
use crate::keys::Scope;

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

/// The caller of one MCP request: where its REST calls go and with which scope. A
/// tool method takes it as an argument (rmcp extracts it from the request).
pub struct Call {
    /// Where the tool's REST calls go.
    pub backend: Arc<dyn Backend>,
    /// The key's scope.
    pub scope: Scope,
    /// Permits for local scoring on a shared server, and the key asking (hosted only;
    /// `undertone mcp` scores on the agent's own machine).
    pub scoring: Option<(Arc<Scoring>, String)>,
}

impl FromContextPart<ToolCallContext<'_, Undertone>> for Call {
    fn from_context_part(context: &mut ToolCallContext<'_, Undertone>) -> Result<Self, ErrorData> {
        context.service.call(&context.request_context.extensions)
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

    pub(super) fn call(&self, extensions: &rmcp::model::Extensions) -> Result<Call, ErrorData> {
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
