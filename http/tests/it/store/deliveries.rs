//! Deliveries: events reach each subscriber and direct target once; claims lease
//! deliveries fairly across endpoints, and an attempt cut off by an expired lease is
//! recorded as interrupted; finishing an attempt updates the delivery and its
//! endpoint; the delivery log pages newest first. (Racing emitters and claimers are
//! in `concurrency.rs`.)

use std::collections::BTreeSet;
use std::sync::Arc;

use undertone_http::store::{
    AttemptRecord, DeliveryJob, DeliveryRecord, DeliveryStatus, DirectTarget, NewEvent, NextStep,
    Store, Targets,
};

use super::{T0, at, event, key, stored_key, webhook};

/// Lease of a delivery attempt, in milliseconds.
const LEASE: i64 = 10_000;

/// Attempts a delivery gets.
const MAX_ATTEMPTS: u32 = 5;

/// The kind most checks emit.
pub(super) const ANOMALY: &str = "anomaly_detected";

/// The kind of a finished session.
pub(super) const READY: &str = "intelligence.ready";

/// An `anomaly_detected` event of `dep_1` for its subscribers.
pub(super) fn anomaly(id: &str, offset_ms: i64) -> NewEvent {
    event(id, ANOMALY, "dep_1", Targets::Subscribers(None), offset_ms)
}

/// Emits `events` at `T0 + offset_ms` and returns the deliveries queued.
pub(super) async fn emit(store: &Store, events: &[NewEvent], offset_ms: i64) -> u32 {
    store.emit(events, at(offset_ms)).await.expect("emit")
}

/// What a delivery reads back as before any attempt.
fn queued(id: &str, event: &NewEvent, offset_ms: i64) -> DeliveryRecord {
    DeliveryRecord {
        id: id.to_owned(),
        event_id: event.id.clone(),
        event_type: event.kind.clone(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        response_status: None,
        error: None,
        created_at: at(offset_ms),
        last_attempt_at: None,
        next_attempt_at: Some(at(offset_ms)),
        completed_at: None,
        attempt_log: Vec::new(),
    }
}

/// Claims until nothing is due at `now_ms`.
pub(super) async fn claim_all(store: &Store, now_ms: i64) -> Vec<DeliveryJob> {
    store
        .claim_deliveries(now_ms, LEASE, 100, 100, MAX_ATTEMPTS)
        .await
        .expect("claim_deliveries")
}

pub(super) async fn emit_queues_one_delivery_per_target_once(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    let stranger = key("key_b", "org_b", k.plan, 0);
    store.create_key(&stranger).await.expect("create_key");
    let both = webhook("wh_1", &k, &[READY, ANOMALY], 0);
    let anomalies = webhook("wh_2", &k, &[ANOMALY], 1);
    let elsewhere = webhook("wh_3", &stranger, &[READY, ANOMALY], 2);
    for w in [&both, &anomalies, &elsewhere] {
        store.create_webhook(w, 20).await.expect("create_webhook");
    }
    let client_url = "https://client.example/s_1";
    let ready = event(
        "ev_ready",
        READY,
        "dep_1",
        Targets::Subscribers(Some(DirectTarget {
            endpoint: "ingest:s_1".to_owned(),
            key_id: k.id.clone(),
            url: client_url.to_owned(),
        })),
        0,
    );
    // wh_1 and the ingest's URL; wh_2 did not subscribe, wh_3 is another organisation.
    assert_eq!(emit(&store, std::slice::from_ref(&ready), 10).await, 2);
    assert_eq!(
        emit(&store, std::slice::from_ref(&ready), 20).await,
        0,
        "an event is delivered once per target"
    );
    let spike = anomaly("ev_anomaly", 30);
    assert_eq!(emit(&store, std::slice::from_ref(&spike), 30).await, 2);
    let unwanted = event(
        "ev_uhr",
        "uhr_generated",
        "dep_1",
        Targets::Subscribers(None),
        40,
    );
    assert_eq!(emit(&store, &[unwanted], 40).await, 0);
    // A test event goes to its endpoint whatever it subscribed to, once.
    let test = event(
        "ev_test",
        READY,
        "dep_1",
        Targets::Webhook("wh_2".to_owned()),
        50,
    );
    assert_eq!(emit(&store, &[test.clone(), test.clone()], 50).await, 1);
    let nowhere = event(
        "ev_x",
        READY,
        "dep_1",
        Targets::Webhook("wh_9".to_owned()),
        60,
    );
    assert_eq!(emit(&store, &[nowhere], 60).await, 0);

    let logged = store
        .deliveries("wh_1", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(
        logged,
        vec![
            queued(&logged[0].id, &spike, 30),
            queued(&logged[1].id, &ready, 10)
        ]
    );
    let logged = store
        .deliveries("wh_2", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(
        logged,
        vec![
            queued(&logged[0].id, &test, 50),
            queued(&logged[1].id, &spike, 30)
        ]
    );
    assert_eq!(
        store
            .deliveries("wh_3", None, 10)
            .await
            .expect("deliveries"),
        []
    );

    // Each delivery is signed with its endpoint's secret, or for the ingest's URL
    // with its key's delivery secret, and carries the event's bytes.
    let mut claimed: Vec<_> = claim_all(&store, T0 + 100)
        .await
        .into_iter()
        .map(|j| (j.url, j.kind, j.secret, j.body, j.attempt))
        .collect();
    claimed.sort();
    let mut expected = vec![
        (
            both.url.clone(),
            READY.to_owned(),
            both.secret.clone(),
            ready.body.clone(),
            1,
        ),
        (
            client_url.to_owned(),
            READY.to_owned(),
            k.delivery_secret.clone(),
            ready.body,
            1,
        ),
        (
            both.url,
            ANOMALY.to_owned(),
            both.secret,
            spike.body.clone(),
            1,
        ),
        (
            anomalies.url.clone(),
            ANOMALY.to_owned(),
            anomalies.secret.clone(),
            spike.body,
            1,
        ),
        (
            anomalies.url,
            READY.to_owned(),
            anomalies.secret,
            test.body,
            1,
        ),
    ];
    expected.sort();
    assert_eq!(claimed, expected);
}

pub(super) async fn delivery_claims_are_fair_across_endpoints(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    for (i, id) in ["wh_busy", "wh_quiet"].into_iter().enumerate() {
        store
            .create_webhook(&webhook(id, &k, &[ANOMALY], i as i64), 20)
            .await
            .expect("create_webhook");
    }
    // Ten events to the busy endpoint first, then one event to both.
    let flood: Vec<NewEvent> = (0..10)
        .map(|i| {
            event(
                &format!("ev_{i}"),
                ANOMALY,
                "dep_1",
                Targets::Webhook("wh_busy".into()),
                i,
            )
        })
        .collect();
    assert_eq!(emit(&store, &flood, 0).await, 10);
    assert_eq!(emit(&store, &[anomaly("ev_both", 20)], 20).await, 2);
    let url = |j: &DeliveryJob| j.url.rsplit('/').next().unwrap_or_default().to_owned();
    // Round robin, at most two in flight per endpoint: busy, quiet, busy.
    let first = store
        .claim_deliveries(T0 + 100, LEASE, 10, 2, MAX_ATTEMPTS)
        .await
        .expect("claim");
    assert_eq!(
        first.iter().map(url).collect::<Vec<_>>(),
        ["wh_busy", "wh_quiet", "wh_busy"]
    );
    // While those are in flight, the busy endpoint has no room left.
    let second = store
        .claim_deliveries(T0 + 200, LEASE, 10, 2, MAX_ATTEMPTS)
        .await
        .expect("claim");
    assert!(second.is_empty(), "{second:?}");
    // One finishes: one more for the busy endpoint.
    let ok = AttemptRecord {
        attempt: 1,
        started_at: at(100),
        duration_ms: Some(5),
        response_status: Some(200),
        error: None,
        response_body: None,
    };
    assert!(
        store
            .finish_delivery(&first[0], &ok, NextStep::Succeeded)
            .await
            .expect("finish")
    );
    let third = store
        .claim_deliveries(T0 + 300, LEASE, 10, 2, MAX_ATTEMPTS)
        .await
        .expect("claim");
    assert_eq!(third.iter().map(url).collect::<Vec<_>>(), ["wh_busy"]);
}

pub(super) async fn a_free_slot_goes_to_the_endpoint_with_least_in_flight(store: Arc<Store>) {
    // One tenant's endpoint that hangs holds attempts in flight and has a backlog;
    // another's gets one delivery later. The next free slot is the quiet one's: the
    // oldest due delivery would be the hanging endpoint's again and again, and the
    // other tenant would wait for its whole backlog (docs/webhooks.md).
    let k = stored_key(&store, "key_a").await;
    for (i, id) in ["wh_hanging", "wh_quiet"].into_iter().enumerate() {
        store
            .create_webhook(&webhook(id, &k, &[ANOMALY], i as i64), 20)
            .await
            .expect("create_webhook");
    }
    let backlog: Vec<NewEvent> = (0..10)
        .map(|i| {
            let to = Targets::Webhook("wh_hanging".into());
            event(&format!("ev_{i}"), ANOMALY, "dep_1", to, i)
        })
        .collect();
    assert_eq!(emit(&store, &backlog, 0).await, 10);
    let url = |j: &DeliveryJob| j.url.rsplit('/').next().unwrap_or_default().to_owned();
    let hanging = store
        .claim_deliveries(T0 + 100, LEASE, 2, 3, MAX_ATTEMPTS)
        .await
        .expect("claim");
    assert_eq!(
        hanging.iter().map(url).collect::<Vec<_>>(),
        ["wh_hanging"; 2]
    );
    let quiet = event(
        "ev_q",
        ANOMALY,
        "dep_1",
        Targets::Webhook("wh_quiet".into()),
        50,
    );
    assert_eq!(emit(&store, &[quiet], 50).await, 1);
    let next = store
        .claim_deliveries(T0 + 200, LEASE, 1, 3, MAX_ATTEMPTS)
        .await
        .expect("claim");
    assert_eq!(next.iter().map(url).collect::<Vec<_>>(), ["wh_quiet"]);
    // With the quiet one served, the hanging endpoint gets its third slot.
    let after = store
        .claim_deliveries(T0 + 300, LEASE, 5, 3, MAX_ATTEMPTS)
        .await
        .expect("claim");
    assert_eq!(after.iter().map(url).collect::<Vec<_>>(), ["wh_hanging"]);
}

pub(super) async fn claimed_deliveries_are_leased(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &[ANOMALY], 0), 20)
        .await
        .expect("create_webhook");
    assert_eq!(store.next_delivery_due().await.expect("due"), None);
    assert_eq!(emit(&store, &[anomaly("ev_1", 0)], 0).await, 1);
    assert_eq!(store.next_delivery_due().await.expect("due"), Some(T0));

    let first = claim_all(&store, T0).await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].attempt, 1);
    assert_eq!(claim_all(&store, T0).await.len(), 0, "leased");
    assert_eq!(claim_all(&store, T0 + LEASE - 1).await.len(), 0, "leased");
    // While leased, the delivery is next due when its lease ends.
    assert_eq!(
        store.next_delivery_due().await.expect("due"),
        Some(T0 + LEASE)
    );

    // The lease ends mid-attempt: claimed again as attempt 2.
    let second = claim_all(&store, T0 + LEASE).await;
    assert_eq!(second.len(), 1);
    assert_eq!((&second[0].id, second[0].attempt), (&first[0].id, 2));
    assert_ne!(second[0].token, first[0].token);
    let done = AttemptRecord {
        attempt: 1,
        started_at: at(0),
        duration_ms: Some(20),
        response_status: Some(200),
        error: None,
        response_body: None,
    };
    assert!(
        !store
            .finish_delivery(&first[0], &done, NextStep::Succeeded)
            .await
            .expect("finish_delivery"),
        "the first claim is stale"
    );

    let record = &store
        .deliveries("wh_1", None, 10)
        .await
        .expect("deliveries")[0];
    assert_eq!(
        (
            record.status,
            record.attempts,
            record.last_attempt_at,
            record.completed_at
        ),
        (DeliveryStatus::Pending, 2, Some(at(LEASE)), None)
    );
    let [interrupted, current] = record.attempt_log.as_slice() else {
        panic!("two attempts: {:?}", record.attempt_log);
    };
    let error = interrupted.error.clone().expect("an error");
    assert!(error.starts_with("interrupted"), "{error}");
    assert_eq!(
        interrupted,
        &AttemptRecord {
            attempt: 1,
            started_at: at(0),
            duration_ms: None,
            response_status: None,
            error: Some(error),
            response_body: None,
        }
    );
    assert_eq!(
        current,
        &AttemptRecord {
            attempt: 2,
            started_at: at(LEASE),
            duration_ms: None,
            response_status: None,
            error: None,
            response_body: None,
        }
    );

    // The second lease ends too, with no attempts left: the delivery fails.
    assert_eq!(
        store
            .claim_deliveries(T0 + 2 * LEASE, LEASE, 10, 100, 2)
            .await
            .expect("claim_deliveries")
            .len(),
        0
    );
    let record = &store
        .deliveries("wh_1", None, 10)
        .await
        .expect("deliveries")[0];
    assert_eq!(
        (
            record.status,
            record.attempts,
            record.next_attempt_at,
            record.completed_at
        ),
        (DeliveryStatus::Failed, 2, None, Some(at(2 * LEASE)))
    );
    let error = record.error.clone().expect("an error");
    assert!(error.starts_with("interrupted"), "{error}");
    let last = record.attempt_log[1].error.clone().expect("an error");
    assert!(last.starts_with("interrupted"), "{last}");
    assert_eq!(store.next_delivery_due().await.expect("due"), None);
    let late = AttemptRecord {
        attempt: 2,
        started_at: at(LEASE),
        ..done
    };
    assert!(
        !store
            .finish_delivery(&second[0], &late, NextStep::Succeeded)
            .await
            .expect("finish_delivery"),
        "a failed delivery's claim is stale"
    );
}

pub(super) async fn finishing_a_delivery_records_the_attempt(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    let hook = webhook("wh_1", &k, &[ANOMALY], 0);
    store
        .create_webhook(&hook, 20)
        .await
        .expect("create_webhook");
    let events: Vec<_> = (1..=3).map(|i| anomaly(&format!("ev_{i}"), i)).collect();
    for (i, e) in (1..).zip(&events) {
        assert_eq!(emit(&store, std::slice::from_ref(e), i).await, 1);
    }
    let jobs = claim_all(&store, T0 + 100).await;
    assert_eq!(jobs.len(), 3);
    let job_of = |e: &NewEvent| {
        jobs.iter()
            .find(|j| j.body == e.body)
            .expect("every event is claimed")
            .clone()
    };
    let (j1, j2, j3) = (job_of(&events[0]), job_of(&events[1]), job_of(&events[2]));
    // The delivery of `job` as the log shows it.
    let logged = async |job: &DeliveryJob| {
        store
            .deliveries("wh_1", None, 10)
            .await
            .expect("deliveries")
            .into_iter()
            .find(|d| d.id == job.id)
            .expect("logged")
    };
    // The endpoint's (failure_count, last_delivery_at).
    let health = async || {
        let w = store
            .webhook("wh_1", "key_a")
            .await
            .expect("webhook")
            .expect("stored");
        (w.failure_count, w.last_delivery_at)
    };

    let ok = AttemptRecord {
        attempt: 1,
        started_at: at(100),
        duration_ms: Some(120),
        response_status: Some(200),
        error: None,
        response_body: Some(b"ok".to_vec()),
    };
    assert!(
        store
            .finish_delivery(&j1, &ok, NextStep::Succeeded)
            .await
            .expect("finish_delivery")
    );
    assert_eq!(
        logged(&j1).await,
        DeliveryRecord {
            status: DeliveryStatus::Succeeded,
            attempts: 1,
            response_status: Some(200),
            last_attempt_at: Some(at(100)),
            next_attempt_at: None,
            completed_at: Some(at(220)),
            attempt_log: vec![ok.clone()],
            ..queued(&j1.id, &events[0], 1)
        }
    );
    assert_eq!(health().await, (0, Some(at(220))));

    let retry_at = T0 + 60_000;
    let server_error = AttemptRecord {
        attempt: 1,
        started_at: at(100),
        duration_ms: Some(300),
        response_status: Some(500),
        error: Some("the endpoint answered 500".to_owned()),
        response_body: Some(b"oops".to_vec()),
    };
    assert!(
        store
            .finish_delivery(&j2, &server_error, NextStep::RetryAt(retry_at))
            .await
            .expect("finish_delivery")
    );
    assert_eq!(
        logged(&j2).await,
        DeliveryRecord {
            status: DeliveryStatus::Pending,
            attempts: 1,
            response_status: Some(500),
            error: Some("the endpoint answered 500".to_owned()),
            last_attempt_at: Some(at(100)),
            next_attempt_at: Some(at(60_000)),
            completed_at: None,
            attempt_log: vec![server_error.clone()],
            ..queued(&j2.id, &events[1], 2)
        }
    );
    assert_eq!(health().await, (1, Some(at(400))));

    let refused = AttemptRecord {
        attempt: 1,
        started_at: at(100),
        duration_ms: Some(1_000),
        response_status: None,
        error: Some("connection refused".to_owned()),
        response_body: None,
    };
    assert!(
        store
            .finish_delivery(&j3, &refused, NextStep::Failed)
            .await
            .expect("finish_delivery")
    );
    assert_eq!(
        logged(&j3).await,
        DeliveryRecord {
            status: DeliveryStatus::Failed,
            attempts: 1,
            error: Some("connection refused".to_owned()),
            last_attempt_at: Some(at(100)),
            next_attempt_at: None,
            completed_at: Some(at(1_100)),
            attempt_log: vec![refused.clone()],
            ..queued(&j3.id, &events[2], 3)
        }
    );
    assert_eq!(health().await, (2, Some(at(1_100))));

    // A finished claim is spent.
    assert!(
        !store
            .finish_delivery(&j1, &ok, NextStep::Succeeded)
            .await
            .expect("finish_delivery")
    );
    assert_eq!(health().await, (2, Some(at(1_100))));

    // The retry is due when it said, and a success resets the failure count.
    assert_eq!(
        store.next_delivery_due().await.expect("due"),
        Some(retry_at)
    );
    assert_eq!(claim_all(&store, retry_at - 1).await.len(), 0);
    let retried = claim_all(&store, retry_at).await;
    assert_eq!(retried.len(), 1);
    assert_eq!((&retried[0].id, retried[0].attempt), (&j2.id, 2));
    let second_try = AttemptRecord {
        attempt: 2,
        started_at: at(60_000),
        duration_ms: Some(10),
        response_status: Some(204),
        error: None,
        response_body: None,
    };
    assert!(
        store
            .finish_delivery(&retried[0], &second_try, NextStep::Succeeded)
            .await
            .expect("finish_delivery")
    );
    assert_eq!(
        logged(&j2).await,
        DeliveryRecord {
            status: DeliveryStatus::Succeeded,
            attempts: 2,
            response_status: Some(204),
            error: None,
            last_attempt_at: Some(at(60_000)),
            next_attempt_at: None,
            completed_at: Some(at(60_010)),
            attempt_log: vec![server_error, second_try],
            ..queued(&j2.id, &events[1], 2)
        }
    );
    assert_eq!(health().await, (0, Some(at(60_010))));
    assert_eq!(store.next_delivery_due().await.expect("due"), None);
}

pub(super) async fn deliveries_page_newest_first(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &[ANOMALY], 0), 20)
        .await
        .expect("create_webhook");
    // Another endpoint's deliveries never show up in this one's pages.
    store
        .create_webhook(&webhook("wh_2", &k, &[ANOMALY], 1), 20)
        .await
        .expect("create_webhook");
    let events: Vec<_> = (1..=6).map(|i| anomaly(&format!("ev_{i}"), 0)).collect();
    emit(&store, &events[0..1], 0).await;
    emit(&store, &events[1..2], 1_000).await;
    emit(&store, &events[2..3], 2_000).await;
    // Two at the same instant: ordered by delivery id.
    emit(&store, &events[3..5], 3_000).await;
    emit(&store, &events[5..6], 4_000).await;

    // Every delivery gets an attempt whose response body names its event, so each
    // page's attempt logs can be checked against their deliveries.
    let jobs = claim_all(&store, T0 + 5_000).await;
    assert_eq!(jobs.len(), 12);
    for job in &jobs {
        let event = events
            .iter()
            .find(|e| e.body == job.body)
            .expect("an emitted event");
        let attempt = AttemptRecord {
            attempt: 1,
            started_at: at(5_000),
            duration_ms: Some(7),
            response_status: Some(200),
            error: None,
            response_body: Some(event.id.clone().into_bytes()),
        };
        assert!(
            store
                .finish_delivery(job, &attempt, NextStep::Succeeded)
                .await
                .expect("finish_delivery")
        );
    }

    let all = store
        .deliveries("wh_1", None, 100)
        .await
        .expect("deliveries");
    assert_eq!(
        all.iter()
            .map(|d| (d.created_at, d.event_id.as_str()))
            .filter(|(_, e)| !["ev_4", "ev_5"].contains(e))
            .collect::<Vec<_>>(),
        [
            (at(4_000), "ev_6"),
            (at(2_000), "ev_3"),
            (at(1_000), "ev_2"),
            (at(0), "ev_1")
        ]
    );
    let tied: BTreeSet<&str> = [all[1].event_id.as_str(), all[2].event_id.as_str()].into();
    assert_eq!(tied, BTreeSet::from(["ev_4", "ev_5"]));
    assert_eq!(
        (all[1].created_at, all[2].created_at),
        (at(3_000), at(3_000))
    );
    assert!(
        all[1].id > all[2].id,
        "same instant: the larger id first ({} then {})",
        all[1].id,
        all[2].id
    );
    for d in &all {
        assert_eq!(
            d.attempt_log
                .iter()
                .map(|a| a.response_body.clone())
                .collect::<Vec<_>>(),
            [Some(d.event_id.clone().into_bytes())],
            "{}",
            d.id
        );
    }

    assert_eq!(
        store.deliveries("wh_1", None, 3).await.expect("deliveries"),
        all[..3]
    );
    for limit in [1, 2, 4] {
        let mut walked = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let page = store
                .deliveries("wh_1", after.as_deref(), limit)
                .await
                .expect("deliveries");
            assert!(page.len() <= limit as usize);
            let Some(last) = page.last() else { break };
            after = Some(last.id.clone());
            walked.extend(page);
        }
        assert_eq!(walked, all, "pages of {limit}");
    }
}
