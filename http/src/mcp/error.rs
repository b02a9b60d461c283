//! What a failed tool call answers: the REST API's error object, as a tool result.

use rmcp::model::{ContentBlock, IntoContents};
use serde_json::{Value, json};

use crate::api::error::{Code, Detail};

/// A tool call that failed: the REST error object `{code, message, details?}`, plus
/// `retry_after_seconds` when the API said when to retry. As a tool result it is the
/// envelope `{"error": {...}}` with `isError: true`.
#[derive(Debug)]
pub struct ToolError(pub Value);

impl ToolError {
    /// An error with `code` and `message`; a `VALIDATION_ERROR` carries its one
    /// violation in `details`, as the REST service's do (`Detail::of`).
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        let message = message.into();
        let details = Detail::of(code, &message);
        match details.is_empty() {
            true => ToolError(json!({"code": code, "message": message})),
            false => ToolError(json!({"code": code, "message": message, "details": details})),
        }
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

impl IntoContents for ToolError {
    fn into_contents(self) -> Vec<ContentBlock> {
        vec![ContentBlock::text(self.envelope().to_string())]
    }
}
