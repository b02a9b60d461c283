//! One test per input rule: exact code, path and message.

use serde_json::{Value, json};
use undertone_core::validate::{self, Options};
use undertone_core::{ErrorCode, Pipeline, Violation};

fn event() -> Value {
    json!({"actor_id": "cust-1", "content": "Where is my refund?", "timestamp": "2026-11-21T09:30:00Z"})
}

fn request_with(events: Vec<Value>) -> Value {
    json!({"deployment_id": "acme-bot", "events": events})
}

/// Validates an ingest request and returns its violations as (path, message) pairs.
fn violations(body: &Value) -> Vec<(String, String)> {
    let err = validate::ingest_request(body, &Options::default())
        .expect_err("the request should be rejected");
    assert_eq!(err.code(), ErrorCode::ValidationError);
    assert_eq!(err.code().as_str(), "VALIDATION_ERROR");
    err.violations()
        .iter()
        .map(|Violation { path, message }| (path.clone(), message.clone()))
        .collect()
}

fn one(path: &str, message: &str) -> Vec<(String, String)> {
    vec![(path.to_owned(), message.to_owned())]
}

/// A request whose first event has `field` replaced by `value` (or removed for `None`).
fn with_event_field(field: &str, value: Option<Value>) -> Value {
    let mut e = event();
    match value {
        Some(v) => e[field] = v,
        None => {
            e.as_object_mut().map(|o| o.remove(field));
        }
    }
    request_with(vec![e])
}

#[test]
fn valid_request_is_accepted_and_normalised() {
    let mut e = event();
    e["timestamp"] = json!("2026-11-21 10:30:00.250+01:00");
    e["content"] = json!("  Where is my refund?\n");
    e["metadata"] = json!({"role": "customer", "conversation_id": 42});
    let body = json!({"deployment_id": "acme-bot", "events": [e], "pipeline": "support",
                      "webhook_url": "https://hooks.example.com/undertone"});
    let req = validate::ingest_request(&body, &Options::default()).expect("valid");
    assert_eq!(req.pipeline, Pipeline::Support);
    assert_eq!(req.events[0].content, "Where is my refund?");
    let out = serde_json::to_value(&req.events[0]).expect("serialisable");
    assert_eq!(out["timestamp"], "2026-11-21T09:30:00.250Z");
    assert_eq!(
        req.webhook_url.as_deref(),
        Some("https://hooks.example.com/undertone")
    );
}

#[test]
fn null_optional_fields_count_as_absent() {
    let mut e = event();
    e["context"] = Value::Null;
    e["metadata"] = Value::Null;
    let body = json!({"deployment_id": "d", "events": [e], "pipeline": null, "webhook_url": null});
    let req = validate::ingest_request(&body, &Options::default()).expect("valid");
    assert_eq!(req.pipeline, Pipeline::Auto);
    assert_eq!(req.events[0].context, None);
}

#[test]
fn body_must_be_an_object() {
    assert_eq!(
        violations(&json!([1, 2])),
        one(
            "body",
            "must be a JSON object with deployment_id and events, got array"
        )
    );
}

#[test]
fn events_are_required() {
    assert_eq!(
        violations(&json!({"deployment_id": "d"})),
        one("events", "is required")
    );
}

#[test]
fn events_must_be_an_array() {
    assert_eq!(
        violations(&json!({"deployment_id": "d", "events": {}})),
        one("events", "must be an array of events, got object")
    );
}

#[test]
fn events_must_not_be_empty() {
    assert_eq!(
        violations(&request_with(vec![])),
        one("events", "must hold 1 to 5000 events, got 0")
    );
}

#[test]
fn at_most_5000_events() {
    assert_eq!(
        violations(&request_with(vec![event(); 5001])),
        one("events", "must hold 1 to 5000 events, got 5001")
    );
    let ok = validate::ingest_request(&request_with(vec![event(); 5000]), &Options::default());
    assert_eq!(ok.map(|r| r.events.len()), Ok(5000));
}

#[test]
fn event_must_be_an_object() {
    assert_eq!(
        violations(&request_with(vec![event(), json!("hi")])),
        one("events[1]", "must be an event object, got string")
    );
}

#[test]
fn deployment_id_is_required() {
    assert_eq!(
        violations(&json!({"events": [event()]})),
        one("deployment_id", "is required")
    );
}

#[test]
fn actor_id_is_required() {
    assert_eq!(
        violations(&with_event_field("actor_id", None)),
        one("events[0].actor_id", "is required")
    );
}

#[test]
fn content_is_required() {
    assert_eq!(
        violations(&with_event_field("content", None)),
        one("events[0].content", "is required")
    );
}

#[test]
fn timestamp_is_required() {
    assert_eq!(
        violations(&with_event_field("timestamp", None)),
        one("events[0].timestamp", "is required")
    );
}

#[test]
fn string_fields_reject_other_types() {
    assert_eq!(
        violations(&with_event_field("content", Some(json!(12)))),
        one("events[0].content", "must be a string, got number")
    );
    assert_eq!(
        violations(&with_event_field("actor_id", Some(Value::Null))),
        one("events[0].actor_id", "must be a string, got null")
    );
}

#[test]
fn naive_timestamp_is_rejected() {
    assert_eq!(
        violations(&with_event_field(
            "timestamp",
            Some(json!("2026-11-21T09:30:00"))
        )),
        one(
            "events[0].timestamp",
            "\"2026-11-21T09:30:00\" has no UTC offset; add Z or an offset such as +01:00, e.g. 2026-11-21T09:30:00Z"
        )
    );
}

#[test]
fn impossible_date_is_rejected() {
    assert_eq!(
        violations(&with_event_field(
            "timestamp",
            Some(json!("2026-02-30T10:00:00Z"))
        )),
        one(
            "events[0].timestamp",
            "\"2026-02-30T10:00:00Z\" is not a real date and time"
        )
    );
    assert_eq!(
        violations(&with_event_field(
            "timestamp",
            Some(json!("2026-11-21T24:30:00Z"))
        )),
        one(
            "events[0].timestamp",
            "\"2026-11-21T24:30:00Z\" is not a real date and time"
        )
    );
}

#[test]
fn non_timestamp_text_is_rejected() {
    assert_eq!(
        violations(&with_event_field("timestamp", Some(json!("yesterday")))),
        one(
            "events[0].timestamp",
            "must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got \"yesterday\""
        )
    );
}

#[test]
fn timestamps_are_normalised_to_utc() {
    let body = with_event_field("timestamp", Some(json!("2026-11-21T15:00:00+05:30")));
    let req = validate::ingest_request(&body, &Options::default()).expect("valid");
    assert_eq!(
        undertone_core::schema::format_utc(&req.events[0].timestamp),
        "2026-11-21T09:30:00Z"
    );
}

#[test]
fn content_must_not_be_blank() {
    assert_eq!(
        violations(&with_event_field("content", Some(json!(" \n\t ")))),
        one("events[0].content", "must not be empty or only whitespace")
    );
}

#[test]
fn content_size_is_measured_after_trimming() {
    let max = "é".repeat(16 * 1024); // 32768 bytes
    let padded = format!("   {max}   ");
    let ok = validate::ingest_request(
        &with_event_field("content", Some(json!(padded))),
        &Options::default(),
    );
    assert_eq!(ok.map(|r| r.events[0].content.len()), Ok(32768));
    let over = format!("{max}a");
    assert_eq!(
        violations(&with_event_field("content", Some(json!(over)))),
        one(
            "events[0].content",
            "must be at most 32768 bytes of UTF-8 after trimming, got 32769"
        )
    );
}

#[test]
fn content_must_not_contain_nul() {
    assert_eq!(
        violations(&with_event_field("content", Some(json!("a\u{0}b")))),
        one(
            "events[0].content",
            "must not contain NUL characters (U+0000)"
        )
    );
}

#[test]
fn ids_must_not_be_empty() {
    assert_eq!(
        violations(&with_event_field("actor_id", Some(json!("")))),
        one("events[0].actor_id", "must not be empty")
    );
}

#[test]
fn ids_are_at_most_256_characters() {
    let ok = "ü".repeat(256);
    assert!(
        validate::ingest_request(
            &with_event_field("conversation_id", Some(json!(ok))),
            &Options::default()
        )
        .is_ok()
    );
    assert_eq!(
        violations(&json!({"deployment_id": "d".repeat(257), "events": [event()]})),
        one("deployment_id", "must be at most 256 characters, got 257")
    );
}

#[test]
fn ids_reject_control_characters() {
    assert_eq!(
        violations(&with_event_field(
            "conversation_id",
            Some(json!("abc\ndef"))
        )),
        one(
            "events[0].conversation_id",
            "must not contain control characters (found U+000A at character 4)"
        )
    );
}

#[test]
fn context_follows_the_id_rules() {
    assert_eq!(
        violations(&with_event_field("context", Some(json!("x".repeat(300))))),
        one(
            "events[0].context",
            "must be at most 256 characters, got 300"
        )
    );
}

#[test]
fn metadata_must_be_an_object() {
    assert_eq!(
        violations(&with_event_field("metadata", Some(json!([1])))),
        one("events[0].metadata", "must be a JSON object, got array")
    );
}

#[test]
fn metadata_is_at_most_16_kib() {
    // {"k":"…"} is 8 bytes of framing around the string.
    let fits = json!({"k": "x".repeat(16384 - 8)});
    assert!(
        validate::ingest_request(
            &with_event_field("metadata", Some(fits)),
            &Options::default()
        )
        .is_ok()
    );
    let over = json!({"k": "x".repeat(16384 - 7)});
    assert_eq!(
        violations(&with_event_field("metadata", Some(over))),
        one(
            "events[0].metadata",
            "must be at most 16384 bytes as compact JSON, got 16385"
        )
    );
}

#[test]
fn metadata_is_at_most_8_levels_deep() {
    let mut eight = json!({});
    for _ in 0..7 {
        eight = json!({ "a": eight });
    }
    assert!(
        validate::ingest_request(
            &with_event_field("metadata", Some(eight.clone())),
            &Options::default()
        )
        .is_ok()
    );
    let nine = json!({ "a": eight });
    assert_eq!(
        violations(&with_event_field("metadata", Some(nine))),
        one(
            "events[0].metadata",
            "must be nested at most 8 levels deep, got 9"
        )
    );
}

#[test]
fn metadata_conversation_id_must_be_string_or_integer() {
    assert_eq!(
        violations(&with_event_field(
            "metadata",
            Some(json!({"conversation_id": 1.5}))
        )),
        one(
            "events[0].metadata.conversation_id",
            "must be a string or an integer, got number"
        )
    );
    // Written as a float, a whole number is not an integer.
    for id in ["42.0", "1e3"] {
        let body = format!(
            r#"{{"deployment_id": "d", "events": [{{"actor_id": "u", "content": "hi",
            "timestamp": "2026-11-21T09:00:00Z", "metadata": {{"conversation_id": {id}}}}}]}}"#
        );
        let e = validate::ingest_request_bytes(body.as_bytes(), &Default::default()).unwrap_err();
        assert_eq!(
            e.violations()[0].message,
            "must be a string or an integer, got number",
            "{id}"
        );
    }
    // A whole number past 64 bits is not an integer to the reader: said so.
    let body = r#"{"deployment_id": "d", "events": [{"actor_id": "u", "content": "hi",
        "timestamp": "2026-11-21T09:00:00Z",
        "metadata": {"conversation_id": 99999999999999999999}}]}"#;
    let e = validate::ingest_request_bytes(body.as_bytes(), &Default::default()).unwrap_err();
    assert_eq!(
        e.violations()
            .iter()
            .map(|v| (v.path.as_str(), v.message.as_str()))
            .collect::<Vec<_>>(),
        [(
            "events[0].metadata.conversation_id",
            "must be a string or an integer from -9223372036854775808 to \
             18446744073709551615, got a whole number outside that range; send a longer id \
             as a string"
        )]
    );
}

#[test]
fn unknown_top_level_fields_are_rejected() {
    let mut body = request_with(vec![event()]);
    body["priority"] = json!("high");
    assert_eq!(
        violations(&body),
        one(
            "priority",
            "unknown field; allowed fields are deployment_id, events, pipeline, webhook_url"
        )
    );
}

#[test]
fn an_idempotency_key_in_the_body_is_pointed_to_the_header() {
    let allowed = "unknown field; allowed fields are deployment_id, events, pipeline, webhook_url";
    let hint = " (an idempotency key is not a body field: send it as the Idempotency-Key \
                header, or as the idempotency_key argument of an MCP tool)";
    for key in [
        "idempotency_key",
        "Idempotency-Key",
        "idempotencyKey",
        "idempotency_kye",
    ] {
        let mut body = request_with(vec![event()]);
        body[key] = json!("k-1");
        assert_eq!(
            violations(&body),
            one(key, &format!("{allowed}{hint}")),
            "{key}"
        );
    }
    // Only a name that starts as the key's does: the rest are unknown fields, no more.
    // "idempo\u{e9}x": the seventh byte is inside "é", so no seven-letter start to
    // compare (its path is quoted: not an identifier).
    for (key, path) in [
        ("idem", "idem"),
        ("key", "key"),
        ("x_idempotency_key", "x_idempotency_key"),
        ("idempo\u{e9}x", "[\"idempo\u{e9}x\"]"),
    ] {
        let mut body = request_with(vec![event()]);
        body[key] = json!("k-1");
        assert_eq!(violations(&body), one(path, allowed), "{key}");
    }
}

#[test]
fn unknown_event_fields_are_rejected() {
    assert_eq!(
        violations(&with_event_field("role", Some(json!("user")))),
        one(
            "events[0].role",
            "unknown field; allowed fields are actor_id, content, timestamp, context, metadata, conversation_id (put extra data in metadata)"
        )
    );
}

#[test]
fn pipeline_must_be_known() {
    let mut body = request_with(vec![event()]);
    body["pipeline"] = json!("chat");
    assert_eq!(
        violations(&body),
        one(
            "pipeline",
            "must be one of auto, support, reviews; got \"chat\""
        )
    );
}

#[test]
fn webhook_url_must_be_https() {
    let mut body = request_with(vec![event()]);
    body["webhook_url"] = json!("http://hooks.example.com/x");
    assert_eq!(
        violations(&body),
        one(
            "webhook_url",
            "must be an absolute https URL; got scheme \"http\""
        )
    );
    let allowed = validate::ingest_request(
        &body,
        &Options {
            allow_private_webhooks: true,
            ..Options::default()
        },
    );
    assert!(allowed.is_ok());
}

#[test]
fn webhook_url_must_not_point_inside() {
    for (url, host) in [
        ("https://10.0.0.7/hook", "10.0.0.7"),
        ("https://[::ffff:127.0.0.1]/hook", "[::ffff:7f00:1]"),
        ("https://169.254.169.254/latest", "169.254.169.254"),
        ("https://LocalHost./hook", "localhost."),
        ("https://api.localhost/hook", "api.localhost"),
    ] {
        let mut body = request_with(vec![event()]);
        body["webhook_url"] = json!(url);
        assert_eq!(
            violations(&body),
            one(
                "webhook_url",
                &format!(
                    "must point to a public address; {host} is private, loopback, link-local or reserved"
                )
            ),
            "{url}"
        );
        let allowed = validate::ingest_request(
            &body,
            &Options {
                allow_private_webhooks: true,
                ..Options::default()
            },
        );
        assert!(allowed.is_ok(), "{url} with allow_private_webhooks");
    }
    let mut body = request_with(vec![event()]);
    body["webhook_url"] = json!("https://93.184.215.14/hook");
    assert!(validate::ingest_request(&body, &Options::default()).is_ok());
}

#[test]
fn webhook_url_must_parse() {
    let mut body = request_with(vec![event()]);
    body["webhook_url"] = json!("hooks.example.com/x");
    assert_eq!(
        violations(&body),
        one(
            "webhook_url",
            "must be an absolute https URL; \"hooks.example.com/x\" is not a URL (relative URL without a base)"
        )
    );
}

#[test]
fn webhook_url_must_not_carry_credentials() {
    let mut body = request_with(vec![event()]);
    body["webhook_url"] = json!("https://user:pw@hooks.example.com/x");
    assert_eq!(
        violations(&body),
        one("webhook_url", "must not carry a user name or password")
    );
}

#[test]
fn webhook_url_is_stored_as_it_is_called() {
    // The part after `#` is never sent with a request: it is not stored.
    for (given, stored) in [
        (
            "https://hooks.example.com/x#part",
            "https://hooks.example.com/x",
        ),
        (
            "https://hooks.example.com/x?a=1#",
            "https://hooks.example.com/x?a=1",
        ),
        (
            "https://Hooks.Example.com:443#top",
            "https://hooks.example.com/",
        ),
    ] {
        assert_eq!(
            validate::webhook_url(given, &Options::default()).as_deref(),
            Ok(stored),
            "{given}"
        );
        let mut body = request_with(vec![event()]);
        body["webhook_url"] = json!(given);
        let request = validate::ingest_request(&body, &Options::default()).expect("valid");
        assert_eq!(request.webhook_url.as_deref(), Some(stored), "{given}");
    }
    // An IPv4-translated address (::ffff:0:a.b.c.d) is judged by its IPv4 part.
    let mut body = request_with(vec![event()]);
    body["webhook_url"] = json!("https://[::ffff:0:7f00:1]/x");
    assert_eq!(
        violations(&body),
        one(
            "webhook_url",
            "must point to a public address; [::ffff:0:7f00:1] is private, loopback, link-local or reserved"
        )
    );
}

#[test]
fn webhook_url_must_write_its_host_and_a_real_port() {
    let cases = [
        (
            "https:///hooks.example.com/x",
            "must be an absolute https URL with a host, written `https://host/…`",
        ),
        (
            "https:\\\\hooks.example.com\\x",
            "must be an absolute https URL with a host, written `https://host/…`",
        ),
        (
            "https:hooks.example.com/x",
            "must be an absolute https URL with a host, written `https://host/…`",
        ),
        ("https://hooks.example.com:0/x", "must not use port 0"),
    ];
    for (url, message) in cases {
        let mut body = request_with(vec![event()]);
        body["webhook_url"] = json!(url);
        assert_eq!(violations(&body), one("webhook_url", message), "{url}");
    }
    // Written out in full, with any port but 0 and in any letter case, they pass.
    for url in [
        "https://hooks.example.com:8443/x",
        "HTTPS://Hooks.Example.com/x",
        " https://hooks.example.com/x ",
    ] {
        let mut body = request_with(vec![event()]);
        body["webhook_url"] = json!(url);
        assert!(
            validate::ingest_request(&body, &Options::default()).is_ok(),
            "{url}"
        );
    }
}

#[test]
fn webhook_url_is_at_most_2048_characters() {
    let mut body = request_with(vec![event()]);
    body["webhook_url"] = json!(format!("https://h.example.com/{}", "a".repeat(2048)));
    assert_eq!(
        violations(&body),
        one("webhook_url", "must be at most 2048 characters, got 2070")
    );
}

#[test]
fn five_different_violations_are_all_reported_in_order() {
    let mut bad_ts = event();
    bad_ts["timestamp"] = json!("2026-13-01T00:00:00Z");
    let mut no_actor = event();
    no_actor.as_object_mut().map(|o| o.remove("actor_id"));
    let mut blank = event();
    blank["content"] = json!("   ");
    let body = json!({
        "deployment_id": "",
        "events": [event(), bad_ts, no_actor, blank],
        "pipeline": "fast",
        "extra": true
    });
    assert_eq!(
        violations(&body),
        vec![
            (
                "extra".to_owned(),
                "unknown field; allowed fields are deployment_id, events, pipeline, webhook_url"
                    .to_owned()
            ),
            ("deployment_id".to_owned(), "must not be empty".to_owned()),
            (
                "pipeline".to_owned(),
                "must be one of auto, support, reviews; got \"fast\"".to_owned()
            ),
            (
                "events[1].timestamp".to_owned(),
                "\"2026-13-01T00:00:00Z\" is not a real date and time".to_owned()
            ),
            ("events[2].actor_id".to_owned(), "is required".to_owned()),
            (
                "events[3].content".to_owned(),
                "must not be empty or only whitespace".to_owned()
            ),
        ]
    );
}

#[test]
fn error_envelope_lists_every_violation() {
    let err =
        validate::ingest_request(&json!({"events": []}), &Options::default()).expect_err("invalid");
    assert_eq!(
        err.to_envelope(),
        json!({"error": {
            "code": "VALIDATION_ERROR",
            "message": "2 problems in the input; first: deployment_id: is required (and 1 more)",
            "details": [
                {"path": "deployment_id", "message": "is required"},
                {"path": "events", "message": "must hold 1 to 5000 events, got 0"}
            ]
        }})
    );
}

mod body;
mod drift;
mod json_lines;

#[test]
fn leap_second_is_only_real_at_the_end_of_a_utc_day() {
    let ok = validate::ingest_request(
        &with_event_field("timestamp", Some(json!("2016-12-31T23:59:60Z"))),
        &Options::default(),
    );
    assert!(ok.is_ok());
    assert_eq!(
        violations(&with_event_field(
            "timestamp",
            Some(json!("2026-06-30T12:00:60Z"))
        )),
        one(
            "events[0].timestamp",
            "\"2026-06-30T12:00:60Z\" is not a real date and time"
        )
    );
}

#[test]
fn timestamps_must_stay_within_years_0000_to_9999_in_utc() {
    assert_eq!(
        violations(&with_event_field(
            "timestamp",
            Some(json!("9999-12-31T23:59:59-01:00"))
        )),
        one(
            "events[0].timestamp",
            "\"9999-12-31T23:59:59-01:00\" falls outside the years 0000 to 9999 in UTC"
        )
    );
    // A leap second ending year 9999 would be read as the first second of 10000.
    for text in [
        "9999-12-31T23:59:60Z",
        "9999-12-31T23:59:60.5Z",
        "9999-12-31T22:59:60-01:00",
    ] {
        assert_eq!(
            violations(&with_event_field("timestamp", Some(json!(text)))),
            one(
                "events[0].timestamp",
                &format!("\"{text}\" falls outside the years 0000 to 9999 in UTC")
            ),
        );
    }
    for text in ["9999-12-31T23:59:59.999999999Z", "9998-12-31T23:59:60Z"] {
        let request = validate::ingest_request(
            &with_event_field("timestamp", Some(json!(text))),
            &Options::default(),
        );
        assert!(request.is_ok(), "{text}: {request:?}");
    }
}

#[test]
fn conversation_ids_must_not_use_the_auto_prefix() {
    let message =
        "must not start with \"auto:\", which marks conversations Undertone groups itself";
    assert_eq!(
        violations(&with_event_field("conversation_id", Some(json!("auto:x")))),
        one("events[0].conversation_id", message)
    );
    assert_eq!(
        violations(&with_event_field(
            "metadata",
            Some(json!({"conversation_id": "auto:x"}))
        )),
        one("events[0].metadata.conversation_id", message)
    );
}

#[test]
fn odd_field_names_are_quoted_in_paths() {
    assert_eq!(
        violations(&with_event_field("a.b\u{1b}[31m", Some(json!(1))))[0].0,
        "events[0][\"a.b\\u{1b}[31m\"]"
    );
}

#[test]
fn listed_violations_are_capped() {
    // Each `{}` event lacks three fields: 3003 violations in all.
    let body = request_with(vec![json!({}); 1001]);
    let got = violations(&body);
    assert_eq!(got.len(), validate::MAX_LISTED_VIOLATIONS + 1);
    assert_eq!(
        got[0],
        ("events[0].actor_id".to_owned(), "is required".to_owned())
    );
    assert_eq!(
        got[validate::MAX_LISTED_VIOLATIONS],
        (
            "body".to_owned(),
            "2003 more problems not listed (at most 1000 are)".to_owned()
        )
    );
    // The summary counts the problems, not the entries: the last one is a count.
    let err = validate::ingest_request_bytes(body.to_string().as_bytes(), &Options::default())
        .expect_err("invalid");
    assert_eq!(
        err.to_string(),
        "3003 problems in the input; first: events[0].actor_id: is required (and 3002 more)"
    );
}

#[test]
fn too_many_events_are_not_checked_one_by_one() {
    assert_eq!(
        violations(&request_with(vec![json!({}); 6000])),
        one("events", "must hold 1 to 5000 events, got 6000")
    );
}

#[test]
fn unlimited_lifts_only_the_event_count_limit() {
    let body = request_with(vec![event(); 5001]);
    assert_eq!(
        violations(&body)[0].0,
        "events",
        "5001 events break the API limit"
    );
    let unlimited = Options {
        unlimited: true,
        ..Options::default()
    };
    let request = validate::ingest_request(&body, &unlimited).expect("no count limit");
    assert_eq!(request.events.len(), 5001);
    let mut bad = request_with(vec![event(); 5001]);
    bad["events"][5000]["content"] = json!("");
    let err = validate::ingest_request(&bad, &unlimited).unwrap_err();
    assert_eq!(err.violations()[0].path, "events[5000].content");
}
