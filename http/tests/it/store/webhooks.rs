//! Webhook endpoints: listed per key and deleted once (failing their pending
//! deliveries), stopped with their key, and disabled after failing long enough.

use std::sync::Arc;

use undertone_http::store::{
    AttemptRecord, DeliveryStatus, DirectTarget, Disabled, NextStep, Store, Targets,
};

use super::deliveries::{ANOMALY, READY, anomaly, claim_all, emit};
use super::{T0, at, event, stored_key, webhook};

pub(super) async fn webhooks_are_created_listed_and_deleted(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    let k2 = stored_key(&store, "key_b").await;
    let both = webhook("wh_1", &k, &[READY, ANOMALY], 0);
    let later = webhook("wh_2", &k, &[ANOMALY], 1_000);
    let other_key = webhook("wh_3", &k2, &[READY], 500);
    for w in [&later, &both, &other_key] {
        store.create_webhook(w, 20).await.expect("create_webhook");
    }
    assert_eq!(
        store.list_webhooks(Some("key_a")).await.expect("list"),
        vec![both.clone(), later.clone()]
    );
    assert_eq!(
        store.list_webhooks(Some("key_b")).await.expect("list"),
        vec![other_key.clone()]
    );
    assert_eq!(
        store.webhook("wh_1", "key_a").await.expect("webhook"),
        Some(both.clone())
    );
    assert_eq!(store.webhook("wh_1", "key_b").await.expect("webhook"), None);
    assert_eq!(store.webhook("wh_9", "key_a").await.expect("webhook"), None);

    // A pending delivery for each READY subscriber of the organisation.
    let first = event("ev_1", READY, "dep_1", Targets::Subscribers(None), 2_000);
    assert_eq!(emit(&store, &[first], 2_000).await, 2);

    assert!(
        !store
            .delete_webhook("wh_1", Some("key_b"), at(3_000))
            .await
            .expect("delete"),
        "another key's endpoint is not deleted"
    );
    assert!(
        store
            .delete_webhook("wh_1", Some("key_a"), at(3_000))
            .await
            .expect("delete")
    );
    assert!(
        !store
            .delete_webhook("wh_1", Some("key_a"), at(4_000))
            .await
            .expect("delete")
    );
    assert_eq!(
        store.list_webhooks(Some("key_a")).await.expect("list"),
        vec![later]
    );
    assert_eq!(store.webhook("wh_1", "key_a").await.expect("webhook"), None);

    // Its pending delivery failed when it was deleted; the other endpoint's did not.
    let gone = store
        .deliveries("wh_1", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(gone.len(), 1);
    assert_eq!(
        (
            gone[0].status,
            gone[0].error.as_deref(),
            gone[0].completed_at,
            gone[0].next_attempt_at
        ),
        (
            DeliveryStatus::Failed,
            Some("the webhook was deleted"),
            Some(at(3_000)),
            None
        )
    );
    let kept = store
        .deliveries("wh_3", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].status, DeliveryStatus::Pending);

    // A deleted endpoint receives nothing, by subscription or by id.
    let second = event("ev_2", READY, "dep_1", Targets::Subscribers(None), 5_000);
    assert_eq!(emit(&store, &[second], 5_000).await, 1);
    let direct = event(
        "ev_3",
        READY,
        "dep_1",
        Targets::Webhook("wh_1".to_owned()),
        5_000,
    );
    assert_eq!(emit(&store, &[direct], 5_000).await, 0);
    let claimed = claim_all(&store, T0 + 6_000).await;
    assert_eq!(
        claimed.iter().map(|j| j.url.as_str()).collect::<Vec<_>>(),
        [other_key.url.as_str(), other_key.url.as_str()]
    );
}

pub(super) async fn revoking_a_key_stops_its_endpoints_at_once(store: Arc<Store>) {
    let revoked = stored_key(&store, "key_a").await;
    let other = stored_key(&store, "key_b").await;
    let gone = webhook("wh_gone", &revoked, &[ANOMALY], 0);
    let kept = webhook("wh_kept", &other, &[ANOMALY], 1);
    for w in [&gone, &kept] {
        store.create_webhook(w, 20).await.expect("create_webhook");
    }
    // Queued before the revocation: one delivery to each endpoint, and one to the
    // revoked key's ingest URL.
    let ready = event(
        "ev_ready",
        READY,
        "dep_1",
        Targets::Subscribers(Some(DirectTarget {
            endpoint: "ingest:s_1".to_owned(),
            key_id: revoked.id.clone(),
            url: "https://client.example/s_1".to_owned(),
        })),
        0,
    );
    assert_eq!(emit(&store, &[anomaly("ev_1", 10), ready], 10).await, 3);
    assert!(store.revoke_key(&revoked.id, at(20)).await.expect("revoke"));
    // What was pending for the revoked key is cancelled, saying why.
    let cancelled = store
        .deliveries("wh_gone", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(cancelled.len(), 1);
    assert_eq!(cancelled[0].status, DeliveryStatus::Failed);
    assert_eq!(
        cancelled[0].error.as_deref(),
        Some("cancelled: the API key that registered the endpoint was revoked")
    );
    assert_eq!(cancelled[0].completed_at, Some(at(20)));
    // Only the other key's delivery is claimed; later events reach only its endpoint,
    // and a test event to the revoked key's endpoint queues nothing.
    let claimed = claim_all(&store, T0 + 30).await;
    assert_eq!(
        claimed.iter().map(|j| j.url.as_str()).collect::<Vec<_>>(),
        ["https://hooks.example/wh_kept"]
    );
    assert_eq!(emit(&store, &[anomaly("ev_2", 40)], 40).await, 1);
    let test = event(
        "ev_test",
        "webhook.test",
        "dep_1",
        Targets::Webhook("wh_gone".to_owned()),
        50,
    );
    assert_eq!(emit(&store, &[test], 50).await, 0);
    // The operator still sees the endpoint, and can delete it.
    let all = store.list_webhooks(None).await.expect("list");
    assert_eq!(
        all.iter().map(|w| w.id.as_str()).collect::<Vec<_>>(),
        ["wh_gone", "wh_kept"]
    );
    assert!(
        store
            .delete_webhook("wh_gone", None, at(60))
            .await
            .expect("delete")
    );
    assert_eq!(
        store.list_webhooks(None).await.expect("list").len(),
        1,
        "deleted by the operator"
    );
}

pub(super) async fn an_endpoint_failing_long_enough_is_disabled(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    for (i, id) in ["wh_down", "wh_flaky"].into_iter().enumerate() {
        store
            .create_webhook(&webhook(id, &k, &[ANOMALY], i as i64), 20)
            .await
            .expect("create_webhook");
    }
    let attempt = |started: i64, ok: bool| AttemptRecord {
        attempt: 1,
        started_at: at(started),
        duration_ms: Some(5),
        response_status: Some(if ok { 200 } else { 500 }),
        error: (!ok).then(|| "HTTP 500".to_owned()),
        response_body: None,
    };
    // Both fail at T0; the flaky one succeeds an hour later, the other keeps failing.
    assert_eq!(emit(&store, &[anomaly("ev_1", 0)], 0).await, 2);
    for job in claim_all(&store, T0).await {
        let next = NextStep::RetryAt(T0 + 3_600_000);
        assert!(
            store
                .finish_delivery(&job, &attempt(0, false), next)
                .await
                .expect("finish")
        );
    }
    for job in claim_all(&store, T0 + 3_600_000).await {
        let ok = job.url.ends_with("wh_flaky");
        let next = if ok {
            NextStep::Succeeded
        } else {
            NextStep::RetryAt(T0 + 7_200_000)
        };
        assert!(
            store
                .finish_delivery(&job, &attempt(3_600_000, ok), next)
                .await
                .expect("finish")
        );
    }
    // A sweep for endpoints failing since before T0 + 30 min: only wh_down.
    let reason = "every attempt failed for more than 0.5 h";
    let disabled = store
        .disable_failing_webhooks(at(1_800_000), at(3_700_000), reason)
        .await
        .expect("disable");
    assert_eq!(disabled, ["wh_down"]);
    let down = store
        .webhook("wh_down", "key_a")
        .await
        .expect("webhook")
        .expect("kept");
    assert_eq!(
        down.disabled,
        Some(Disabled {
            at: at(3_700_000),
            reason: reason.to_owned()
        })
    );
    assert_eq!(
        store
            .webhook("wh_flaky", "key_a")
            .await
            .expect("webhook")
            .expect("kept")
            .disabled,
        None
    );
    // Its pending retry is cancelled; later events reach only the other endpoint.
    let log = store.deliveries("wh_down", None, 10).await.expect("log");
    assert_eq!(log[0].status, DeliveryStatus::Failed);
    assert_eq!(
        log[0].error.as_deref(),
        Some("cancelled: the endpoint was disabled after failing every attempt")
    );
    assert_eq!(
        emit(&store, &[anomaly("ev_2", 3_800_000)], 3_800_000).await,
        1
    );
    // A second sweep finds nothing more.
    assert!(
        store
            .disable_failing_webhooks(at(1_800_000), at(3_900_000), reason)
            .await
            .expect("disable")
            .is_empty()
    );
}
