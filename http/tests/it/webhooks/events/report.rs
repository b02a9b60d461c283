//! `uhr_generated`: a User Health Report made on request (and its routes) or by the
//! weekly scheduler, compared with core's report over the same conversations.

use std::collections::BTreeSet;

use axum::http::{Method, StatusCode};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use undertone_core::monitor;
use undertone_core::score::layer_z::Dimension;
use undertone_http::keys::Scope;
use undertone_http::webhooks::reports;

use super::{
    CALM, HOSTILE, NOW_ENVELOPE, NOW_TEXT, ORG, Svc, assert_json_close, at, check_envelope,
    conversation, keys_of, points, request, sorted,
};

/// `n` conversations starting at `start`, one every 20 minutes; every third hostile.
fn mixed_body(deployment: &str, prefix: &str, start: DateTime<Utc>, n: usize) -> Value {
    let mut events = Vec::new();
    for k in 0..n {
        let texts: &[&str] = if k % 3 == 2 { &HOSTILE } else { &CALM };
        events.extend(conversation(
            &format!("{prefix}-{k}"),
            &format!("{prefix}-u{k}"),
            start + Duration::minutes(20 * k as i64),
            texts,
            None,
        ));
    }
    request(deployment, events)
}

#[tokio::test]
async fn a_requested_health_report_covers_the_last_seven_days() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    // NOW is 2026-11-18T11:06:40Z: this period is from 11-11T11:06:40, the one
    // before from 11-04T11:06:40.
    let current = mixed_body("uhr-bot", "cur", at("2026-11-15T08:00:00Z"), 6);
    let previous = mixed_body("uhr-bot", "prev", at("2026-11-08T08:00:00Z"), 3);
    let older = mixed_body("uhr-bot", "old", at("2026-11-01T08:00:00Z"), 2);
    let elsewhere = mixed_body("other-bot", "cur", at("2026-11-15T08:00:00Z"), 4);
    for body in [&current, &previous, &older, &elsewhere] {
        svc.ingest_and_run(body).await;
    }

    let reply = svc
        .post("/api/v1/deployments/uhr-bot/health-reports", None)
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let created = reply.json();
    let id = created["id"].as_str().expect("id").to_owned();
    assert!(
        id.len() == 36 && id.starts_with("uhr_") && id[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    let location = format!("/api/v1/deployments/uhr-bot/health-reports/{id}");
    assert_eq!(reply.header("location"), Some(location.as_str()));
    assert_eq!(
        keys_of(&created),
        sorted(&[
            "id",
            "deployment_id",
            "trigger",
            "period_start",
            "period_end",
            "created_at",
            "report"
        ])
    );
    assert_eq!(created["deployment_id"], "uhr-bot");
    assert_eq!(created["trigger"], "request");
    assert_eq!(created["period_start"], "2026-11-11T11:06:40.000Z");
    assert_eq!(created["period_end"], NOW_TEXT);
    assert_eq!(created["created_at"], NOW_TEXT);

    // The report is core's, over the conversations of each period.
    let now = at("2026-11-18T11:06:40Z");
    let period = (now - Duration::days(7), now);
    let before = (now - Duration::days(14), period.0);
    let expected = monitor::health_report(&points(&current), &points(&previous), period, before);
    let report = &created["report"];
    assert_json_close(
        report,
        &serde_json::to_value(&expected).expect("serialisable"),
        "report",
    );
    assert_eq!(report["conversations"], 6);
    assert_eq!(report["previous_conversations"], 3);
    for d in Dimension::ALL {
        let h = &report["dimensions"][d.as_str()];
        for field in ["median", "p90", "broken_rate"] {
            assert!(h[field].is_number(), "{}.{field}: {h}", d.as_str());
        }
    }
    assert_eq!(
        report["dimensions"]["frustration_buildup"]["broken_rate"],
        json!(0.3333)
    );

    // Listed, readable, and 404 elsewhere.
    let list = svc.get("/api/v1/deployments/uhr-bot/health-reports").await;
    assert_eq!(list.status, StatusCode::OK);
    assert_eq!(list.json(), json!({"data": [created.clone()]}));
    let read = svc.get(&location).await;
    assert_eq!(read.status, StatusCode::OK);
    assert_eq!(read.json(), created);
    let unknown = svc
        .get("/api/v1/deployments/uhr-bot/health-reports/uhr_00000000000000000000000000000000")
        .await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(
        unknown.json(),
        json!({"error": {"code": "NOT_FOUND", "message": "health report not found"}})
    );
    let wrong_deployment = svc
        .get(&format!(
            "/api/v1/deployments/other-bot/health-reports/{id}"
        ))
        .await;
    assert_eq!(wrong_deployment.status, StatusCode::NOT_FOUND);
    let (org_b, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let other_org = svc.send(Method::GET, &location, Some(&org_b), None).await;
    assert_eq!(other_org.status, StatusCode::NOT_FOUND);
    let other_org_list = svc
        .send(
            Method::GET,
            "/api/v1/deployments/uhr-bot/health-reports",
            Some(&org_b),
            None,
        )
        .await;
    assert_eq!(other_org_list.json(), json!({"data": []}));

    // Its uhr_generated event.
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["event_type"], "uhr_generated");
    let envelopes = svc.envelopes("uhr_generated").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["id"], listed[0]["event_id"]);
    let data = check_envelope(&envelopes[0], "uhr_generated", "uhr-bot", NOW_ENVELOPE);
    assert_eq!(
        keys_of(&data),
        sorted(&[
            "report_id",
            "trigger",
            "report_url",
            "period_start",
            "period_end",
            "report"
        ])
    );
    assert_eq!(data["report_id"], id.as_str());
    assert_eq!(data["trigger"], "request");
    assert_eq!(data["report_url"], location.as_str());
    assert_eq!(data["period_start"], "2026-11-11T11:06:40Z");
    assert_eq!(data["period_end"], NOW_ENVELOPE);
    assert_json_close(&data["report"], report, "data.report");

    // A second request is a second report, newest first.
    svc.advance(60);
    let second = svc
        .post("/api/v1/deployments/uhr-bot/health-reports", None)
        .await;
    assert_eq!(second.status, StatusCode::CREATED);
    let second = second.json();
    assert_ne!(second["id"], created["id"]);
    let list = svc
        .get("/api/v1/deployments/uhr-bot/health-reports")
        .await
        .json();
    let ids: Vec<&Value> = list["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, vec![&second["id"], &created["id"]]);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
}

#[tokio::test]
async fn a_report_of_a_deployment_without_conversations_is_empty() {
    let svc = Svc::new().await;
    let reply = svc
        .post("/api/v1/deployments/quiet-bot/health-reports", None)
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let report = &reply.json()["report"];
    assert_eq!(report["conversations"], 0);
    assert_eq!(report["previous_conversations"], 0);
    assert_eq!(report["resolved_rate"], Value::Null);
    assert_eq!(
        report["top_findings"],
        json!(["No conversations in this period."])
    );
}

#[tokio::test]
async fn the_scheduler_makes_one_weekly_report_per_active_deployment() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    // The week of 2026-11-09 (Monday) to 11-16; NOW (11-18) is in the week after.
    let a = mixed_body("week-a", "a", at("2026-11-10T08:00:00Z"), 4);
    let a_before = mixed_body("week-a", "a0", at("2026-11-03T08:00:00Z"), 2);
    let b = mixed_body("week-b", "b", at("2026-11-15T23:00:00Z"), 3);
    // Only the week before: not active last week.
    let c = mixed_body("week-c", "c", at("2026-11-04T08:00:00Z"), 3);
    // This week: not part of last week's report.
    let a_now = mixed_body("week-a", "a1", at("2026-11-16T00:00:00Z"), 2);
    for body in [&a, &a_before, &b, &c, &a_now] {
        svc.ingest_and_run(body).await;
    }
    // Another organisation's deployment of the same name.
    let (org_b, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let reply = svc
        .send(
            Method::POST,
            "/api/v1/ingest",
            Some(&org_b),
            Some(&mixed_body("week-a", "z", at("2026-11-11T08:00:00Z"), 5)),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED);
    assert_eq!(svc.run_jobs().await, 1);

    let made = reports::run_due(&svc.state)
        .await
        .expect("the store answers");
    assert_eq!(made, 3, "org-a week-a, org-a week-b, org-b week-a");

    let week = (at("2026-11-09T00:00:00Z"), at("2026-11-16T00:00:00Z"));
    let before = (at("2026-11-02T00:00:00Z"), week.0);
    for (deployment, current, previous) in [
        ("week-a", points(&a), points(&a_before)),
        ("week-b", points(&b), Vec::new()),
    ] {
        let list = svc
            .get(&format!("/api/v1/deployments/{deployment}/health-reports"))
            .await
            .json();
        let data = list["data"].as_array().expect("data");
        assert_eq!(data.len(), 1, "{deployment}: {list}");
        let r = &data[0];
        assert_eq!(r["trigger"], "schedule");
        assert_eq!(r["period_start"], "2026-11-09T00:00:00.000Z");
        assert_eq!(r["period_end"], "2026-11-16T00:00:00.000Z");
        assert_eq!(r["created_at"], NOW_TEXT);
        let expected = monitor::health_report(&current, &previous, week, before);
        assert_json_close(
            &r["report"],
            &serde_json::to_value(&expected).expect("serialisable"),
            deployment,
        );
    }
    let week_a = svc
        .get("/api/v1/deployments/week-a/health-reports")
        .await
        .json();
    assert_eq!(week_a["data"][0]["report"]["conversations"], 4);
    assert_eq!(week_a["data"][0]["report"]["previous_conversations"], 2);
    let week_c = svc
        .get("/api/v1/deployments/week-c/health-reports")
        .await
        .json();
    assert_eq!(week_c, json!({"data": []}));
    let org_b_reports = svc
        .send(
            Method::GET,
            "/api/v1/deployments/week-a/health-reports",
            Some(&org_b),
            None,
        )
        .await
        .json();
    assert_eq!(org_b_reports["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(org_b_reports["data"][0]["report"]["conversations"], 5);

    // Two uhr_generated for org-a's endpoint, naming the reports.
    let envelopes: Vec<Value> = svc
        .envelopes("uhr_generated")
        .await
        .into_iter()
        .filter(|e| e["org_id"] == ORG)
        .collect();
    assert_eq!(envelopes.len(), 2);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
    let mut report_ids = BTreeSet::new();
    for e in &envelopes {
        assert_eq!(e["data"]["trigger"], "schedule");
        assert_eq!(e["data"]["period_start"], "2026-11-09T00:00:00Z");
        assert_eq!(e["data"]["period_end"], "2026-11-16T00:00:00Z");
        let deployment = e["deployment_id"].as_str().expect("deployment");
        let list = svc
            .get(&format!("/api/v1/deployments/{deployment}/health-reports"))
            .await
            .json();
        assert_eq!(e["data"]["report_id"], list["data"][0]["id"]);
        report_ids.insert(e["data"]["report_id"].to_string());
    }
    assert_eq!(report_ids.len(), 2);

    // Idempotent: again now, and later the same week.
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 0);
    svc.set_clock(at("2026-11-22T23:59:00Z"));
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 0);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
    assert_eq!(
        svc.get("/api/v1/deployments/week-a/health-reports")
            .await
            .json()["data"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    // The next week: week-a had conversations on 11-16, so one report for it.
    svc.set_clock(at("2026-11-23T00:00:01Z"));
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 1);
    let list = svc
        .get("/api/v1/deployments/week-a/health-reports")
        .await
        .json();
    assert_eq!(list["data"][0]["period_start"], "2026-11-16T00:00:00.000Z");
    assert_eq!(list["data"][0]["report"]["conversations"], 2);
    assert_eq!(list["data"][0]["report"]["previous_conversations"], 4);
    assert_eq!(reports::run_due(&svc.state).await.expect("answers"), 0);
}
