//! One input as JavaScript passes it: a file path, bytes, or a value to send as JSON.

use std::borrow::Cow;

use napi::Env;
use napi::bindgen_prelude::{Either3, Uint8ArraySlice, Unknown};
use undertone_core::sdk::{InputFormat, Source};

use crate::error::Failure;
use crate::js;

/// An input read off the JavaScript thread: owned, so an async task can carry it.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file path, read in Rust; its name tells core the layout and drift label.
    Path(String),
    /// File bytes (`Buffer`/`Uint8Array`), or a request or event list as JSON text.
    Bytes(Vec<u8>),
}

/// What JavaScript may pass as an input.
pub type JsInput<'env> = Either3<String, Uint8ArraySlice<'env>, Unknown<'env>>;

impl Input {
    /// Converts a JavaScript input: a string is a path, bytes are copied, any other
    /// value becomes its `JSON.stringify` text (nothing for `undefined`, which core
    /// then reports as an empty body).
    pub fn from_js(env: &Env, value: JsInput<'_>) -> napi::Result<Self> {
        Ok(match value {
            Either3::A(path) => Self::Path(path),
            Either3::B(bytes) => Self::Bytes(bytes.to_vec()),
            Either3::C(value) => Self::Bytes(
                js::stringify(env, value)?
                    .map(String::into_bytes)
                    .unwrap_or_default(),
            ),
        })
    }

    /// The bytes of this input, read from its file if it is a path.
    pub fn load(&self) -> Result<Cow<'_, [u8]>, Failure> {
        match self {
            Self::Path(path) => std::fs::read(path)
                .map(Cow::Owned)
                .map_err(|e| Failure::Io(format!("cannot read {path}: {e}"))),
            Self::Bytes(bytes) => Ok(Cow::Borrowed(bytes)),
        }
    }

    /// `bytes` (from [`Input::load`]) as a core source, named after the file if any.
    pub fn source<'a>(&'a self, bytes: &'a [u8], format: InputFormat) -> Source<'a> {
        let source = Source::new(bytes).with_format(format);
        match self {
            Self::Path(path) => source.named(path),
            Self::Bytes(_) => source,
        }
    }
}

/// An optional option's value: absent, `undefined` and `null` are all "not given".
pub fn given(option: &Option<Option<String>>) -> Option<&str> {
    option.as_ref().and_then(Option::as_deref)
}
