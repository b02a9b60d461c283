//! Input that cannot be read as a request at all: empty, blank, binary, not JSON,
//! not an object, missing, or a directory. Each is one line on stderr.

use std::path::Path;

use super::{
    assert_one_line_error, assert_violations, run, run_on_stream, temp_file, validate_file,
};

/// Runs `validate` on `path`, which cannot be read, and checks the error names `reason`.
fn assert_cannot_read(path: &Path, reason: &str) {
    let out = run(&["validate"], Some(path), None);
    assert_one_line_error(
        &out,
        &format!("error: cannot read {}: {reason}", path.display()),
    );
}

#[test]
fn empty_file_is_one_line_error() {
    let (out, path) = validate_file("empty.json", b"");
    assert_one_line_error(
        &out,
        &format!("error: {path} is empty; expected a JSON object"),
    );
}

#[test]
fn whitespace_only_file_is_one_line_error() {
    let (out, path) = validate_file("blank.json", b"  \n\t\r\n   \n");
    assert_one_line_error(
        &out,
        &format!("error: {path} is empty; expected a JSON object"),
    );
}

#[test]
fn empty_standard_input_is_one_line_error() {
    let out = run(&["validate", "-"], None, Some(Vec::new()));
    assert_one_line_error(
        &out,
        "error: standard input is empty; expected a JSON object",
    );
}

#[test]
fn non_json_file_is_one_line_error() {
    let (out, path) = validate_file("hello.json", b"hello");
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid JSON: expected value at line 1 column 1"),
    );
}

#[test]
fn a_stream_that_cannot_be_json_is_refused_without_being_read_to_its_end() {
    // `undertone score /dev/zero` read forever: `score` has no size limit, so a stream
    // of zeros was gathered until memory ran out. The first byte already says it is
    // not JSON; the binary stops reading there (a whitespace prefix and a byte-order
    // mark are skipped, as the parser skips them).
    let tail = 64 * 1024 * 1024;
    for (head, column) in [(&b""[..], 1), (b"\xEF\xBB\xBF  \t", 4)] {
        let (out, written) = run_on_stream(&["score", "-", "--deployment-id", "acme"], head, tail);
        assert_one_line_error(
            &out,
            &format!(
                "error: standard input is not valid JSON: expected value at line 1 column {column}"
            ),
        );
        assert!(
            written < tail / 2,
            "{written} of {tail} bytes were taken: the stream was read on"
        );
    }
    // `validate` reads at most the body limit, and now stops as early.
    let (out, written) = run_on_stream(&["validate", "-"], b"\n\n", tail);
    assert_one_line_error(
        &out,
        "error: standard input is not valid JSON: expected value at line 3 column 1",
    );
    assert!(written < tail / 2, "{written} bytes were taken");
}

#[test]
fn trailing_garbage_is_one_line_error() {
    let (out, path) = validate_file("trail.json", b"{\"deployment_id\":\"a\",\"events\":[]} x\n");
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid JSON: trailing characters at line 1 column 35"),
    );
}

#[test]
fn json_that_is_not_an_object_is_one_line_error() {
    // An array is a list of events, which needs --deployment-id ...
    let (out, path) = validate_file("array.json", b"[1, 2]");
    assert_violations(
        &out,
        Path::new(&path),
        &[
            "--deployment-id: is required: the input is a list of events, which does not say \
           which deployment the events come from",
        ],
    );
    // ... and then each item must be an event.
    let (_dir, path) = temp_file("array.json", b"[1, 2]");
    let out = run(&["validate", "--deployment-id", "acme"], Some(&path), None);
    assert_violations(
        &out,
        &path,
        &[
            "events[0]: must be an event object, got number",
            "events[1]: must be an event object, got number",
        ],
    );
    let (out, path) = validate_file("null.json", b"null\n");
    assert_one_line_error(
        &out,
        &format!("error: {path} must be a JSON object with deployment_id and events, got null"),
    );
}

#[test]
fn binary_file_is_one_line_error() {
    let bytes = [0xff, 0xfe, 0x00, 0x81, 0x80, 0xc3, 0x28, 0x00, 0x9f, 0x7b];
    let (out, path) = validate_file("binary.json", &bytes);
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid UTF-8 (invalid byte at offset 0)"),
    );
}

#[test]
fn invalid_utf8_after_valid_text_names_the_offset() {
    let (out, path) = validate_file("late.json", b"{\"deployment_id\": \"\xff\"}");
    assert_one_line_error(
        &out,
        &format!("error: {path} is not valid UTF-8 (invalid byte at offset 19)"),
    );
}

#[test]
fn missing_file_is_one_line_error() {
    let dir = tempfile::tempdir().expect("temporary directory");
    assert_cannot_read(
        &dir.path().join("missing.json"),
        "No such file or directory (os error 2)",
    );
}

#[test]
fn directory_is_one_line_error() {
    let dir = tempfile::tempdir().expect("temporary directory");
    assert_cannot_read(dir.path(), "Is a directory (os error 21)");
}
