//! `POST /api/v1/drift` and `GET /api/v1/drift/{id}`: accepted, received, complete,
//! with the numbers `undertone-core` computes for the same two periods.

use axum::http::StatusCode;
use serde_json::{Value, json};
use undertone_core::{drift, validate};

use super::{
    HOUR_END, NOW_TEXT, Service, assert_error_with, assert_json_close, assert_quota, drift_body,
    session_id,
};

/// The six dimensions every result compares.
const DIMENSIONS: [&str; 6] = [
    "trust_calibration",
    "frustration_buildup",
    "dependency_drift",
    "silent_abandonment_risk",
    "escalation_friction",
    "comprehension_gap",
];

/// Core's drift result for `request`, as JSON text read back.
fn compared(request: &Value) -> Value {
    let bytes = serde_json::to_vec(request).expect("serialisable");
    let request = validate::drift_request_bytes(&bytes).expect("valid drift request");
    let text = serde_json::to_string(&drift::drift(&request)).expect("serialisable");
    serde_json::from_str(&text).expect("JSON")
}

#[tokio::test]
async fn an_accepted_drift_answers_202_with_the_session_and_where_to_poll() {
    let svc = Service::new().await;
    let reply = svc.post("/api/v1/drift", &drift_body()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let id = session_id(&reply);
    let poll_url = format!("/api/v1/drift/{id}");
    assert_eq!(
        reply.json(),
        json!({"session_id": id, "status": "received", "poll_url": poll_url})
    );
    assert_eq!(reply.header("location"), Some(poll_url.as_str()));
    // The drift window (10 per hour) is the most constrained one.
    assert_quota(&reply, 10, 9, HOUR_END);
    assert_eq!(svc.queue_depth().await, 1);
}

#[tokio::test]
async fn a_drift_session_is_received_until_a_worker_completes_it() {
    let svc = Service::new().await;
    let request = drift_body();
    let id = svc.drift(&request).await;
    let path = format!("/api/v1/drift/{id}");

    let before = svc.get(&path).await;
    assert_eq!(before.status, StatusCode::OK, "{before:?}");
    assert_eq!(
        before.json(),
        json!({
            "session_id": id,
            "status": "received",
            "created_at": NOW_TEXT,
            "completed_at": null,
            "error": null,
            "before_label": "v1",
            "after_label": "v2",
            "question": "Did v2 make refunds worse?",
            "event_count": 290,
            "scorer_version": null,
            "overall_drift": null,
            "direction": null,
            "plain_summary": null,
            "plain_recommendations": null,
            "key_findings": null,
            "dimension_drifts": null,
            "before": null,
            "after": null,
            "outcome_shift": null,
        })
    );

    svc.advance(3);
    assert!(svc.run_one().await);

    let after = svc.get(&path).await;
    assert_eq!(after.status, StatusCode::OK, "{after:?}");
    let body = after.json();
    let core = compared(&request);
    let expected = json!({
        "session_id": id,
        "status": "complete",
        "created_at": NOW_TEXT,
        "completed_at": "2026-11-18T11:06:43.000Z",
        "error": null,
        "before_label": "v1",
        "after_label": "v2",
        "question": "Did v2 make refunds worse?",
        "event_count": 290,
        "scorer_version": core["scorer_version"],
        "overall_drift": core["overall_drift"],
        "direction": core["direction"],
        "plain_summary": core["plain_summary"],
        "plain_recommendations": core["plain_recommendations"],
        "key_findings": core["key_findings"],
        "dimension_drifts": core["dimension_drifts"],
        "before": core["before"],
        "after": core["after"],
        "outcome_shift": core["outcome_shift"],
    });
    assert_json_close(&body, &expected, "drift");

    // The contract's guarantees, spelled out.
    let overall = body["overall_drift"]
        .as_f64()
        .expect("overall_drift is a number");
    assert!((0.0..=1.0).contains(&overall), "overall_drift {overall}");
    let direction = body["direction"].as_str().expect("direction is text");
    assert!(
        ["improved", "regressed", "mixed", "stable"].contains(&direction),
        "direction {direction}"
    );
    let drifts = body["dimension_drifts"]
        .as_object()
        .expect("dimension_drifts maps dimensions");
    let mut names: Vec<&str> = drifts.keys().map(String::as_str).collect();
    names.sort_unstable();
    let mut six = DIMENSIONS.to_vec();
    six.sort_unstable();
    assert_eq!(names, six);
    for dim in DIMENSIONS {
        let d = &drifts[dim];
        let p = d["p_value"]
            .as_f64()
            .unwrap_or_else(|| panic!("{dim}: {d}"));
        assert!((0.0..=1.0).contains(&p), "{dim}: p_value {p}");
        let verdict = d["verdict"].as_str().expect("verdict is text");
        assert!(
            ["improved", "regressed", "unchanged"].contains(&verdict),
            "{dim}: verdict {verdict}"
        );
    }
}

#[tokio::test]
async fn question_is_optional() {
    let svc = Service::new().await;
    let mut request = drift_body();
    request.as_object_mut().expect("object").remove("question");
    let id = svc.drift(&request).await;
    let reply = svc.get(&format!("/api/v1/drift/{id}")).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.json()["question"], Value::Null);
}

#[tokio::test]
async fn a_period_of_fewer_than_5_events_is_a_validation_error() {
    let svc = Service::new().await;
    let mut request = drift_body();
    let four: Vec<Value> = request["after"]["events"]
        .as_array()
        .expect("events")
        .iter()
        .take(4)
        .cloned()
        .collect();
    request["after"]["events"] = Value::Array(four);
    let reply = svc.post("/api/v1/drift", &request).await;
    assert_error_with(
        &reply,
        StatusCode::BAD_REQUEST,
        json!({
            "code": "VALIDATION_ERROR",
            "message": "after.events: must hold 5 to 2000 events, got 4",
            "details": [{"path": "after.events", "message": "must hold 5 to 2000 events, got 4"}],
        }),
    );
    assert_eq!(svc.queue_depth().await, 0);
}
