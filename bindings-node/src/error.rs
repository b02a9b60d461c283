//! Errors across the boundary: a JavaScript `Error` with `code`, `message` and
//! `details`, built from core's error (or from failing to read an input file), and
//! the `TypeError` for an argument of the wrong JavaScript type.

use napi::bindgen_prelude::{FromNapiValue, Object, Unknown};
use napi::{Env, JsError, JsTypeError, JsValue, ValueType};
use napi_derive::napi;

/// Code of the error thrown when an input file cannot be read.
pub const IO_ERROR: &str = "IO_ERROR";

/// Code of the `TypeError` thrown for an argument of the wrong JavaScript type: the
/// code napi gives its own conversion errors of that kind.
pub const INVALID_ARG: &str = "InvalidArg";

/// One broken rule of an input: where, and what is wrong there.
#[napi(object)]
pub struct Detail {
    /// Field path into the input, e.g. `events[3].timestamp`.
    pub path: String,
    /// What is wrong, e.g. `is required`.
    pub message: String,
}

/// Why a call failed, before it becomes a JavaScript error.
#[derive(Debug)]
pub enum Failure {
    /// Core refused the input or an option.
    Core(undertone_core::Error),
    /// An input file could not be read; the message names the file.
    Io(String),
}

impl From<undertone_core::Error> for Failure {
    fn from(e: undertone_core::Error) -> Self {
        Self::Core(e)
    }
}

impl Failure {
    /// The JavaScript error to throw (or reject with) for this failure.
    pub fn into_js(self, env: &Env) -> napi::Error {
        self.build(env).unwrap_or_else(|e| e)
    }

    fn build(self, env: &Env) -> napi::Result<napi::Error> {
        let (code, message, details) = match self {
            Self::Core(e) => (
                e.code().as_str(),
                e.to_string(),
                e.violations()
                    .iter()
                    .map(|v| Detail {
                        path: v.path.clone(),
                        message: v.message.clone(),
                    })
                    .collect(),
            ),
            Self::Io(message) => (IO_ERROR, message, Vec::new()),
        };
        // `napi_create_error` sets `code` and `message`; `details` is added on the object,
        // and the error keeps a reference to that very object so it is what gets thrown.
        let value = JsError::from(napi::Error::new(code, message)).into_unknown(*env);
        let mut object = Object::from_unknown(value)?;
        object.set("details", details)?;
        Ok(napi::Error::from(value))
    }
}

/// The `TypeError` for an argument of the wrong JavaScript type, e.g. `files must be a
/// string or a Uint8Array, got number`.
pub fn type_error(env: &Env, what: &str, expected: &str, got: Unknown<'_>) -> napi::Error {
    let message = match type_name(got) {
        Ok(got) => format!("{what} must be {expected}, got {got}"),
        Err(e) => return e,
    };
    let value = JsTypeError::from(napi::Error::new(INVALID_ARG, message)).into_unknown(*env);
    napi::Error::from(value)
}

/// What `value` is, in JavaScript's words (`number`, `null`, `array`, …).
fn type_name(value: Unknown<'_>) -> napi::Result<String> {
    Ok(match value.get_type()? {
        ValueType::Object if value.is_array()? => "array".to_owned(),
        ValueType::Object if value.is_typedarray()? => {
            "a typed array other than Uint8Array".to_owned()
        }
        other => other.to_string().to_lowercase(),
    })
}
