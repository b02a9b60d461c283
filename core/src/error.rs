//! The one error type of `undertone-core`, with stable machine-readable codes.

use std::fmt;

use serde::Serialize;

/// A stable, machine-readable error code. The string form never changes once published.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The input broke one or more rules of the input contract.
    ValidationError,
}

impl ErrorCode {
    /// The code as it appears in error envelopes, e.g. `VALIDATION_ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ValidationError => "VALIDATION_ERROR",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One broken rule: where in the input, and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Field path into the input, e.g. `events[3].timestamp`; `body` for the input as a whole.
    pub path: String,
    /// What is wrong, written for a person, e.g. `is required`.
    pub message: String,
}

impl Violation {
    /// A violation at `path` with `message`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every error `undertone-core` returns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input broke the contract; every violation found is listed: unknown fields of
    /// an object first, then its fields in contract order, events by index.
    #[error("{}", summarize(.0))]
    Validation(Vec<Violation>),
}

impl Error {
    /// The stable code of this error.
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Validation(_) => ErrorCode::ValidationError,
        }
    }

    /// The individual violations behind a validation error (empty for other errors).
    pub fn violations(&self) -> &[Violation] {
        match self {
            Error::Validation(v) => v,
        }
    }

    /// The error as the envelope every surface returns:
    /// `{"error":{"code","message","details":[{"path","message"}]}}`.
    pub fn to_envelope(&self) -> serde_json::Value {
        serde_json::json!({
            "error": {
                "code": self.code(),
                "message": self.to_string(),
                "details": self.violations(),
            }
        })
    }
}

/// The last violation of a list cut at `listed` violations: how many more there were.
pub(crate) fn unlisted(count: usize, listed: usize) -> Violation {
    Violation::new("body", format!("{count} {UNLISTED} (at most {listed} are)"))
}

/// What [`unlisted`] says after its count.
const UNLISTED: &str = "more problems not listed";

/// How many problems `violations` stand for: each one listed, plus those an
/// [`unlisted`] violation at the end counts (itself no problem of the input).
fn problem_count(violations: &[Violation]) -> usize {
    let more = violations.last().and_then(|v| {
        let (count, rest) = v.message.split_once(' ')?;
        let count: usize = count.parse().ok()?;
        (v.path == "body" && rest.starts_with(UNLISTED)).then_some(count)
    });
    match more {
        Some(more) => violations.len() - 1 + more,
        None => violations.len(),
    }
}

fn summarize(violations: &[Violation]) -> String {
    match violations {
        [] => "the input is invalid".to_owned(),
        [one] => one.to_string(),
        [first, ..] => {
            let total = problem_count(violations);
            format!(
                "{total} problems in the input; first: {first} (and {} more)",
                total - 1
            )
        }
    }
}

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
