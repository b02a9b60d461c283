//! JavaScript values to core arguments, and core results and errors back.
//!
//! A JavaScript value of the wrong type becomes the same `VALIDATION_ERROR` a wrong
//! type in the input gets, at the argument's or option's name.

use js_sys::{Array, JSON, Object, Reflect, Uint8Array};
use undertone_core::sdk::{DeploymentId, InputFormat};
use undertone_core::{Error, Violation};
use wasm_bindgen::{JsCast, JsValue};

/// The thrown form of a core error: an `Error` with core's message, `code` and
/// `details` (`[{path, message}]`).
pub fn throw(e: Error) -> JsValue {
    let js = js_sys::Error::new(&e.to_string());
    let details: Array = e
        .violations()
        .iter()
        .map(|v| {
            let d = Object::new();
            set(&d, "path", &v.path.as_str().into());
            set(&d, "message", &v.message.as_str().into());
            JsValue::from(d)
        })
        .collect();
    set(&js, "code", &e.code().as_str().into());
    set(&js, "details", &details);
    js.into()
}

fn set(target: &JsValue, key: &str, value: &JsValue) {
    // Defining a property on a fresh, unfrozen object cannot fail.
    let _ = Reflect::set(target, &key.into(), value);
}

/// A JavaScript argument of the wrong type, reported like a wrong type in the input.
fn wrong_type(path: &str, expected: &str, got: &JsValue) -> JsValue {
    throw(Error::Validation(vec![Violation::new(
        path,
        format!("must be {expected}, got {}", type_name(got)),
    )]))
}

fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".to_owned()
    } else if Array::is_array(v) {
        "array".to_owned()
    } else if v.is_instance_of::<Uint8Array>() {
        "Uint8Array".to_owned()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    }
}

/// Core's JSON text as a JavaScript value.
pub fn from_json(json: &str) -> Result<JsValue, JsValue> {
    JSON::parse(json)
}

/// A `string` or `Uint8Array` as bytes (a string as UTF-8).
pub fn bytes(v: &JsValue, path: &str) -> Result<Vec<u8>, JsValue> {
    if let Some(s) = v.as_string() {
        Ok(s.into_bytes())
    } else if let Some(a) = v.dyn_ref::<Uint8Array>() {
        Ok(a.to_vec())
    } else {
        Err(wrong_type(path, "a string or a Uint8Array", v))
    }
}

/// An input: text or bytes as they are, any other value as its JSON text.
pub fn input(v: &JsValue, path: &str) -> Result<Vec<u8>, JsValue> {
    if v.is_string() || v.is_instance_of::<Uint8Array>() {
        return bytes(v, path);
    }
    // `undefined`, functions and symbols have no JSON form; cycles and BigInts throw.
    match JSON::stringify(v).ok().and_then(|s| s.as_string()) {
        Some(json) => Ok(json.into_bytes()),
        None => Err(wrong_type(
            path,
            "a request object, an array of events, JSON text or a Uint8Array",
            v,
        )),
    }
}

/// Connector files as (name, contents): one file (a string or a `Uint8Array`) named
/// `input`, or a plain object of file names to contents, in its own order.
pub fn files(v: &JsValue) -> Result<Vec<(String, Vec<u8>)>, JsValue> {
    if v.is_string() || v.is_instance_of::<Uint8Array>() {
        return Ok(vec![("input".to_owned(), bytes(v, "files")?)]);
    }
    if !v.is_object() || Array::is_array(v) {
        return Err(wrong_type(
            "files",
            "a string, a Uint8Array or an object of file names to strings or Uint8Arrays",
            v,
        ));
    }
    Object::entries(v.unchecked_ref())
        .iter()
        .map(|entry| {
            let entry: Array = entry.unchecked_into();
            let name = entry.get(0).as_string().unwrap_or_default();
            let contents = bytes(&entry.get(1), &format!("files.{name}"))?;
            Ok((name, contents))
        })
        .collect()
}

/// A mapping document's bytes: text or bytes as they are, an object as its JSON.
pub fn mapping(v: &JsValue) -> Result<Vec<u8>, JsValue> {
    if v.is_string() || v.is_instance_of::<Uint8Array>() {
        return bytes(v, "mapping");
    }
    let json = v
        .is_object()
        .then(|| JSON::stringify(v).ok().and_then(|s| s.as_string()))
        .flatten();
    json.map(String::into_bytes)
        .ok_or_else(|| wrong_type("mapping", "an object, JSON text or a Uint8Array", v))
}

/// A string argument.
pub fn string(v: &JsValue, path: &str) -> Result<String, JsValue> {
    v.as_string().ok_or_else(|| wrong_type(path, "a string", v))
}

/// Unix seconds from a JavaScript time in milliseconds.
pub fn seconds(millis: f64) -> i64 {
    // A float-to-int `as` saturates; clock values are far inside i64.
    (millis / 1000.0).floor() as i64
}

/// Webhook headers as (name, value) pairs: a plain object whose values are strings or
/// arrays of strings (Node's `req.headers`), or an iterable of `[name, value]` pairs
/// (a `Headers` or a `Map`). Repeated values are joined with `, ` as HTTP combines
/// them.
pub fn headers(v: &JsValue) -> Result<Vec<(String, String)>, JsValue> {
    const EXPECTED: &str =
        "an object of header names to values, or an iterable of [name, value] pairs";
    if !v.is_object() {
        return Err(wrong_type("headers", EXPECTED, v));
    }
    let pairs: Vec<JsValue> = match js_sys::try_iter(v)? {
        Some(iter) => iter.collect::<Result<_, _>>()?,
        None => Object::entries(v.unchecked_ref()).iter().collect(),
    };
    let mut out = Vec::with_capacity(pairs.len());
    for pair in pairs {
        let pair: Array = pair
            .dyn_into()
            .map_err(|p| wrong_type("headers", "[name, value] pairs", &p))?;
        let name = string(&pair.get(0), "headers")?;
        let value = pair.get(1);
        let path = format!("headers.{name}");
        let value = if value.is_undefined() {
            continue;
        } else if Array::is_array(&value) {
            let parts: Array = value.unchecked_into();
            let parts: Result<Vec<String>, JsValue> =
                parts.iter().map(|p| string(&p, &path)).collect();
            parts?.join(", ")
        } else {
            string(&value, &path)?
        };
        out.push((name, value));
    }
    Ok(out)
}

/// An options object (`undefined` or `null` for none).
pub struct Options(Option<JsValue>);

impl Options {
    /// Reads `options`, which must be an object when given.
    pub fn new(options: &JsValue) -> Result<Self, JsValue> {
        if options.is_undefined() || options.is_null() {
            Ok(Self(None))
        } else if options.is_object() && !Array::is_array(options) {
            Ok(Self(Some(options.clone())))
        } else {
            Err(wrong_type("options", "an object", options))
        }
    }

    /// Option `key`; `undefined` and `null` are absent.
    pub fn get(&self, key: &str) -> Result<Option<JsValue>, JsValue> {
        let Some(o) = &self.0 else {
            return Ok(None);
        };
        let v = Reflect::get(o, &key.into())?;
        Ok((!v.is_undefined() && !v.is_null()).then_some(v))
    }

    /// A string option.
    pub fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        self.get(key)?.map(|v| string(&v, key)).transpose()
    }

    /// A whole-number option (seconds).
    pub fn integer(&self, key: &str) -> Result<Option<i64>, JsValue> {
        self.get(key)?
            .map(|v| match v.as_f64() {
                // Exact for every integer a JavaScript number holds exactly.
                Some(n) if n.is_finite() && n.fract() == 0.0 => Ok(n as i64),
                _ => Err(wrong_type(key, "a whole number", &v)),
            })
            .transpose()
    }

    /// The `format` option (default `auto`).
    pub fn format(&self) -> Result<InputFormat, JsValue> {
        InputFormat::option(self.string("format")?.as_deref()).map_err(throw)
    }
}

/// `value` as the `deploymentId` option, so errors name it as JavaScript does.
pub fn deployment_id(value: Option<&str>) -> DeploymentId<'_> {
    DeploymentId {
        value,
        name: "deploymentId",
    }
}
