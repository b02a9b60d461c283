//! Drift request rules.

use super::*;

fn period(n: usize) -> Value {
    json!({"label": "v1", "events": vec![event(); n]})
}

fn drift_violations(body: &Value) -> Vec<(String, String)> {
    validate::drift_request(body)
        .expect_err("invalid")
        .violations()
        .iter()
        .map(|v| (v.path.clone(), v.message.clone()))
        .collect()
}

#[test]
fn valid_drift_request_defaults_labels() {
    let body = json!({"before": {"events": vec![event(); 5]}, "after": period(2000),
                      "question": "  Did v2 frustrate users more? "});
    let req = validate::drift_request(&body).expect("valid");
    assert_eq!(req.before.label, "before");
    assert_eq!(req.after.label, "v1");
    assert_eq!(
        req.question.as_deref(),
        Some("Did v2 frustrate users more?")
    );
}

#[test]
fn each_period_holds_5_to_2000_events() {
    let body = json!({"before": period(4), "after": period(2001)});
    assert_eq!(
        drift_violations(&body),
        vec![
            (
                "before.events".to_owned(),
                "must hold 5 to 2000 events, got 4".to_owned()
            ),
            (
                "after.events".to_owned(),
                "must hold 5 to 2000 events, got 2001".to_owned()
            ),
        ]
    );
}

#[test]
fn periods_are_required_and_event_paths_are_nested() {
    let mut p = period(5);
    p["events"][2]["timestamp"] = json!("noon");
    let body = json!({"after": p, "before_label": "v1"});
    assert_eq!(
        drift_violations(&body),
        vec![
            (
                "before_label".to_owned(),
                "unknown field; allowed fields are before, after, question, deployment_id (put the label in before.label)".to_owned()
            ),
            ("before".to_owned(), "is required".to_owned()),
            (
                "after.events[2].timestamp".to_owned(),
                "must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got \"noon\"".to_owned()
            ),
        ]
    );
}

#[test]
fn an_idempotency_key_in_a_drift_body_is_pointed_to_the_header() {
    let body = json!({"before": period(5), "after": period(5), "Idempotency-Key": "k-1"});
    assert_eq!(
        drift_violations(&body),
        vec![(
            "Idempotency-Key".to_owned(),
            "unknown field; allowed fields are before, after, question, deployment_id \
             (an idempotency key is not a body field: send it as the Idempotency-Key \
             header, or as the idempotency_key argument of an MCP tool)"
                .to_owned()
        )]
    );
}

#[test]
fn question_must_not_be_blank() {
    let body = json!({"before": period(5), "after": period(5), "question": " "});
    assert_eq!(
        drift_violations(&body),
        vec![(
            "question".to_owned(),
            "must be 1 to 2000 characters after trimming, got 0".to_owned()
        )]
    );
}

#[test]
fn drift_body_and_periods_must_be_objects() {
    assert_eq!(
        drift_violations(&json!("x")),
        vec![(
            "body".to_owned(),
            "must be a JSON object with before and after, got string".to_owned()
        )]
    );
    assert_eq!(
        drift_violations(&json!({"before": [], "after": period(5)})),
        vec![(
            "before".to_owned(),
            "must be an object with label and events, got array".to_owned()
        )]
    );
}

#[test]
fn periods_reject_unknown_fields_and_bad_labels() {
    let mut before = period(5);
    before["name"] = json!("v1");
    before["label"] = json!("");
    let mut after = period(5);
    after["label"] = json!(3);
    assert_eq!(
        drift_violations(&json!({"before": before, "after": after})),
        vec![
            (
                "before.name".to_owned(),
                "unknown field; allowed fields are label, events".to_owned()
            ),
            ("before.label".to_owned(), "must not be empty".to_owned()),
            (
                "after.label".to_owned(),
                "must be a string, got number".to_owned()
            ),
        ]
    );
}

#[test]
fn question_is_at_most_2000_characters() {
    let body = json!({"before": period(5), "after": period(5), "question": "q".repeat(2001)});
    assert_eq!(
        drift_violations(&body),
        vec![(
            "question".to_owned(),
            "must be 1 to 2000 characters after trimming, got 2001".to_owned()
        )]
    );
}
