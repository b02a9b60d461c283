//! `POST /api/v1/drift` and `GET /api/v1/drift/{id}`: accepted, received, complete,
//! with the numbers `undertone-core` computes for the same two periods.

use axum::http::StatusCode;
use serde_json::{Value, json};
use undertone_core::{drift, validate};

use super::{
    HOUR_END, NOW_TEXT, Service, assert_error, assert_error_with, assert_json_close, assert_quota,
    drift_body, session_id,
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

/// `drift-v1` and `drift-v2` ingested as two sessions of `acme-support-bot`, scored.
async fn history_of_two_weeks(svc: &Service) -> Vec<undertone_core::monitor::ConversationPoint> {
    let mut points = Vec::new();
    for name in ["drift-v1", "drift-v2"] {
        let body = super::example(name);
        svc.ingest(&body).await;
        assert!(svc.run_one().await);
        let request = validate::ingest_request_bytes(
            &serde_json::to_vec(&body).expect("serialisable"),
            &validate::Options::default(),
        )
        .expect("valid");
        let result = undertone_core::score::score(&request);
        points.extend(undertone_core::monitor::points(&request, &result));
    }
    points
}

#[tokio::test]
async fn a_drift_between_two_date_ranges_compares_the_kept_history() {
    let svc = Service::new().await;
    let points = history_of_two_weeks(&svc).await;
    let body = json!({
        "before": {"label": "week of v1", "from": "2026-11-02T00:00:00Z", "to": "2026-11-09T00:00:00Z"},
        "after": {"from": "2026-11-09T00:00:00Z", "to": "2026-11-16T00:00:00Z"},
        "question": "Did v2 make refunds worse?",
    });
    let reply = svc
        .post("/api/v1/deployments/acme-support-bot/drift", &body)
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    // It is a drift session: the drift window counts it.
    assert_quota(&reply, 10, 9, HOUR_END);
    let id = session_id(&reply);
    assert!(svc.run_one().await);
    let read = svc.get(&format!("/api/v1/drift/{id}")).await.json();

    let cut = chrono::DateTime::parse_from_rfc3339("2026-11-09T00:00:00Z").expect("time");
    let (before, after): (Vec<_>, Vec<_>) = points.into_iter().partition(|p| p.started_at < cut);
    assert!(
        before.len() >= 5 && after.len() >= 5,
        "{} {}",
        before.len(),
        after.len()
    );
    let core = undertone_core::monitor::compare_points(
        ("week of v1", &before),
        ("2026-11-09 00:00 – 2026-11-16 00:00", &after),
        Some("Did v2 make refunds worse?"),
    );
    let core: Value =
        serde_json::from_str(&serde_json::to_string(&core).expect("json")).expect("json");
    assert_eq!(read["status"], "complete", "{read}");
    assert_eq!(read["before_label"], "week of v1");
    assert_eq!(read["after_label"], "2026-11-09 00:00 – 2026-11-16 00:00");
    assert_eq!(read["event_count"], 0);
    for field in [
        "dimension_drifts",
        "before",
        "after",
        "outcome_shift",
        "key_findings",
        "plain_summary",
        "direction",
    ] {
        assert_json_close(&read[field], &core[field], field);
    }
    assert_eq!(read["before"]["conversation_count"], before.len());
    assert_eq!(read["before"]["event_count"], Value::Null);
    // The same periods given as events agree on every dimension's medians and p-values.
    let events = compared(&drift_body());
    for dim in DIMENSIONS {
        for field in ["before_median", "after_median", "p_value", "verdict"] {
            assert_json_close(
                &read["dimension_drifts"][dim][field],
                &events["dimension_drifts"][dim][field],
                &format!("{dim}.{field}"),
            );
        }
    }
}

#[tokio::test]
async fn a_date_range_drift_of_a_deployment_without_history_is_404_and_costs_no_drift() {
    let svc = Service::new().await;
    history_of_two_weeks(&svc).await;
    let body = json!({
        "before": {"from": "2026-11-02T00:00:00Z", "to": "2026-11-09T00:00:00Z"},
        "after": {"from": "2026-11-09T00:00:00Z", "to": "2026-11-16T00:00:00Z"},
    });
    // A typo in the deployment id: nothing to compare, and no drift session spent.
    let reply = svc
        .post("/api/v1/deployments/acme-suport-bot/drift", &body)
        .await;
    assert_error(
        &reply,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "deployment \"acme-suport-bot\" has no conversation history for this key's \
         organisation; GET /api/v1/deployments lists those that have",
    );
    assert_eq!(svc.queue_depth().await, 0);
    // The real one, over ranges with no conversation, is still compared (and counted).
    let empty = json!({
        "before": {"from": "2030-01-01T00:00:00Z", "to": "2030-01-08T00:00:00Z"},
        "after": {"from": "2030-01-08T00:00:00Z", "to": "2030-01-15T00:00:00Z"},
    });
    let reply = svc
        .post("/api/v1/deployments/acme-support-bot/drift", &empty)
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_quota(&reply, 10, 9, HOUR_END);
}

#[tokio::test]
async fn a_date_range_drift_refuses_bad_ranges_before_queueing() {
    let svc = Service::new().await;
    let range = |from: &str, to: &str| json!({"from": from, "to": to});
    let cases = [
        (
            json!({"before": range("2026-11-09T00:00:00Z", "2026-11-02T00:00:00Z"), "after": range("2026-11-09T00:00:00Z", "2026-11-16T00:00:00Z")}),
            "before: from must be earlier than to",
        ),
        (
            json!({"before": range("2026-11-02T00:00:00Z", "2026-11-09T00:00:00Z"), "after": range("yesterday", "2026-11-16T00:00:00Z")}),
            "after.from: must be an RFC 3339 timestamp with a UTC offset, e.g. \
             2026-11-21T09:30:00Z; got \"yesterday\"",
        ),
        (
            json!({"before": range("2026-11-02T00:00:00Z", "9999-12-31T23:59:59-05:00"), "after": range("2026-11-09T00:00:00Z", "2026-11-16T00:00:00Z")}),
            "before.to: \"9999-12-31T23:59:59-05:00\" falls outside the years 0000 to 9999 in UTC",
        ),
    ];
    for (body, message) in cases {
        let reply = svc
            .post("/api/v1/deployments/acme-support-bot/drift", &body)
            .await;
        assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message);
    }
    // A body that does not fit the request's shape names where, as core's validator
    // does, with the violation in `details`.
    let shapeless = [
        (
            json!({"before": range("2026-11-02T00:00:00Z", "2026-11-09T00:00:00Z"), "after": {"from": "2026-11-09T00:00:00Z"}}),
            "after.to",
            "is required",
        ),
        // An unknown field, in the words core uses for an ingest or drift body's.
        (
            json!({"before": range("2026-11-02T00:00:00Z", "2026-11-09T00:00:00Z"), "after": range("2026-11-09T00:00:00Z", "2026-11-16T00:00:00Z"), "idempotency_key": "k-1"}),
            "idempotency_key",
            "unknown field; allowed fields are before, after, question",
        ),
        (
            json!({"before": {"from": "2026-11-02T00:00:00Z", "to": "2026-11-09T00:00:00Z", "name": "x"}, "after": range("2026-11-09T00:00:00Z", "2026-11-16T00:00:00Z")}),
            "before.name",
            "unknown field; allowed fields are label, from, to",
        ),
        (
            json!({"before": {"from": 7, "to": "2026-11-09T00:00:00Z"}, "after": range("2026-11-09T00:00:00Z", "2026-11-16T00:00:00Z")}),
            "before.from",
            "invalid type: integer `7`, expected a string",
        ),
        (
            json!("last week"),
            "body",
            "must be a JSON object, got string",
        ),
    ];
    for (body, path, message) in shapeless {
        let reply = svc
            .post("/api/v1/deployments/acme-support-bot/drift", &body)
            .await;
        assert_error_with(
            &reply,
            StatusCode::BAD_REQUEST,
            json!({"code": "VALIDATION_ERROR", "message": format!("{path}: {message}"),
                "details": [{"path": path, "message": message}]}),
        );
    }
    // The question's rule is the drift request's, from core.
    let blank = json!({"before": range("2026-11-02T00:00:00Z", "2026-11-09T00:00:00Z"),
        "after": range("2026-11-09T00:00:00Z", "2026-11-16T00:00:00Z"), "question": "  "});
    let reply = svc
        .post("/api/v1/deployments/acme-support-bot/drift", &blank)
        .await;
    let message = "must be 1 to 2000 characters after trimming, got 0";
    assert_error_with(
        &reply,
        StatusCode::BAD_REQUEST,
        json!({"code": "VALIDATION_ERROR", "message": format!("question: {message}"),
            "details": [{"path": "question", "message": message}]}),
    );
    assert_eq!(svc.queue_depth().await, 0);
}
