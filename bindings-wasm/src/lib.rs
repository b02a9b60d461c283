//! WebAssembly binding of `undertone-core` for browsers and Node.js (wasm-bindgen).
//!
//! Each function converts its JavaScript arguments to the arguments of
//! [`undertone_core::sdk`] (or [`undertone_core::connectors`],
//! [`undertone_core::signature`]), calls it, and converts the JSON result back to a
//! JavaScript value; a core error becomes a thrown `Error` with `code` and `details`.
//! Nothing here reads, validates or scores: the same inputs give the same results and
//! errors as the CLI, the REST service, Python and Node.

mod convert;

use undertone_core::connectors::File;
use undertone_core::sdk::{self, DriftOptions, ScoreOptions, Source};
use undertone_core::signature::{self, DEFAULT_TOLERANCE_SECS};
use wasm_bindgen::prelude::*;

use convert::{Options, deployment_id, from_json, throw};

// The option and result types the `unchecked_*_type` attributes below name.
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = include_str!("types.d.ts");

/// Scores every human turn of `input`: what `undertone score` prints, as an object.
#[wasm_bindgen(unchecked_return_type = "FullScore | CondensedScore")]
pub fn score(
    #[wasm_bindgen(unchecked_param_type = "Input")] input: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ScoreOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let bytes = convert::input(&input, "input")?;
    let o = Options::new(&options)?;
    let format = o.format()?;
    let id = o.string("deploymentId")?;
    let pipeline = o.string("pipeline")?;
    let view = o.string("view")?;
    let options = ScoreOptions::parse(
        deployment_id(id.as_deref()),
        pipeline.as_deref(),
        view.as_deref(),
    )
    .map_err(throw)?;
    let source = Source::new(&bytes).with_format(format);
    from_json(&sdk::score_json(&source, &options).map_err(throw)?)
}

/// The input as the validated request scoring would see (UTC timestamps, trimmed
/// content, `pipeline` filled in); throws what `score` would throw.
#[wasm_bindgen(unchecked_return_type = "ValidatedRequest")]
pub fn validate(
    #[wasm_bindgen(unchecked_param_type = "Input")] input: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ValidateOptions")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let bytes = convert::input(&input, "input")?;
    let o = Options::new(&options)?;
    let format = o.format()?;
    let id = o.string("deploymentId")?;
    let source = Source::new(&bytes).with_format(format);
    let json = sdk::validate_json(&source, deployment_id(id.as_deref()));
    from_json(&json.map_err(throw)?)
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
    let o = Options::new(&options)?;
    let format = o.format()?;
    let id = o.string("deploymentId")?;
    let question = o.string("question")?;
    let before_label = o.string("beforeLabel")?;
    let after_label = o.string("afterLabel")?;
    let options = DriftOptions {
        deployment_id: deployment_id(id.as_deref()),
        question: question.as_deref(),
        before_label: before_label.as_deref(),
        after_label: after_label.as_deref(),
    };
    let json = sdk::drift_json(
        &Source::new(&before).with_format(format),
        &Source::new(&after).with_format(format),
        &options,
    );
    from_json(&json.map_err(throw)?)
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
    let o = Options::new(&options)?;
    let mapping = o
        .get("mapping")?
        .map(|m| convert::mapping(&m))
        .transpose()?;
    let id = o.string("deploymentId")?;
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, bytes)| File { name, bytes })
        .collect();
    let json = sdk::import_json(
        &format,
        &files,
        mapping.as_deref(),
        deployment_id(id.as_deref()),
    );
    from_json(&json.map_err(throw)?)
}

/// Whether a webhook delivery's headers carry a valid signature of `body` under
/// `secret` (`X-Undertone-Signature` and/or Standard Webhooks; every scheme present
/// must verify).
#[wasm_bindgen(js_name = verifySignature)]
pub fn verify_signature(
    #[wasm_bindgen(unchecked_param_type = "string")] secret: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] body: JsValue,
    #[wasm_bindgen(unchecked_param_type = "WebhookHeaders")] headers: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "VerifyOptions")] options: JsValue,
) -> Result<bool, JsValue> {
    let secret = convert::string(&secret, "secret")?;
    let body = convert::bytes(&body, "body")?;
    let headers = convert::headers(&headers)?;
    let o = Options::new(&options)?;
    let tolerance = o
        .integer("toleranceSecs")?
        .unwrap_or(DEFAULT_TOLERANCE_SECS);
    // Core reads no clock; the caller's clock is JavaScript's.
    let now = match o.integer("now")? {
        Some(now) => now,
        None => convert::seconds(js_sys::Date::now()),
    };
    Ok(signature::verify_headers(
        &secret,
        &body,
        headers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        now,
        tolerance,
    ))
}
