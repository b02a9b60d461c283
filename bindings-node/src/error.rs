//! Errors across the boundary: a JavaScript `Error` with `code`, `message` and
//! `details`, built from core's error (or from failing to read an input file).

use napi::bindgen_prelude::{FromNapiValue, Object};
use napi::{Env, JsError};
use napi_derive::napi;

/// Code of the error thrown when an input file cannot be read.
pub const IO_ERROR: &str = "IO_ERROR";

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
