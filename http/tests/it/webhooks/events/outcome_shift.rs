//! `outcome_shift_detected`: deploys recorded through the API or seen as a release or
//! model version change in event metadata, measured once their window settles, and
//! an event when the resolved rate moved.

use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use undertone_core::drift::outcome;
use undertone_http::clock::Clock;

use super::{
    NOW_TEXT, Svc, assert_json_close, at, check_envelope, conversation, envelope_time, keys_of,
    points, request, sorted,
};

/// A time as the API writes it.
fn api_time(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// `n` short conversations from `start`, two minutes apart; conversation `k` is
/// resolved (by metadata) when `resolved(k)`. AI turns carry `release` when given.
fn outcome_body(
    deployment: &str,
    prefix: &str,
    start: DateTime<Utc>,
    range: std::ops::Range<usize>,
    resolved: impl Fn(usize) -> bool,
    release_key: Option<(&str, &str)>,
) -> Value {
    let mut events = Vec::new();
    for k in range {
        let mut meta = json!({"resolved": resolved(k)});
        if let Some((key, release)) = release_key {
            meta[key] = json!(release);
        }
        events.extend(conversation(
            &format!("{prefix}-{k}"),
            &format!("{prefix}-u{k}"),
            start + Duration::minutes(2 * k as i64),
            &["Where is my order?", "It ships today."],
            Some(&meta),
        ));
    }
    request(deployment, events)
}

/// The resolved flags core reads from a body.
fn resolved_count(body: &Value) -> (usize, usize) {
    let p = points(body);
    (p.iter().filter(|p| p.resolved).count(), p.len())
}

#[tokio::test]
async fn a_deploy_that_hurts_the_resolved_rate_fires_once_when_its_window_settles() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let deployed_at = at("2026-11-17T12:00:00Z");
    let reply = svc
        .post(
            "/api/v1/deployments/shift-bot/deploys",
            Some(&json!({"release": "r2", "description": "New refund prompt",
                "deployed_at": "2026-11-17T12:00:00Z"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(
        reply.header("location"),
        Some("/api/v1/deployments/shift-bot/deploys")
    );
    let deploy = reply.json();
    let deploy_id = deploy["id"].as_str().expect("id").to_owned();
    assert!(
        deploy_id.len() == 36
            && deploy_id.starts_with("dep_")
            && deploy_id[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{deploy_id}"
    );
    assert_eq!(
        deploy,
        json!({
            "id": deploy_id,
            "deployment_id": "shift-bot",
            "release": "r2",
            "description": "New refund prompt",
            "source": "api",
            "deployed_at": "2026-11-17T12:00:00.000Z",
            "created_at": NOW_TEXT,
            "measured_at": null,
            "result": null,
        })
    );

    // 40 before the deploy, 36 resolved; then 40 after, 12 resolved, in two halves.
    let before = outcome_body(
        "shift-bot",
        "b",
        deployed_at - Duration::minutes(90),
        0..40,
        |k| k % 10 != 0,
        None,
    );
    let after_1 = outcome_body("shift-bot", "a", deployed_at, 0..20, |k| k % 10 < 3, None);
    let after_2 = outcome_body("shift-bot", "a", deployed_at, 20..40, |k| k % 10 < 3, None);
    assert_eq!(resolved_count(&before), (36, 40));
    assert_eq!(resolved_count(&after_1), (6, 20));
    assert_eq!(resolved_count(&after_2), (6, 20));

    svc.ingest_and_run(&before).await;
    svc.ingest_and_run(&after_1).await;
    // 20 after 40 before: not settled.
    let listed = svc.get("/api/v1/deployments/shift-bot/deploys").await;
    assert_eq!(listed.status, StatusCode::OK);
    let listed = listed.json();
    assert_eq!(listed, json!({"data": [deploy.clone()]}));
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);

    svc.advance(3600);
    let measured_at = api_time(&svc.clock.now());
    svc.ingest_and_run(&after_2).await;
    let expected = outcome::counts(36, 40, 12, 40);
    assert!(expected.outcome_shift_detected);
    let listed = svc
        .get("/api/v1/deployments/shift-bot/deploys")
        .await
        .json();
    let d = &listed["data"][0];
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(d["id"], deploy_id.as_str());
    assert_eq!(d["measured_at"], measured_at.as_str());
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    assert_eq!(d["result"]["outcome_shift_detected"], true);
    assert_eq!(d["result"]["before_n"], 40);
    assert_eq!(d["result"]["after_resolved"], 12);

    let envelopes = svc.envelopes("outcome_shift_detected").await;
    assert_eq!(envelopes.len(), 1);
    let data = check_envelope(
        &envelopes[0],
        "outcome_shift_detected",
        "shift-bot",
        &envelope_time(&svc.clock.now()),
    );
    assert_eq!(
        keys_of(&data),
        sorted(&[
            "deploy_id",
            "source",
            "release",
            "deployed_at",
            "shift",
            "summary"
        ])
    );
    assert_eq!(data["deploy_id"], deploy_id.as_str());
    assert_eq!(data["source"], "api");
    assert_eq!(data["release"], "r2");
    assert_eq!(data["deployed_at"], "2026-11-17T12:00:00Z");
    assert_json_close(
        &data["shift"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "shift",
    );
    assert_eq!(data["summary"], expected.sentence("before", "after r2"));
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["event_id"], envelopes[0]["id"]);

    // More conversations after the deploy change nothing: measured once, fired once.
    svc.advance(3600);
    let more = outcome_body("shift-bot", "a", deployed_at, 40..70, |_| false, None);
    svc.ingest_and_run(&more).await;
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 1);
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
    let again = svc
        .get("/api/v1/deployments/shift-bot/deploys")
        .await
        .json();
    assert_eq!(again["data"][0]["measured_at"], measured_at.as_str());
    assert_json_close(&again["data"][0]["result"], &d["result"], "result again");
}

#[tokio::test]
async fn a_deploy_with_too_few_conversations_before_it_measures_without_firing() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let deployed_at = at("2026-11-17T12:00:00Z");
    let reply = svc
        .post(
            "/api/v1/deployments/few-bot/deploys",
            Some(&json!({"deployed_at": "2026-11-17T13:00:00+01:00"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["deployed_at"], "2026-11-17T12:00:00.000Z");
    assert_eq!(reply.json()["release"], Value::Null);

    // 10 before (all resolved), 25 after (none): the after side needs 30.
    svc.ingest_and_run(&outcome_body(
        "few-bot",
        "b",
        deployed_at - Duration::minutes(30),
        0..10,
        |_| true,
        None,
    ))
    .await;
    svc.ingest_and_run(&outcome_body(
        "few-bot",
        "a",
        deployed_at,
        0..25,
        |_| false,
        None,
    ))
    .await;
    let listed = svc.get("/api/v1/deployments/few-bot/deploys").await.json();
    assert_eq!(listed["data"][0]["measured_at"], Value::Null);
    assert_eq!(listed["data"][0]["result"], Value::Null);

    // 30 after: measured, but 10 before is too few to call a shift.
    svc.ingest_and_run(&outcome_body(
        "few-bot",
        "a",
        deployed_at,
        25..30,
        |_| false,
        None,
    ))
    .await;
    let listed = svc.get("/api/v1/deployments/few-bot/deploys").await.json();
    let d = &listed["data"][0];
    assert_eq!(d["measured_at"], NOW_TEXT);
    let expected = outcome::counts(10, 10, 0, 30);
    assert!(!expected.outcome_shift_detected);
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    assert_eq!(d["result"]["outcome_shift_detected"], false);
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);
    assert_eq!(svc.deliveries(&hook).await.len(), 0);
}

#[tokio::test]
async fn a_release_change_in_metadata_is_a_deploy_marker() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let start = at("2026-11-17T08:00:00Z");
    // 40 conversations on v1 (mostly resolved), then 40 on v2 (mostly not), in one
    // request.
    let v1 = outcome_body(
        "meta-bot",
        "v1",
        start,
        0..40,
        |k| k % 10 != 0,
        Some(("release", "v1")),
    );
    let v2_start = start + Duration::minutes(100);
    let v2 = outcome_body(
        "meta-bot",
        "v2",
        v2_start,
        0..40,
        |k| k % 10 < 3,
        Some(("release", "v2")),
    );
    let mut events = v1["events"].as_array().expect("events").clone();
    events.extend(v2["events"].as_array().expect("events").iter().cloned());
    let body = request("meta-bot", events);
    assert_eq!(resolved_count(&body), (48, 80));
    svc.ingest_and_run(&body).await;

    let listed = svc.get("/api/v1/deployments/meta-bot/deploys").await.json();
    let data = listed["data"].as_array().expect("data");
    assert_eq!(data.len(), 1, "{listed}");
    let d = &data[0];
    assert_eq!(d["source"], "metadata");
    assert_eq!(d["release"], "v2");
    assert_eq!(d["deployed_at"], api_time(&v2_start));
    assert_eq!(
        d["description"],
        "release changed from v1 to v2 in event metadata"
    );
    assert_eq!(d["created_at"], NOW_TEXT);
    assert_eq!(d["measured_at"], NOW_TEXT);
    let expected = outcome::counts(36, 40, 12, 40);
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    let envelopes = svc.envelopes("outcome_shift_detected").await;
    assert_eq!(envelopes.len(), 1);
    let e = &envelopes[0]["data"];
    assert_eq!(e["deploy_id"], d["id"]);
    assert_eq!(e["source"], "metadata");
    assert_eq!(e["release"], "v2");
    assert_eq!(e["deployed_at"], envelope_time(&v2_start));
    assert_eq!(svc.deliveries(&hook).await.len(), 1);

    // The same request again: one marker, one event.
    svc.ingest_and_run(&body).await;
    let listed = svc.get("/api/v1/deployments/meta-bot/deploys").await.json();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 1);
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
}

#[tokio::test]
async fn a_model_version_change_records_a_marker_that_waits_for_its_window() {
    let svc = Svc::new().await;
    let start = at("2026-11-17T08:00:00Z");
    let first = outcome_body(
        "mv-bot",
        "m1",
        start,
        0..5,
        |_| true,
        Some(("model_version", "m-1")),
    );
    svc.ingest_and_run(&first).await;
    // One release so far: no deploy.
    let listed = svc.get("/api/v1/deployments/mv-bot/deploys").await.json();
    assert_eq!(listed, json!({"data": []}));

    let second_start = start + Duration::hours(1);
    let second = outcome_body(
        "mv-bot",
        "m2",
        second_start,
        0..5,
        |_| false,
        Some(("model_version", "m-2")),
    );
    svc.ingest_and_run(&second).await;
    let listed = svc.get("/api/v1/deployments/mv-bot/deploys").await.json();
    let data = listed["data"].as_array().expect("data");
    assert_eq!(data.len(), 1, "{listed}");
    assert_eq!(data[0]["source"], "metadata");
    assert_eq!(data[0]["release"], "m-2");
    assert_eq!(data[0]["deployed_at"], api_time(&second_start));
    assert_eq!(data[0]["measured_at"], Value::Null);
    assert_eq!(data[0]["result"], Value::Null);
    let id = data[0]["id"].clone();

    // Seen again: the same marker.
    svc.ingest_and_run(&second).await;
    let listed = svc.get("/api/v1/deployments/mv-bot/deploys").await.json();
    assert_eq!(listed["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed["data"][0]["id"], id);
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);
}

#[tokio::test]
async fn a_deploy_recorded_after_its_conversations_is_measured_at_the_next_ingest() {
    let svc = Svc::new().await;
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let deployed_at = at("2026-11-17T12:00:00Z");
    // Both sides are in the history before the marker exists.
    svc.ingest_and_run(&outcome_body(
        "late-bot",
        "b",
        deployed_at - Duration::minutes(90),
        0..40,
        |k| k % 10 != 0,
        None,
    ))
    .await;
    svc.ingest_and_run(&outcome_body(
        "late-bot",
        "a",
        deployed_at,
        0..40,
        |k| k % 10 < 3,
        None,
    ))
    .await;
    let reply = svc
        .post(
            "/api/v1/deployments/late-bot/deploys",
            Some(&json!({"release": "r9", "deployed_at": "2026-11-17T12:00:00Z"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["measured_at"], Value::Null);
    assert_eq!(svc.envelopes("outcome_shift_detected").await.len(), 0);

    // The next conversation of the deployment settles it, on the first 40 after.
    svc.advance(60);
    svc.ingest_and_run(&outcome_body(
        "late-bot",
        "a",
        deployed_at,
        40..41,
        |_| true,
        None,
    ))
    .await;
    let listed = svc.get("/api/v1/deployments/late-bot/deploys").await.json();
    let d = &listed["data"][0];
    assert_eq!(d["measured_at"], "2026-11-18T11:07:40.000Z");
    let expected = outcome::counts(36, 40, 12, 40);
    assert_json_close(
        &d["result"],
        &serde_json::to_value(&expected).expect("serialisable"),
        "result",
    );
    let envelopes = svc.envelopes("outcome_shift_detected").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["data"]["release"], "r9");
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
}

/// docs/webhooks.md: "when a conversation's release differs from the previous
/// conversation's, a marker for the new release is recorded at that conversation's
/// start". A release deployed, rolled back and deployed again is three deploys.
#[tokio::test]
async fn a_release_rolled_back_and_deployed_again_is_three_markers() {
    let svc = Svc::new().await;
    let start = at("2026-11-17T08:00:00Z");
    let mut events = Vec::new();
    let mut starts = Vec::new();
    for (segment, release) in ["v1", "v2", "v1", "v2"].into_iter().enumerate() {
        let from = start + Duration::hours(segment as i64);
        starts.push(from);
        let body = outcome_body(
            "rollback-bot",
            &format!("s{segment}"),
            from,
            0..10,
            |_| true,
            Some(("release", release)),
        );
        events.extend(body["events"].as_array().expect("events").iter().cloned());
    }
    svc.ingest_and_run(&request("rollback-bot", events)).await;
    let listed = svc
        .get("/api/v1/deployments/rollback-bot/deploys")
        .await
        .json();
    let got: Vec<(String, String)> = listed["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|d| {
            assert_eq!(d["source"], "metadata");
            (
                d["release"].as_str().expect("release").to_owned(),
                d["deployed_at"].as_str().expect("deployed_at").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("v2".to_owned(), api_time(&starts[1])),
            ("v1".to_owned(), api_time(&starts[2])),
            ("v2".to_owned(), api_time(&starts[3])),
        ]
    );
}
