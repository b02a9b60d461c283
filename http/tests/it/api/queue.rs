//! The job queue: 503 at capacity, leases that expire on a manual clock, retries, the
//! final failure, and finishing with a stale claim.

use std::time::Duration;
use undertone_http::webhooks::emit::failure_effects;

use axum::http::StatusCode;
use serde_json::{Value, json};
use undertone_core::score::score;
use undertone_core::{sdk, validate};
use undertone_http::api::Config;
use undertone_http::store::{Effects, Job, Outcome, Reaped, SessionKind};
use undertone_http::worker;

use super::{HOUR_END, NOW_TEXT, ORG, Service, assert_error, drift_body, refund};

/// Claims the next job through the store, as a worker that then dies would.
async fn claim(svc: &Service) -> (Option<Job>, Reaped) {
    let lease = i64::try_from(svc.state.config.lease.as_millis()).expect("lease fits");
    svc.store
        .claim(
            svc.now().timestamp_millis(),
            lease,
            svc.state.config.max_attempts,
            &failure_effects,
        )
        .await
        .expect("the store answers")
}

/// Moves the clock one second past the configured lease.
fn expire_lease(svc: &Service) {
    svc.advance(i64::try_from(svc.state.config.lease.as_secs()).expect("fits") + 1);
}

/// The session as the API shows it.
async fn session(svc: &Service, id: &str) -> Value {
    let reply = svc.get(&format!("/api/v1/intelligence/{id}")).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    reply.json()
}

#[tokio::test]
async fn a_full_queue_is_503_with_retry_after_until_a_job_is_done() {
    let svc = Service::with_config(Config {
        queue_capacity: 2,
        // One key fills the queue here: the share is not what this test is about.
        queue_key_share: 1.0,
        ..Config::default()
    })
    .await;
    svc.ingest(&refund()).await;
    svc.ingest(&refund()).await;

    let message = "the queue is at capacity (2 jobs waiting); retry after 5 s";
    let reply = svc.post("/api/v1/ingest", &refund()).await;
    assert_error(
        &reply,
        StatusCode::SERVICE_UNAVAILABLE,
        "SERVICE_UNAVAILABLE",
        message,
    );
    assert_eq!(reply.int("retry-after"), 5, "{reply:?}");
    assert_eq!(reply.int("x-ratelimit-limit"), 1000, "{reply:?}");
    assert_eq!(reply.int("x-ratelimit-reset"), HOUR_END, "{reply:?}");

    let reply = svc.post("/api/v1/drift", &drift_body()).await;
    assert_error(
        &reply,
        StatusCode::SERVICE_UNAVAILABLE,
        "SERVICE_UNAVAILABLE",
        message,
    );
    assert_eq!(reply.int("retry-after"), 5, "{reply:?}");
    assert_eq!(svc.queue_depth().await, 2);

    assert!(svc.run_one().await);
    assert_eq!(svc.queue_depth().await, 1);
    let reply = svc.post("/api/v1/ingest", &refund()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(svc.queue_depth().await, 2);
    let reply = svc.post("/api/v1/drift", &drift_body()).await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE, "{reply:?}");
}

#[tokio::test]
async fn the_retry_after_of_a_full_queue_is_configured() {
    let svc = Service::with_config(Config {
        queue_capacity: 0,
        queue_retry_after: 17,
        ..Config::default()
    })
    .await;
    let reply = svc.post("/api/v1/ingest", &refund()).await;
    assert_error(
        &reply,
        StatusCode::SERVICE_UNAVAILABLE,
        "SERVICE_UNAVAILABLE",
        "the queue is at capacity (0 jobs waiting); retry after 17 s",
    );
    assert_eq!(reply.int("retry-after"), 17);
}

#[tokio::test]
async fn a_claimed_job_is_processing_and_requeued_when_its_lease_expires() {
    let svc = Service::new().await;
    let id = svc.ingest(&refund()).await;

    let (job, reaped) = claim(&svc).await;
    let first = job.expect("a job is queued");
    assert_eq!((first.session_id.as_str(), first.attempt), (id.as_str(), 1));
    assert_eq!(reaped, Reaped::default());
    assert_eq!(session(&svc, &id).await["status"], json!("processing"));
    assert_eq!(svc.queue_depth().await, 1, "a leased job is still queued");

    // While the lease holds, nobody else gets the job.
    svc.advance(30);
    let (none, reaped) = claim(&svc).await;
    assert!(none.is_none());
    assert_eq!(reaped, Reaped::default());

    // Past the lease, the job goes back and is claimed again: attempt 2.
    svc.advance(31);
    let (job, reaped) = claim(&svc).await;
    let second = job.expect("the expired job is claimed again");
    assert_eq!(
        (second.session_id.as_str(), second.attempt),
        (id.as_str(), 2)
    );
    assert_ne!(second.token, first.token);
    assert_eq!(
        reaped,
        Reaped {
            requeued: 1,
            failed: 0
        }
    );

    // The first worker comes back too late: its claim is stale.
    let fake = Outcome::Failed("written by a stale claim".into());
    assert!(
        !svc.store
            .finish(&first, &fake, &Effects::default(), svc.now())
            .await
            .expect("the store answers")
    );
    assert_eq!(session(&svc, &id).await["status"], json!("processing"));

    let outcome = worker::outcome(second.kind, &second.session_id, &second.body);
    assert!(
        svc.store
            .finish(&second, &outcome, &Effects::default(), svc.now())
            .await
            .expect("the store answers")
    );
    let complete = session(&svc, &id).await;
    assert_eq!(complete["status"], json!("complete"));
    assert_eq!(complete["completed_at"], json!("2026-11-18T11:07:41.000Z"));
    assert_eq!(complete["error"], Value::Null);
    assert_eq!(svc.queue_depth().await, 0);

    // Finishing again with either claim changes nothing.
    for job in [&first, &second] {
        assert!(
            !svc.store
                .finish(job, &fake, &Effects::default(), svc.now())
                .await
                .expect("the store answers")
        );
    }
    assert_eq!(session(&svc, &id).await, complete);
    let stored = svc
        .store
        .session(&id, ORG)
        .await
        .expect("the store answers")
        .expect("the session exists");
    assert_eq!(stored.completions, 1);
}

#[tokio::test]
async fn run_one_completes_a_job_whose_worker_was_lost() {
    let svc = Service::new().await;
    let id = svc.ingest(&refund()).await;
    let (job, _) = claim(&svc).await;
    let lost = job.expect("a job is queued");

    // Within the lease, run_one finds nothing to do.
    assert!(!svc.run_one().await);
    assert_eq!(session(&svc, &id).await["status"], json!("processing"));

    expire_lease(&svc);
    assert!(svc.run_one().await);
    let complete = session(&svc, &id).await;
    assert_eq!(complete["status"], json!("complete"));
    assert_eq!(complete["completed_at"], json!("2026-11-18T11:07:41.000Z"));
    assert_eq!(complete["created_at"], json!(NOW_TEXT));
    assert!(complete["full_output"].is_object(), "{complete}");
    assert_eq!(svc.queue_depth().await, 0);

    // The lost worker's late result is refused and changes nothing.
    let late = worker::outcome(lost.kind, &lost.session_id, &lost.body);
    assert!(
        !svc.store
            .finish(&lost, &late, &Effects::default(), svc.now())
            .await
            .expect("the store answers")
    );
    assert_eq!(session(&svc, &id).await, complete);
    let stored = svc
        .store
        .session(&id, ORG)
        .await
        .expect("the store answers")
        .expect("the session exists");
    assert_eq!(stored.completions, 1);
}

#[tokio::test]
async fn a_job_whose_lease_expires_max_attempts_times_fails_with_an_error() {
    let svc = Service::new().await;
    let max = svc.state.config.max_attempts;
    // DESIGN.md §5: retried at most 3 times, i.e. 4 attempts in all.
    assert_eq!(max, 4);
    let id = svc.ingest(&refund()).await;

    for attempt in 1..=max {
        let (job, reaped) = claim(&svc).await;
        let job = job.unwrap_or_else(|| panic!("attempt {attempt} claims the job"));
        assert_eq!(
            (job.session_id.as_str(), job.attempt),
            (id.as_str(), attempt)
        );
        let requeued = u32::from(attempt > 1);
        assert_eq!(
            reaped,
            Reaped {
                requeued,
                failed: 0
            }
        );
        assert_eq!(session(&svc, &id).await["status"], json!("processing"));
        expire_lease(&svc);
    }

    // The last lease has expired: the next worker fails the session, runs nothing.
    assert!(!svc.run_one().await);
    let failed = session(&svc, &id).await;
    assert_eq!(
        failed,
        json!({
            "session_id": id,
            "status": "failed",
            "event_count": 20,
            "environment_type": null,
            "created_at": NOW_TEXT,
            "completed_at": null,
            "plain_summary": null,
            "plain_recommendations": null,
            "full_output": null,
            "error": "processing stopped without finishing 4 times (the worker was lost each \
                      time); giving up",
        })
    );
    let condensed = svc
        .get(&format!("/api/v1/intelligence/{id}?view=condensed"))
        .await;
    assert_eq!(condensed.json()["status"], json!("failed"));
    assert_eq!(svc.queue_depth().await, 0);
    let (none, reaped) = claim(&svc).await;
    assert!(none.is_none());
    assert_eq!(reaped, Reaped::default());
}

#[tokio::test]
async fn a_shorter_lease_and_fewer_attempts_are_honoured() {
    let svc = Service::with_config(Config {
        lease: Duration::from_secs(5),
        max_attempts: 2,
        ..Config::default()
    })
    .await;
    let id = svc.ingest(&refund()).await;
    let (job, _) = claim(&svc).await;
    assert_eq!(job.expect("queued").attempt, 1);
    svc.advance(6);
    let (job, reaped) = claim(&svc).await;
    assert_eq!(job.expect("requeued").attempt, 2);
    assert_eq!(reaped.requeued, 1);
    svc.advance(6);
    let (none, reaped) = claim(&svc).await;
    assert!(none.is_none());
    assert_eq!(
        reaped,
        Reaped {
            requeued: 0,
            failed: 1
        }
    );
    let failed = session(&svc, &id).await;
    assert_eq!(failed["status"], json!("failed"));
    assert_eq!(
        failed["error"],
        json!(
            "processing stopped without finishing 2 times (the worker was lost each time); \
             giving up"
        )
    );
}

#[tokio::test]
async fn a_running_job_renews_its_lease_so_no_other_worker_takes_it() {
    // A lease of 30 ms, renewed every 10 ms by the heartbeat.
    let svc = Service::with_config(Config {
        lease: Duration::from_millis(30),
        ..Config::default()
    })
    .await;
    let id = svc.ingest(&refund()).await;
    let (job, _) = claim(&svc).await;
    let job = job.expect("queued");
    let beat = worker::heartbeat(&svc.state, &job);
    // An hour passes on the clock; the heartbeat renews from the clock's time.
    svc.advance(3_600);
    tokio::time::sleep(Duration::from_millis(150)).await;
    let (other, reaped) = claim(&svc).await;
    assert!(
        other.is_none(),
        "a renewed job was claimed by another worker"
    );
    assert_eq!(reaped, Reaped::default());
    assert_eq!(session(&svc, &id).await["status"], json!("processing"));
    // The worker is gone: its lease ends, and the job goes to the next worker.
    beat.abort();
    svc.advance(1);
    let (again, reaped) = claim(&svc).await;
    assert_eq!(again.map(|j| j.attempt), Some(2));
    assert_eq!(reaped.requeued, 1);
}

#[tokio::test]
async fn a_job_over_its_time_budget_fails_saying_so() {
    let svc = Service::with_config(Config {
        job_time_budget: Duration::ZERO,
        ..Config::default()
    })
    .await;
    let id = svc.ingest(&refund()).await;
    assert!(svc.run_one().await);
    let failed = session(&svc, &id).await;
    assert_eq!(failed["status"], json!("failed"));
    assert_eq!(
        failed["error"],
        json!(
            "scoring took longer than the job time budget of 0 s (0 of 2 conversations \
             scored); split the request into smaller ones, or raise the server's \
             --job-time-budget"
        )
    );
    assert_eq!(svc.queue_depth().await, 0);
}

#[test]
fn a_stored_result_is_the_json_every_sdk_returns() {
    let body = refund().to_string();
    let outcome = worker::outcome(SessionKind::Ingest, "s1", body.as_bytes());
    let Outcome::Complete { full_output, .. } = outcome else {
        panic!("the example scores: {outcome:?}");
    };
    // What `undertone score` prints and every binding returns, and serde_json's own text.
    let request =
        validate::ingest_request_bytes(body.as_bytes(), &validate::Options::STORED).unwrap();
    let result = score(&request);
    assert_eq!(full_output, sdk::render_score(&result, sdk::View::Full));
    assert_eq!(full_output, serde_json::to_string(&result).unwrap());
    assert!(
        full_output.contains("\"contribution\":"),
        "{full_output:.200}"
    );
}
