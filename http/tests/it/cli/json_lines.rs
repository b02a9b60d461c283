//! Input as JSON Lines: one event per line, with the deployment given by `--deployment-id`.

use std::borrow::Borrow;
use std::path::PathBuf;

use tempfile::TempDir;

use super::{
    assert_error_envelope, assert_ok_line, assert_one_line_error, assert_violations, events_of,
    example_json, run, temp_file, validate_and_assemble_for_acme,
};

/// The first three events of the tutor example, one JSON object per line.
fn three_event_lines() -> Vec<String> {
    let request = example_json("tutor-fractions.json");
    events_of(&request)[..3]
        .iter()
        .map(|e| serde_json::to_string(e).expect("event serialises"))
        .collect()
}

/// `lines`, each ended by a newline.
fn jsonl_body<S: Borrow<str>>(lines: &[S]) -> String {
    let mut body = lines.join("\n");
    body.push('\n');
    body
}

fn jsonl_file(name: &str, lines: &[&str]) -> (TempDir, PathBuf) {
    temp_file(name, jsonl_body(lines).as_bytes())
}

/// A file `name` holding the three events as JSON Lines.
fn three_event_file(name: &str) -> (TempDir, PathBuf) {
    temp_file(name, jsonl_body(&three_event_lines()).as_bytes())
}

/// Runs `validate` without `--deployment-id` on the three events in a file `name`.
fn assert_needs_deployment_id(name: &str) {
    let (_dir, path) = three_event_file(name);
    let out = run(&["validate"], Some(&path), None);
    assert_violations(
        &out,
        &path,
        &[
            "--deployment-id: is required: the input is JSON Lines of events, which does not \
           say which deployment the events come from",
        ],
    );
}

#[test]
fn json_lines_need_a_deployment_id() {
    assert_needs_deployment_id("events.jsonl");
}

#[test]
fn json_lines_with_a_deployment_id_are_valid() {
    let (_dir, path) = three_event_file("events.jsonl");
    let assembly =
        validate_and_assemble_for_acme(&path, "ok: 3 events, 1 conversation (2 human turns)");
    assert_eq!(assembly["event_count"], 3);
}

#[test]
fn json_lines_are_detected_without_the_extension() {
    assert_needs_deployment_id("events.log");
}

#[test]
fn json_lines_from_standard_input_with_format_flag() {
    let body = jsonl_body(&three_event_lines());
    let out = run(
        &[
            "validate",
            "--format",
            "jsonl",
            "--deployment-id",
            "acme",
            "-",
        ],
        None,
        Some(body.into_bytes()),
    );
    assert_ok_line(&out, "ok: 3 events, 1 conversation (2 human turns)");
}

#[test]
fn format_json_on_json_lines_is_one_line_error() {
    let (_dir, path) = three_event_file("events.jsonl");
    let out = run(&["validate", "--format", "json"], Some(&path), None);
    assert_one_line_error(
        &out,
        &format!(
            "error: {} is not valid JSON: trailing characters at line 2 column 1",
            path.display()
        ),
    );
}

#[test]
fn json_lines_bad_line_names_event_and_line() {
    let lines = three_event_lines();
    let (_dir, path) = jsonl_file("events.jsonl", &[&lines[0], "not json", &lines[2]]);
    let out = run(&["validate", "--deployment-id", "acme"], Some(&path), None);
    assert_violations(
        &out,
        &path,
        &["events[1]: line 2 is not valid JSON: expected ident at line 1 column 2"],
    );

    let out = run(
        &["validate", "--json", "--deployment-id", "acme"],
        Some(&path),
        None,
    );
    let envelope = assert_error_envelope(&out);
    let details = envelope["error"]["details"].as_array().expect("details");
    assert_eq!(details.len(), 1, "{details:?}");
    assert_eq!(details[0]["path"], "events[1]");
    assert_eq!(
        details[0]["message"],
        "line 2 is not valid JSON: expected ident at line 1 column 2"
    );
}

#[test]
fn json_lines_blank_lines_count_as_lines_not_events() {
    let lines = three_event_lines();
    let (_dir, path) = jsonl_file("events.jsonl", &[&lines[0], "", "   ", "{oops", &lines[2]]);
    let out = run(&["validate", "--deployment-id", "acme"], Some(&path), None);
    assert_violations(
        &out,
        &path,
        &["events[1]: line 4 is not valid JSON: key must be a string at line 1 column 2"],
    );
}

#[test]
fn json_lines_with_only_blank_lines_is_one_line_error() {
    let (_dir, path) = temp_file("blank.jsonl", b"\n  \n\t\n");
    let out = run(&["validate", "--deployment-id", "acme"], Some(&path), None);
    assert_one_line_error(
        &out,
        &format!(
            "error: {} is empty; expected one JSON event per line",
            path.display()
        ),
    );
}

/// Two lines that are not JSON: each must be reported once, at its own event index.
#[test]
fn json_lines_two_bad_lines_get_their_own_indices() {
    let (_dir, path) = temp_file("two.jsonl", b"nope\nnope\n");
    let out = run(&["validate", "--deployment-id", "acme"], Some(&path), None);
    assert_violations(
        &out,
        &path,
        &[
            "events[0]: line 1 is not valid JSON: expected ident at line 1 column 2",
            "events[1]: line 2 is not valid JSON: expected ident at line 1 column 2",
        ],
    );
}
