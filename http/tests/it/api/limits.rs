//! Rate limits on a manual clock: the hour, day and drift windows, their headers, and
//! that a 429 spends nothing while every other answer (400, 403, 503) counts.

use axum::http::StatusCode;
use undertone_http::keys::Scope;
use undertone_http::limits::Plan;

use super::{
    DAY_END, HOUR_END, NOW, ORG, Reply, Service, assert_error, assert_quota, drift_body, refund,
    unknown_id,
};

const HOUR: i64 = 3600;

/// The cheapest authenticated request: a well-formed id that names no session.
async fn cheap(svc: &Service, key: &str) -> Reply {
    svc.get_as(&format!("/api/v1/intelligence/{}", unknown_id()), Some(key))
        .await
}

/// A 429 as the contract has it, with `Retry-After: retry_after`.
#[track_caller]
fn assert_limited(reply: &Reply, message: &str, limit: i64, reset: i64, retry_after: i64) {
    assert_error(
        reply,
        StatusCode::TOO_MANY_REQUESTS,
        "RATE_LIMITED",
        message,
    );
    assert_quota(reply, limit, 0, reset);
    assert_eq!(reply.int("retry-after"), retry_after, "{reply:?}");
}

#[tokio::test]
async fn the_1001st_request_in_an_hour_is_429_until_the_next_hour() {
    let svc = Service::new().await;
    for n in 1..=1000 {
        let reply = cheap(&svc, &svc.key).await;
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "request {n}: {reply:?}"
        );
        assert_quota(&reply, 1000, 1000 - n, HOUR_END);
        assert_eq!(reply.header("retry-after"), None);
        if n == 500 {
            svc.advance(100);
        }
    }
    // 11:08:20: 3100 s to 12:00.
    let reply = cheap(&svc, &svc.key).await;
    assert_limited(
        &reply,
        "rate limit reached: 1000 requests per window for this key; retry in 3100 s",
        1000,
        HOUR_END,
        HOUR_END - (NOW + 100),
    );
    assert_eq!(reply.int("retry-after"), 3100);

    // Every route is refused, writes too; nothing is queued.
    let reply = svc.post("/api/v1/ingest", &refund()).await;
    assert_eq!(reply.status, StatusCode::TOO_MANY_REQUESTS, "{reply:?}");
    assert_eq!(svc.queue_depth().await, 0);

    // One second before the hour: still refused, with a shorter wait.
    svc.set(HOUR_END - 1);
    let reply = cheap(&svc, &svc.key).await;
    assert_limited(
        &reply,
        "rate limit reached: 1000 requests per window for this key; retry in 1 s",
        1000,
        HOUR_END,
        1,
    );

    // The next hour has room again.
    svc.set(HOUR_END);
    let reply = cheap(&svc, &svc.key).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_quota(&reply, 1000, 999, HOUR_END + HOUR);
    let reply = svc.post("/api/v1/ingest", &refund()).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_quota(&reply, 1000, 998, HOUR_END + HOUR);
}

#[tokio::test]
async fn the_day_window_binds_when_the_hour_has_room() {
    let svc = Service::new().await;
    let plan = Plan {
        per_hour: 5,
        per_day: 8,
        drift_per_hour: 10,
    };
    let (_, key) = svc.issue(ORG, Scope::ReadWrite, plan).await;

    // Hour 1: five requests; the hour window is the tighter one.
    for n in 1..=5 {
        let reply = cheap(&svc, &key).await;
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "request {n}: {reply:?}"
        );
        assert_quota(&reply, 5, 5 - n, HOUR_END);
    }
    let reply = cheap(&svc, &key).await;
    assert_limited(
        &reply,
        "rate limit reached: 5 requests per window for this key; retry in 3200 s",
        5,
        HOUR_END,
        3200,
    );

    // Hour 2: the day has 3 left (the refused request took none), fewer than the hour.
    svc.set(HOUR_END + 60);
    for n in 1..=3 {
        let reply = cheap(&svc, &key).await;
        assert_eq!(
            reply.status,
            StatusCode::NOT_FOUND,
            "request {n}: {reply:?}"
        );
        assert_quota(&reply, 8, 3 - n, DAY_END);
    }
    let reply = cheap(&svc, &key).await;
    let wait = DAY_END - (HOUR_END + 60);
    assert_limited(
        &reply,
        &format!("rate limit reached: 8 requests per window for this key; retry in {wait} s"),
        8,
        DAY_END,
        wait,
    );

    // The next hour does not help; the next day does.
    svc.set(HOUR_END + 2 * HOUR);
    let reply = cheap(&svc, &key).await;
    assert_limited(
        &reply,
        &format!(
            "rate limit reached: 8 requests per window for this key; retry in {} s",
            DAY_END - (HOUR_END + 2 * HOUR)
        ),
        8,
        DAY_END,
        DAY_END - (HOUR_END + 2 * HOUR),
    );
    // Another key of the same org has its own windows.
    let reply = cheap(&svc, &svc.key).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_quota(&reply, 1000, 999, HOUR_END + 3 * HOUR);

    svc.set(DAY_END);
    let reply = cheap(&svc, &key).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_quota(&reply, 5, 4, DAY_END + HOUR);
}

#[tokio::test]
async fn the_11th_drift_in_an_hour_is_429_while_other_routes_pass() {
    let svc = Service::new().await;
    let body = drift_body();
    for n in 1..=10 {
        let reply = svc.post("/api/v1/drift", &body).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "drift {n}: {reply:?}");
        assert_quota(&reply, 10, 10 - n, HOUR_END);
    }
    svc.advance(200);

    // Other routes pass; the hour window has 1000 - 11 left after this one.
    let before = cheap(&svc, &svc.key).await;
    assert_eq!(before.status, StatusCode::NOT_FOUND);
    assert_quota(&before, 1000, 989, HOUR_END);

    let refused = svc.post("/api/v1/drift", &body).await;
    assert_limited(
        &refused,
        "rate limit reached: 10 drift sessions per window for this key; retry in 3000 s",
        10,
        HOUR_END,
        3000,
    );
    assert_eq!(svc.queue_depth().await, 10);

    // The refused drift spent nothing: the hour window went from 989 to 988 only
    // for this request.
    let after = cheap(&svc, &svc.key).await;
    assert_eq!(after.status, StatusCode::NOT_FOUND);
    assert_quota(&after, 1000, 988, HOUR_END);
    let ingest = svc.post("/api/v1/ingest", &refund()).await;
    assert_eq!(ingest.status, StatusCode::ACCEPTED, "{ingest:?}");
    assert_quota(&ingest, 1000, 987, HOUR_END);

    // A read of a drift session is not a drift session.
    let id = super::session_id(&svc.post("/api/v1/ingest", &refund()).await);
    let read = svc.get(&format!("/api/v1/drift/{id}")).await;
    assert_eq!(read.status, StatusCode::NOT_FOUND);
    assert_quota(&read, 1000, 985, HOUR_END);

    // Another key has its own drift window.
    let (_, other) = svc.issue(ORG, Scope::ReadWrite, Plan::default()).await;
    let reply = svc.post_as("/api/v1/drift", Some(&other), &body).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_quota(&reply, 10, 9, HOUR_END);

    // The next hour has room for drift again.
    svc.set(HOUR_END);
    let reply = svc.post("/api/v1/drift", &body).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_quota(&reply, 10, 9, HOUR_END + HOUR);
}

#[tokio::test]
async fn a_drift_request_that_starts_no_session_counts_as_a_request_only() {
    let svc = Service::new().await;
    let body = drift_body();
    let mut invalid = body.clone();
    invalid["before"]["events"] = serde_json::json!([]);
    for n in 1..=3 {
        let reply = svc.post("/api/v1/drift", &invalid).await;
        assert_eq!(
            reply.status,
            StatusCode::BAD_REQUEST,
            "invalid {n}: {reply:?}"
        );
        // The drift-session window (10, none used) is the most constrained.
        assert_quota(&reply, 10, 10, HOUR_END);
    }
    // SPEC.md §8: every request counts against the request windows, a 400 too.
    let read = cheap(&svc, &svc.key).await;
    assert_quota(&read, 1000, 996, HOUR_END);
    // SPEC.md §4 and §8 limit drift *sessions* to 10 per hour per key, and the 429
    // says "10 drift sessions per window"; the three refused bodies started none, so
    // all ten are still there.
    for n in 1..=10 {
        let reply = svc.post("/api/v1/drift", &body).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "drift {n}: {reply:?}");
    }
}

#[tokio::test]
async fn when_several_windows_are_full_the_one_that_frees_up_last_is_reported() {
    let svc = Service::new().await;
    let plan = Plan {
        per_hour: 3,
        per_day: 3,
        drift_per_hour: 10,
    };
    let (_, key) = svc.issue(ORG, Scope::ReadWrite, plan).await;
    for n in 1..=3 {
        let reply = cheap(&svc, &key).await;
        // Equal room left in both: the window that resets first is reported.
        assert_quota(&reply, 3, 3 - n, HOUR_END);
    }
    let reply = cheap(&svc, &key).await;
    assert_limited(
        &reply,
        &format!(
            "rate limit reached: 3 requests per window for this key; retry in {} s",
            DAY_END - NOW
        ),
        3,
        DAY_END,
        DAY_END - NOW,
    );
}
