//! Property tests of validation: no input panics, and valid output validates again unchanged.

use proptest::prelude::*;
use serde_json::{Value, json};
use undertone_core::validate::{self, Options};

/// Arbitrary JSON values, biased towards the shapes of real requests.
fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        Just(json!("2026-11-21T09:30:00Z")),
        Just(json!("acme-bot")),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("deployment_id".to_owned()),
                    Just("events".to_owned()),
                    Just("actor_id".to_owned()),
                    Just("content".to_owned()),
                    Just("timestamp".to_owned()),
                    Just("metadata".to_owned()),
                    Just("conversation_id".to_owned()),
                    Just("role".to_owned()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn valid_event() -> impl Strategy<Value = Value> {
    (
        "[a-z0-9:_-]{1,20}",
        "\\PC{1,40}",
        0i64..4_000_000_000,
        prop::option::of("[a-z/]{1,10}"),
        prop::option::of("[a-z0-9-]{1,10}"),
        -14i32..=14,
    )
        .prop_filter("content must not be blank", |(_, c, ..)| {
            !c.trim().is_empty()
        })
        .prop_map(|(actor, content, secs, context, conv, offset_h)| {
            let offset =
                chrono::FixedOffset::east_opt(offset_h * 3600).expect("offset within a day");
            let ts = chrono::DateTime::from_timestamp(secs, 0)
                .unwrap_or_default()
                .with_timezone(&offset)
                .to_rfc3339();
            let mut e = json!({"actor_id": actor, "content": content, "timestamp": ts});
            if let Some(c) = context {
                e["context"] = json!(c);
            }
            if let Some(c) = conv {
                e["metadata"] = json!({"conversation_id": c, "role": "user"});
            }
            e
        })
}

proptest! {
    #[test]
    fn arbitrary_json_never_panics(v in any_json()) {
        let _ = validate::ingest_request(&v, &Options::default());
        let _ = validate::drift_request(&v);
        let wrapped = json!({"deployment_id": "d", "events": [v.clone()]});
        let result = validate::ingest_request(&wrapped, &Options::default());
        if let Err(e) = result {
            prop_assert!(!e.violations().is_empty());
            prop_assert!(e.violations().iter().all(|x| !x.path.is_empty() && !x.message.is_empty()));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let r = validate::ingest_request_bytes(&bytes, &Options::default());
        prop_assert!(r.is_err() || std::str::from_utf8(&bytes).is_ok());
        let _ = validate::ingest_request_json_lines(&bytes, "d", &Options::default());
    }

    #[test]
    fn validated_requests_round_trip_through_json(events in prop::collection::vec(valid_event(), 1..20)) {
        let body = json!({"deployment_id": "acme", "events": events});
        let first = validate::ingest_request(&body, &Options::default());
        prop_assert!(first.is_ok(), "{:?}", first);
        let first = first.expect("checked above");
        let reserialised = serde_json::to_value(&first).expect("plain data serialises");
        let second = validate::ingest_request(&reserialised, &Options::default());
        prop_assert_eq!(second, Ok(first));
    }
}
