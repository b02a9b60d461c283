//! JSON text to and from JavaScript values, through the engine's own `JSON`.

use napi::Env;
use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};

/// `JSON.stringify(value)`; `None` when JavaScript has no JSON for it (`undefined`,
/// a function, a symbol).
pub fn stringify(env: &Env, value: Unknown<'_>) -> napi::Result<Option<String>> {
    let json: Object<'_> = env.get_global()?.get_named_property("JSON")?;
    let stringify: Function<'_, Unknown<'_>, Option<String>> =
        json.get_named_property("stringify")?;
    stringify.call(value)
}

/// `JSON.parse(text)`: core's result as a plain JavaScript value.
pub fn parse<'env>(env: &'env Env, text: String) -> napi::Result<Unknown<'env>> {
    let json: Object<'_> = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<'_, String, Unknown<'env>> = json.get_named_property("parse")?;
    parse.call(text)
}
