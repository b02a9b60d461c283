//! `intelligence.ready`: to subscribers and to an ingest's `webhook_url`, for a
//! complete session and for one that failed (a broken stored input, or workers lost on
//! every attempt).

use serde_json::{Value, json};
use sqlx::Row;
use undertone_http::clock::Clock;
use undertone_http::keys::Scope;
use undertone_http::webhooks::emit::failure_effects;

use super::{
    NOW_ENVELOPE, NOW_TEXT, SINK, Svc, assert_json_close, check_envelope, example, is_uuid,
    keys_of, score, sorted,
};

#[tokio::test]
async fn intelligence_ready_goes_to_subscribers_and_the_ingest_webhook_url() {
    let svc = Svc::new().await;
    let ready = svc.register(&["intelligence.ready"]).await;
    let other_kinds = svc
        .register(&[
            "anomaly_detected",
            "outcome_shift_detected",
            "uhr_generated",
        ])
        .await;
    let (org_b_key, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let org_b = svc
        .register_as(&org_b_key, SINK, &["intelligence.ready"])
        .await;
    let org_b = org_b["id"].as_str().expect("id").to_owned();

    let mut body = example("support-refund-goes-wrong");
    body["webhook_url"] = json!("http://127.0.0.1:9/direct");
    let sid = svc.ingest_and_run(&body).await;

    // Exactly one delivery to the subscriber, queued and not attempted.
    let listed = svc.deliveries(&ready).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    let d = &listed[0];
    assert_eq!(d["event_type"], "intelligence.ready");
    assert_eq!(d["status"], "pending");
    assert_eq!(d["attempts"], 0);
    assert_eq!(d["attempt_log"], json!([]));
    assert_eq!(d["created_at"], NOW_TEXT);
    assert!(is_uuid(&d["id"]), "{d}");
    assert_eq!(svc.deliveries(&other_kinds).await, Vec::<Value>::new());
    assert_eq!(
        svc.deliveries_as(&org_b_key, &org_b).await,
        Vec::<Value>::new()
    );

    // The envelope.
    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(envelopes.len(), 1, "{envelopes:?}");
    let envelope = &envelopes[0];
    assert_eq!(envelope["id"], d["event_id"]);
    let data = check_envelope(
        envelope,
        "intelligence.ready",
        "acme-support-bot",
        NOW_ENVELOPE,
    );
    assert_eq!(
        keys_of(&data),
        sorted(&[
            "session_id",
            "status",
            "poll_url",
            "completed_at",
            "event_count",
            "error",
            "result"
        ])
    );
    assert_eq!(data["session_id"], sid.as_str());
    assert_eq!(data["status"], "complete");
    assert_eq!(data["poll_url"], format!("/api/v1/intelligence/{sid}"));
    assert_eq!(data["completed_at"], NOW_ENVELOPE);
    assert_eq!(data["event_count"], 20);
    assert_eq!(data["error"], Value::Null);
    // `result` is core's condensed view of this request, and what the condensed
    // route answers (minus `status`).
    let (_, result) = score(&body);
    let expected = serde_json::to_value(result.condensed(Some(&sid))).expect("serialisable");
    assert_json_close(&data["result"], &expected, "data.result");
    let condensed = svc
        .get(&format!("/api/v1/intelligence/{sid}?view=condensed"))
        .await
        .json();
    let mut without_status = condensed.clone();
    without_status
        .as_object_mut()
        .expect("object")
        .remove("status");
    assert_eq!(condensed["status"], "complete");
    assert_json_close(&data["result"], &without_status, "condensed view");

    // The ingest's webhook_url: a delivery of the same event, signed with the key's
    // delivery secret (no webhook row; the key is named).
    let rows = sqlx::query(
        "SELECT endpoint, webhook_id, key_id, url, status, attempts, event_id FROM deliveries \
         WHERE webhook_id IS NULL",
    )
    .fetch_all(&svc.db)
    .await
    .expect("deliveries are readable");
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(
        row.try_get::<String, _>("endpoint").expect("endpoint"),
        format!("ingest:{sid}")
    );
    assert_eq!(
        row.try_get::<Option<String>, _>("key_id").expect("key_id"),
        Some(svc.key_id.clone())
    );
    assert_eq!(
        row.try_get::<String, _>("url").expect("url"),
        "http://127.0.0.1:9/direct"
    );
    assert_eq!(
        row.try_get::<String, _>("status").expect("status"),
        "pending"
    );
    assert_eq!(row.try_get::<i64, _>("attempts").expect("attempts"), 0);
    assert_eq!(
        row.try_get::<String, _>("event_id").expect("event_id"),
        envelope["id"].as_str().expect("id")
    );
    assert_eq!(svc.delivery_count("intelligence.ready").await, 2);
}

#[tokio::test]
async fn intelligence_ready_without_webhook_url_or_subscribers_queues_nothing_extra() {
    let svc = Svc::new().await;
    // No subscriber and no webhook_url: nothing to deliver, nothing stored.
    svc.ingest_and_run(&example("support-refund-goes-wrong"))
        .await;
    assert_eq!(svc.delivery_count("intelligence.ready").await, 0);
    assert_eq!(svc.envelopes("intelligence.ready").await.len(), 0);

    // A subscriber and no webhook_url: one delivery, no `ingest:` endpoint.
    let ready = svc.register(&["intelligence.ready"]).await;
    let sid = svc
        .ingest_and_run(&example("coding-assistant-goes-well"))
        .await;
    let listed = svc.deliveries(&ready).await;
    assert_eq!(listed.len(), 1);
    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["data"]["session_id"], sid.as_str());
    let direct: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM deliveries WHERE endpoint LIKE 'ingest:%'")
            .fetch_one(&svc.db)
            .await
            .expect("readable");
    assert_eq!(direct, 0);
}

#[tokio::test]
async fn intelligence_ready_reports_a_failed_session() {
    let svc = Svc::new().await;
    let ready = svc.register(&["intelligence.ready"]).await;
    let mut body = example("support-refund-goes-wrong");
    body["webhook_url"] = json!("http://127.0.0.1:9/direct");
    let sid = svc.ingest(&body).await;
    // Make processing fail: the worker must parse the stored input, and it is broken.
    assert!(svc.state.handoff.take(&sid).is_some());
    let changed = sqlx::query("UPDATE session_inputs SET body = ? WHERE session_id = ?")
        .bind(b"{not json".to_vec())
        .bind(&sid)
        .execute(&svc.db)
        .await
        .expect("writable");
    assert_eq!(changed.rows_affected(), 1);
    assert_eq!(svc.run_jobs().await, 1);

    let session = svc.get(&format!("/api/v1/intelligence/{sid}")).await.json();
    assert_eq!(session["status"], "failed", "{session}");
    let error = session["error"].as_str().expect("error is set").to_owned();
    assert!(
        error.starts_with("the stored request is invalid"),
        "{error}"
    );

    let listed = svc.deliveries(&ready).await;
    assert_eq!(listed.len(), 1);
    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["id"], listed[0]["event_id"]);
    let data = check_envelope(
        &envelopes[0],
        "intelligence.ready",
        "acme-support-bot",
        NOW_ENVELOPE,
    );
    assert_eq!(
        data,
        json!({
            "session_id": sid,
            "status": "failed",
            "poll_url": format!("/api/v1/intelligence/{sid}"),
            "completed_at": NOW_ENVELOPE,
            "event_count": 20,
            "error": error,
            "result": null,
        })
    );
    // The ingest's webhook_url hears about the failure too.
    let direct: Vec<String> = sqlx::query_scalar(
        "SELECT endpoint FROM deliveries WHERE webhook_id IS NULL ORDER BY endpoint",
    )
    .fetch_all(&svc.db)
    .await
    .expect("readable");
    assert_eq!(direct, vec![format!("ingest:{sid}")]);
    // Nothing else came of a failed session.
    for kind in [
        "layer_z_threshold_crossed",
        "anomaly_detected",
        "outcome_shift_detected",
    ] {
        assert_eq!(svc.envelopes(kind).await.len(), 0, "{kind}");
    }
}

/// A session whose worker is lost on every attempt ends `failed` (DESIGN.md §5); the
/// issue asks for `intelligence.ready` on failure as well.
#[tokio::test]
async fn intelligence_ready_reports_a_session_failed_after_lost_workers() {
    let svc = Svc::new().await;
    let ready = svc.register(&["intelligence.ready"]).await;
    let mut body = example("support-refund-goes-wrong");
    body["webhook_url"] = json!("http://127.0.0.1:9/direct");
    let sid = svc.ingest(&body).await;
    let lease_ms = i64::try_from(svc.state.config.lease.as_millis()).expect("small");
    let max = svc.state.config.max_attempts;
    // Every attempt's worker dies: the job is claimed and never finished.
    for _ in 0..max {
        let (job, _) = svc
            .store
            .claim(
                svc.clock.now().timestamp_millis(),
                lease_ms,
                max,
                &failure_effects,
            )
            .await
            .expect("the store answers");
        assert_eq!(job.map(|j| j.session_id), Some(sid.clone()));
        svc.advance(lease_ms / 1000 + 1);
    }
    // The next claim gives up on it.
    assert_eq!(svc.run_jobs().await, 0);
    let session = svc.get(&format!("/api/v1/intelligence/{sid}")).await.json();
    assert_eq!(session["status"], "failed", "{session}");
    assert!(session["error"].is_string(), "{session}");

    let envelopes = svc.envelopes("intelligence.ready").await;
    assert_eq!(
        envelopes.len(),
        1,
        "a session failed by lost workers queued no intelligence.ready"
    );
    assert_eq!(envelopes[0]["data"]["status"], "failed");
    assert_eq!(envelopes[0]["data"]["error"], session["error"]);
    assert_eq!(svc.deliveries(&ready).await.len(), 1);
    assert_eq!(svc.delivery_count("intelligence.ready").await, 2);
}
