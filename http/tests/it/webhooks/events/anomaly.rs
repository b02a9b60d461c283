//! `anomaly_detected`: a day outside a deployment's control limits, judged against a
//! baseline of that deployment's own days.

use chrono::Duration;
use serde_json::{Value, json};
use undertone_core::monitor::anomaly::{self, Bucketing};
use undertone_core::score::layer_z::Dimension;

use super::{
    CALM, HOSTILE, NOW_ENVELOPE, Svc, assert_json_close, at, check_envelope, conversation, points,
    request,
};

/// Four conversations on one day of November 2026.
fn day_body(deployment: &str, day: u32, texts: &[&str]) -> Value {
    let mut events = Vec::new();
    for k in 0..4 {
        let start = at(&format!("2026-11-{day:02}T09:00:00Z")) + Duration::minutes(15 * k);
        events.extend(conversation(
            &format!("d{day}-c{k}"),
            &format!("u{day}-{k}"),
            start,
            texts,
            None,
        ));
    }
    request(deployment, events)
}

#[tokio::test]
async fn a_hostile_day_after_calm_days_is_an_anomaly() {
    let svc = Svc::new().await;
    let hook = svc.register(&["anomaly_detected"]).await;
    let mut history = Vec::new();
    for day in 1..=8 {
        let body = day_body("anomaly-bot", day, &CALM);
        history.extend(points(&body));
        svc.ingest_and_run(&body).await;
        assert_eq!(
            svc.envelopes("anomaly_detected").await.len(),
            0,
            "calm day {day}"
        );
    }
    assert_eq!(
        anomaly::detect_points(&history, Bucketing::Daily),
        Vec::new(),
        "core finds nothing on calm days"
    );

    let hostile = day_body("anomaly-bot", 9, &HOSTILE);
    history.extend(points(&hostile));
    let expected = anomaly::detect_points(&history, Bucketing::Daily);
    assert!(
        expected.iter().all(|a| a.bucket == "2026-11-09"),
        "{expected:#?}"
    );
    let frustration: Vec<_> = expected
        .iter()
        .filter(|a| a.dimension == Dimension::FrustrationBuildup)
        .collect();
    assert_eq!(frustration.len(), 1, "{expected:#?}");
    assert_eq!(
        serde_json::to_value(frustration[0].direction).expect("serialisable"),
        "worse"
    );

    let sid = svc.ingest_and_run(&hostile).await;
    let envelopes = svc.envelopes("anomaly_detected").await;
    assert_eq!(envelopes.len(), expected.len(), "{envelopes:#?}");
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), expected.len());
    for a in &expected {
        let envelope = envelopes
            .iter()
            .find(|e| e["data"]["dimension"] == a.dimension.as_str())
            .unwrap_or_else(|| panic!("no anomaly for {}", a.dimension.as_str()));
        let data = check_envelope(envelope, "anomaly_detected", "anomaly-bot", NOW_ENVELOPE);
        let mut want = serde_json::to_value(a).expect("serialisable");
        want["session_id"] = json!(sid);
        assert_json_close(&data, &want, "anomaly");
        assert_eq!(data["bucket"], "2026-11-09");
        assert_eq!(data["conversations"], 4);
        assert_eq!(data["statistic"], "ewma");
    }
    let frustration = envelopes
        .iter()
        .find(|e| e["data"]["dimension"] == "frustration_buildup")
        .expect("frustration_buildup fired");
    assert_eq!(frustration["data"]["direction"], "worse");
    assert!(frustration["data"]["z"].as_f64().expect("z") >= 3.0);

    // The hostile day sent again: the same anomalies, not queued twice.
    svc.ingest_and_run(&hostile).await;
    assert_eq!(
        svc.envelopes("anomaly_detected").await.len(),
        expected.len()
    );
    assert_eq!(svc.deliveries(&hook).await.len(), expected.len());
}

#[tokio::test]
async fn anomalies_need_a_baseline_and_stay_within_their_deployment() {
    let svc = Svc::new().await;
    let hook = svc.register(&["anomaly_detected"]).await;
    // Four calm days are too short a baseline (five are needed) to judge day 5.
    let mut history = Vec::new();
    for day in 1..=4 {
        let body = day_body("short-bot", day, &CALM);
        history.extend(points(&body));
        svc.ingest_and_run(&body).await;
    }
    let hostile = day_body("short-bot", 5, &HOSTILE);
    history.extend(points(&hostile));
    assert_eq!(
        anomaly::detect_points(&history, Bucketing::Daily),
        Vec::new()
    );
    svc.ingest_and_run(&hostile).await;
    assert_eq!(svc.envelopes("anomaly_detected").await.len(), 0);

    // Calm days of one deployment are no baseline for another.
    for day in 1..=8 {
        svc.ingest_and_run(&day_body("calm-bot", day, &CALM)).await;
    }
    svc.ingest_and_run(&day_body("fresh-bot", 9, &HOSTILE))
        .await;
    assert_eq!(svc.envelopes("anomaly_detected").await.len(), 0);
    assert_eq!(svc.deliveries(&hook).await.len(), 0);
}
