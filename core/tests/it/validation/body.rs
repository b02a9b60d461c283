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

#[test]
fn a_key_given_twice_is_refused_and_named() {
    // Kept silently, the last value would win: this turn would be scored as empty.
    let body = br#"{"deployment_id": "acme-bot", "events": [{"actor_id": "cust-1",
        "content": "Where is my refund?", "content": "",
        "timestamp": "2026-11-21T09:30:00Z"}]}"#;
    assert_eq!(
        body_error(body),
        "is not valid JSON: the key \"content\" is given twice in one object at line 2 column 51"
    );
    // In metadata too, at any depth.
    let body = br#"{"deployment_id": "a", "events": [{"actor_id": "c", "content": "hi",
"timestamp": "2026-11-21T09:30:00Z", "metadata": {"plan": {"tier": 1, "tier": 2}}}]}"#;
    assert_eq!(
        body_error(body),
        "is not valid JSON: the key \"tier\" is given twice in one object at line 2 column 76"
    );
}

#[test]
fn a_message_with_a_repeated_key_is_refused_as_a_body_and_others_are_read() {
    // What a transport that parses its own messages (MCP) checks before it reads one.
    let message = r#"{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params":
{"name": "ingest_conversation", "arguments": {"deployment_id": "bot", "deployment_id": "evil"}}}"#;
    let error = validate::read_message(message).expect_err("found");
    assert_eq!(
        error.violations()[0].message,
        "is not valid JSON: the key \"deployment_id\" is given twice in one object at line 2 column 85"
    );
    assert_eq!(error.violations()[0].path, "body");
    assert_eq!(
        error.violations()[0].message,
        body_error(message.as_bytes()),
        "the body's own words"
    );
    // Not JSON is not this check's to report; JSON without a repeated key is read.
    for text in ["{", "", "[1, 2"] {
        assert_eq!(
            validate::read_message(text).expect("no violation"),
            None,
            "{text:?}"
        );
    }
    for (text, value) in [
        (r#"{"a": {"b": 1}, "b": 1}"#, json!({"a": {"b": 1}, "b": 1})),
        ("\u{feff}{\"a\": 1}", json!({"a": 1})),
    ] {
        assert_eq!(
            validate::read_message(text).expect("no violation"),
            Some(value),
            "{text:?}"
        );
    }
    assert!(validate::read_message("\u{feff}{\"a\": 1, \"a\": 2}").is_err());
}

#[test]
fn a_stored_request_with_a_key_given_twice_is_still_read_as_before() {
    // Acknowledged before repeated keys were refused: the last value, as then.
    let body = br#"{"deployment_id": "acme-bot", "events": [{"actor_id": "cust-1",
        "content": "Where is my refund?", "content": "Still waiting.",
        "timestamp": "2026-11-21T09:30:00Z"}]}"#;
    let request = validate::ingest_request_bytes(body, &Options::STORED).expect("readable");
    assert_eq!(request.events[0].content, "Still waiting.");
    assert!(validate::ingest_request_bytes(body, &Options::default()).is_err());
}

#[test]
fn json_nested_past_the_readers_limit_is_said_in_words() {
    // 129 arrays inside each other: past serde_json's limit of 128, before any rule of
    // the contract (metadata: at most 8 levels) can be checked.
    let deep = format!(
        r#"{{"deployment_id": "a", "events": [{{"metadata": {{"x": {}{}}}}}]}}"#,
        "[".repeat(129),
        "]".repeat(129)
    );
    assert_eq!(
        body_error(deep.as_bytes()),
        "is nested too deeply: more than 128 arrays and objects inside each other \
         at line 1 column 177 (metadata may nest at most 8 levels)"
    );
    // At the limit it is JSON, and the contract's own rule answers.
    let at_limit = format!(
        r#"{{"deployment_id": "a", "events": [{{"metadata": {{"x": {}{}}}}}]}}"#,
        "[".repeat(120),
        "]".repeat(120)
    );
    assert!(validate::parse_body(at_limit.as_bytes()).is_ok());
}

#[test]
fn half_a_surrogate_pair_is_said_in_words() {
    // serde_json's own words would call a lone low half a "lone leading surrogate" and
    // a high half with nothing after it an "unexpected end of hex escape".
    let said = "is not valid JSON: a \\u escape of half a surrogate pair (\\ud800 to \\udfff) \
                must be a high half followed by a low half";
    for (escape, at) in [
        (r"\udc00", "at line 1 column 73"),
        (r"\ud800", "at line 1 column 74"),
        (r"\ud800\ud800", "at line 1 column 79"),
        (r"\ud800x", "at line 1 column 74"),
    ] {
        let body = format!(
            r#"{{"deployment_id": "a", "events": [{{"actor_id": "u", "content": "hi {escape}"}}]}}"#
        );
        assert_eq!(
            body_error(body.as_bytes()),
            format!(
                "{said} {at}; alone it is no character (write the character itself, or both \
                 halves)"
            ),
            "{escape}"
        );
    }
    // A whole pair is a character.
    let pair =
        r#"{"deployment_id": "a", "events": [{"actor_id": "u", "content": "hi \ud83d\ude00"}]}"#;
    assert!(validate::parse_body(pair.as_bytes()).is_ok());
}

#[test]
fn a_number_too_large_for_a_float_is_said_in_words() {
    // Valid JSON (serde_json's "number out of range" would call it invalid).
    let digits = "9".repeat(400);
    let body = format!(
        r#"{{"deployment_id": "a", "events": [{{"actor_id": "u", "content": "hi", "metadata": {{"n": {digits}}}}}]}}"#
    );
    let column = body.find(&digits).expect("the digits") + digits.len();
    assert_eq!(
        body_error(body.as_bytes()),
        format!(
            "holds a number too large to read at line 1 column {column}: numbers must fit a \
             64-bit float (up to about 1.8e308); send a longer number as a string"
        )
    );
    // Up to the largest float, a number is read.
    let body = r#"{"deployment_id": "a", "events": [{"actor_id": "u", "content": "hi", "timestamp": "2026-11-21T09:00:00Z", "metadata": {"n": 1.7e308}}]}"#;
    assert!(validate::parse_body(body.as_bytes()).is_ok());
}

#[test]
fn an_array_or_object_longer_than_any_valid_body_needs_is_refused_as_it_is_read() {
    // 10 001 zeros where events go: refused at the 10 001st, not parsed into ten thousand
    // values and then checked (16 MiB of them would be a gigabyte of parsed values).
    let zeros = vec!["0"; 10_001].join(",");
    let body = format!(r#"{{"deployment_id": "a", "events": [{zeros}]}}"#);
    // serde_json names the (1-based) column just after the 10 001st zero.
    let column = body.find('[').expect("an array") + 3 + 2 * 10_000;
    assert_eq!(
        body_error(body.as_bytes()),
        format!(
            "is refused as it is read: an array or object holds more than 10000 items at \
             line 1 column {column}; no valid body needs as many (an ingest holds at most \
             5000 events, a drift period 2000, metadata at most 16 KiB)"
        )
    );
    // 10 000 are read, and then refused by the rules of the contract.
    let zeros = vec!["0"; 10_000].join(",");
    let body = format!(r#"{{"deployment_id": "a", "events": [{zeros}]}}"#);
    let err = validate::ingest_request_bytes(body.as_bytes(), &Options::default())
        .expect_err("too many events");
    assert!(
        err.violations().iter().any(|v| v.path == "events"),
        "{:?}",
        &err.violations()[..3]
    );
    // An object of too many members, at any depth.
    let members: Vec<String> = (0..10_001).map(|i| format!("\"k{i}\": 0")).collect();
    let body = format!(
        r#"{{"deployment_id": "a", "events": [{{"metadata": {{{}}}}}]}}"#,
        members.join(", ")
    );
    assert!(
        body_error(body.as_bytes()).starts_with(
            "is refused as it is read: an array or object holds more than 10000 items"
        ),
        "{}",
        body_error(body.as_bytes())
    );
    // The command line reads files of any size: no such limit.
    let zeros = vec!["0"; 10_001].join(",");
    let body = format!(r#"{{"deployment_id": "a", "events": [{zeros}]}}"#);
    let unlimited = Options {
        unlimited: true,
        ..Options::default()
    };
    let err = validate::ingest_request_bytes(body.as_bytes(), &unlimited).expect_err("numbers");
    assert!(
        err.violations()[0]
            .message
            .contains("must be an event object"),
        "{:?}",
        err.violations()[0]
    );
}
