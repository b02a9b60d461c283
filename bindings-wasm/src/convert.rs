//! JavaScript values to the arguments of `undertone_core::sdk::host`, and its results
//! and errors back. A value of the wrong type is core's `VALIDATION_ERROR` at the
//! argument's name, as in Python and Node.

use js_sys::{Array, ArrayBuffer, JSON, Object, Reflect, Uint8Array};
use serde_json::Value;
use undertone_core::Error;
use undertone_core::sdk::host::{self, wrong_type};
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

/// The thrown error for `got` at `path`, which should be `expected`; the type is
/// named as JavaScript does (`number`, `null`, `array`, `Map`, …).
pub fn wrong(path: &str, expected: &str, got: &JsValue) -> JsValue {
    let name = if got.is_null() {
        "null".to_owned()
    } else if Array::is_array(got) {
        "array".to_owned()
    } else if got.is_object() {
        match tag(got) {
            tag if tag == "Object" => "object".to_owned(),
            tag => tag,
        }
    } else {
        got.js_typeof().as_string().unwrap_or_default()
    };
    throw(wrong_type(path, expected, &name))
}

/// The name of an object's constructor: `Object`, `Map`, `ArrayBuffer`, `Int16Array`,
/// … (`Object` when it has none).
fn tag(v: &JsValue) -> String {
    Reflect::get(v, &"constructor".into())
        .and_then(|c| Reflect::get(&c, &"name".into()))
        .ok()
        .and_then(|n| n.as_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "Object".to_owned())
}

/// Bytes given as binary data: a `Uint8Array` or an `ArrayBuffer` (what `await
/// response.arrayBuffer()` and `await file.arrayBuffer()` give). `Err(None)` for a
/// value that is no binary data; `Err(Some(()))` for binary data or a collection whose
/// JSON would be misread (a `DataView`, an `Int16Array`, a `Map`, a `Set`: `{}` or
/// numbered keys). A `DataView` is refused rather than read, as in Node: its offset
/// and length are getters a subclass can change.
fn binary(v: &JsValue) -> Result<Vec<u8>, Option<()>> {
    if !v.is_object() || Array::is_array(v) {
        return Err(None);
    }
    if let Some(bytes) = v.dyn_ref::<Uint8Array>() {
        return Ok(bytes.to_vec());
    }
    if v.is_instance_of::<ArrayBuffer>() {
        return Ok(Uint8Array::new(v).to_vec());
    }
    let misread = v.is_instance_of::<js_sys::DataView>()
        || v.is_instance_of::<js_sys::Map>()
        || v.is_instance_of::<js_sys::Set>()
        || v.is_instance_of::<js_sys::WeakMap>()
        || v.is_instance_of::<js_sys::WeakSet>()
        || v.is_instance_of::<js_sys::SharedArrayBuffer>()
        || ArrayBuffer::is_view(v);
    Err(misread.then_some(()))
}

/// Core's JSON text as a JavaScript value.
pub fn from_json(result: Result<String, Error>) -> Result<JsValue, JsValue> {
    JSON::parse(&result.map_err(throw)?)
}

/// An options object as JSON for core (`undefined` and `null`: none given). Only its own
/// enumerable properties are read, as `JSON.stringify` reads an object (a `Map` or a
/// `Date` holds none), as in the Node addon; a property that is `undefined` is not
/// given. Anything but an object is a `VALIDATION_ERROR` at `options`; a value with no
/// JSON form, a number JSON cannot write or half a surrogate pair, at its option.
pub fn options(v: &JsValue) -> Result<Value, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(Value::Null);
    }
    if !v.is_object() || Array::is_array(v) {
        return Err(wrong("options", "an object", v));
    }
    bounded(v)?;
    // Half a surrogate pair reaches Rust as U+FFFD: look again (`host::lone_surrogate`).
    let lone = |value: &JsValue| {
        let json = JSON::stringify(value).ok().and_then(|s| s.as_string());
        json.is_some_and(|json| host::escapes_a_surrogate(&json))
    };
    let mut options = serde_json::Map::new();
    for (name, value) in entries(v) {
        if value.is_undefined() {
            continue;
        }
        if value.is_function() || value.is_symbol() || value.is_bigint() {
            return Err(wrong(&name, host::JSON_VALUE, &value));
        }
        if let Some(x) = value.as_f64()
            && !x.is_finite()
        {
            return Err(throw(host::non_finite(&name, x)));
        }
        let converted: Value = serde_wasm_bindgen::from_value(value.clone())
            .map_err(|_| wrong(&name, "JSON", &value))?;
        if host::has_replacement(&converted) && lone(&value) {
            return Err(throw(host::lone_surrogate(&name)));
        }
        options.insert(name, converted);
    }
    // No value holds one: a name does, which cannot be written back as given.
    if options.keys().any(|k| k.contains('\u{FFFD}')) && lone(v) {
        return Err(throw(host::lone_surrogate("options")));
    }
    Ok(Value::Object(options))
}

/// Fails on an option nested too deeply, or holding itself or too many values
/// (`host::too_nested`), before it is converted: the conversion recurses, and a value
/// that deep would overflow the stack, which leaves the module unusable for every call
/// after. Walked with a stack of its own; the error names the option (or `options`
/// for an object given whole).
fn bounded(options: &JsValue) -> Result<(), JsValue> {
    let mut names = Vec::new();
    let mut stack: Vec<(JsValue, usize, usize)> = Vec::new();
    for (name, value) in entries(options) {
        stack.push((value, 1, names.len()));
        names.push(name);
    }
    if names.is_empty() {
        stack.push((options.clone(), 1, 0));
        names.push("options".to_owned());
    }
    let mut values = 0;
    while let Some((value, depth, option)) = stack.pop() {
        values += 1;
        let refuse = |deep| Err(throw(host::too_nested(&names[option], deep)));
        if values > host::OPTION_VALUES_MAX {
            return refuse(false);
        }
        if !value.is_object() {
            continue;
        }
        if depth > host::OPTION_NESTING_MAX {
            return refuse(true);
        }
        let object: &Object = value.unchecked_ref();
        for key in Object::keys(object).iter() {
            stack.push((Reflect::get(&value, &key)?, depth + 1, option));
        }
    }
    Ok(())
}

/// The own properties of a plain object, in order; none for any other value.
fn entries(v: &JsValue) -> Vec<(String, JsValue)> {
    if !v.is_object() || Array::is_array(v) {
        return Vec::new();
    }
    Object::entries(v.unchecked_ref())
        .iter()
        .map(|entry| {
            let entry: Array = entry.unchecked_into();
            (entry.get(0).as_string().unwrap_or_default(), entry.get(1))
        })
        .collect()
}

/// A JavaScript string as Rust text (`None` for another type), or the error at `path`
/// if it holds half a surrogate pair (`host::lone_surrogate`). wasm-bindgen writes such
/// a half as U+FFFD, so only a text with U+FFFD in it is read again to tell the two
/// apart.
fn text(v: &JsValue, path: &str) -> Result<Option<String>, JsValue> {
    let Some(s) = v.as_string() else {
        return Ok(None);
    };
    if s.contains('\u{FFFD}') && !v.unchecked_ref::<js_sys::JsString>().is_valid_utf16() {
        return Err(throw(host::lone_surrogate(path)));
    }
    Ok(Some(s))
}

/// A string (as UTF-8) or binary data ([`binary`]) as bytes.
pub fn bytes(v: &JsValue, path: &str) -> Result<Vec<u8>, JsValue> {
    match text(v, path)? {
        Some(s) => Ok(s.into_bytes()),
        None => binary(v).map_err(|_| wrong(path, "a string, a Uint8Array or an ArrayBuffer", v)),
    }
}

/// An input: text or binary data as they are, any other value as its JSON text.
pub fn input(v: &JsValue, path: &str) -> Result<Vec<u8>, JsValue> {
    const EXPECTED: &str =
        "a request object, an array of events, JSON text, a Uint8Array or an ArrayBuffer";
    if let Some(s) = text(v, path)? {
        return Ok(s.into_bytes());
    }
    match binary(v) {
        Ok(bytes) => return Ok(bytes),
        Err(Some(())) => return Err(wrong(path, EXPECTED, v)),
        Err(None) => {}
    }
    // `undefined`, functions and symbols have no JSON form. What `JSON.stringify` throws
    // (a cycle, a BigInt, the caller's own getter) is thrown as it is, as in Node: it
    // says more than "got object".
    match JSON::stringify(v)?.as_string() {
        Some(json) => Ok(json.into_bytes()),
        None => Err(wrong(path, EXPECTED, v)),
    }
}

/// Connector files as (name, contents): one file (a string or a `Uint8Array`) named
/// `input`, or a plain object of file names to contents, in its own order.
pub fn files(v: &JsValue) -> Result<Vec<(String, Vec<u8>)>, JsValue> {
    const EXPECTED: &str = "a string, a Uint8Array, an ArrayBuffer or an object of file names \
                            to strings, Uint8Arrays or ArrayBuffers";
    if let Some(s) = text(v, "files")? {
        return Ok(vec![("input".to_owned(), s.into_bytes())]);
    }
    match binary(v) {
        Ok(bytes) => return Ok(vec![("input".to_owned(), bytes)]),
        Err(Some(())) => return Err(wrong("files", EXPECTED, v)),
        Err(None) if !v.is_object() || Array::is_array(v) => {
            return Err(wrong("files", EXPECTED, v));
        }
        Err(None) => {}
    }
    // Each name read as text, so that one holding half a surrogate pair is said to.
    Object::entries(v.unchecked_ref())
        .iter()
        .map(|entry| {
            let entry: Array = entry.unchecked_into();
            let name = text(&entry.get(0), "files")?.unwrap_or_default();
            let contents = bytes(&entry.get(1), &format!("files.{name}"))?;
            Ok((name, contents))
        })
        .collect()
}

/// A `mapping` option given as binary data, which JSON cannot hold, and the options for
/// core without it (core reads a mapping given as an object or text itself).
pub fn mapping_and_rest(v: &JsValue) -> Result<(Option<Vec<u8>>, Value), JsValue> {
    let mapping = match v.is_object() {
        true => Reflect::get(v, &"mapping".into())?,
        false => JsValue::UNDEFINED,
    };
    // Binary data is read as its bytes; JSON cannot hold it.
    let bytes = match binary(&mapping) {
        Ok(bytes) => bytes,
        Err(Some(())) => {
            let expected = "an object, JSON text, a Uint8Array or an ArrayBuffer";
            return Err(wrong("mapping", expected, &mapping));
        }
        Err(None) => return Ok((None, options(v)?)),
    };
    let rest = Object::assign(&Object::new(), v.unchecked_ref());
    Reflect::delete_property(&rest, &"mapping".into())?;
    Ok((Some(bytes), options(&rest)?))
}

/// A string argument.
pub fn string(v: &JsValue, path: &str) -> Result<String, JsValue> {
    text(v, path)?.ok_or_else(|| wrong(path, "a string", v))
}

/// Webhook headers as (name, value) pairs: a plain object whose values are strings or
/// arrays of strings (Node's `req.headers`), or an iterable of `[name, value]` pairs
/// (a `Headers` or a `Map`). An array value (a repeated header) is one pair per
/// value, and `undefined` or `null` is no header, as in the Node addon.
pub fn headers(v: &JsValue) -> Result<Vec<(String, String)>, JsValue> {
    const EXPECTED: &str =
        "an object of header names to values, or an iterable of [name, value] pairs";
    if !v.is_object() {
        return Err(wrong("headers", EXPECTED, v));
    }
    let pairs: Vec<JsValue> = match js_sys::try_iter(v)? {
        Some(iter) => iter.collect::<Result<_, _>>()?,
        None => Object::entries(v.unchecked_ref()).iter().collect(),
    };
    let mut out = Vec::with_capacity(pairs.len());
    for pair in pairs {
        let pair: Array = pair
            .dyn_into()
            .map_err(|p| wrong("headers", "[name, value] pairs", &p))?;
        let name = string(&pair.get(0), "headers")?;
        let value = pair.get(1);
        let path = format!("headers.{name}");
        if value.is_undefined() || value.is_null() {
            continue;
        }
        if Array::is_array(&value) {
            let parts: Array = value.unchecked_into();
            for part in parts.iter() {
                out.push((name.clone(), string(&part, &path)?));
            }
        } else {
            out.push((name, string(&value, &path)?));
        }
    }
    Ok(out)
}
