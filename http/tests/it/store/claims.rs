//! Claims of the job queue: claims lease the oldest job; finishing completes the
//! session once; stale claims write nothing; released jobs come back uncounted;
//! renewed leases hold; expired leases requeue and then fail.

use std::collections::BTreeSet;
use std::sync::Arc;

use undertone_http::store::{
    Effects, NewDeploy, Outcome, QueueLimit, Reaped, SessionRecord, SessionStatus, Store, Targets,
};
use undertone_http::webhooks::emit::failure_effects;

use super::queue::{LEASE, MAX_ATTEMPTS, ROOMY, complete, received};
use super::{ORG, T0, at, event, ingest, point, stored_key, webhook};

pub(super) async fn claim_leases_the_oldest_job(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    // Enqueued b, a, c: the queue is in the order of enqueueing.
    for (id, offset) in [("s_b", 0), ("s_a", 1), ("s_c", 2)] {
        store
            .enqueue(
                &ingest(id, &k, None, offset),
                QueueLimit::total(ROOMY),
                None,
            )
            .await
            .expect("enqueue");
    }
    let mut tokens = BTreeSet::new();
    for expected in ["s_b", "s_a", "s_c"] {
        let (job, reaped) = store
            .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
            .await
            .expect("claim");
        let job = job.expect("a job");
        assert_eq!((job.session_id.as_str(), job.attempt), (expected, 1));
        assert_eq!(reaped, Reaped::default());
        assert!(!job.token.is_empty());
        tokens.insert(job.token);
        assert_eq!(
            store
                .session(expected, ORG)
                .await
                .expect("session")
                .map(|s| s.status),
            Some(SessionStatus::Processing)
        );
    }
    assert_eq!(tokens.len(), 3, "every claim has a token of its own");
    let (job, reaped) = store
        .claim(T0 + 1, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    assert!(job.is_none(), "every job is leased");
    assert_eq!(reaped, Reaped::default());
    // Running jobs still count as queued.
    assert_eq!(store.queue_depth().await.expect("depth"), 3);
}

pub(super) async fn finish_completes_the_session_and_removes_its_job(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let s = ingest("s_done", &k, Some("dep_1"), 0);
    store
        .enqueue(&s, QueueLimit::total(ROOMY), None)
        .await
        .expect("enqueue");
    let (job, _) = store
        .claim(T0 + 10, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    let outcome = complete("s_done");
    let finished_at = at(1_234);
    assert!(
        store
            .finish(&job, &outcome, &Effects::default(), finished_at)
            .await
            .expect("finish")
    );

    let Outcome::Complete {
        environment_type,
        plain_summary,
        plain_recommendations,
        condensed,
        full_output,
    } = outcome.clone()
    else {
        unreachable!("complete() is complete")
    };
    assert_eq!(
        store.session("s_done", ORG).await.expect("session"),
        Some(SessionRecord {
            status: SessionStatus::Complete,
            completed_at: Some(finished_at),
            environment_type,
            plain_summary: Some(plain_summary),
            plain_recommendations: Some(plain_recommendations),
            condensed,
            full_output: Some(full_output),
            completions: 1,
            ..received(&s)
        })
    );
    assert_eq!(store.queue_depth().await.expect("depth"), 0);

    // The job is gone: finishing it again is refused and changes nothing.
    assert!(
        !store
            .finish(&job, &complete("again"), &Effects::default(), at(2_000))
            .await
            .expect("finish")
    );
    let again = store
        .session("s_done", ORG)
        .await
        .expect("session")
        .expect("stored");
    assert_eq!(
        (again.completions, again.completed_at, again.plain_summary),
        (1, Some(finished_at), Some("summary of s_done".to_owned()))
    );
    let (next, _) = store
        .claim(T0 + LEASE * 10, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    assert!(next.is_none());
}

pub(super) async fn finish_records_a_failure(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    store
        .enqueue(
            &ingest("s_bad", &k, None, 0),
            QueueLimit::total(ROOMY),
            None,
        )
        .await
        .expect("enqueue");
    let (job, _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("a job");
    let error = "the events could not be scored: no human turns".to_owned();
    assert!(
        store
            .finish(
                &job,
                &Outcome::Failed(error.clone()),
                &Effects::default(),
                at(50)
            )
            .await
            .expect("finish")
    );
    let s = store
        .session("s_bad", ORG)
        .await
        .expect("session")
        .expect("stored");
    assert_eq!(
        (s.status, s.error, s.full_output, s.plain_summary),
        (SessionStatus::Failed, Some(error), None, None)
    );
    assert_eq!(store.queue_depth().await.expect("depth"), 0);
}

pub(super) async fn a_stale_finish_writes_nothing(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let hook = webhook("wh_ready", &k, &["intelligence.ready"], 0);
    store
        .create_webhook(&hook, 20)
        .await
        .expect("create_webhook");
    store
        .enqueue(
            &ingest("s_slow", &k, Some("dep_1"), 0),
            QueueLimit::total(ROOMY),
            None,
        )
        .await
        .expect("enqueue");

    let (first, reaped) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let first = first.expect("a job");
    assert_eq!((first.attempt, reaped), (1, Reaped::default()));
    // Not yet expired one millisecond before the lease ends.
    let (none, reaped) = store
        .claim(T0 + LEASE - 1, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    assert!(none.is_none());
    assert_eq!(reaped, Reaped::default());
    // Expired when it ends: requeued and claimed again at once.
    let (second, reaped) = store
        .claim(T0 + LEASE, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let second = second.expect("the job again");
    assert_eq!((second.session_id.as_str(), second.attempt), ("s_slow", 2));
    assert_eq!(
        reaped,
        Reaped {
            requeued: 1,
            failed: 0
        }
    );
    assert_ne!(second.token, first.token);

    // The first worker's result and effects are refused, all of them.
    let effects = Effects {
        history: vec![point("conv_1", 0, 0.3)],
        events: vec![event(
            "ev_stale",
            "intelligence.ready",
            "dep_1",
            Targets::Subscribers(None),
            0,
        )],
        deploys: vec![NewDeploy {
            id: "dep_marker".to_owned(),
            org_id: ORG.to_owned(),
            deployment_id: "dep_1".to_owned(),
            release: Some("v2".to_owned()),
            description: None,
            source: "metadata",
            at: at(0),
            created_at: at(0),
        }],
        measured: Vec::new(),
    };
    assert!(
        !store
            .finish(&first, &complete("stale"), &effects, at(LEASE + 5))
            .await
            .expect("finish")
    );
    // Releasing with the stale claim does not take the job from the second worker.
    store.release(&first).await.expect("release");
    let s = store
        .session("s_slow", ORG)
        .await
        .expect("session")
        .expect("stored");
    assert_eq!(
        (s.status, s.completions, s.full_output),
        (SessionStatus::Processing, 0, None)
    );
    assert_eq!(store.queue_depth().await.expect("depth"), 1);
    let (none, _) = store
        .claim(T0 + LEASE + 10, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    assert!(none.is_none(), "the second claim still holds the job");
    assert_eq!(
        store
            .history(ORG, "dep_1", 0, i64::MAX)
            .await
            .expect("history"),
        []
    );
    assert_eq!(store.deploys(ORG, "dep_1").await.expect("deploys"), []);
    assert_eq!(
        store
            .deliveries("wh_ready", None, 10)
            .await
            .expect("deliveries"),
        []
    );

    // The current claim finishes, with its effects.
    assert!(
        store
            .finish(&second, &complete("fresh"), &effects, at(LEASE + 20))
            .await
            .expect("finish")
    );
    let s = store
        .session("s_slow", ORG)
        .await
        .expect("session")
        .expect("stored");
    assert_eq!(
        (s.status, s.completions, s.plain_summary),
        (
            SessionStatus::Complete,
            1,
            Some("summary of fresh".to_owned())
        )
    );
    assert_eq!(
        store
            .history(ORG, "dep_1", 0, i64::MAX)
            .await
            .expect("history"),
        effects.history
    );
    assert_eq!(
        store
            .deliveries("wh_ready", None, 10)
            .await
            .expect("deliveries")
            .len(),
        1
    );
}

pub(super) async fn release_gives_the_job_back_uncounted(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    store
        .enqueue(&ingest("s_r", &k, None, 0), QueueLimit::total(ROOMY), None)
        .await
        .expect("enqueue");
    // Released more often than the attempts allowed: releases are not attempts.
    let mut last_token = String::new();
    for round in 0..(MAX_ATTEMPTS + 2) {
        let now = T0 + i64::from(round);
        let (job, reaped) = store
            .claim(now, LEASE, MAX_ATTEMPTS, &failure_effects)
            .await
            .expect("claim");
        let job = job.expect("the released job");
        assert_eq!((job.session_id.as_str(), job.attempt), ("s_r", 1));
        assert_eq!(reaped, Reaped::default());
        assert_ne!(job.token, last_token);
        store.release(&job).await.expect("release");
        assert_eq!(
            store
                .session("s_r", ORG)
                .await
                .expect("session")
                .map(|s| s.status),
            Some(SessionStatus::Received)
        );
        last_token = job.token;
    }
    assert_eq!(store.queue_depth().await.expect("depth"), 1);
    // Its lease was given up, so the next claim takes it at once, first attempt.
    let (job, _) = store
        .claim(T0 + 100, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    assert_eq!(job.map(|j| j.attempt), Some(1));
}

pub(super) async fn a_renewed_lease_keeps_the_job_claimed(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    store
        .enqueue(
            &ingest("s_long", &k, None, 0),
            QueueLimit::total(ROOMY),
            None,
        )
        .await
        .expect("enqueue");
    let (job, _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    let job = job.expect("the job");
    // The worker's heartbeat moves the lease on, again and again: long after the
    // first lease would have ended, nobody else gets the job.
    for beat in 1..=4 {
        let now = T0 + beat * LEASE;
        assert!(store.renew(&job, now + LEASE).await.expect("renew"));
        let (other, reaped) = store
            .claim(now, LEASE, MAX_ATTEMPTS, &failure_effects)
            .await
            .expect("claim");
        assert!(
            other.is_none(),
            "beat {beat}: the renewed job was claimed again"
        );
        assert_eq!(reaped, Reaped::default());
    }
    // The beats stop: the lease ends and the job is claimed again, second attempt;
    // the first claim can neither renew nor finish any more.
    let later = T0 + 6 * LEASE;
    let (again, reaped) = store
        .claim(later, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim");
    assert_eq!(again.as_ref().map(|j| j.attempt), Some(2));
    assert_eq!(reaped.requeued, 1);
    assert!(!store.renew(&job, later + LEASE).await.expect("renew"));
    let written = store
        .finish(&job, &complete("stale"), &Effects::default(), at(6 * LEASE))
        .await
        .expect("finish");
    assert!(!written);
    let again = again.expect("the job");
    assert!(store.renew(&again, later + LEASE).await.expect("renew"));
}

pub(super) async fn expired_leases_requeue_then_fail(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let hook = webhook("wh_ready", &k, &["intelligence.ready"], 0);
    store
        .create_webhook(&hook, 20)
        .await
        .expect("create_webhook");
    let mut s = ingest("s_lost", &k, Some("dep_1"), 0);
    s.webhook_url = Some("https://client.example/ready".to_owned());
    store
        .enqueue(&s, QueueLimit::total(ROOMY), None)
        .await
        .expect("enqueue");
    // A job with no deployment, and one claimed later, in the same queue.
    store
        .enqueue(
            &ingest("s_other", &k, None, 1),
            QueueLimit::total(ROOMY),
            None,
        )
        .await
        .expect("enqueue");

    let max_attempts = 2;
    let (job, _) = store
        .claim(T0, LEASE, max_attempts, &failure_effects)
        .await
        .expect("claim");
    assert_eq!(
        job.map(|j| (j.session_id, j.attempt)),
        Some(("s_lost".to_owned(), 1))
    );
    // The lease ends: requeued, and being the oldest, claimed again.
    let (job, reaped) = store
        .claim(T0 + LEASE, LEASE, max_attempts, &failure_effects)
        .await
        .expect("claim");
    assert_eq!(
        job.map(|j| (j.session_id, j.attempt)),
        Some(("s_lost".to_owned(), 2))
    );
    assert_eq!(
        reaped,
        Reaped {
            requeued: 1,
            failed: 0
        }
    );
    // The second lease ends: no attempts left, the session fails and the claim moves
    // on to the next job.
    let failed_at = T0 + 2 * LEASE;
    let (job, reaped) = store
        .claim(failed_at, LEASE, max_attempts, &failure_effects)
        .await
        .expect("claim");
    assert_eq!(
        job.map(|j| (j.session_id, j.attempt)),
        Some(("s_other".to_owned(), 1))
    );
    assert_eq!(
        reaped,
        Reaped {
            requeued: 0,
            failed: 1
        }
    );
    let lost = store
        .session("s_lost", ORG)
        .await
        .expect("session")
        .expect("stored");
    assert_eq!((lost.status, lost.completions), (SessionStatus::Failed, 0));
    let error = lost.error.expect("an error");
    assert!(error.contains("2 times"), "{error}");
    assert_eq!(store.queue_depth().await.expect("depth"), 1);

    // The failure's `intelligence.ready` is queued for the subscriber and for the
    // ingest's webhook_url, as of the failing claim.
    let deliveries = store
        .deliveries("wh_ready", None, 10)
        .await
        .expect("deliveries");
    assert_eq!(deliveries.len(), 1);
    assert_eq!(
        (
            deliveries[0].event_type.as_str(),
            deliveries[0].created_at,
            deliveries[0].attempts
        ),
        ("intelligence.ready", at(2 * LEASE), 0)
    );
    let jobs = store
        .claim_deliveries(failed_at, LEASE, 10, 100, 5)
        .await
        .expect("claim_deliveries");
    let urls: BTreeSet<&str> = jobs.iter().map(|j| j.url.as_str()).collect();
    assert_eq!(
        urls,
        BTreeSet::from([hook.url.as_str(), "https://client.example/ready"])
    );
    for j in &jobs {
        let body: serde_json::Value = serde_json::from_slice(&j.body).expect("JSON");
        assert_eq!(body["data"]["status"], "failed");
        assert_eq!(body["data"]["session_id"], "s_lost");
    }
}
