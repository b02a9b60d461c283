//! `GET /api/v1/intelligence/{id}`: a session before and after its job runs, full and
//! condensed, compared with what `undertone-core` computes for the same request.

use axum::http::StatusCode;
use serde_json::{Value, json};
use undertone_core::{score, validate};
use undertone_http::keys::Scope;
use undertone_http::limits::Plan;

use super::{NOW_TEXT, ORG, Service, assert_error, refund, unknown_id};

/// What core makes of `request`: the session result, as the service stores it.
fn scored(request: &Value) -> score::SessionIntelligence {
    let bytes = serde_json::to_vec(request).expect("serialisable");
    let options = validate::Options {
        allow_private_webhooks: true,
        unlimited: false,
        repeated_keys: false,
    };
    let request = validate::ingest_request_bytes(&bytes, &options).expect("valid request");
    score::score(&request)
}

/// A serialisable value as JSON text read back, as a client sees it.
fn as_json(value: &impl serde::Serialize) -> Value {
    serde_json::from_str(&serde_json::to_string(value).expect("serialisable")).expect("JSON")
}

#[tokio::test]
async fn a_session_is_received_until_a_worker_completes_it() {
    let svc = Service::new().await;
    let request = refund();
    let id = svc.ingest(&request).await;
    let path = format!("/api/v1/intelligence/{id}");

    let before = svc.get(&path).await;
    assert_eq!(before.status, StatusCode::OK, "{before:?}");
    assert_eq!(before.header("content-type"), Some("application/json"));
    assert_eq!(
        before.json(),
        json!({
            "session_id": id,
            "status": "received",
            "event_count": 20,
            "environment_type": null,
            "created_at": NOW_TEXT,
            "completed_at": null,
            "plain_summary": null,
            "plain_recommendations": null,
            "full_output": null,
            "error": null,
        })
    );

    svc.advance(2);
    assert!(svc.run_one().await);
    assert!(!svc.run_one().await, "one job was queued");

    let expected = scored(&request);
    let i = &expected.intelligence;
    let after = svc.get(&path).await;
    assert_eq!(after.status, StatusCode::OK, "{after:?}");
    let body = after.json();
    assert_eq!(
        body,
        json!({
            "session_id": id,
            "status": "complete",
            "event_count": 20,
            "environment_type": as_json(&i.archetype),
            "created_at": NOW_TEXT,
            "completed_at": "2026-11-18T11:06:42.000Z",
            "plain_summary": i.plain_summary,
            "plain_recommendations": i.plain_recommendations,
            "full_output": as_json(&expected),
            "error": null,
        })
    );
    // The fields the contract names, spelled out.
    assert_eq!(body["full_output"]["pipeline"], json!("support"));
    assert_eq!(
        body["full_output"]["intelligence"]["scorer_version"],
        json!(score::SCORER_VERSION)
    );
    assert_eq!(body["environment_type"], json!("cx_chatbot"));
    assert!(!i.plain_summary.is_empty());
    assert!(!i.plain_recommendations.is_empty());
}

#[tokio::test]
async fn view_full_is_the_default_view() {
    let svc = Service::new().await;
    let id = svc.ingest(&refund()).await;
    assert!(svc.run_one().await);
    let default = svc.get(&format!("/api/v1/intelligence/{id}")).await;
    let full = svc
        .get(&format!("/api/v1/intelligence/{id}?view=full"))
        .await;
    assert_eq!(full.status, StatusCode::OK, "{full:?}");
    assert_eq!(full.body, default.body);
}

#[tokio::test]
async fn the_condensed_view_is_null_until_complete_then_matches_core() {
    let svc = Service::new().await;
    let request = refund();
    let id = svc.ingest(&request).await;
    let path = format!("/api/v1/intelligence/{id}?view=condensed");

    let before = svc.get(&path).await;
    assert_eq!(before.status, StatusCode::OK, "{before:?}");
    assert_eq!(
        before.json(),
        json!({
            "session_id": id,
            "status": "received",
            "archetype": null,
            "layer_z": null,
            "key_finding": null,
            "falsifiable": null,
            "recommendation": null,
        })
    );

    assert!(svc.run_one().await);
    let expected = scored(&request);
    let i = &expected.intelligence;
    let after = svc.get(&path).await;
    assert_eq!(after.status, StatusCode::OK, "{after:?}");
    assert_eq!(after.header("content-type"), Some("application/json"));
    let body = after.json();
    assert_eq!(
        body,
        json!({
            "session_id": id,
            "status": "complete",
            "archetype": as_json(&i.archetype),
            "layer_z": as_json(&i.layer_z),
            "key_finding": i.key_finding,
            "falsifiable": i.falsifiable,
            "recommendation": i.recommendation,
        })
    );
    assert_eq!(
        body,
        {
            let mut condensed = as_json(&expected.condensed(Some(&id)));
            condensed["status"] = json!("complete");
            condensed
        },
        "the condensed view is core's, with the status"
    );
    let dims: Vec<&String> = body["layer_z"]
        .as_object()
        .expect("layer_z maps dimensions")
        .keys()
        .collect();
    for dim in [
        "trust_calibration",
        "frustration_buildup",
        "dependency_drift",
    ] {
        assert!(dims.iter().any(|d| *d == dim), "{dim} not in {dims:?}");
    }
}

#[tokio::test]
async fn an_unknown_view_is_a_validation_error() {
    let svc = Service::new().await;
    let id = svc.ingest(&refund()).await;
    let reply = svc
        .get(&format!("/api/v1/intelligence/{id}?view=summary"))
        .await;
    assert_error(
        &reply,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
        "view: must be `full` or `condensed`, got `summary`",
    );
}

#[tokio::test]
async fn any_key_of_the_org_reads_its_sessions_and_no_other_org_does() {
    let svc = Service::new().await;
    let id = svc.ingest(&refund()).await;
    assert!(svc.run_one().await);
    let path = format!("/api/v1/intelligence/{id}");
    let own = svc.get(&path).await;
    assert_eq!(own.status, StatusCode::OK);

    let (_, same_org) = svc.issue(ORG, Scope::ReadOnly, Plan::default()).await;
    let colleague = svc.get_as(&path, Some(&same_org)).await;
    assert_eq!(colleague.status, StatusCode::OK, "{colleague:?}");
    assert_eq!(colleague.body, own.body);

    let (_, other_org) = svc.issue("org-b", Scope::ReadWrite, Plan::default()).await;
    for path in [path.clone(), format!("{path}?view=condensed")] {
        let stranger = svc.get_as(&path, Some(&other_org)).await;
        assert_error(
            &stranger,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            "session not found",
        );
        // Indistinguishable from a session that does not exist.
        let unknown = svc
            .get_as(
                &format!("/api/v1/intelligence/{}", unknown_id()),
                Some(&other_org),
            )
            .await;
        assert_eq!(stranger.body, unknown.body);
    }
}

#[tokio::test]
async fn with_retention_a_session_older_than_the_window_is_deleted() {
    let svc = Service::new().await;
    let old = svc.ingest(&refund()).await;
    assert!(svc.run_one().await);
    svc.advance(10 * 86_400);
    let recent = svc.ingest(&refund()).await;
    assert!(svc.run_one().await);
    // Nothing is deleted by default; with 7 days kept, the 10-day-old session goes.
    let purged = undertone_http::retention::sweep(&svc.state, 7)
        .await
        .expect("the store answers");
    assert_eq!(purged.sessions, 1);
    let gone = svc.get(&format!("/api/v1/intelligence/{old}")).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND, "{gone:?}");
    let kept = svc.get(&format!("/api/v1/intelligence/{recent}")).await;
    assert_eq!(kept.status, StatusCode::OK, "{kept:?}");
    assert_eq!(kept.json()["status"], "complete");
}
