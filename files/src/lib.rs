//! Reading Undertone's inputs from disk: core reads no files (it is pure), so the CLI
//! and the Python and Node bindings read them here, the same way.
//!
//! A connector's input is a file, or a folder (an unzipped export) whose every file is
//! read, named by its path inside the folder with `/` between parts, in name order:
//! the names are what core's errors and skipped items show.

use std::io;
use std::path::Path;

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The operating system refused or failed a read.
    #[error("cannot read {}: {source}{}", shown(path), text_hint(path))]
    Io {
        /// The file or folder, as given or as found in the folder.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A folder given as input holds no file.
    #[error("{0} is an empty folder")]
    EmptyFolder(String),
}

impl ReadError {
    /// The path the error is about.
    pub fn path(&self) -> &str {
        match self {
            ReadError::Io { path, .. } | ReadError::EmptyFolder(path) => path,
        }
    }

    /// The path as messages show it: whole, unless it is longer than any path (text
    /// passed where a path goes), then its first characters and an ellipsis.
    pub fn shown_path(&self) -> std::borrow::Cow<'_, str> {
        shown(self.path())
    }

    /// The operating system's error number, where there is one (`ENOENT` for an empty
    /// folder: there is no file to read).
    pub fn errno(&self) -> i32 {
        const ENOENT: i32 = 2;
        match self {
            ReadError::Io { source, .. } => source.raw_os_error().unwrap_or(0),
            ReadError::EmptyFolder(_) => ENOENT,
        }
    }
}

/// Characters of a "path" that is really text a message shows; the rest is cut.
const SHOWN_PATH: usize = 120;

/// Bytes beyond which no path is a real one (Linux's `PATH_MAX`).
const PATH_MAX: usize = 4096;

/// `path` whole; or, when it is text rather than a path (JSON, or longer than any
/// path can be), its first [`SHOWN_PATH`] characters and an ellipsis.
fn shown(path: &str) -> std::borrow::Cow<'_, str> {
    if !looks_like_json(path) && path.len() <= PATH_MAX {
        return path.into();
    }
    match path.char_indices().nth(SHOWN_PATH) {
        Some((at, _)) => format!("{}…", &path[..at]).into(),
        None => path.into(),
    }
}

/// Whether a "path" starts as a JSON object or array does.
fn looks_like_json(path: &str) -> bool {
    let start = path.trim_start();
    start.starts_with('{') || start.starts_with('[')
}

/// What to do instead, when a "path" that could not be read is JSON text: a string
/// given as an input is read as a file's path in every binding.
fn text_hint(path: &str) -> &'static str {
    if looks_like_json(path) {
        "; a string is read as a file's path, and this one looks like JSON text: pass the \
         parsed value, or the text as bytes"
    } else {
        ""
    }
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> ReadError + '_ {
    move |source| ReadError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The bytes of the file at `path`.
pub fn read_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    std::fs::read(path).map_err(io_error(path))
}

/// One named file of an input.
pub type Named = (String, Vec<u8>);

/// The files at `path`: a file, named by the path as given; or every file under a
/// folder, named by its path relative to the folder with `/` between parts, sorted
/// by name. An empty folder is an error.
pub fn read_tree(path: &Path) -> Result<Vec<Named>, ReadError> {
    if !path.is_dir() {
        return Ok(vec![(path.display().to_string(), read_file(path)?)]);
    }
    let mut files = Vec::new();
    walk(path, "", &mut files)?;
    if files.is_empty() {
        return Err(ReadError::EmptyFolder(path.display().to_string()));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(files)
}

fn walk(dir: &Path, prefix: &str, files: &mut Vec<Named>) -> Result<(), ReadError> {
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        let leaf = path.file_name().unwrap_or_default().to_string_lossy();
        let name = format!("{prefix}{leaf}");
        if path.is_dir() {
            walk(&path, &format!("{name}/"), files)?;
        } else {
            files.push((name, read_file(&path)?));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_read_in_name_order_with_relative_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("b/c")).unwrap();
        std::fs::write(dir.path().join("b/c/z.json"), "3").unwrap();
        std::fs::write(dir.path().join("a.json"), "1").unwrap();
        std::fs::write(dir.path().join("b/y.json"), "2").unwrap();
        let files = read_tree(dir.path()).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a.json", "b/c/z.json", "b/y.json"]);
        assert_eq!(files[1].1, b"3");
    }

    #[test]
    fn a_file_is_named_by_its_path_and_failures_name_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("one.json");
        std::fs::write(&file, "{}").unwrap();
        let files = read_tree(&file).unwrap();
        assert_eq!(files, vec![(file.display().to_string(), b"{}".to_vec())]);

        let missing = dir.path().join("missing.json");
        let e = read_tree(&missing).unwrap_err();
        assert_eq!((e.path(), e.errno()), (missing.to_str().unwrap(), 2));
        assert!(e.to_string().starts_with("cannot read "), "{e}");

        // Text passed where a path goes: shown in part, with what to do instead.
        let text = format!(
            r#"{{"deployment_id": "d", "events": [{}]}}"#,
            "1, ".repeat(1000)
        );
        let e = read_file(Path::new(&text)).unwrap_err();
        let message = e.to_string();
        assert!(message.len() < 400, "{message}");
        assert!(
            message.starts_with(r#"cannot read {"deployment_id": "d", "events": [1, 1, "#),
            "{message}"
        );
        assert!(
            message.ends_with(
                "; a string is read as a file's path, and this one looks like JSON text: \
                 pass the parsed value, or the text as bytes"
            ),
            "{message}"
        );
        assert_eq!(e.shown_path().chars().count(), SHOWN_PATH + 1);
        assert_eq!(e.path(), text, "the whole path stays available");
        // A real path is shown whole, however long.
        let deep = dir.path().join("d".repeat(200)).join("missing.json");
        let e = read_file(&deep).unwrap_err();
        assert_eq!(e.shown_path(), deep.to_str().unwrap());
        assert!(e.to_string().contains(deep.to_str().unwrap()), "{e}");

        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let e = read_tree(&dir.path().join("empty")).unwrap_err();
        assert_eq!(e.errno(), 2);
        assert!(e.to_string().ends_with("empty is an empty folder"), "{e}");
    }
}
