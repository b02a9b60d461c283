//! The CLI against the cross-language vectors: `undertone score FILE` prints exactly
//! each golden `output`, `undertone drift` each drift vector's result, and
//! `--json` errors carry each invalid vector's error. The Python, Node and WebAssembly
//! suites assert the same files, so all four agree.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Run, run, temp_file};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    files
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).expect("vector reads")).expect("vector JSON")
}

fn stdout_json(out: &Run, what: &Path) -> Value {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{}: stdout is not JSON ({e}): {out:?}", what.display()))
}

#[test]
fn score_prints_every_golden_output() {
    for path in json_files(&vectors_dir()) {
        let vector = read_json(&path);
        let (_dir, input) = temp_file("input.json", vector["input"].to_string().as_bytes());
        let out = run(&["score"], Some(&input), None);
        assert_eq!(out.code, Some(0), "{}: {out:?}", path.display());
        assert_eq!(
            stdout_json(&out, &path),
            vector["output"],
            "{}",
            path.display()
        );
    }
}

#[test]
fn score_errors_are_every_invalid_vectors_error() {
    let mut checked = 0;
    for path in json_files(&vectors_dir().join("invalid")) {
        let vector = read_json(&path);
        let options = &vector["options"];
        // Option values are command-line flags here, which clap checks itself.
        if options.get("pipeline").is_some() || options.get("view").is_some() {
            continue;
        }
        let (_dir, input) = temp_file("input.json", vector["input"].to_string().as_bytes());
        let mut args = vec!["score", "--json"];
        if let Some(id) = options["deployment_id"].as_str() {
            args.extend(["--deployment-id", id]);
        }
        let out = run(&args, Some(&input), None);
        assert_eq!(out.code, Some(2), "{}: {out:?}", path.display());
        assert_eq!(
            stdout_json(&out, &path)["error"],
            vector["error"],
            "{}",
            path.display()
        );
        checked += 1;
    }
    assert!(
        checked >= 5,
        "only {checked} invalid vectors apply to the CLI"
    );
}

#[test]
fn drift_prints_every_drift_vectors_result() {
    let root = vectors_dir().join("../..");
    for path in json_files(&vectors_dir().join("drift")) {
        let vector = read_json(&path);
        let o = &vector["options"];
        let file = |side: &str| root.join(vector[side].as_str().expect("a path"));
        let (before, after) = (file("before"), file("after"));
        let mut args = vec![
            "drift".to_owned(),
            before.display().to_string(),
            after.display().to_string(),
        ];
        for (flag, key) in [
            ("--question", "question"),
            ("--before-label", "before_label"),
            ("--after-label", "after_label"),
        ] {
            if let Some(v) = o[key].as_str() {
                args.extend([flag.to_owned(), v.to_owned()]);
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args, None, None);
        assert_eq!(out.code, Some(0), "{}: {out:?}", path.display());
        assert_eq!(
            stdout_json(&out, &path),
            vector["output"],
            "{}",
            path.display()
        );
    }
}
