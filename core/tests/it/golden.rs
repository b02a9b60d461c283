//! Golden files: every example request → its assembled conversations (or its error).
//!
//! Run with `UNDERTONE_BLESS=1` to rewrite the files after an intended change, then
//! review the diff. A golden file without an example fails the test.

use std::fs;

use crate::root;
use undertone_core::assemble;
use undertone_core::validate::{self, Options};

/// What the golden file holds for one example: conversations, or the error envelope.
fn render(bytes: &[u8]) -> String {
    let value = match validate::ingest_request_bytes(bytes, &Options::default()) {
        Ok(req) => serde_json::to_value(assemble(&req.events, Some(&req.deployment_id))),
        Err(e) => Ok(e.to_envelope()),
    };
    let mut text = serde_json::to_string_pretty(&value.expect("plain data serialises"))
        .expect("plain data serialises");
    text.push('\n');
    text
}

#[test]
fn examples_match_golden_conversations() {
    let examples = root().join("examples");
    let golden = root().join("tests/golden/conversations");
    let bless = std::env::var_os("UNDERTONE_BLESS").is_some();
    if bless {
        fs::create_dir_all(&golden).expect("create golden dir");
    }
    let mut names = Vec::new();
    let mut failures = Vec::new();
    for entry in fs::read_dir(&examples).expect("examples/ exists") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path.file_name().expect("file name").to_owned();
        let actual = render(&fs::read(&path).expect("read example"));
        let expected_path = golden.join(&name);
        if bless {
            fs::write(&expected_path, &actual).expect("write golden");
        } else if fs::read_to_string(&expected_path).ok().as_deref() != Some(actual.as_str()) {
            failures.push(format!(
                "{} differs from {} (rerun with UNDERTONE_BLESS=1 if intended)",
                path.display(),
                expected_path.display()
            ));
        }
        names.push(name);
    }
    assert!(names.len() >= 4, "expected at least four examples");
    for entry in fs::read_dir(&golden).expect("golden dir exists") {
        let name = entry.expect("dir entry").file_name();
        if !names.contains(&name) {
            failures.push(format!("unreferenced golden file {name:?}: delete it"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
