//! The request body of a JSON route: content type checked, size limited, bytes kept
//! for core's validator (which reports every violation with its field path).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::header;

use super::MAX_BODY_BYTES;
use super::error::{ApiError, Code};

/// The raw bytes of an `application/json` body.
#[derive(Debug)]
pub struct JsonBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !(essence == "application/json" || essence.ends_with("+json")) {
            let got = if content_type.is_empty() {
                "no Content-Type".to_owned()
            } else {
                format!("Content-Type `{content_type}`")
            };
            return Err(ApiError::new(
                Code::UnsupportedMediaType,
                format!(
                    "the body must be JSON sent as `Content-Type: application/json`; got {got}"
                ),
            ));
        }
        let bytes = Bytes::from_request(request, state).await.map_err(|e| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    Code::ValidationError,
                    format!(
                        "body: the request body is larger than {} MiB",
                        MAX_BODY_BYTES / (1024 * 1024)
                    ),
                )
            } else {
                ApiError::new(
                    Code::ValidationError,
                    format!("body: the request body could not be read: {e}"),
                )
            }
        })?;
        Ok(JsonBody(bytes))
    }
}
