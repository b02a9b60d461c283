//! The MCP tools, one method each: the method's doc comment is the tool's description,
//! its `#[tool]` annotations say whether it only reads (a read-only key may call only
//! those), and the type of its `Parameters` is its input schema ([`super::args`]).
//! `#[tool_router]` collects them into [`router`]; the handler lists and calls them.

use std::sync::OnceLock;

use axum::http::Method;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::Tool;
use rmcp::{tool, tool_router};
use serde_json::Value;
use undertone_core::schema::{DriftRequest, IngestRequest};

use super::args::{
    Args, DeployMarker, ExplainScore, GetDrift, GetHealthReport, GetSession, Keyed, ListDeliveries,
    ListWebhooks, ScoreConversation, SessionShape,
};
use super::error::ToolError;
use super::rest::{self, Answer, post_keyed, rest, segment};
use super::score::score_off_runtime;
use super::server::{Call, Undertone};
use super::views;
use crate::api::error::Code;
use crate::webhooks::path_segment;

/// The order tools are listed in: read tools first, the usual flow first. (rmcp's
/// router keeps no order of its own.)
pub const LISTED: [&str; 10] = [
    "get_session",
    "explain_score",
    "score_conversation",
    "get_drift",
    "get_health_report",
    "list_webhooks",
    "list_deliveries",
    "ingest_conversation",
    "start_drift",
    "create_deploy_marker",
];

/// Every tool, built once.
pub fn router() -> &'static ToolRouter<Undertone> {
    static ROUTER: OnceLock<ToolRouter<Undertone>> = OnceLock::new();
    ROUTER.get_or_init(Undertone::tool_router)
}

/// Whether `tool` only reads (its `readOnlyHint`), so that a read-only key may call it.
pub fn reads_only(tool: &Tool) -> bool {
    tool.annotations
        .as_ref()
        .and_then(|a| a.read_only_hint)
        .unwrap_or(false)
}

/// Every tool a key may call, in [`LISTED`] order (a tool missing there comes last).
pub fn listed(may_write: bool) -> Vec<Tool> {
    let mut tools: Vec<Tool> = router()
        .list_all()
        .into_iter()
        .filter(|t| may_write || reads_only(t))
        .collect();
    tools.sort_by_key(|t| LISTED.iter().position(|n| *n == t.name));
    tools
}

/// The names of the read tools, for error messages.
pub fn read_tool_names() -> String {
    listed(false)
        .iter()
        .map(|t| t.name.as_ref())
        .collect::<Vec<_>>()
        .join(", ")
}

type Reply = Result<Answer, ToolError>;

#[tool_router(router = tool_router, vis = "pub(super)")]
impl Undertone {
    /// Read the scores of a conversation ingested with ingest_conversation. `status` goes
    /// received -> processing -> complete | failed; until complete, `scores` is null: call
    /// again after a second or two. The default `summary` view gives, key numbers first:
    /// `scores` per dimension ({score, band, confidence}; bands: healthy < 0.35 <= watch
    /// <= 0.55 < broken on the risk scale; trust_calibration is higher-is-better, every
    /// other dimension higher-is-worse), the key finding, one recommendation, and
    /// `flagged_turns` (the turns outside the healthy band, worst first; pass an
    /// event_index to explain_score for its evidence). view `condensed` returns the REST
    /// condensed view instead (request-level scores with their evidence); view `full` the
    /// REST session object with every conversation and turn (large).
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_session(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<GetSession>>,
    ) -> Reply {
        let a = args.0?;
        let backend = call.backend.as_ref();
        let answer = match a.view {
            SessionShape::Summary => rest::session_summary(backend, &a.session_id).await?,
            SessionShape::Full => rest::full_session(backend, &a.session_id).await?,
            SessionShape::Condensed => {
                let path = format!(
                    "/intelligence/{}?view=condensed",
                    segment(&a.session_id, "session_id")?
                );
                rest(backend, Method::GET, &path, None).await?
            }
        };
        Ok(Answer(answer))
    }

    /// Explain why one human turn of a complete session scored as it did: per dimension
    /// its score, band, confidence and evidence (signal, contribution, and the quoted
    /// words that triggered it). `event_index` is the position of the turn in the events
    /// that were ingested (0-based), as listed in get_session's `flagged_turns`. Pass
    /// `dimension` to see only one.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn explain_score(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<ExplainScore>>,
    ) -> Reply {
        let a = args.0?;
        rest::explain(call.backend.as_ref(), &a).await.map(Answer)
    }

    /// Score events right now and return the summary (same shape as get_session's
    /// summary, `status: "scored"`), without storing anything or sending webhooks. Use it
    /// to try a conversation or a what-if; use ingest_conversation to keep the result,
    /// feed the deployment's history, drift checks and webhooks. Same body rules as
    /// ingest: 1 to 5000 events, each {actor_id, content, timestamp (RFC 3339),
    /// conversation_id?, context?, metadata?}; AI turns are recognised by metadata.role,
    /// by actor_id equal to deployment_id, or an ai:/bot:/assistant prefix. `view:
    /// "full"` returns every turn with evidence instead of the summary.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn score_conversation(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<ScoreConversation>>,
    ) -> Reply {
        let body = args.0?.0;
        // On a shared server a slot first; `undertone mcp` scores on the agent's machine.
        let slot = match &call.scoring {
            Some((scoring, key_id)) => Some(scoring.slot(key_id)?),
            None => None,
        };
        score_off_runtime(body, slot).await.map(Answer)
    }

    /// Read a drift comparison started with start_drift. Until `status` is complete, call
    /// again after a second or two. When complete: `direction` (improved, regressed,
    /// mixed or unchanged), `overall_drift`, `key_findings`, and per dimension the before
    /// and after medians, shift, confidence interval, Holm-adjusted p-value and verdict.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_drift(&self, call: Call, Parameters(args): Parameters<Args<GetDrift>>) -> Reply {
        let a = args.0?;
        let path = format!("/drift/{}", segment(&a.session_id, "session_id")?);
        let drift = rest(call.backend.as_ref(), Method::GET, &path, None).await?;
        Ok(Answer(views::key_numbers_first(
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
        )))
    }

    /// Read a deployment's User Health Report (a week's scores, bands, trends, crossings
    /// and deploy outcomes): the newest one, or the one with `report_id`. Answers
    /// NOT_FOUND when the deployment has no report yet.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn get_health_report(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<GetHealthReport>>,
    ) -> Reply {
        let a = args.0?;
        let backend = call.backend.as_ref();
        rest::health_report(backend, &a.deployment_id, a.report_id.as_deref())
            .await
            .map(Answer)
    }

    /// List the webhook endpoints registered with this key: id, url, failure_count
    /// (consecutive failed deliveries), last_delivery_at, event kinds.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn list_webhooks(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<ListWebhooks>>,
    ) -> Reply {
        let ListWebhooks {} = args.0?;
        rest(call.backend.as_ref(), Method::GET, "/webhooks", None)
            .await
            .map(Answer)
    }

    /// List a webhook endpoint's deliveries, newest first: status (pending, succeeded,
    /// failed), the endpoint's response status, attempts and the error of the last one.
    /// Page with `limit` (1-100, default 20) and the `next_cursor` of the previous page.
    #[tool(annotations(
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false
    ))]
    async fn list_deliveries(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<ListDeliveries>>,
    ) -> Reply {
        let a = args.0?;
        let mut path = format!(
            "/webhooks/{}/deliveries?limit={}",
            segment(&a.webhook_id, "webhook_id")?,
            a.limit.unwrap_or(20)
        );
        if let Some(cursor) = &a.cursor {
            path.push_str("&cursor=");
            path.push_str(&path_segment(cursor));
        }
        rest(call.backend.as_ref(), Method::GET, &path, None)
            .await
            .map(Answer)
    }

    /// Store a conversation's events and score every human turn in context
    /// (asynchronously). Returns {session_id, event_count, status: "received",
    /// poll_url}; then call get_session with the session_id until status is complete
    /// (usually within a second). The session joins the deployment's history: threshold
    /// crossings, anomalies and deploy outcomes are computed and webhooks sent. Body:
    /// deployment_id, 1 to 5000 events in order (each {actor_id, content, timestamp (RFC
    /// 3339), conversation_id?, context?, metadata?}), optional pipeline (auto, support,
    /// reviews) and webhook_url; idempotency_key makes a retry safe (a repeat answers the
    /// first call's result, with idempotent_replayed: true). Needs a read-write key.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        // An ingest's `webhook_url` makes the server call out.
        open_world_hint = true
    ))]
    async fn ingest_conversation(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<Keyed<IngestRequest>>>,
    ) -> Reply {
        post_keyed(call.backend.as_ref(), "/ingest", args.0?)
            .await
            .map(Answer)
    }

    /// Compare two periods of events (e.g. before and after a model change) with
    /// significance tests: `before` and `after` each hold 5 to 2000 events and an
    /// optional label; `question` puts the dimensions it names first. Returns
    /// {session_id, status: "received", poll_url}; then call get_drift with the
    /// session_id. Counts against the key's drift sessions per hour; idempotency_key
    /// makes a retry safe (a repeat answers the first call's result, with
    /// idempotent_replayed: true). Needs a read-write key.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn start_drift(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<Keyed<DriftRequest>>>,
    ) -> Reply {
        post_keyed(call.backend.as_ref(), "/drift", args.0?)
            .await
            .map(Answer)
    }

    /// Record that a new release of a deployment went live (model, prompt or build
    /// change). Conversations after `deployed_at` (default now) are compared with those
    /// before, and the outcome shift (resolved rate, significance-tested) appears on the
    /// marker and in health reports once the post-deploy window settles. Returns the
    /// marker. Needs a read-write key.
    #[tool(annotations(
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn create_deploy_marker(
        &self,
        call: Call,
        Parameters(args): Parameters<Args<DeployMarker>>,
    ) -> Reply {
        let mut body = args.0?.0;
        // `deployment_id` is the route's path parameter; the rest is its body.
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
        let body = Value::Object(body);
        rest(call.backend.as_ref(), Method::POST, &path, Some(&body))
            .await
            .map(Answer)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(name: &str) -> Value {
        let tool = router().get(name).expect("the tool exists");
        Value::Object(tool.input_schema.as_ref().clone())
    }

    #[test]
    fn every_tool_is_listed_in_order_and_read_tools_first() {
        let names: Vec<String> = listed(true).iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, LISTED);
        let read: Vec<String> = listed(false).iter().map(|t| t.name.to_string()).collect();
        assert_eq!(read, LISTED[..7]);
    }

    #[test]
    fn every_tool_has_an_object_schema_without_dangling_references() {
        for name in LISTED {
            let schema = schema(name);
            assert_eq!(schema["type"], "object", "{name}");
            let text = schema.to_string();
            assert!(!text.contains("#/components/"), "{name}: {text}");
            let defs = schema.get("$defs").and_then(Value::as_object);
            for (i, _) in text.match_indices("#/$defs/") {
                let target: String = text[i + 8..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric())
                    .collect();
                assert!(
                    defs.is_some_and(|d| d.contains_key(&target)),
                    "{name}: $defs lacks {target}"
                );
            }
        }
    }

    #[test]
    fn the_ingest_tool_takes_the_rest_body_and_an_idempotency_key() {
        let drift = schema("start_drift");
        let schema = schema("ingest_conversation");
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            props,
            [
                "deployment_id",
                "events",
                "pipeline",
                "webhook_url",
                "idempotency_key"
            ]
        );
        assert_eq!(schema["required"], json!(["deployment_id", "events"]));
        let key = &schema["properties"]["idempotency_key"];
        assert_eq!(
            (&key["type"], &key["minLength"], &key["maxLength"]),
            (&json!(["string", "null"]), &json!(1), &json!(255))
        );
        assert_eq!(key["pattern"], "^[!-~]{1,255}$");
        assert_eq!(drift["properties"]["idempotency_key"], *key);
        assert_eq!(drift["required"], json!(["before", "after"]));
        assert_eq!(
            schema["properties"]["events"]["items"]["$ref"],
            "#/$defs/BIEEvent"
        );
        assert!(schema["$defs"]["BIEEvent"]["properties"]["content"].is_object());
    }

    #[test]
    fn the_score_tool_takes_the_ingest_body_with_a_view_and_no_webhook() {
        let schema = schema("score_conversation");
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(props, ["deployment_id", "events", "pipeline", "view"]);
        assert_eq!(schema["required"], json!(["deployment_id", "events"]));
    }

    #[test]
    fn the_deploy_marker_tool_adds_the_path_parameter() {
        let schema = schema("create_deploy_marker");
        let props: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            props,
            ["deployment_id", "release", "description", "deployed_at"]
        );
        assert_eq!(schema["required"], json!(["deployment_id"]));
    }

    #[test]
    fn read_tools_say_so_and_write_tools_do_not() {
        for tool in listed(true) {
            let read = LISTED[..7].contains(&tool.name.as_ref());
            assert_eq!(reads_only(&tool), read, "{}", tool.name);
        }
    }
}
