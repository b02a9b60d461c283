//! `--deployment-id` with a request file: filling a missing deployment_id,
//! agreeing with the file's, or conflicting with it.

use std::path::PathBuf;

use tempfile::TempDir;

use super::{
    assert_error_envelope, assert_ok_line, assert_violations, example, example_json, run,
    temp_file, validate_and_assemble_for_acme,
};

fn request_without_deployment_id() -> (TempDir, PathBuf) {
    let mut request = example_json("tutor-fractions.json");
    request
        .as_object_mut()
        .expect("request object")
        .remove("deployment_id")
        .expect("example has a deployment_id");
    let body = serde_json::to_vec_pretty(&request).expect("request serialises");
    temp_file("no-deployment.json", &body)
}

#[test]
fn missing_deployment_id_is_a_violation() {
    let (_dir, path) = request_without_deployment_id();
    let out = run(&["validate"], Some(&path), None);
    assert_violations(&out, &path, &["deployment_id: is required"]);
}

#[test]
fn deployment_id_flag_fills_a_missing_deployment_id() {
    let (_dir, path) = request_without_deployment_id();
    validate_and_assemble_for_acme(&path, "ok: 15 events, 1 conversation (8 human turns)");
}

#[test]
fn deployment_id_flag_equal_to_the_file_is_accepted() {
    let file = example("tutor-fractions.json");
    let out = run(
        &["validate", "--deployment-id", "mathmate-tutor"],
        Some(&file),
        None,
    );
    assert_ok_line(&out, "ok: 15 events, 1 conversation (8 human turns)");
}

#[test]
fn deployment_id_flag_conflicting_with_the_file_is_refused() {
    let file = example("tutor-fractions.json");
    let out = run(&["validate", "--deployment-id", "acme"], Some(&file), None);
    assert_violations(
        &out,
        &file,
        &["--deployment-id: is \"acme\", but the request names deployment \"mathmate-tutor\""],
    );
}

#[test]
fn empty_deployment_id_flag_is_a_violation() {
    let (_dir, path) = request_without_deployment_id();
    let out = run(&["validate", "--deployment-id", ""], Some(&path), None);
    assert_violations(&out, &path, &["--deployment-id: must not be empty"]);
}

/// `--json` promises the envelope on stdout for every error, including this one.
#[test]
fn json_flag_covers_deployment_id_conflict() {
    let file = example("tutor-fractions.json");
    let out = run(
        &["validate", "--json", "--deployment-id", "acme"],
        Some(&file),
        None,
    );
    assert_error_envelope(&out);
}
