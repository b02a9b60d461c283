//! `verifySignature`: core's webhook signature check.

use std::time::{SystemTime, UNIX_EPOCH};

use napi::bindgen_prelude::{Either, Object, Uint8ArraySlice};
use napi_derive::napi;
use undertone_core::signature::{DEFAULT_TOLERANCE_SECS, verify_headers};

/// How a delivery's Standard Webhooks timestamp is checked.
#[napi(object)]
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// How far `webhook-timestamp` may be from now, in seconds; default 300.
    #[napi(ts_type = "number | null")]
    pub tolerance_secs: Option<Option<i64>>,
    /// Now, in unix seconds; default: the clock.
    #[napi(ts_type = "number | null")]
    pub now: Option<Option<i64>>,
}

/// Whether a webhook delivery's headers carry a valid signature of `body` under `secret`.
#[napi(
    ts_args_type = "secret: string, body: string | Uint8Array, headers: Record<string, string | string[] | undefined>, options?: VerifyOptions | null"
)]
pub fn verify_signature(
    secret: String,
    body: Either<String, Uint8ArraySlice<'_>>,
    headers: Object<'_>,
    options: Option<VerifyOptions>,
) -> napi::Result<bool> {
    let body: &[u8] = match &body {
        Either::A(text) => text.as_bytes(),
        Either::B(bytes) => bytes,
    };
    // In the object's own order; a repeated header (an array value, as Node gives
    // them) is one pair per value; `undefined` and `null` are no header.
    let mut pairs = Vec::new();
    for name in Object::keys(&headers)? {
        match headers
            .get::<Option<Either<String, Vec<String>>>>(&name)?
            .flatten()
        {
            Some(Either::A(value)) => pairs.push((name, value)),
            Some(Either::B(values)) => pairs.extend(values.into_iter().map(|v| (name.clone(), v))),
            None => {}
        }
    }
    let pairs = pairs
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()));
    let options = options.unwrap_or_default();
    let now = options.now.flatten().unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
    });
    let tolerance = options
        .tolerance_secs
        .flatten()
        .unwrap_or(DEFAULT_TOLERANCE_SECS);
    Ok(verify_headers(&secret, body, pairs, now, tolerance))
}
