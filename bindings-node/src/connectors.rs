//! `importConversations`: core's connectors (a ChatGPT or Claude export, … into an
//! ingest request).

use std::path::Path;

use napi::bindgen_prelude::{
    Either, FromNapiValue, JsObjectValue, Object, Uint8ArraySlice, Unknown,
};
use napi::{Env, JsValue, ValueType};
use napi_derive::napi;
use undertone_core::connectors::File;
use undertone_core::sdk::{self, DeploymentId};

use crate::error::{Failure, type_error};
use crate::input::given;
use crate::js;
use crate::score::to_js;

/// The name of a file passed on its own (not in an object of named files).
const INPUT: &str = "input";
/// The name errors give the mapping document.
const MAPPING: &str = "mapping";
/// What a file's contents may be.
const CONTENTS: &str = "a string or a Uint8Array";

/// How a conversation export is imported.
#[napi(object, object_to_js = false)]
pub struct ImportOptions<'env> {
    /// The mapping document the `mapping` format reads by (an object, or its JSON text
    /// or bytes); refused with every other format.
    #[napi(ts_type = "string | Uint8Array | Record<string, unknown> | null")]
    pub mapping: Option<Unknown<'env>>,
    /// The request's `deployment_id`; default: the format's name.
    #[napi(ts_type = "string | null")]
    pub deployment_id: Option<Option<String>>,
}

/// One file's contents as bytes (a string as UTF-8), or `None` for another type.
fn contents(value: Unknown<'_>) -> Option<Vec<u8>> {
    match Either::<String, Uint8ArraySlice<'_>>::from_unknown(value).ok()? {
        Either::A(text) => Some(text.into_bytes()),
        Either::B(bytes) => Some(bytes.to_vec()),
    }
}

/// A file read: its name and its bytes.
type Read = (String, Vec<u8>);

/// The files at `path`, as `undertone import` reads them: a file, named by the path
/// as given; or every file under a folder, named by its path relative to the folder
/// with `/` between parts, in name order.
fn read_path(path: &str) -> Result<Vec<Read>, Failure> {
    if !Path::new(path).is_dir() {
        let bytes =
            std::fs::read(path).map_err(|e| Failure::Io(format!("cannot read {path}: {e}")))?;
        return Ok(vec![(path.to_owned(), bytes)]);
    }
    let mut files = Vec::new();
    walk(Path::new(path), "", &mut files)?;
    if files.is_empty() {
        return Err(Failure::Io(format!("{path} is an empty folder")));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<Read>) -> Result<(), Failure> {
    let unreadable = |path: &Path, e: std::io::Error| {
        Failure::Io(format!("cannot read {}: {e}", path.display()))
    };
    for entry in std::fs::read_dir(dir).map_err(|e| unreadable(dir, e))? {
        let path = entry.map_err(|e| unreadable(dir, e))?.path();
        let leaf = path.file_name().unwrap_or_default().to_string_lossy();
        let name = format!("{prefix}{leaf}");
        if path.is_dir() {
            walk(&path, &format!("{name}/"), files)?;
        } else {
            let bytes = std::fs::read(&path).map_err(|e| unreadable(&path, e))?;
            files.push((name, bytes));
        }
    }
    Ok(())
}

/// `files` as (name, contents): a path's files (see [`read_path`]), bytes as one file
/// named `input`, or an object's files in its own order.
fn read_files(env: &Env, files: Unknown<'_>) -> napi::Result<Vec<Read>> {
    if files.get_type()? == ValueType::Object && !files.is_typedarray()? && !files.is_array()? {
        let object = Object::from_unknown(files)?;
        return Object::keys(&object)?
            .into_iter()
            .map(|name| {
                let value: Unknown<'_> = object.get_property(env.create_string(&name)?)?;
                let bytes = contents(value)
                    .ok_or_else(|| type_error(env, &format!("files.{name}"), CONTENTS, value))?;
                Ok((name, bytes))
            })
            .collect();
    }
    if files.get_type()? == ValueType::String {
        let path = String::from_unknown(files)?;
        return read_path(&path).map_err(|e| e.into_js(env));
    }
    let bytes = contents(files).ok_or_else(|| {
        type_error(
            env,
            "files",
            "a string, a Uint8Array or an object of file names to strings or Uint8Arrays",
            files,
        )
    })?;
    Ok(vec![(INPUT.to_owned(), bytes)])
}

/// The mapping document's bytes: text or bytes as they are, an object as its JSON.
fn read_mapping(env: &Env, value: Option<Unknown<'_>>) -> napi::Result<Option<Vec<u8>>> {
    let Some(value) = value else {
        return Ok(None);
    };
    match value.get_type()? {
        ValueType::Undefined | ValueType::Null => Ok(None),
        ValueType::Object if !value.is_typedarray()? => {
            Ok(js::stringify(env, value)?.map(String::into_bytes))
        }
        _ => contents(value)
            .map(Some)
            .ok_or_else(|| type_error(env, MAPPING, "an object, a string or a Uint8Array", value)),
    }
}

fn run_import(
    format: &str,
    files: &[Read],
    mapping: Option<&[u8]>,
    deployment_id: Option<&str>,
) -> Result<String, Failure> {
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, bytes)| File { name, bytes })
        .collect();
    let id = DeploymentId {
        value: deployment_id,
        name: "deploymentId",
    };
    Ok(sdk::import_json(format, &files, mapping, id)?)
}

/// Reads the files of a conversation export into an ingest request:
/// `{request, skipped}`, with every item left out and why.
#[napi(
    ts_args_type = "format: ImportFormat, files: ImportFiles, options?: ImportOptions | null",
    ts_return_type = "ImportResult"
)]
pub fn import_conversations<'env>(
    env: &'env Env,
    format: String,
    files: Unknown<'_>,
    options: Option<ImportOptions<'_>>,
) -> napi::Result<Unknown<'env>> {
    let files = read_files(env, files)?;
    let (mapping, deployment_id) = match options {
        Some(o) => (read_mapping(env, o.mapping)?, o.deployment_id),
        None => (None, None),
    };
    let result = run_import(&format, &files, mapping.as_deref(), given(&deployment_id));
    to_js(env, result)
}
