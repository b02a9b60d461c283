//! `undertone._native`: the Python binding of `undertone-core`.
//!
//! It converts arguments and errors and calls `undertone_core::sdk`; nothing more.
//! Inputs arrive as the bytes of JSON, a JSON array or JSON Lines (the Python layer
//! in `python/undertone/__init__.py` turns dicts, lists and paths into bytes), and
//! results leave as JSON text, so Python gets exactly what `undertone score` prints.
//! Connector inputs arrive as named files of bytes.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use undertone_core::connectors::File;
use undertone_core::sdk::{self, DeploymentId, DriftOptions, InputFormat, ScoreOptions, Source};
use undertone_core::{Error, ErrorCode, signature};

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
    "The input broke the input contract (code `VALIDATION_ERROR`)."
);

/// The Python exception for a core error, with `code` and `details` set.
fn to_py(py: Python<'_>, error: &Error) -> PyErr {
    let err = match error.code() {
        ErrorCode::ValidationError => ValidationError::new_err(error.to_string()),
        // Core's codes are non-exhaustive: a new one still raises the base class.
        _ => UndertoneError::new_err(error.to_string()),
    };
    let value = err.value(py);
    let details = PyList::empty(py);
    let attach = || -> PyResult<()> {
        for v in error.violations() {
            let d = PyDict::new(py);
            d.set_item("path", &v.path)?;
            d.set_item("message", &v.message)?;
            details.append(d)?;
        }
        value.setattr("code", error.code().as_str())?;
        value.setattr("details", &details)
    };
    match attach() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// A source over `data`, laid out as `format`, read from the file `name` if any.
fn source<'a>(data: &'a [u8], name: Option<&'a str>, format: &str) -> Result<Source<'a>, Error> {
    let mut s = Source::new(data).with_format(InputFormat::parse(format, "format")?);
    s.name = name;
    Ok(s)
}

/// Scores every human turn; returns the result as JSON text.
#[pyfunction]
#[pyo3(signature = (data, *, name=None, format="auto", deployment_id=None, pipeline=None, view="full"))]
fn score(
    py: Python<'_>,
    data: &[u8],
    name: Option<&str>,
    format: &str,
    deployment_id: Option<&str>,
    pipeline: Option<&str>,
    view: &str,
) -> PyResult<String> {
    py.detach(|| {
        let options = ScoreOptions::parse(DeploymentId::new(deployment_id), pipeline, Some(view))?;
        sdk::score_json(&source(data, name, format)?, &options)
    })
    .map_err(|e| to_py(py, &e))
}

/// Validates an input; returns the request it reads as, as JSON text.
#[pyfunction]
#[pyo3(signature = (data, *, name=None, format="auto", deployment_id=None))]
fn validate(
    py: Python<'_>,
    data: &[u8],
    name: Option<&str>,
    format: &str,
    deployment_id: Option<&str>,
) -> PyResult<String> {
    py.detach(|| {
        sdk::validate_json(
            &source(data, name, format)?,
            DeploymentId::new(deployment_id),
        )
    })
    .map_err(|e| to_py(py, &e))
}

/// Compares two periods dimension by dimension; returns the drift result as JSON text.
#[pyfunction]
#[pyo3(signature = (
    before, after, *, before_name=None, after_name=None, format="auto",
    deployment_id=None, question=None, before_label=None, after_label=None,
))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments, one per option.
fn drift(
    py: Python<'_>,
    before: &[u8],
    after: &[u8],
    before_name: Option<&str>,
    after_name: Option<&str>,
    format: &str,
    deployment_id: Option<&str>,
    question: Option<&str>,
    before_label: Option<&str>,
    after_label: Option<&str>,
) -> PyResult<String> {
    py.detach(|| {
        let options = DriftOptions {
            deployment_id: DeploymentId::new(deployment_id),
            question,
            before_label,
            after_label,
        };
        sdk::drift_json(
            &source(before, before_name, format)?,
            &source(after, after_name, format)?,
            &options,
        )
    })
    .map_err(|e| to_py(py, &e))
}

/// Reads files of a conversation export in `format` (e.g. `chatgpt`) into an ingest
/// request; returns `{"request", "skipped"}` as JSON text.
#[pyfunction]
#[pyo3(signature = (format, files, *, mapping=None, deployment_id=None))]
fn import_conversations(
    py: Python<'_>,
    format: &str,
    files: Vec<(String, Bound<'_, PyBytes>)>,
    mapping: Option<&[u8]>,
    deployment_id: Option<&str>,
) -> PyResult<String> {
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, bytes)| File {
            name,
            bytes: bytes.as_bytes(),
        })
        .collect();
    py.detach(|| sdk::import_json(format, &files, mapping, DeploymentId::new(deployment_id)))
        .map_err(|e| to_py(py, &e))
}

/// Whether the delivery headers carry a valid signature of `body` under `secret`.
#[pyfunction]
#[pyo3(signature = (secret, body, headers, *, now, tolerance_secs))]
fn verify_signature(
    secret: &str,
    body: &[u8],
    headers: Vec<(String, String)>,
    now: i64,
    tolerance_secs: i64,
) -> bool {
    let pairs = headers.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    signature::verify_headers(secret, body, pairs, now, tolerance_secs)
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
    Ok(())
}
