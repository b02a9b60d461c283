//! WebAssembly binding of `undertone-core` for browsers and Node.js (wasm-bindgen):
//! JavaScript values in, `undertone_core::sdk::host` called, its JSON results and
//! errors out (an `Error` with `code` and `details`). Options are read by core with
//! serde, so they are checked exactly as in Python and Node.

mod convert;

use undertone_core::connectors::File;
use undertone_core::sdk::Source;
use undertone_core::sdk::host::{self, Naming};
use wasm_bindgen::prelude::*;

use convert::{from_json, throw};

// The option types (generated from core's option tables by `scripts/regenerate`) and
// the other types the `unchecked_*_type` attributes below name.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = concat!(include_str!("options.d.ts"), include_str!("types.d.ts"));

/// Scores every human turn of `input`: what `undertone score` prints, as an object.
#[wasm_bindgen(unchecked_return_type = "FullScore | CondensedScore | TurnRow[]")]
pub fn score(
    #[wasm_bindgen(unchecked_param_type = "Input")] input: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ScoreOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let bytes = convert::input(&input, "input")?;
    let options = convert::options(&options)?;
    from_json(host::score(Source::new(&bytes), options, Naming::Camel))
}

/// The input as the validated request scoring would see (UTC timestamps, trimmed
/// content, `pipeline` filled in); throws what `score` would throw.
#[wasm_bindgen(unchecked_return_type = "ValidatedRequest")]
pub fn validate(
    #[wasm_bindgen(unchecked_param_type = "Input")] input: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ValidateOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let bytes = convert::input(&input, "input")?;
    let options = convert::options(&options)?;
    from_json(host::validate(Source::new(&bytes), options, Naming::Camel))
}

/// Scores both periods and tests every dimension for change: what `undertone drift`
/// prints, as an object.
#[wasm_bindgen(unchecked_return_type = "DriftResult")]
pub fn drift(
    #[wasm_bindgen(unchecked_param_type = "Input")] before: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Input")] after: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "DriftOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let before = convert::input(&before, "before")?;
    let after = convert::input(&after, "after")?;
    let options = convert::options(&options)?;
    let (before, after) = (Source::new(&before), Source::new(&after));
    from_json(host::drift(before, after, options, Naming::Camel))
}

/// Reads the files of a conversation export (a ChatGPT or Claude export, …) into an
/// ingest request: `{request, skipped}`, with every item left out and why.
#[wasm_bindgen(js_name = importConversations, unchecked_return_type = "ImportResult")]
pub fn import_conversations(
    #[wasm_bindgen(unchecked_param_type = "ImportFormat")] format: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ImportFiles")] files: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ImportOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let format = convert::string(&format, "format")?;
    let files = convert::files(&files)?;
    let (mapping, options) = convert::mapping_and_rest(&options)?;
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, bytes)| File { name, bytes })
        .collect();
    let result = host::import(&format, &files, mapping.as_deref(), options, Naming::Camel);
    from_json(result)
}

/// Whether a webhook delivery's headers carry a valid signature of `body` under
/// `secret` (`X-Undertone-Signature` and/or Standard Webhooks; every scheme present
/// must verify).
#[wasm_bindgen(js_name = verifySignature)]
pub fn verify_signature(
    #[wasm_bindgen(unchecked_param_type = "string")] secret: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array | ArrayBuffer")] body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "WebhookHeaders")] headers: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "VerifyOptions")] options: JsValue,
) -> Result<bool, JsValue> {
    let secret = convert::string(&secret, "secret")?;
    let body = convert::bytes(&body, "body")?;
    let headers = convert::headers(&headers)?;
    let options = convert::options(&options)?;
    // Core reads no clock; the caller's clock is JavaScript's (a float-to-int `as`
    // saturates, and clock values are far inside i64).
    let clock = (js_sys::Date::now() / 1000.0).floor() as i64;
    let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    host::verify(&secret, &body, pairs, options, Naming::Camel, clock).map_err(throw)
}
