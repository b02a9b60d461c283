//! The one place that maps errors to HTTP statuses and writes the error envelope
//! `{"error":{"code","message","details"?}}` (DESIGN.md §7 "Errors", STYLE.md §6).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use undertone_core::Violation;
use utoipa::ToSchema;

use crate::store::StoreError;

/// Stable error codes of the REST API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    /// The body or a parameter broke the input contract (400).
    ValidationError,
    /// Missing, malformed, unknown or revoked API key (401).
    Unauthorized,
    /// The key's scope does not allow this route (403).
    Forbidden,
    /// No such route, session or resource (404).
    NotFound,
    /// The route exists but not for this method (405).
    MethodNotAllowed,
    /// The body is not `application/json` (415).
    UnsupportedMediaType,
    /// The request conflicts with what exists, e.g. a key at its webhook limit (409).
    Conflict,
    /// A rate-limit window is full (429).
    RateLimited,
    /// Something failed on the server's side (500).
    InternalError,
    /// The job queue is at capacity, or the database cannot take a write now (503).
    ServiceUnavailable,
}

impl Code {
    /// The status every response with this code has.
    pub fn status(self) -> StatusCode {
        match self {
            Code::ValidationError => StatusCode::BAD_REQUEST,
            Code::Unauthorized => StatusCode::UNAUTHORIZED,
            Code::Forbidden => StatusCode::FORBIDDEN,
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Code::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Code::Conflict => StatusCode::CONFLICT,
            Code::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Code::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            Code::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// The body of every error response.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"error": {"code": "VALIDATION_ERROR",
    "message": "events: must hold 1 to 5000 events, got 0",
    "details": [{"path": "events", "message": "must hold 1 to 5000 events, got 0"}]}}))]
pub struct ErrorEnvelope {
    /// What went wrong.
    pub error: ErrorBody,
}

/// Code, message and, for validation errors, every violation found.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Machine-readable code.
    pub code: Code,
    /// Human-readable explanation.
    pub message: String,
    /// For `VALIDATION_ERROR`: each broken rule with its field path.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Detail>,
}

/// One broken rule.
#[derive(Debug, Serialize, ToSchema)]
pub struct Detail {
    /// Field path, e.g. `events[3].timestamp`.
    pub path: String,
    /// What is wrong there.
    pub message: String,
}

impl Detail {
    /// The details of an error with `code` and `message`: for a `VALIDATION_ERROR`
    /// written as `path: what is wrong` (every one the service writes itself), that one
    /// violation, and one without a path is about the `body` as a whole; none for
    /// another code. REST and MCP errors carry the same.
    pub fn of(code: Code, message: &str) -> Vec<Detail> {
        if code != Code::ValidationError {
            return Vec::new();
        }
        let (path, what) = message.split_once(": ").unwrap_or(("body", message));
        vec![Detail {
            path: path.to_owned(),
            message: what.to_owned(),
        }]
    }
}

/// An error a handler or middleware answers with.
#[derive(Debug)]
pub struct ApiError {
    code: Code,
    message: String,
    details: Vec<Detail>,
    retry_after: Option<u64>,
}

impl ApiError {
    /// An error with `code` and `message`. A `VALIDATION_ERROR` written as
    /// `path: what is wrong` (every one the service writes itself) carries that one
    /// violation in `details`, as those from the input contract carry theirs.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        let message = message.into();
        Self {
            code,
            details: Detail::of(code, &message),
            message,
            retry_after: None,
        }
    }

    /// 404 for a resource.
    pub fn not_found(what: &str) -> Self {
        Self::new(Code::NotFound, format!("{what} not found"))
    }

    /// 500 with a generic message; the detail goes to the log only.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(%detail, "internal error");
        Self::new(
            Code::InternalError,
            "the server failed to handle the request; it has been logged",
        )
    }

    /// Adds `Retry-After: seconds`.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds.max(1));
        self
    }

    /// The code.
    pub fn code(&self) -> Code {
        self.code
    }
}

impl From<undertone_core::Error> for ApiError {
    fn from(e: undertone_core::Error) -> Self {
        let code = match e.code() {
            undertone_core::ErrorCode::ValidationError => Code::ValidationError,
            other => {
                return Self::internal(format!("unexpected core error code {other}: {e}"));
            }
        };
        Self {
            code,
            message: e.to_string(),
            details: e
                .violations()
                .iter()
                .map(|Violation { path, message }| Detail {
                    path: path.clone(),
                    message: message.clone(),
                })
                .collect(),
            retry_after: None,
        }
    }
}

impl From<StoreError> for ApiError {
    /// 503 with `Retry-After` when the database may take the request soon (full,
    /// locked, out of connections: [`StoreError::transient`]) or when its file is gone
    /// (after a longer wait: an operator must restore it or restart the server); 500
    /// otherwise.
    fn from(e: StoreError) -> Self {
        if let StoreError::FileGone(_) = e {
            tracing::error!(error = %e, "the database file is gone");
            return Self::new(
                Code::ServiceUnavailable,
                "the server's database file was deleted or replaced; nothing is stored \
                 until an operator restores it or restarts the server",
            )
            .retry_after(FILE_GONE_RETRY_AFTER);
        }
        match e.transient() {
            Some(why) => {
                tracing::warn!(error = %e, "the database cannot take a request now");
                Self::new(
                    Code::ServiceUnavailable,
                    format!("the database is {why}; try again shortly"),
                )
                .retry_after(DATABASE_RETRY_AFTER)
            }
            None => Self::internal(e),
        }
    }
}

/// Seconds a client is asked to wait when the database cannot take a request now.
const DATABASE_RETRY_AFTER: u64 = 5;

/// Seconds a client is asked to wait when the database file is gone: long enough for
/// an operator to act, short enough that a client comes back soon after.
const FILE_GONE_RETRY_AFTER: u64 = 60;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.code.status();
        let body = ErrorEnvelope {
            error: ErrorBody {
                code: self.code,
                message: self.message,
                details: self.details,
            },
        };
        let mut response = (status, axum::Json(body)).into_response();
        if self.code == Code::Unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if let Some(s) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_that_may_take_the_request_soon_is_503_with_retry_after() {
        let busy = ApiError::from(StoreError::Database(sqlx::Error::PoolTimedOut));
        let response = busy.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "5");
        let lasting = ApiError::from(StoreError::Corrupt("a column".into())).into_response();
        assert_eq!(lasting.status(), StatusCode::INTERNAL_SERVER_ERROR);
        assert!(lasting.headers().get(header::RETRY_AFTER).is_none());
    }
}
