//! What the tools answer with, and the REST calls behind them: a tool's result or its
//! error in the REST envelope, the proxy that turns a REST answer into either, and the
//! reads more than one tool (or resource) shares.

use axum::http::Method;
use rmcp::model::{ContentBlock, IntoContents};
use serde_json::Value;

use super::args::{ExplainScore, Keyed};
use super::backend::Backend;
use super::error::ToolError;
use super::views;
use crate::api::error::Code;
use crate::webhooks::path_segment;

/// A tool's answer: one text block holding the JSON.
#[derive(Debug)]
pub struct Answer(pub Value);

impl IntoContents for Answer {
    fn into_contents(self) -> Vec<ContentBlock> {
        vec![ContentBlock::text(self.0.to_string())]
    }
}

/// The field a tool's answer carries, `true`, when it repeats the answer to an earlier
/// call with the same `idempotency_key` (absent otherwise).
const REPLAYED_FIELD: &str = "idempotent_replayed";

/// `id` as a path segment; `.` and `..` are refused (URL parsers would resolve them).
pub fn segment(id: &str, field: &str) -> Result<String, ToolError> {
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
    rest_keyed(backend, method, path, body, None).await
}

/// [`rest`] with the `Idempotency-Key` header when `idempotency_key` is given.
async fn rest_keyed(
    backend: &dyn Backend,
    method: Method,
    path: &str,
    body: Option<&Value>,
    idempotency_key: Option<&str>,
) -> Result<Value, ToolError> {
    let body = body.map(|b| serde_json::to_vec(b).unwrap_or_default());
    let reply = backend
        .send(method, path, body, idempotency_key)
        .await
        .map_err(|e| ToolError::new(Code::ServiceUnavailable, e.to_string()))?;
    let parsed: Option<Value> = serde_json::from_slice(&reply.body).ok();
    if (200..300).contains(&reply.status) {
        let mut answer = parsed.ok_or_else(|| {
            ToolError::new(
                Code::InternalError,
                format!(
                    "the API answered {} with a body that is not JSON",
                    reply.status
                ),
            )
        })?;
        // What the REST answer says in its `Idempotent-Replayed` header, a tool's
        // answer says in its JSON: this call started nothing.
        if let (true, Value::Object(fields)) = (reply.replayed, &mut answer) {
            fields.insert(REPLAYED_FIELD.into(), Value::Bool(true));
        }
        return Ok(answer);
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

/// `POST path` of a tool's [`Keyed`] arguments: the body, with its key as the header.
pub async fn post_keyed<T>(
    backend: &dyn Backend,
    path: &str,
    args: Keyed<T>,
) -> Result<Value, ToolError> {
    let (body, key) = args.into_parts()?;
    rest_keyed(backend, Method::POST, path, Some(&body), key.as_deref()).await
}

/// Reads a session in the REST full view.
pub async fn full_session(backend: &dyn Backend, session_id: &str) -> Result<Value, ToolError> {
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

/// `explain_score`: one human turn of a complete session, per dimension.
pub async fn explain(backend: &dyn Backend, a: &ExplainScore) -> Result<Value, ToolError> {
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
    fn dot_segments_are_refused() {
        assert!(segment("..", "session_id").is_err());
        assert_eq!(segment("a b/c", "x").unwrap(), "a%20b%2Fc");
    }
}
