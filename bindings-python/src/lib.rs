//! `undertone._native`: the Python binding of `undertone-core`.
//!
//! It converts Python values to the arguments of `undertone_core::sdk::host`, calls
//! it with the GIL released, and returns its JSON text (which `undertone/__init__.py`
//! loads). Options arrive as JSON text that core reads with serde, so they are checked
//! exactly as in Node and wasm; files and folders are read by `undertone-files`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMapping, PyString};
use serde_json::Value;
use undertone_core::connectors::File;
use undertone_core::sdk::Source;
use undertone_core::sdk::host::{self, Naming, wrong_type};
use undertone_core::{Error, ErrorCode, signature};
use undertone_files::ReadError;

create_exception!(
    undertone,
    UndertoneError,
    PyException,
    "Every error Undertone raises; `.code` is the stable code, `.details` the violations."
);
create_exception!(
    undertone,
    ValidationError,
    UndertoneError,
    "An input, argument or option broke a rule (code `VALIDATION_ERROR`)."
);

/// `ValidationError` (or `UndertoneError`) with `code` and `details`.
fn core_error(py: Python<'_>, error: &Error) -> PyErr {
    let err = match error.code() {
        ErrorCode::ValidationError => ValidationError::new_err(error.to_string()),
        // Core's codes are non-exhaustive: a new one still raises the base class.
        _ => UndertoneError::new_err(error.to_string()),
    };
    let attach = || -> PyResult<()> {
        let details = PyList::empty(py);
        for v in error.violations() {
            let d = PyDict::new(py);
            d.set_item("path", &v.path)?;
            d.set_item("message", &v.message)?;
            details.append(d)?;
        }
        err.value(py).setattr("code", error.code().as_str())?;
        err.value(py).setattr("details", details)
    };
    attach().map_or_else(|e| e, |()| err)
}

/// An `OSError` whose errno picks the subclass (`FileNotFoundError`, …).
fn read_error(e: ReadError) -> PyErr {
    PyOSError::new_err((e.errno(), e.to_string(), e.shown_path().into_owned()))
}

/// The `VALIDATION_ERROR` for `value` at `path`, which should be `expected`.
fn wrong(py: Python<'_>, path: &str, expected: &str, value: &Bound<'_, PyAny>) -> PyErr {
    let got = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default();
    core_error(py, &wrong_type(path, expected, &got))
}

/// The options' JSON text (written by `json.dumps`) as a value for core. A string
/// holding a lone surrogate, which `json.dumps` writes as an escape, is no text
/// (`host::lone_surrogate`); the package checks each option's own string first, so
/// only one deeper inside (a `mapping`'s) is named `options`.
fn options(py: Python<'_>, text: &str) -> PyResult<Value> {
    serde_json::from_str(text).map_err(|e| {
        let error = match host::escapes_a_surrogate(text) {
            true => host::lone_surrogate("options"),
            false => wrong_type("options", "JSON", &e.to_string()),
        };
        core_error(py, &error)
    })
}

/// The `ValidationError` for a `str` at `path` that holds a lone surrogate, which no
/// UTF-8 text can carry (`host::lone_surrogate`): `str` arguments here, and the
/// package's options before they become JSON.
#[pyfunction]
fn lone_surrogate(py: Python<'_>, path: &str) -> Py<PyAny> {
    core_error(py, &host::lone_surrogate(path))
        .into_value(py)
        .into_any()
}

/// The `ValidationError` for an option at `path` whose dicts and lists nest more than
/// `OPTION_NESTING_MAX` deep (`host::too_nested`), checked by the package.
#[pyfunction]
fn too_nested(py: Python<'_>, path: &str) -> Py<PyAny> {
    core_error(py, &host::too_nested(path, true))
        .into_value(py)
        .into_any()
}

/// The `ValidationError` for an option at `path` holding a number past the largest
/// float (`host::too_large_number`), checked by the package.
#[pyfunction]
fn too_large_number(py: Python<'_>, path: &str) -> Py<PyAny> {
    core_error(py, &host::too_large_number(path))
        .into_value(py)
        .into_any()
}

/// A path given as `str` (named `path` in errors), as the operating system names
/// files: PyO3 encodes it as `os.fsencode` does, so a file name that is not UTF-8
/// (which `os.fsdecode` turned into lone surrogates) names its file again. A lone
/// surrogate that no file name can hold is the `ValidationError` of [`text`].
fn file_path(value: &Bound<'_, PyAny>, path: &str) -> PyResult<std::path::PathBuf> {
    value
        .extract()
        .map_err(|_| core_error(value.py(), &host::lone_surrogate(path)))
}

/// A `str` as text, or the `ValidationError` at `path` for one holding a lone
/// surrogate (`PyString::to_string` would put U+FFFD in its place).
fn text(s: &Bound<'_, PyString>, path: &str) -> PyResult<String> {
    s.to_str()
        .map(str::to_owned)
        .map_err(|_| core_error(s.py(), &host::lone_surrogate(path)))
}

/// An input: a path (`str`), read and named by it, or bytes.
fn input(value: &Bound<'_, PyAny>, path: &str) -> PyResult<(Vec<u8>, Option<String>)> {
    if value.cast::<PyString>().is_ok() {
        let p = file_path(value, path)?;
        return Ok((
            undertone_files::read_file(&p).map_err(read_error)?,
            Some(p.to_string_lossy().into_owned()),
        ));
    }
    let bytes = value
        .cast::<PyBytes>()
        .map_err(|_| wrong(value.py(), path, "a path or bytes", value))?;
    Ok((bytes.as_bytes().to_vec(), None))
}

fn source((bytes, name): &(Vec<u8>, Option<String>)) -> Source<'_> {
    Source {
        name: name.as_deref(),
        ..Source::new(bytes)
    }
}

/// Runs `call` without the GIL; core's error becomes a Python exception.
fn run<T: Send>(py: Python<'_>, call: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    py.detach(call).map_err(|e| core_error(py, &e))
}

/// Scores every human turn; returns the result as JSON text.
#[pyfunction]
fn score(py: Python<'_>, data: &Bound<'_, PyAny>, options: &str) -> PyResult<String> {
    let (data, options) = (
        input(data, "events_or_request")?,
        self::options(py, options)?,
    );
    run(py, || host::score(source(&data), options, Naming::Snake))
}

/// Validates an input; returns the request it reads as, as JSON text.
#[pyfunction]
fn validate(py: Python<'_>, data: &Bound<'_, PyAny>, options: &str) -> PyResult<String> {
    let (data, options) = (
        input(data, "events_or_request")?,
        self::options(py, options)?,
    );
    run(py, || host::validate(source(&data), options, Naming::Snake))
}

/// Compares two periods dimension by dimension; returns the drift result as JSON text.
#[pyfunction]
fn drift(
    py: Python<'_>,
    before: &Bound<'_, PyAny>,
    after: &Bound<'_, PyAny>,
    options: &str,
) -> PyResult<String> {
    let (before, after) = (input(before, "before")?, input(after, "after")?);
    let options = self::options(py, options)?;
    run(py, || {
        host::drift(source(&before), source(&after), options, Naming::Snake)
    })
}

/// A connector's files: a path's (`undertone_files::read_tree`), bytes named `input`,
/// or a mapping of names to `str` or `bytes`, in its order.
fn files(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Vec<u8>)>> {
    let contents =
        |v: &Bound<'_, PyAny>, at: &str| match (v.cast::<PyString>(), v.cast::<PyBytes>()) {
            (Ok(s), _) => text(s, at).map(|t| Some(t.into_bytes())),
            (_, Ok(b)) => Ok(Some(b.as_bytes().to_vec())),
            _ => Ok(None),
        };
    if value.cast::<PyString>().is_ok() {
        return undertone_files::read_tree(&file_path(value, "files")?).map_err(read_error);
    }
    if let Ok(b) = value.cast::<PyBytes>() {
        return Ok(vec![("input".to_owned(), b.as_bytes().to_vec())]);
    }
    let expected = "a path, bytes or a mapping of file names to str or bytes";
    let map = value
        .cast::<PyMapping>()
        .map_err(|_| wrong(py, "files", expected, value))?;
    let mut out = Vec::new();
    for item in map.items()?.iter() {
        let (name, v): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        // A name that is a `str` holding a lone surrogate is said to be one.
        let name = match name.cast::<PyString>() {
            Ok(s) => text(s, "files")?,
            Err(_) => return Err(wrong(py, "files", "a mapping with str names", &name)),
        };
        let at = format!("files.{name}");
        let bytes = contents(&v, &at)?.ok_or_else(|| wrong(py, &at, "str or bytes", &v))?;
        out.push((name, bytes));
    }
    Ok(out)
}

/// Reads files of a conversation export in `format` (e.g. `chatgpt`) into an ingest
/// request; returns `{"request", "skipped"}` as JSON text. A `mapping` given as bytes
/// comes as `mapping_bytes`.
#[pyfunction]
#[pyo3(signature = (format, files, options, mapping_bytes=None))]
fn import_conversations(
    py: Python<'_>,
    format: &Bound<'_, PyAny>,
    files: &Bound<'_, PyAny>,
    options: &str,
    mapping_bytes: Option<&[u8]>,
) -> PyResult<String> {
    let format = format
        .cast::<PyString>()
        .map_err(|_| wrong(py, "format", "str", format))?;
    let format = text(format, "format")?;
    let (files, options) = (self::files(py, files)?, self::options(py, options)?);
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, bytes)| File { name, bytes })
        .collect();
    run(py, || {
        host::import(&format, &files, mapping_bytes, options, Naming::Snake)
    })
}

/// Whether the delivery headers carry a valid signature of `body` under `secret`;
/// `clock` is now in unix seconds, unless the `now` option says otherwise.
#[pyfunction]
fn verify_signature(
    py: Python<'_>,
    secret: &str,
    body: &[u8],
    headers: Vec<(String, String)>,
    options: &str,
    clock: i64,
) -> PyResult<bool> {
    let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    let options = self::options(py, options)?;
    host::verify(secret, body, pairs, options, Naming::Snake, clock).map_err(|e| core_error(py, &e))
}

/// The module `undertone._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("UndertoneError", py.get_type::<UndertoneError>())?;
    m.add("ValidationError", py.get_type::<ValidationError>())?;
    m.add("SCORER_VERSION", undertone_core::score::SCORER_VERSION)?;
    m.add("DEFAULT_TOLERANCE_SECS", signature::DEFAULT_TOLERANCE_SECS)?;
    m.add_function(wrap_pyfunction!(score, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(drift, m)?)?;
    m.add_function(wrap_pyfunction!(import_conversations, m)?)?;
    m.add_function(wrap_pyfunction!(verify_signature, m)?)?;
    m.add_function(wrap_pyfunction!(lone_surrogate, m)?)?;
    m.add_function(wrap_pyfunction!(too_nested, m)?)?;
    m.add_function(wrap_pyfunction!(too_large_number, m)?)?;
    m.add("OPTION_NESTING_MAX", host::OPTION_NESTING_MAX)?;
    Ok(())
}
