//! `POST /webhooks/{id}/test`: a `webhook.test` event queued for that webhook only,
//! whatever it subscribes to.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::fire_test;
use crate::webhooks::events::{NOW_TEXT, ORG, Svc, keys_of, sorted};

#[tokio::test]
async fn a_test_event_is_queued_for_that_webhook_only() {
    let svc = Svc::new().await;
    // Subscribed to something else entirely: a test goes to it anyway.
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let sibling = svc.register(&["outcome_shift_detected"]).await;
    let reply = svc
        .post(&format!("/api/v1/webhooks/{hook}/test"), None)
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    let deliveries_url = format!("/api/v1/webhooks/{hook}/deliveries");
    assert_eq!(reply.header("location"), Some(deliveries_url.as_str()));
    let queued = reply.json();
    assert_eq!(
        keys_of(&queued),
        sorted(&["event_id", "event_type", "deliveries_url"])
    );
    assert_eq!(queued["event_type"], "webhook.test");
    assert_eq!(queued["deliveries_url"], deliveries_url.as_str());
    let event_id = queued["event_id"].as_str().expect("event_id");
    assert!(uuid::Uuid::parse_str(event_id).is_ok(), "{event_id}");

    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), 1);
    let d = &listed[0];
    assert!(
        d["id"]
            .as_str()
            .is_some_and(|s| uuid::Uuid::parse_str(s).is_ok()),
        "{d}"
    );
    assert_ne!(d["id"], queued["event_id"]);
    assert_eq!(
        *d,
        json!({
            "id": d["id"],
            "event_id": event_id,
            "event_type": "webhook.test",
            "status": "pending",
            "attempts": 0,
            "response_status": null,
            "error": null,
            "created_at": NOW_TEXT,
            "last_attempt_at": null,
            "next_attempt_at": NOW_TEXT,
            "completed_at": null,
            "attempt_log": [],
        })
    );
    assert_eq!(svc.deliveries(&sibling).await, Vec::<Value>::new());

    let envelopes = svc.envelopes("webhook.test").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(
        envelopes[0],
        json!({
            "id": event_id,
            "event_type": "webhook.test",
            "version": "webhooks-v1.0",
            "created_at": "2026-11-18T11:06:40Z",
            "org_id": ORG,
            "deployment_id": "webhook-test",
            "data": {
                "webhook_id": hook,
                "message": "This is a test event from Undertone.",
            },
        })
    );
    // Each test is a new event.
    let again = fire_test(&svc, &hook).await;
    assert_ne!(again["event_id"], queued["event_id"]);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
}
