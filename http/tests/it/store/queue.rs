//! Enqueueing: a session, its input and its job are written together, or, when the
//! queue is full, the key holds its share of it or is out of quota, nothing at all.
//! (Claims are in `claims.rs`, racing workers in `concurrency.rs`.)

use std::sync::Arc;

use undertone_http::limits::{Plan, Quota, windows_for};
use undertone_http::store::{
    Earlier, Effects, Enqueued, Idempotency, NewSession, Outcome, QueueLimit, SessionKind,
    SessionRecord, SessionStatus, Store,
};
use undertone_http::webhooks::emit::failure_effects;

use super::{ORG, T0, at, ingest, key, stored_key};

/// Lease of the queue checks, in milliseconds.
pub(super) const LEASE: i64 = 30_000;

/// Attempts before an abandoned job fails.
pub(super) const MAX_ATTEMPTS: u32 = 3;

/// Room in the queue when capacity is not what a check is about.
pub(super) const ROOMY: u64 = 1_000;

/// What a session reads back as right after it was enqueued.
pub(super) fn received(s: &NewSession) -> SessionRecord {
    SessionRecord {
        id: s.id.clone(),
        kind: s.kind,
        deployment_id: s.deployment_id.clone(),
        event_count: s.event_count,
        status: SessionStatus::Received,
        labels: s.labels.clone(),
        created_at: s.created_at,
        completed_at: None,
        error: None,
        environment_type: None,
        plain_summary: None,
        plain_recommendations: None,
        condensed: None,
        full_output: None,
        completions: 0,
    }
}

/// A completed outcome whose `full_output` is large enough to be worth compressing.
pub(super) fn complete(tag: &str) -> Outcome {
    let rows: Vec<String> = (0..2_000)
        .map(|i| format!(r#"{{"turn":{i},"tag":"{tag}","score":0.{i:04}}}"#))
        .collect();
    Outcome::Complete {
        environment_type: Some("support".to_owned()),
        plain_summary: format!("summary of {tag}"),
        plain_recommendations: r#"["one","two"]"#.to_owned(),
        condensed: Some(format!(r#"{{"tag":"{tag}"}}"#)),
        full_output: format!("[{}]", rows.join(",")),
    }
}

pub(super) async fn enqueue_writes_the_session_and_its_job(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let mut first = ingest("s_ingest", &k, Some("dep_1"), 0);
    first.webhook_url = Some("https://client.example/ready".to_owned());
    let drift = NewSession {
        id: "s_drift".to_owned(),
        kind: SessionKind::Drift,
        deployment_id: None,
        event_count: 40,
        labels: Some(r#"{"before":"v1","after":"v2","question":"better?"}"#.to_owned()),
        ..ingest("s_drift", &k, None, 1_001)
    };
    assert_eq!(store.queue_depth().await.expect("depth"), 0);
    for s in [&first, &drift] {
        assert_eq!(
            store
                .enqueue(s, QueueLimit::total(ROOMY), None)
                .await
                .expect("enqueue"),
            Enqueued::Accepted(None)
        );
    }
    assert_eq!(store.queue_depth().await.expect("depth"), 2);
    assert_eq!(
        store.session("s_ingest", ORG).await.expect("session"),
        Some(received(&first))
    );
    assert_eq!(
        store.session("s_drift", ORG).await.expect("session"),
        Some(received(&drift))
    );
    // Sessions are visible to their organisation only.
    assert_eq!(
        store.session("s_ingest", "org_b").await.expect("session"),
        None
    );
    assert_eq!(store.session("s_none", ORG).await.expect("session"), None);

    // The job carries what the worker needs, the body byte for byte.
    let (job, _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    assert_eq!(
        (
            job.session_id.as_str(),
            job.kind,
            job.org_id.as_str(),
            job.key_id.as_str(),
            job.deployment_id.as_deref(),
            job.webhook_url.as_deref(),
            job.event_count,
            &job.body,
        ),
        (
            "s_ingest",
            SessionKind::Ingest,
            ORG,
            "key_q",
            Some("dep_1"),
            Some("https://client.example/ready"),
            3,
            &first.body,
        )
    );
    let (job, _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    assert_eq!(
        (job.kind, job.deployment_id, job.event_count, job.body),
        (SessionKind::Drift, None, 40, drift.body)
    );
}

pub(super) async fn a_full_queue_writes_and_counts_nothing(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let windows = windows_for(&k.plan, T0 / 1000, false);
    for (i, id) in ["s_1", "s_2"].into_iter().enumerate() {
        assert!(matches!(
            store
                .enqueue(
                    &ingest(id, &k, None, i as i64),
                    QueueLimit::total(2),
                    Some(&windows)
                )
                .await
                .expect("enqueue"),
            Enqueued::Accepted(Some(_))
        ));
    }
    assert_eq!(
        store
            .enqueue(
                &ingest("s_3", &k, None, 2),
                QueueLimit::total(2),
                Some(&windows)
            )
            .await
            .expect("enqueue"),
        Enqueued::QueueFull
    );
    assert_eq!(
        store
            .enqueue(&ingest("s_4", &k, None, 3), QueueLimit::total(2), None)
            .await
            .expect("enqueue"),
        Enqueued::QueueFull
    );
    assert_eq!(store.session("s_3", ORG).await.expect("session"), None);
    assert_eq!(store.session("s_4", ORG).await.expect("session"), None);
    assert_eq!(store.queue_depth().await.expect("depth"), 2);
    assert_eq!(
        store.usage(&k.id, &windows).await.expect("usage"),
        [2, 2],
        "a refused ingest is not counted"
    );

    // A running job still takes room; a finished one frees it.
    let (job, _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    assert_eq!(
        store
            .enqueue(&ingest("s_5", &k, None, 4), QueueLimit::total(2), None)
            .await
            .expect("enqueue"),
        Enqueued::QueueFull
    );
    assert!(
        store
            .finish(&job, &complete("s_1"), &Effects::default(), at(5))
            .await
            .expect("finish")
    );
    assert_eq!(store.queue_depth().await.expect("depth"), 1);
    assert_eq!(
        store
            .enqueue(&ingest("s_5", &k, None, 6), QueueLimit::total(2), None)
            .await
            .expect("enqueue"),
        Enqueued::Accepted(None)
    );
}

pub(super) async fn a_key_holds_at_most_its_share_of_the_queue(store: Arc<Store>) {
    let a = stored_key(&store, "key_a").await;
    let b = stored_key(&store, "key_b").await;
    let limit = QueueLimit {
        capacity: 10,
        per_key: 2,
    };
    for (i, id) in ["s_a1", "s_a2"].into_iter().enumerate() {
        assert!(matches!(
            store
                .enqueue(&ingest(id, &a, None, i as i64), limit, None)
                .await
                .expect("enqueue"),
            Enqueued::Accepted(_)
        ));
    }
    assert_eq!(
        store
            .enqueue(&ingest("s_a3", &a, None, 3), limit, None)
            .await
            .expect("enqueue"),
        Enqueued::KeyShareFull(2)
    );
    assert!(
        store.session("s_a3", ORG).await.expect("session").is_none(),
        "nothing written"
    );
    // Another key still gets in; a finished job gives the first key its room back.
    assert!(matches!(
        store
            .enqueue(&ingest("s_b1", &b, None, 4), limit, None)
            .await
            .expect("enqueue"),
        Enqueued::Accepted(_)
    ));
    let (job, _) = store
        .claim(T0 + 10, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    assert_eq!(job.session_id, "s_a1");
    assert!(
        store
            .finish(&job, &complete("a1"), &Effects::default(), at(10))
            .await
            .expect("finish")
    );
    assert!(matches!(
        store
            .enqueue(&ingest("s_a3", &a, None, 11), limit, None)
            .await
            .expect("enqueue"),
        Enqueued::Accepted(_)
    ));
}

pub(super) async fn a_rate_limited_enqueue_writes_and_counts_nothing(store: Arc<Store>) {
    let k = key(
        "key_small",
        ORG,
        Plan {
            per_hour: 2,
            per_day: 100,
            drift_per_hour: 1,
        },
        0,
    );
    store.create_key(&k).await.expect("create_key");
    let windows = windows_for(&k.plan, T0 / 1000, false);
    let reset = windows[0].reset;
    assert_eq!(
        store
            .enqueue(
                &ingest("s_1", &k, None, 0),
                QueueLimit::total(ROOMY),
                Some(&windows)
            )
            .await
            .expect("enqueue"),
        Enqueued::Accepted(Some(Quota {
            limit: 2,
            remaining: 1,
            reset
        }))
    );
    assert_eq!(
        store
            .enqueue(
                &ingest("s_2", &k, None, 1),
                QueueLimit::total(ROOMY),
                Some(&windows)
            )
            .await
            .expect("enqueue"),
        Enqueued::Accepted(Some(Quota {
            limit: 2,
            remaining: 0,
            reset
        }))
    );
    assert_eq!(
        store
            .enqueue(
                &ingest("s_3", &k, None, 2),
                QueueLimit::total(ROOMY),
                Some(&windows)
            )
            .await
            .expect("enqueue"),
        Enqueued::RateLimited(Quota {
            limit: 2,
            remaining: 0,
            reset
        })
    );
    assert_eq!(store.session("s_3", ORG).await.expect("session"), None);
    assert_eq!(store.queue_depth().await.expect("depth"), 2);
    assert_eq!(store.usage(&k.id, &windows).await.expect("usage"), [2, 2]);
}

/// `session` sent with `Idempotency-Key` `key` and a request whose digest is `digest`.
pub(super) fn keyed(mut session: NewSession, key: &str, digest: &str) -> NewSession {
    session.idempotency = Some(Idempotency {
        key: key.to_owned(),
        digest: digest.to_owned(),
    });
    session
}

pub(super) async fn an_idempotency_key_starts_one_session_per_api_key(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let other = stored_key(&store, "key_r").await;
    let windows = windows_for(&k.plan, T0 / 1000, false);
    let first = keyed(ingest("s_1", &k, None, 0), "retry-me", "d1");
    let limit = QueueLimit::total(ROOMY);
    assert_eq!(
        store
            .earlier(&k.id, first.idempotency.as_ref().unwrap())
            .await
            .expect("earlier"),
        None
    );
    assert!(matches!(
        store
            .enqueue(&first, limit, Some(&windows))
            .await
            .expect("enqueue"),
        Enqueued::Accepted(Some(_))
    ));
    // The same request again: its session, nothing written or counted.
    let again = keyed(ingest("s_2", &k, None, 1), "retry-me", "d1");
    let same = Earlier {
        session_id: "s_1".to_owned(),
        event_count: 3,
        same_request: true,
    };
    assert_eq!(
        store
            .enqueue(&again, limit, Some(&windows))
            .await
            .expect("enqueue"),
        Enqueued::Earlier(same.clone())
    );
    assert_eq!(
        store
            .earlier(&k.id, again.idempotency.as_ref().unwrap())
            .await
            .expect("earlier"),
        Some(same)
    );
    // The key with another request: the first session, told apart.
    let reused = keyed(ingest("s_3", &k, None, 2), "retry-me", "d2");
    assert_eq!(
        store.enqueue(&reused, limit, None).await.expect("enqueue"),
        Enqueued::Earlier(Earlier {
            session_id: "s_1".to_owned(),
            event_count: 3,
            same_request: false,
        })
    );
    // A repeat is answered even when the queue has no room left.
    assert_eq!(
        store
            .enqueue(&again, QueueLimit::total(1), None)
            .await
            .expect("enqueue"),
        Enqueued::Earlier(Earlier {
            session_id: "s_1".to_owned(),
            event_count: 3,
            same_request: true,
        })
    );
    assert_eq!(store.session("s_2", ORG).await.expect("session"), None);
    assert_eq!(store.session("s_3", ORG).await.expect("session"), None);
    assert_eq!(store.queue_depth().await.expect("depth"), 1);
    assert_eq!(store.usage(&k.id, &windows).await.expect("usage"), [1, 1]);
    // Keys are per API key: another key's same Idempotency-Key starts its own, and
    // requests without one are never matched.
    let theirs = keyed(ingest("s_4", &other, None, 3), "retry-me", "d1");
    assert_eq!(
        store.enqueue(&theirs, limit, None).await.expect("enqueue"),
        Enqueued::Accepted(None)
    );
    for (i, id) in ["s_5", "s_6"].into_iter().enumerate() {
        assert_eq!(
            store
                .enqueue(&ingest(id, &k, None, 4 + i as i64), limit, None)
                .await
                .expect("enqueue"),
            Enqueued::Accepted(None)
        );
    }
    assert_eq!(store.queue_depth().await.expect("depth"), 4);
}

pub(super) async fn a_purged_session_frees_its_idempotency_key(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let limit = QueueLimit::total(ROOMY);
    let first = keyed(ingest("s_1", &k, None, 0), "nightly-batch", "d1");
    assert_eq!(
        store.enqueue(&first, limit, None).await.expect("enqueue"),
        Enqueued::Accepted(None)
    );
    let (job, _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    assert!(
        store
            .finish(&job, &complete("s_1"), &Effects::default(), at(5))
            .await
            .expect("finish")
    );
    // Kept: the key still names it.
    let again = keyed(ingest("s_2", &k, None, 10), "nightly-batch", "d2");
    assert!(matches!(
        store.enqueue(&again, limit, None).await.expect("enqueue"),
        Enqueued::Earlier(Earlier {
            same_request: false,
            ..
        })
    ));
    // Purged with its session (`--retain-days`): the key starts a new one.
    let purged = store.purge(at(1_000), at(1_000)).await.expect("purge");
    assert_eq!(purged.sessions, 1);
    assert_eq!(
        store.enqueue(&again, limit, None).await.expect("enqueue"),
        Enqueued::Accepted(None)
    );
    assert!(store.session("s_2", ORG).await.expect("session").is_some());
}
