//! Body-level rules: size, UTF-8, JSON.

use super::*;

fn body_error(bytes: &[u8]) -> String {
    let err = validate::ingest_request_bytes(bytes, &Options::default()).expect_err("invalid");
    assert_eq!(err.code(), ErrorCode::ValidationError);
    let [v] = err.violations() else {
        panic!("expected one violation, got {:?}", err.violations())
    };
    assert_eq!(v.path, "body");
    v.message.clone()
}

#[test]
fn empty_body() {
    assert_eq!(body_error(b"  \n"), "is empty; expected a JSON object");
}

#[test]
fn not_json() {
    assert_eq!(
        body_error(b"hello"),
        "is not valid JSON: expected value at line 1 column 1"
    );
}

#[test]
fn not_utf8() {
    assert_eq!(
        body_error(b"{\"a\": \"\xff\"}"),
        "is not valid UTF-8 (invalid byte at offset 7)"
    );
}

#[test]
fn over_16_mib() {
    let big = vec![b' '; 16 * 1024 * 1024 + 1];
    assert_eq!(
        body_error(&big),
        "is 16777217 bytes; the limit is 16777216 bytes (16 MiB)"
    );
}
