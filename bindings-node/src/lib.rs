//! Node binding of `undertone-core` (npm package `undertone`): JavaScript values in,
//! `undertone_core::sdk::host` called, its JSON results and errors out; nothing else.
//! Options are read by core with serde, so they are checked as in Python and wasm.

mod convert;

use napi::bindgen_prelude::{FromNapiValue, Function, JsObjectValue, Object, Unknown};
use napi::{Env, JsValue, ScopedTask, ValueType};
use napi_derive::napi;
use serde_json::Value;
use undertone_core::connectors::File;
use undertone_core::sdk::host::{self, Naming};

/// Options and error paths are spelt the JavaScript way (`deploymentId`).
const JS: Naming = Naming::Camel;

use convert::{Failure, Input, JsInput, contents, to_js, wrong};

/// A call run on the libuv thread pool, resolving to core's JSON result.
pub struct Job(Box<dyn FnMut() -> Result<String, Failure> + Send>);

impl<'env> ScopedTask<'env> for Job {
    type Output = Result<String, Failure>;
    type JsValue = Unknown<'env>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok((self.0)())
    }

    fn resolve(&mut self, env: &'env Env, output: Self::Output) -> napi::Result<Self::JsValue> {
        to_js(env, output)
    }
}

fn score_job(input: Input, options: Value) -> Job {
    Job(Box::new(move || {
        let bytes = input.load()?;
        Ok(host::score(input.source(&bytes), options.clone(), JS)?)
    }))
}

/// Scores every human turn of `input`: `{pipeline, intelligence}`, or the condensed view.
#[napi(
    ts_args_type = "input: Input, options?: ScoreOptions | null",
    ts_return_type = "ScoreOutput"
)]
pub fn score<'env>(
    env: &'env Env,
    input: JsInput<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<Unknown<'env>> {
    let mut job = score_job(
        Input::from_js(env, input, "input")?,
        convert::options(env, options)?,
    );
    to_js(env, (job.0)())
}

/// `score` off the main thread: a Promise of the same result.
#[napi(
    ts_args_type = "input: Input, options?: ScoreOptions | null",
    ts_return_type = "Promise<ScoreOutput>"
)]
pub fn score_async<'env>(
    env: &'env Env,
    input: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<Unknown<'env>> {
    let job = (|| {
        let input = Input::from_js(env, JsInput::from_unknown(input)?, "input")?;
        Ok(score_job(input, convert::options(env, options)?))
    })();
    promise(env, job)
}

/// `job` run off the main thread, as a Promise of its result; when the arguments could
/// not be read (`job` is the error), a Promise rejected with that error. A function
/// that returns a Promise reports every failure through it, so `.catch` sees them all.
fn promise<'env>(env: &'env Env, job: napi::Result<Job>) -> napi::Result<Unknown<'env>> {
    match job {
        Ok(job) => Ok(env.spawn(job)?.promise_object().to_unknown()),
        Err(e) => {
            let error = napi::JsError::from(e).into_unknown(*env);
            let promise: Function<'_, Unknown<'_>, Unknown<'_>> =
                env.get_global()?.get_named_property("Promise")?;
            let reject: Function<'_, Unknown<'_>, Unknown<'_>> =
                promise.get_named_property("reject")?;
            reject.apply(promise, error)
        }
    }
}

/// The request `input` reads as, validated: what scoring would see.
#[napi(
    ts_args_type = "input: Input, options?: ValidateOptions | null",
    ts_return_type = "IngestRequest"
)]
pub fn validate<'env>(
    env: &'env Env,
    input: JsInput<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<Unknown<'env>> {
    let (input, options) = (
        Input::from_js(env, input, "input")?,
        convert::options(env, options)?,
    );
    let result = input
        .load()
        .map(|b| host::validate(input.source(&b), options, JS));
    to_js(env, result.and_then(|r| Ok(r?)))
}

fn drift_job(before: Input, after: Input, options: Value) -> Job {
    Job(Box::new(move || {
        let (b, a) = (before.load()?, after.load()?);
        let (b, a) = (before.source(&b), after.source(&a));
        Ok(host::drift(b, a, options.clone(), JS)?)
    }))
}

/// Scores both periods and tests every dimension for change.
#[napi(
    ts_args_type = "before: Input, after: Input, options?: DriftOptions | null",
    ts_return_type = "DriftResult"
)]
pub fn drift<'env>(
    env: &'env Env,
    before: JsInput<'_>,
    after: JsInput<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<Unknown<'env>> {
    let (b, a) = (
        Input::from_js(env, before, "before")?,
        Input::from_js(env, after, "after")?,
    );
    let mut job = drift_job(b, a, convert::options(env, options)?);
    to_js(env, (job.0)())
}

/// `drift` off the main thread: a Promise of the same result.
#[napi(
    ts_args_type = "before: Input, after: Input, options?: DriftOptions | null",
    ts_return_type = "Promise<DriftResult>"
)]
pub fn drift_async<'env>(
    env: &'env Env,
    before: Unknown<'_>,
    after: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<Unknown<'env>> {
    let job = (|| {
        let b = Input::from_js(env, JsInput::from_unknown(before)?, "before")?;
        let a = Input::from_js(env, JsInput::from_unknown(after)?, "after")?;
        Ok(drift_job(b, a, convert::options(env, options)?))
    })();
    promise(env, job)
}

/// `files` as (name, contents): a path's files (`undertone_files::read_tree`), bytes
/// or text as one file named `input`, or an object's files in its own order.
fn read_files(env: &Env, files: Unknown<'_>) -> napi::Result<Vec<(String, Vec<u8>)>> {
    const EXPECTED: &str = "a string, a Uint8Array, an ArrayBuffer or an object of file names \
                            to strings, Uint8Arrays or ArrayBuffers";
    match files.get_type()? {
        ValueType::String => {
            let path = convert::text(env, files, "files")?;
            undertone_files::read_tree(path.as_ref()).map_err(|e| Failure::from(e).into_js(env))
        }
        ValueType::Object if !files.is_array()? => match convert::binary(env, files)? {
            Ok(bytes) => Ok(vec![("input".to_owned(), bytes)]),
            Err(Some(_)) => Err(wrong(env, "files", EXPECTED, files)),
            Err(None) => {
                let object = Object::from_unknown(files)?;
                let read = |name: String| -> napi::Result<(String, Vec<u8>)> {
                    let value: Unknown<'_> = object.get_named_property(&name)?;
                    let at = format!("files.{name}");
                    let bytes = contents(env, value, &at)?
                        .ok_or_else(|| wrong(env, &at, convert::CONTENTS, value))?;
                    Ok((name, bytes))
                };
                // The names as JavaScript strings, so that one holding half a surrogate
                // pair is said to (as Rust text it would carry U+FFFD in its place).
                convert::own_keys(env, files)?
                    .into_iter()
                    .map(|key| read(convert::text(env, key, "files")?))
                    .collect()
            }
        },
        _ => Err(wrong(env, "files", EXPECTED, files)),
    }
}

/// Reads the files of a conversation export into an ingest request:
/// `{request, skipped}`, with every item left out and why.
#[napi(
    ts_args_type = "format: ImportFormat, files: ImportFiles, options?: ImportOptions | null",
    ts_return_type = "ImportResult"
)]
pub fn import_conversations<'env>(
    env: &'env Env,
    format: Unknown<'_>,
    files: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<Unknown<'env>> {
    let format = match format.get_type()? {
        ValueType::String => convert::text(env, format, "format")?,
        _ => return Err(wrong(env, "format", "a string", format)),
    };
    let files = read_files(env, files)?;
    let (mapping, rest) = mapping_and_rest(env, options)?;
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, bytes)| File { name, bytes })
        .collect();
    let result = host::import(&format, &files, mapping.as_deref(), rest, JS);
    to_js(env, result.map_err(Failure::from))
}

/// A `mapping` option given as bytes, which JSON cannot hold, and the options for
/// core without it (core reads a mapping given as an object or text itself).
fn mapping_and_rest(
    env: &Env,
    options: Option<Unknown<'_>>,
) -> napi::Result<(Option<Vec<u8>>, Value)> {
    let plain = |o: &Unknown<'_>| {
        o.get_type().is_ok_and(|t| t == ValueType::Object) && o.is_array().is_ok_and(|a| !a)
    };
    let Some(o) = options.filter(plain) else {
        return Ok((None, convert::options(env, options)?));
    };
    let object = Object::from_unknown(o)?;
    let (mut mapping, mut rest) = (None, serde_json::Map::new());
    for key in convert::own_keys(env, o)? {
        let name = String::from_unknown(key)?;
        let value: Unknown<'_> = object.get_named_property(&name)?;
        if value.get_type()? == ValueType::Undefined {
            continue;
        }
        // A mapping given as binary data is read as its bytes; JSON cannot hold it.
        let bytes = match name == "mapping" {
            true => convert::binary(env, value)?,
            false => Err(None),
        };
        match bytes {
            Ok(bytes) => mapping = Some(bytes),
            Err(Some(_)) => {
                let expected = "an object, JSON text, a Uint8Array or an ArrayBuffer";
                return Err(wrong(env, "mapping", expected, value));
            }
            Err(None) => {
                let value = convert::option(env, &name, value)?;
                rest.insert(name, value);
            }
        }
    }
    Ok((mapping, Value::Object(rest)))
}

/// Whether a webhook delivery's headers carry a valid signature of `body` under
/// `secret` (every scheme present must verify). `headers` is an object of names to
/// values, or anything iterable as `[name, value]` pairs: a fetch `Headers`, a `Map`,
/// an array of pairs.
#[napi(
    ts_args_type = "secret: string, body: string | Uint8Array | ArrayBuffer, headers: WebhookHeaders, options?: VerifyOptions | null"
)]
pub fn verify_signature(
    env: &Env,
    secret: Unknown<'_>,
    body: Unknown<'_>,
    headers: Unknown<'_>,
    options: Option<Unknown<'_>>,
) -> napi::Result<bool> {
    if secret.get_type()? != ValueType::String {
        return Err(wrong(env, "secret", "a string", secret));
    }
    let secret = convert::text(env, secret, "secret")?;
    let body =
        contents(env, body, "body")?.ok_or_else(|| wrong(env, "body", convert::CONTENTS, body))?;
    let pairs = header_pairs(env, headers)?;
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let pairs = pairs.iter().map(|(n, v)| (n.as_str(), v.as_str()));
    let options = convert::options(env, options)?;
    host::verify(&secret, &body, pairs, options, JS, clock)
        .map_err(|e| Failure::from(e).into_js(env))
}

/// The (name, value) pairs of `verifySignature`'s headers. An object's own properties
/// in order; an iterable (`Headers`, `Map`, an array) as `Array.from` lists it. An
/// array value (a repeated header, as Node gives them) is one pair per value;
/// `undefined` and `null` are no header.
fn header_pairs(env: &Env, headers: Unknown<'_>) -> napi::Result<Vec<(String, String)>> {
    const EXPECTED: &str =
        "an object of header names to values, or an iterable of [name, value] pairs";
    if headers.get_type()? != ValueType::Object {
        return Err(wrong(env, "headers", EXPECTED, headers));
    }
    let object = Object::from_unknown(headers)?;
    let entries: Unknown<'_> = object.get_named_property("entries")?;
    let iterable = headers.is_array()? || entries.get_type()? == ValueType::Function;
    let mut named = Vec::new();
    if iterable {
        let array: Function<'_, Unknown<'_>, Unknown<'_>> =
            env.get_global()?.get_named_property("Array")?;
        let from: Function<'_, Unknown<'_>, Unknown<'_>> = array.get_named_property("from")?;
        let list = Object::from_unknown(from.call(headers)?)?;
        let length: u32 = list.get_named_property("length")?;
        for i in 0..length {
            let pair: Unknown<'_> = list.get_element(i)?;
            if !pair.is_array()? {
                return Err(wrong(env, "headers", "[name, value] pairs", pair));
            }
            let pair = Object::from_unknown(pair)?;
            let name: Unknown<'_> = pair.get_element(0)?;
            if name.get_type()? != ValueType::String {
                return Err(wrong(
                    env,
                    "headers",
                    "[name, value] pairs with a string name",
                    name,
                ));
            }
            named.push((
                String::from_unknown(name)?,
                pair.get_element::<Unknown<'_>>(1)?,
            ));
        }
    } else {
        for key in convert::own_keys(env, headers)? {
            let name = String::from_unknown(key)?;
            let value: Unknown<'_> = object.get_named_property(&name)?;
            named.push((name, value));
        }
    }
    let mut pairs = Vec::new();
    for (name, value) in named {
        let at = format!("headers.{name}");
        match value.get_type()? {
            ValueType::Undefined | ValueType::Null => {}
            ValueType::String => pairs.push((name, String::from_unknown(value)?)),
            ValueType::Object if value.is_array()? => {
                let values = Object::from_unknown(value)?;
                let length: u32 = values.get_named_property("length")?;
                for i in 0..length {
                    let v: Unknown<'_> = values.get_element(i)?;
                    if v.get_type()? != ValueType::String {
                        return Err(wrong(env, &at, "a string or an array of strings", v));
                    }
                    pairs.push((name.clone(), String::from_unknown(v)?));
                }
            }
            _ => return Err(wrong(env, &at, "a string or an array of strings", value)),
        }
    }
    Ok(pairs)
}
