//! The sdk vectors every binding runs too (tests/vectors/invalid, tests/vectors/drift):
//! each invalid input's error envelope, and each drift comparison's result, as core
//! gives them. The Python, Node and WebAssembly suites assert the same files.
//!
//! After an intended change, rewrite the expected parts with
//! `UNDERTONE_BLESS=1 cargo test -p undertone-core sdk_vectors` and review the diff.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{read_json, root};
use serde_json::{Value, json};
use undertone_core::sdk::{self, DeploymentId, DriftOptions, ScoreOptions, Source};

/// Every `.json` file in `tests/vectors/{folder}`, sorted.
fn vectors(folder: &str) -> Vec<PathBuf> {
    let dir = root().join("tests/vectors").join(folder);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    files.sort();
    for f in &files {
        assert_eq!(
            f.extension().and_then(|e| e.to_str()),
            Some("json"),
            "stray file {}",
            f.display()
        );
    }
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    files
}

/// Checks `field` of the vector at `path` against `actual`, or writes it when blessing.
fn check_or_bless(path: &Path, mut vector: Value, field: &str, actual: Value) -> Option<String> {
    if std::env::var_os("UNDERTONE_BLESS").is_some() {
        vector[field] = actual;
        let mut text = serde_json::to_string_pretty(&vector).expect("plain data serialises");
        text.push('\n');
        fs::write(path, text).expect("write vector");
        return None;
    }
    (vector[field] != actual).then(|| {
        format!(
            "{}: {field} differs; rerun with UNDERTONE_BLESS=1 if intended\nexpected {}\n     got {}",
            path.display(),
            vector[field],
            actual
        )
    })
}

/// What scoring an invalid vector gives: the error object of the envelope.
fn invalid_error(vector: &Value) -> Result<Value, String> {
    let options = &vector["options"];
    let text = |name: &str| options[name].as_str();
    let bytes = serde_json::to_vec(&vector["input"]).expect("JSON serialises");
    let id = DeploymentId::new(text("deployment_id"));
    let result = ScoreOptions::parse(id, text("pipeline"), text("view"))
        .and_then(|options| sdk::score_json(&Source::new(&bytes), &options));
    match result {
        Ok(_) => Err("scored, but the vector is invalid input".to_owned()),
        Err(e) => Ok(e.to_envelope()["error"].clone()),
    }
}

#[test]
fn invalid_vectors_give_their_error() {
    let mut failures = Vec::new();
    for path in vectors("invalid") {
        let vector = read_json(&path);
        let unknown: Vec<&String> = vector["options"]
            .as_object()
            .expect("options is an object")
            .keys()
            .filter(|k| !["deployment_id", "pipeline", "view"].contains(&k.as_str()))
            .collect();
        assert!(
            unknown.is_empty(),
            "{}: unknown options {unknown:?}",
            path.display()
        );
        match invalid_error(&vector) {
            Ok(error) => failures.extend(check_or_bless(&path, vector, "error", error)),
            Err(why) => failures.push(format!("{}: {why}", path.display())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn invalid_vectors_cover_options_and_layouts() {
    let codes: Vec<Value> = vectors("invalid")
        .iter()
        .map(|p| read_json(p)["error"]["details"][0]["path"].clone())
        .collect();
    for path in ["pipeline", "view", "body", "events", "events[0].timestamp"] {
        assert!(
            codes.contains(&json!(path)),
            "no invalid vector fails at {path}: {codes:?}"
        );
    }
}

#[test]
fn drift_vectors_give_their_result() {
    let mut failures = Vec::new();
    for path in vectors("drift") {
        let vector = read_json(&path);
        let read = |side: &str| {
            let file = root().join(vector[side].as_str().expect("a path"));
            fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        };
        let (before, after) = (read("before"), read("after"));
        let o = &vector["options"];
        let options = DriftOptions {
            question: o["question"].as_str(),
            before_label: o["before_label"].as_str(),
            after_label: o["after_label"].as_str(),
            ..DriftOptions::default()
        };
        let text = sdk::drift_json(&Source::new(&before), &Source::new(&after), &options)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let output: Value = serde_json::from_str(&text).expect("drift JSON");
        assert_eq!(output["before"]["label"], o["before_label"]);
        failures.extend(check_or_bless(&path, vector, "output", output));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_drift_input_that_breaks_the_contract_is_named_by_its_period() {
    let good = fs::read(root().join("examples/drift-v1.json")).expect("an example");
    let violations = |before: &[u8], after: &[u8], options: &DriftOptions<'_>| {
        let e = sdk::drift_json(&Source::new(before), &Source::new(after), options)
            .expect_err("refused");
        e.violations()
            .iter()
            .map(|v| (v.path.clone(), v.message.clone()))
            .collect::<Vec<_>>()
    };
    let options = DriftOptions::default();
    assert_eq!(
        violations(&good, br#"{"deployment_id": "d", "events": []}"#, &options),
        [(
            "after.events".to_owned(),
            "must hold at least 1 event, got 0".to_owned()
        )]
    );
    assert_eq!(
        violations(b"[1", &good, &options)[0].0,
        "before",
        "the input as a whole is its period"
    );
    // The deployment option's own violation stays at the option.
    let events = br#"[{"actor_id": "u", "content": "hi", "timestamp": "2026-11-21T09:00:00Z"}]"#;
    assert_eq!(
        violations(events, &good, &options)[0].0,
        DriftOptions::default().deployment_id.name
    );
}
