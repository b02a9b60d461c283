//! JavaScript values to the arguments of `undertone_core::sdk::host`, and its JSON
//! results and errors back. A value of the wrong type is core's `VALIDATION_ERROR` at
//! the argument's name, as in Python and WebAssembly.

use std::borrow::Cow;

use napi::bindgen_prelude::{
    ArrayBuffer, Either, FromNapiValue, Function, JsObjectValue, Object, Uint8ArraySlice, Unknown,
};
use napi::{Env, JsError, JsString, JsValue, ValueType};
use serde_json::Value;
use undertone_core::sdk::Source;
use undertone_core::sdk::host::{self, wrong_type};
use undertone_files::ReadError;

/// Code of the error thrown when an input file or folder cannot be read.
pub const IO_ERROR: &str = "IO_ERROR";

/// Why a call failed, before it becomes a JavaScript `Error` with `code`, `message`
/// and `details` (`[{path, message}]`).
#[derive(Debug)]
pub enum Failure {
    /// Core refused an input, an argument or an option.
    Core(undertone_core::Error),
    /// A file or folder could not be read; the message names it.
    Files(ReadError),
}

impl From<undertone_core::Error> for Failure {
    fn from(e: undertone_core::Error) -> Self {
        Self::Core(e)
    }
}

impl From<ReadError> for Failure {
    fn from(e: ReadError) -> Self {
        Self::Files(e)
    }
}

impl Failure {
    /// The JavaScript error to throw (or reject with).
    pub fn into_js(self, env: &Env) -> napi::Error {
        let (code, message, details) = match self {
            Self::Core(e) => (e.code().as_str(), e.to_string(), e.violations().to_vec()),
            Self::Files(e) => (IO_ERROR, e.to_string(), Vec::new()),
        };
        // The error keeps a reference to this very object, so `details` is thrown too.
        let value = JsError::from(napi::Error::new(code, message)).into_unknown(*env);
        let attached = Object::from_unknown(value)
            .and_then(|mut o| o.set("details", env.to_js_value(&details)?));
        attached.map_or_else(|e| e, |()| napi::Error::from(value))
    }
}

/// The `VALIDATION_ERROR` for `value` at `path`, which should be `expected`; the
/// type is named as JavaScript does (`number`, `null`, `array`, `Map`, …).
pub fn wrong(env: &Env, path: &str, expected: &str, value: Unknown<'_>) -> napi::Error {
    let got = match value.get_type() {
        Ok(ValueType::Object) if value.is_array().unwrap_or(false) => "array".to_owned(),
        Ok(ValueType::Object) => match tag(env, value) {
            Ok(tag) if tag == "Object" => "object".to_owned(),
            Ok(tag) => tag,
            Err(e) => return e,
        },
        // The one JavaScript type this napi version does not name.
        Ok(ValueType::Unknown) => "bigint".to_owned(),
        Ok(other) => other.to_string().to_lowercase(),
        Err(e) => return e,
    };
    Failure::from(wrong_type(path, expected, &got)).into_js(env)
}

/// What `Object.prototype.toString` calls an object: `Object`, `Map`, `ArrayBuffer`,
/// `Int16Array`, …
fn tag(env: &Env, value: Unknown<'_>) -> napi::Result<String> {
    let object: Function<'_, (), ()> = env.get_global()?.get_named_property("Object")?;
    let prototype: Object<'_> = object.get_named_property("prototype")?;
    let to_string: Function<'_, (), String> = prototype.get_named_property("toString")?;
    let text = to_string.apply(value, ())?;
    let name = text
        .strip_prefix("[object ")
        .and_then(|t| t.strip_suffix(']'));
    Ok(name.unwrap_or(&text).to_owned())
}

/// Bytes given as binary data: a `Uint8Array` (a `Buffer`) or an `ArrayBuffer` (what
/// `await response.arrayBuffer()` gives), each recognised by the engine's own type
/// check. `Err(None)` for a value that is no binary data; `Err(Some(name))` for binary
/// data or a collection whose JSON would be misread (a `DataView`, an `Int16Array`, a
/// `Map`, a `Set`: `{}` or numbered keys). A `DataView` is refused rather than read:
/// its offset and length are getters a subclass can change, so a view of the bytes
/// is asked for as a `Uint8Array`.
pub fn binary(env: &Env, value: Unknown<'_>) -> napi::Result<Result<Vec<u8>, Option<String>>> {
    if value.get_type()? != ValueType::Object || value.is_array()? {
        return Ok(Err(None));
    }
    if let Ok(bytes) = Uint8ArraySlice::from_unknown(value) {
        return Ok(Ok(bytes.to_vec()));
    }
    if value.is_arraybuffer()? {
        return Ok(Ok(ArrayBuffer::from_unknown(value)?.to_vec()));
    }
    if value.is_dataview()? || value.is_typedarray()? {
        return Ok(Err(Some(tag(env, value)?)));
    }
    let tag = tag(env, value)?;
    Ok(match tag.as_str() {
        "Map" | "Set" | "WeakMap" | "WeakSet" | "SharedArrayBuffer" => Err(Some(tag)),
        _ => Err(None),
    })
}

/// The engine's own `JSON.<name>`.
fn json<'e, A: napi::bindgen_prelude::JsValuesTupleIntoVec, R: FromNapiValue>(
    env: &'e Env,
    name: &str,
) -> napi::Result<Function<'e, A, R>> {
    let json: Object<'_> = env.get_global()?.get_named_property("JSON")?;
    json.get_named_property(name)
}

/// `JSON.stringify(value)`; `None` when it has no JSON (`undefined`, a function).
pub fn stringify(env: &Env, value: Unknown<'_>) -> napi::Result<Option<String>> {
    json(env, "stringify")?.call(value)
}

/// Core's JSON result as a JavaScript value (through `JSON.parse`, keeping key order),
/// or the failure as a JavaScript error.
pub fn to_js(env: &Env, result: Result<String, Failure>) -> napi::Result<Unknown<'_>> {
    json(env, "parse")?.call(result.map_err(|f| f.into_js(env))?)
}

/// An options object as JSON for core (`undefined`, `null`: none given). Only its own
/// enumerable properties are read, as `JSON.stringify` reads an object (a `Map` or a
/// `Date` holds none), each by [`option`]; a property that is `undefined` is not given,
/// and a name holding half a surrogate pair is refused at `options`.
/// Anything but an object is a `VALIDATION_ERROR` at `options`, as in the wasm package.
pub fn options(env: &Env, value: Option<Unknown<'_>>) -> napi::Result<Value> {
    let Some(v) =
        value.filter(|v| !matches!(v.get_type(), Ok(ValueType::Undefined) | Ok(ValueType::Null)))
    else {
        return Ok(Value::Null);
    };
    if v.get_type()? != ValueType::Object || v.is_array()? {
        return Err(wrong(env, "options", "an object", v));
    }
    let mut options = serde_json::Map::new();
    for (name, value) in entries(env, v)? {
        if value.get_type()? != ValueType::Undefined {
            let value = option(env, &name, value)?;
            options.insert(name, value);
        }
    }
    Ok(Value::Object(options))
}

/// One option's value as JSON for core, checked as [`options`] checks each: a number
/// JSON cannot write, nesting too deep, half a surrogate pair, each a
/// `VALIDATION_ERROR` at `name`.
pub fn option(env: &Env, name: &str, v: Unknown<'_>) -> napi::Result<Value> {
    match v.get_type()? {
        ValueType::Undefined => return Ok(Value::Null),
        // (A BigInt is `Unknown` to this napi version.)
        ValueType::Function | ValueType::Symbol | ValueType::Unknown | ValueType::External => {
            return Err(wrong(env, name, host::JSON_VALUE, v));
        }
        _ => {}
    }
    if v.get_type()? == ValueType::Number {
        let x = f64::from_unknown(v)?;
        if !x.is_finite() {
            return Err(Failure::from(host::non_finite(name, x)).into_js(env));
        }
    }
    bounded(env, vec![(name.to_owned(), v)])?;
    let value = env
        .from_js_value(v)
        .map_err(|_| wrong(env, name, "JSON: strings, numbers, objects and arrays", v))?;
    if host::has_replacement(&value)
        && stringify(env, v)?.is_some_and(|json| host::escapes_a_surrogate(&json))
    {
        return Err(Failure::from(host::lone_surrogate(name)).into_js(env));
    }
    Ok(value)
}

/// Fails on a value nested too deeply, or holding itself or too many values
/// (`host::too_nested`), before it is converted: the conversion recurses, and a value
/// that deep would overflow the stack and end the process. `roots` are the options by
/// name (or `options` for an object given whole); walked with a stack of its own.
fn bounded(env: &Env, roots: Vec<(String, Unknown<'_>)>) -> napi::Result<()> {
    // (value, depth, which root it is in, by its index in `names`)
    let (mut names, mut stack) = (Vec::new(), Vec::new());
    for (name, value) in roots {
        stack.push((value, 1, names.len()));
        names.push(name);
    }
    let mut values = 0;
    while let Some((value, depth, option)) = stack.pop() {
        values += 1;
        let refuse = |deep| Err(Failure::from(host::too_nested(&names[option], deep)).into_js(env));
        if values > host::OPTION_VALUES_MAX {
            return refuse(false);
        }
        if value.get_type()? != ValueType::Object {
            continue;
        }
        if depth > host::OPTION_NESTING_MAX {
            return refuse(true);
        }
        let object = Object::from_unknown(value)?;
        for key in Object::keys(&object)? {
            stack.push((object.get_named_property(&key)?, depth + 1, option));
        }
    }
    Ok(())
}

/// The own properties of a plain object, in order; none for any other value.
fn entries<'e>(env: &'e Env, value: Unknown<'e>) -> napi::Result<Vec<(String, Unknown<'e>)>> {
    if value.get_type()? != ValueType::Object || value.is_array()? {
        return Ok(Vec::new());
    }
    let object = Object::from_unknown(value)?;
    own_keys(env, value)?
        .into_iter()
        .map(|key| {
            // A name holding half a surrogate pair cannot be written back as given.
            let name = text(env, key, "options")?;
            Ok((name.clone(), object.get_named_property(&name)?))
        })
        .collect()
}

/// The own enumerable string keys of an object, as JavaScript's `Object.keys` lists
/// them (napi's own listing also walks the prototype chain), as JavaScript strings.
pub fn own_keys<'e>(env: &'e Env, object: Unknown<'e>) -> napi::Result<Vec<Unknown<'e>>> {
    let constructor: Function<'_, (), ()> = env.get_global()?.get_named_property("Object")?;
    let keys: Function<'_, Unknown<'_>, Unknown<'_>> = constructor.get_named_property("keys")?;
    let keys = Object::from_unknown(keys.call(object)?)?;
    let length: u32 = keys.get_named_property("length")?;
    (0..length).map(|i| keys.get_element(i)).collect()
}

/// A JavaScript string as Rust text, or a `VALIDATION_ERROR` at `path` if it holds
/// half a surrogate pair (`host::lone_surrogate`). napi writes such a half as U+FFFD,
/// so only a text with U+FFFD in it is read again, as UTF-16, to tell the two apart.
pub fn text(env: &Env, value: Unknown<'_>, path: &str) -> napi::Result<String> {
    let s = String::from_unknown(value)?;
    if s.contains('\u{FFFD}') {
        let utf16 = JsString::from_unknown(value)?.into_utf16()?;
        if char::decode_utf16(utf16.as_slice().iter().copied()).any(|c| c.is_err()) {
            return Err(Failure::from(host::lone_surrogate(path)).into_js(env));
        }
    }
    Ok(s)
}

/// What a file's contents must be, as a `VALIDATION_ERROR` says.
pub const CONTENTS: &str = "a string, a Uint8Array or an ArrayBuffer";

/// A file's contents: a string as UTF-8 (checked by [`text`] at `path`) or binary
/// data ([`binary`]); `None` for another type.
pub fn contents(env: &Env, value: Unknown<'_>, path: &str) -> napi::Result<Option<Vec<u8>>> {
    if value.get_type()? == ValueType::String {
        return Ok(Some(text(env, value, path)?.into_bytes()));
    }
    Ok(binary(env, value)?.ok())
}

/// What an input must be, as its `VALIDATION_ERROR` says.
const INPUT: &str =
    "a request object, an array of events, a file path, a Uint8Array or an ArrayBuffer";

/// What JavaScript may pass as an input: bytes, or any other value (a string is a path).
pub type JsInput<'env> = Either<Uint8ArraySlice<'env>, Unknown<'env>>;

/// An input read off the JavaScript thread: owned, so an async task can carry it.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file path, read in Rust; its name tells core the layout and drift label.
    Path(String),
    /// File bytes, or a request or event list as JSON text.
    Bytes(Vec<u8>),
}

impl Input {
    /// A string is a path, binary data ([`binary`]) is copied, any other value becomes
    /// its `JSON.stringify` text. A value without JSON (`undefined`, a function) or
    /// whose JSON would be misread (a `Map`) is a `VALIDATION_ERROR` at `path`, the
    /// argument's name, as in the wasm package.
    pub fn from_js(env: &Env, value: JsInput<'_>, path: &str) -> napi::Result<Self> {
        Ok(match value {
            Either::A(bytes) => Self::Bytes(bytes.to_vec()),
            Either::B(v) if v.get_type()? == ValueType::String => Self::Path(text(env, v, path)?),
            Either::B(v) => match binary(env, v)? {
                Ok(bytes) => Self::Bytes(bytes),
                Err(Some(_)) => return Err(wrong(env, path, INPUT, v)),
                Err(None) => Self::json(env, v, path)?,
            },
        })
    }

    /// Any other value as its `JSON.stringify` text.
    fn json(env: &Env, v: Unknown<'_>, path: &str) -> napi::Result<Self> {
        match stringify(env, v)? {
            Some(json) => Ok(Self::Bytes(json.into_bytes())),
            None => Err(wrong(env, path, INPUT, v)),
        }
    }

    /// The bytes, read from the file if this is a path.
    pub fn load(&self) -> Result<Cow<'_, [u8]>, Failure> {
        match self {
            Self::Path(path) => Ok(Cow::Owned(undertone_files::read_file(path.as_ref())?)),
            Self::Bytes(bytes) => Ok(Cow::Borrowed(bytes)),
        }
    }

    /// `bytes` (from [`Input::load`]) as a core source, named after the file if any.
    pub fn source<'a>(&'a self, bytes: &'a [u8]) -> Source<'a> {
        match self {
            Self::Path(path) => Source::new(bytes).named(path),
            Self::Bytes(_) => Source::new(bytes),
        }
    }
}
