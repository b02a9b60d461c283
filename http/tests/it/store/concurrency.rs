//! Concurrent callers, as several workers or server processes on one database are:
//! exactly one first key, exactly the rate limit admitted, each accepted session
//! counted once, each job and each delivery claimed once (also after their leases
//! expire), each delivery queued once, each report saved once, and results that
//! share conversations stored side by side without a deadlock.
//!
//! Every check spawns its callers as tasks on the test's multi-thread runtime, all
//! sharing one store.

use std::collections::BTreeSet;
use std::sync::Arc;
use undertone_http::webhooks::emit::failure_effects;

use undertone_http::limits::{Decision, Plan, Quota, windows_for};
use undertone_http::store::{
    AttemptRecord, DeliveryStatus, Effects, Enqueued, NextStep, QueueLimit, Reaped, Registered,
    ReportRecord, SessionStatus, Store, Targets,
};

use super::deliveries::{ANOMALY, anomaly, claim_all};
use super::history::{UHR, report};
use super::queue::{complete, keyed};
use super::{ORG, T0, at, event, ingest, key, point, stored_key, webhook};

/// `T0` in unix seconds, the `now` of the rate-limit checks.
const NOW: i64 = T0 / 1000;
/// Lease of jobs and deliveries, in milliseconds.
const LEASE: i64 = 60_000;
/// Attempts before an abandoned job or delivery fails.
const MAX_ATTEMPTS: u32 = 3;
/// Room in the queue.
const ROOMY: u64 = 1_000;

/// A plan with the given hourly limit, a roomy day and a drift limit of one.
fn hourly(per_hour: u32) -> Plan {
    Plan {
        per_hour,
        per_day: 1_000,
        drift_per_hour: 1,
    }
}

pub(super) async fn racing_first_keys_make_exactly_one(store: Arc<Store>) {
    let racers: Vec<_> = (0..8)
        .map(|i| {
            let store = Arc::clone(&store);
            let record = key(&format!("key_race_{i}"), ORG, Plan::default(), i);
            tokio::spawn(async move {
                let created = store.create_first_key(&record).await.expect("first key");
                (record, created)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for racer in racers {
        let (record, created) = racer.await.expect("the task finishes");
        if created {
            winners.push(record);
        }
    }
    assert_eq!(winners.len(), 1, "exactly one racer creates the first key");
    assert_eq!(store.list_keys().await.expect("list_keys"), winners);
}

pub(super) async fn concurrent_charges_admit_exactly_the_limit(store: Arc<Store>) {
    let k = key("key_busy", ORG, hourly(50), 0);
    store.create_key(&k).await.expect("create_key");
    let windows = windows_for(&k.plan, NOW, false);
    let tasks: Vec<_> = (0..200)
        .map(|_| {
            let store = Arc::clone(&store);
            let windows = windows.clone();
            let key_id = k.id.clone();
            tokio::spawn(async move { store.charge(&key_id, &windows).await.expect("charge") })
        })
        .collect();
    let mut remaining = Vec::new();
    let mut refused = 0;
    for task in tasks {
        match task.await.expect("the task finishes") {
            Decision::Allowed(q) => remaining.push(q.remaining),
            Decision::Refused(q) => {
                assert_eq!(
                    q,
                    Quota {
                        limit: 50,
                        remaining: 0,
                        reset: windows[0].reset
                    }
                );
                refused += 1;
            }
        }
    }
    assert_eq!((remaining.len(), refused), (50, 150));
    // Each admitted request saw the count the one before it left: 49, 48, …, 0 once
    // each.
    remaining.sort_unstable();
    assert_eq!(remaining, (0..50).collect::<Vec<u32>>());
    assert_eq!(store.usage(&k.id, &windows).await.expect("usage"), [50, 50]);
}

pub(super) async fn concurrent_claimers_take_each_job_once(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let ids: Vec<String> = (0..100).map(|i| format!("s_{i:03}")).collect();
    for (i, id) in ids.iter().enumerate() {
        store
            .enqueue(
                &ingest(id, &k, None, i as i64),
                QueueLimit::total(ROOMY),
                None,
            )
            .await
            .expect("enqueue");
    }
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let mut claimed = Vec::new();
                loop {
                    let (job, reaped) = store
                        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
                        .await
                        .expect("claim");
                    assert_eq!(reaped, Reaped::default());
                    let Some(job) = job else { break };
                    assert_eq!(job.attempt, 1);
                    assert!(
                        store
                            .finish(&job, &complete(&job.session_id), &Effects::default(), at(1))
                            .await
                            .expect("finish"),
                        "a fresh claim finishes"
                    );
                    claimed.push(job.session_id);
                }
                claimed
            })
        })
        .collect();
    let mut claimed = Vec::new();
    for worker in workers {
        claimed.extend(worker.await.expect("the worker finishes"));
    }
    let unique: BTreeSet<&String> = claimed.iter().collect();
    assert_eq!(claimed.len(), 100, "no job is claimed twice");
    assert_eq!(
        unique,
        ids.iter().collect::<BTreeSet<_>>(),
        "no job is missed"
    );
    assert_eq!(store.queue_depth().await.expect("depth"), 0);
    for id in &ids {
        let s = store
            .session(id, ORG)
            .await
            .expect("session")
            .expect("stored");
        assert_eq!(
            (s.status, s.completions),
            (SessionStatus::Complete, 1),
            "{id}"
        );
    }
}

pub(super) async fn concurrent_enqueues_count_each_accepted_session_once(store: Arc<Store>) {
    let k = key("key_busy", ORG, hourly(30), 0);
    store.create_key(&k).await.expect("create_key");
    let windows = windows_for(&k.plan, NOW, false);
    let tasks: Vec<_> = (0..100)
        .map(|i| {
            let store = Arc::clone(&store);
            let windows = windows.clone();
            let session = ingest(&format!("s_{i:03}"), &k, None, i);
            tokio::spawn(async move {
                let enqueued = store
                    .enqueue(&session, QueueLimit::total(ROOMY), Some(&windows))
                    .await
                    .expect("enqueue");
                (session.id, enqueued)
            })
        })
        .collect();
    let mut accepted = Vec::new();
    let mut remaining = Vec::new();
    for task in tasks {
        match task.await.expect("the task finishes") {
            (id, Enqueued::Accepted(Some(q))) => {
                accepted.push(id);
                remaining.push(q.remaining);
            }
            (id, Enqueued::RateLimited(q)) => {
                assert_eq!(
                    q,
                    Quota {
                        limit: 30,
                        remaining: 0,
                        reset: windows[0].reset
                    }
                );
                assert_eq!(store.session(&id, ORG).await.expect("session"), None);
            }
            (id, other) => panic!("{id}: {other:?}"),
        }
    }
    assert_eq!(accepted.len(), 30);
    remaining.sort_unstable();
    assert_eq!(remaining, (0..30).collect::<Vec<u32>>());
    assert_eq!(store.queue_depth().await.expect("depth"), 30);
    assert_eq!(store.usage(&k.id, &windows).await.expect("usage"), [30, 30]);
    for id in &accepted {
        assert_eq!(
            store
                .session(id, ORG)
                .await
                .expect("session")
                .map(|s| s.status),
            Some(SessionStatus::Received),
            "{id}"
        );
    }
}

pub(super) async fn concurrent_claimers_reap_each_expired_lease_once(store: Arc<Store>) {
    let k = stored_key(&store, "key_q").await;
    let ids: Vec<String> = (0..20).map(|i| format!("s_{i:02}")).collect();
    for (i, id) in ids.iter().enumerate() {
        store
            .enqueue(
                &ingest(id, &k, None, i as i64),
                QueueLimit::total(ROOMY),
                None,
            )
            .await
            .expect("enqueue");
    }
    // A worker takes every job and is lost.
    for _ in &ids {
        let (job, _) = store
            .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
            .await
            .expect("claim");
        assert_eq!(job.map(|j| j.attempt), Some(1));
    }
    // When the leases end, eight workers share the requeued jobs.
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let mut claimed = Vec::new();
                let mut requeued = 0;
                loop {
                    let (job, reaped) = store
                        .claim(T0 + LEASE, LEASE, MAX_ATTEMPTS, &failure_effects)
                        .await
                        .expect("claim");
                    assert_eq!(reaped.failed, 0);
                    requeued += reaped.requeued;
                    let Some(job) = job else { break };
                    claimed.push((job.session_id, job.attempt));
                }
                (claimed, requeued)
            })
        })
        .collect();
    let mut claimed = Vec::new();
    let mut requeued = 0;
    for worker in workers {
        let (c, r) = worker.await.expect("the worker finishes");
        claimed.extend(c);
        requeued += r;
    }
    assert_eq!(requeued, 20, "each expired lease is reaped once");
    claimed.sort();
    assert_eq!(
        claimed,
        ids.iter().map(|id| (id.clone(), 2)).collect::<Vec<_>>(),
        "each requeued job is claimed once, as its second attempt"
    );
}

pub(super) async fn concurrent_delivery_claimers_take_each_once(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &[ANOMALY], 0), 20)
        .await
        .expect("create_webhook");
    let events: Vec<_> = (0..50).map(|i| anomaly(&format!("ev_{i:02}"), i)).collect();
    assert_eq!(store.emit(&events, at(0)).await.expect("emit"), 50);
    let claimers: Vec<_> = (0..4)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let mut claimed = Vec::new();
                loop {
                    let jobs = store
                        .claim_deliveries(T0 + 10, LEASE, 3, 100, MAX_ATTEMPTS)
                        .await
                        .expect("claim_deliveries");
                    if jobs.is_empty() {
                        break;
                    }
                    assert!(jobs.len() <= 3, "at most the limit: {}", jobs.len());
                    for job in jobs {
                        assert_eq!(job.attempt, 1);
                        let attempt = AttemptRecord {
                            attempt: 1,
                            started_at: at(10),
                            duration_ms: Some(1),
                            response_status: Some(200),
                            error: None,
                            response_body: None,
                        };
                        assert!(
                            store
                                .finish_delivery(&job, &attempt, NextStep::Succeeded)
                                .await
                                .expect("finish_delivery"),
                            "a fresh claim finishes"
                        );
                        claimed.push(job.id);
                    }
                }
                claimed
            })
        })
        .collect();
    let mut claimed = Vec::new();
    for claimer in claimers {
        claimed.extend(claimer.await.expect("the claimer finishes"));
    }
    let unique: BTreeSet<&String> = claimed.iter().collect();
    assert_eq!((claimed.len(), unique.len()), (50, 50), "each claimed once");
    let all = store
        .deliveries("wh_1", None, 100)
        .await
        .expect("deliveries");
    assert_eq!(
        all.iter().map(|d| &d.id).collect::<BTreeSet<_>>(),
        unique,
        "no delivery is missed"
    );
    assert!(
        all.iter()
            .all(|d| d.status == DeliveryStatus::Succeeded && d.attempts == 1),
        "{all:?}"
    );
}

pub(super) async fn concurrent_webhook_creates_stop_at_the_cap(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    // Thirty creates of one key race for a cap of 20.
    let creators: Vec<_> = (0..30)
        .map(|i| {
            let store = Arc::clone(&store);
            let w = webhook(&format!("wh_{i:02}"), &k, &[ANOMALY], i);
            tokio::spawn(async move { store.create_webhook(&w, 20).await.expect("create") })
        })
        .collect();
    let mut created = 0;
    for c in creators {
        created += u32::from(c.await.expect("the creator finishes") == Registered::Created);
    }
    assert_eq!(created, 20);
    assert_eq!(
        store
            .list_webhooks(Some("key_a"))
            .await
            .expect("list")
            .len(),
        20
    );
    // Another key has its own room.
    let other = stored_key(&store, "key_b").await;
    assert_eq!(
        store
            .create_webhook(&webhook("wh_b", &other, &[ANOMALY], 0), 20)
            .await
            .expect("create"),
        Registered::Created
    );
}

pub(super) async fn concurrent_creates_of_one_url_store_one_endpoint(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    let creators: Vec<_> = (0..10)
        .map(|i| {
            let store = Arc::clone(&store);
            let mut w = webhook(&format!("wh_{i:02}"), &k, &[ANOMALY], i);
            w.url = "https://hooks.example/one".to_owned();
            tokio::spawn(async move { store.create_webhook(&w, 20).await.expect("create") })
        })
        .collect();
    let mut outcomes = Vec::new();
    for c in creators {
        outcomes.push(c.await.expect("the creator finishes"));
    }
    let listed = store.list_webhooks(Some("key_a")).await.expect("list");
    assert_eq!(listed.len(), 1);
    let winner = &listed[0].id;
    assert_eq!(
        outcomes
            .iter()
            .filter(|o| **o == Registered::Created)
            .count(),
        1
    );
    assert!(
        outcomes
            .iter()
            .all(|o| *o == Registered::Created || *o == Registered::Taken(winner.clone())),
        "{outcomes:?}"
    );
    // Another key may have it too.
    let other = stored_key(&store, "key_b").await;
    let mut theirs = webhook("wh_b", &other, &[ANOMALY], 0);
    theirs.url = "https://hooks.example/one".to_owned();
    assert_eq!(
        store.create_webhook(&theirs, 20).await.expect("create"),
        Registered::Created
    );
}

pub(super) async fn concurrent_emits_queue_each_delivery_once(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    for (i, id) in ["wh_1", "wh_2", "wh_3"].into_iter().enumerate() {
        store
            .create_webhook(&webhook(id, &k, &[ANOMALY], i as i64), 20)
            .await
            .expect("create_webhook");
    }
    // Eight processes emit the same two events at once.
    let events = vec![anomaly("ev_1", 0), anomaly("ev_2", 0)];
    let emitters: Vec<_> = (0..8)
        .map(|i| {
            let store = Arc::clone(&store);
            let events = events.clone();
            tokio::spawn(async move { store.emit(&events, at(i)).await.expect("emit") })
        })
        .collect();
    let mut queued = 0;
    for emitter in emitters {
        queued += emitter.await.expect("the emitter finishes");
    }
    assert_eq!(queued, 6, "two events for three endpoints, once each");
    for id in ["wh_1", "wh_2", "wh_3"] {
        let mut events: Vec<_> = store
            .deliveries(id, None, 100)
            .await
            .expect("deliveries")
            .into_iter()
            .map(|d| d.event_id)
            .collect();
        events.sort();
        assert_eq!(events, ["ev_1", "ev_2"], "{id}");
    }
    assert_eq!(claim_all(&store, T0 + 100).await.len(), 6);
}

pub(super) async fn racing_reports_are_saved_once(store: Arc<Store>) {
    let k = stored_key(&store, "key_a").await;
    store
        .create_webhook(&webhook("wh_1", &k, &[UHR], 0), 20)
        .await
        .expect("create_webhook");
    // Eight schedulers generate the same report at once, each with its own event.
    let savers: Vec<_> = (0..8)
        .map(|i| {
            let store = Arc::clone(&store);
            let r = ReportRecord {
                report: format!(r#"{{"by":{i}}}"#),
                ..report("uhr_1", "dep_1", 0)
            };
            let e = event(
                &format!("ev_{i}"),
                UHR,
                "dep_1",
                Targets::Subscribers(None),
                0,
            );
            tokio::spawn(async move {
                let saved = store.save_report(&r, &e, at(0)).await.expect("save_report");
                (r, e.id, saved)
            })
        })
        .collect();
    let mut winners = Vec::new();
    for saver in savers {
        let (r, event_id, saved) = saver.await.expect("the saver finishes");
        if saved {
            winners.push((r, event_id));
        }
    }
    let [(report, event_id)] = winners.as_slice() else {
        panic!("exactly one saver wins: {winners:?}");
    };
    assert_eq!(
        store.reports(ORG, "dep_1").await.expect("reports"),
        std::slice::from_ref(report)
    );
    let delivered: Vec<_> = store
        .deliveries("wh_1", None, 100)
        .await
        .expect("deliveries")
        .into_iter()
        .map(|d| d.event_id)
        .collect();
    assert_eq!(
        delivered,
        std::slice::from_ref(event_id),
        "only the winner's event"
    );
}

/// Forty sessions of one deployment, each with the same twenty conversations (half
/// listed in one order, half in the other), finished at once: every finish commits
/// and the history holds each conversation once.
pub(super) async fn concurrent_finishes_sharing_conversations_all_commit(store: Arc<Store>) {
    let k = stored_key(&store, "key_h").await;
    for i in 0..40 {
        let s = ingest(&format!("s_{i:02}"), &k, Some("dep"), i);
        store
            .enqueue(&s, QueueLimit::total(ROOMY), None)
            .await
            .expect("enqueue");
    }
    let mut jobs = Vec::new();
    while let (Some(job), _) = store
        .claim(T0, LEASE, MAX_ATTEMPTS, &failure_effects)
        .await
        .expect("claim")
    {
        jobs.push(job);
    }
    assert_eq!(jobs.len(), 40);
    let finishing: Vec<_> = jobs
        .into_iter()
        .enumerate()
        .map(|(i, job)| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let mut history: Vec<_> = (0..20)
                    .map(|c| point(&format!("conv_{c:02}"), c, 0.25))
                    .collect();
                if i % 2 == 1 {
                    history.reverse();
                }
                let effects = Effects {
                    history,
                    ..Effects::default()
                };
                store
                    .finish(&job, &complete(&job.session_id), &effects, at(1))
                    .await
            })
        })
        .collect();
    for f in finishing {
        assert!(
            f.await.expect("the task finishes").expect("finish commits"),
            "a current claim finishes"
        );
    }
    let history = store
        .history(ORG, "dep", 0, i64::MAX)
        .await
        .expect("history");
    let conversations: Vec<&str> = history.iter().map(|p| p.conversation_id.as_str()).collect();
    let expected: Vec<String> = (0..20).map(|c| format!("conv_{c:02}")).collect();
    assert_eq!(
        conversations, expected,
        "each conversation once, in time order"
    );
}

/// A hundred attempts recorded while their five webhooks are deleted: no call fails
/// (no deadlock between the two), and every delivery ends `failed`, whichever came
/// first.
pub(super) async fn deleting_webhooks_while_attempts_finish_never_deadlocks(store: Arc<Store>) {
    let k = stored_key(&store, "key_d").await;
    for w in 0..5 {
        let hook = webhook(&format!("wh_{w}"), &k, &[ANOMALY], w);
        store
            .create_webhook(&hook, 20)
            .await
            .expect("create_webhook");
    }
    let events: Vec<_> = (0..20).map(|i| anomaly(&format!("ev_{i:02}"), i)).collect();
    assert_eq!(store.emit(&events, at(0)).await.expect("emit"), 100);
    let jobs = claim_all(&store, T0 + 10).await;
    assert_eq!(jobs.len(), 100);
    let mut tasks = tokio::task::JoinSet::new();
    for (i, job) in jobs.into_iter().enumerate() {
        let finishing = Arc::clone(&store);
        tasks.spawn(async move {
            let attempt = AttemptRecord {
                attempt: 1,
                started_at: at(10),
                duration_ms: Some(1),
                response_status: Some(500),
                error: Some("HTTP 500".to_owned()),
                response_body: None,
            };
            finishing
                .finish_delivery(&job, &attempt, NextStep::RetryAt(T0 + 5_000))
                .await
                .map(|_| ())
        });
        if i % 20 == 10 {
            let deleting = Arc::clone(&store);
            let id = format!("wh_{}", i / 20);
            tasks.spawn(async move {
                let deleted = deleting.delete_webhook(&id, Some("key_d"), at(20)).await?;
                assert!(deleted, "{id} is deleted once");
                Ok(())
            });
        }
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("the task finishes").expect("no call fails");
    }
    for w in 0..5 {
        let all = store
            .deliveries(&format!("wh_{w}"), None, 100)
            .await
            .expect("deliveries");
        assert_eq!(all.len(), 20);
        assert!(
            all.iter().all(|d| d.status == DeliveryStatus::Failed),
            "wh_{w}: {:?}",
            all.iter().map(|d| d.status).collect::<Vec<_>>()
        );
    }
}

pub(super) async fn concurrent_repeats_of_one_idempotency_key_start_one_session(store: Arc<Store>) {
    let k = stored_key(&store, "key_retry").await;
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let store = Arc::clone(&store);
            let session = keyed(ingest(&format!("s_{i:02}"), &k, None, i), "one-job", "d");
            tokio::spawn(async move {
                store
                    .enqueue(&session, QueueLimit::total(ROOMY), None)
                    .await
                    .expect("enqueue")
            })
        })
        .collect();
    let mut started = 0;
    let mut repeats = BTreeSet::new();
    for task in tasks {
        match task.await.expect("the task finishes") {
            Enqueued::Accepted(None) => started += 1,
            Enqueued::Earlier(e) => {
                assert!(e.same_request, "{e:?}");
                repeats.insert(e.session_id);
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(started, 1);
    assert_eq!(
        repeats.len(),
        1,
        "every repeat names the one session: {repeats:?}"
    );
    assert_eq!(store.queue_depth().await.expect("depth"), 1);
    let first = repeats.pop_first().expect("one");
    assert!(store.session(&first, ORG).await.expect("session").is_some());
}
