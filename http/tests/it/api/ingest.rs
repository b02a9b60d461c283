//! `POST /api/v1/ingest`: the 202, its Location, and what is stored.

use axum::http::StatusCode;
use serde_json::json;

use super::{HOUR_END, Service, assert_error_with, assert_quota, example, refund, session_id};

#[tokio::test]
async fn an_accepted_ingest_answers_202_with_the_session_and_where_to_poll() {
    let svc = Service::new().await;
    let reply = svc.post("/api/v1/ingest", &refund()).await;

    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let id = session_id(&reply);
    let poll_url = format!("/api/v1/intelligence/{id}");
    assert_eq!(
        reply.json(),
        json!({
            "session_id": id,
            "event_count": 20,
            "status": "received",
            "poll_url": poll_url,
        })
    );
    assert_eq!(reply.header("location"), Some(poll_url.as_str()));
    assert_quota(&reply, 1000, 999, HOUR_END);

    // The poll URL serves the session.
    let polled = svc.get(&poll_url).await;
    assert_eq!(polled.status, StatusCode::OK, "{polled:?}");
    assert_eq!(polled.json()["session_id"], json!(id));
}

#[tokio::test]
async fn event_count_is_the_number_of_events_of_each_example() {
    let svc = Service::new().await;
    for (name, count) in [
        ("support-refund-goes-wrong", 20),
        ("coding-assistant-goes-well", 19),
        ("tutor-fractions", 15),
        ("drift-v1", 128),
        ("drift-v2", 162),
    ] {
        let reply = svc.post("/api/v1/ingest", &example(name)).await;
        assert_eq!(reply.status, StatusCode::ACCEPTED, "{name}: {reply:?}");
        assert_eq!(reply.json()["event_count"], json!(count), "{name}");
    }
    assert_eq!(svc.queue_depth().await, 5);
}

#[tokio::test]
async fn every_session_gets_its_own_id() {
    let svc = Service::new().await;
    let a = svc.ingest(&refund()).await;
    let b = svc.ingest(&refund()).await;
    assert_ne!(a, b);
}

#[tokio::test]
async fn an_invalid_request_lists_every_violation_and_stores_nothing() {
    let svc = Service::new().await;
    let reply = svc
        .post("/api/v1/ingest", &example("invalid-several-violations"))
        .await;
    let body = reply.json();
    let details = body["error"]["details"]
        .as_array()
        .expect("details list the violations")
        .clone();
    assert!(details.len() >= 3, "{reply:?}");
    let paths: Vec<&str> = details
        .iter()
        .map(|d| d["path"].as_str().expect("path is text"))
        .collect();
    for path in ["customer_tier", "pipeline", "events[1].timestamp"] {
        assert!(paths.contains(&path), "{path} not in {paths:?}");
    }
    assert_error_with(
        &reply,
        StatusCode::BAD_REQUEST,
        json!({
            "code": "VALIDATION_ERROR",
            "message": body["error"]["message"],
            "details": details,
        }),
    );
    assert_eq!(svc.queue_depth().await, 0);
}

#[tokio::test]
async fn a_body_of_exactly_16_mib_is_accepted() {
    let svc = Service::new().await;
    let limit = 16 * 1024 * 1024;
    let mut body = serde_json::to_vec(&refund()).expect("serialisable");
    body.resize(limit, b' ');
    let reply = svc
        .send(super::request(
            axum::http::Method::POST,
            "/api/v1/ingest",
            Some(&svc.key),
            Some("application/json"),
            axum::body::Body::from(body),
        ))
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(reply.json()["event_count"], json!(20));
}

#[tokio::test]
async fn a_private_or_plain_http_webhook_url_is_refused_unless_allowed() {
    let svc = Service::new().await;
    for url in [
        "http://hooks.example.com/undertone",
        "https://127.0.0.1/hook",
        "https://10.1.2.3/hook",
        "https://[::ffff:192.168.0.1]/hook",
        "https://localhost/hook",
    ] {
        let mut request = refund();
        request["webhook_url"] = json!(url);
        let reply = svc.post("/api/v1/ingest", &request).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{url}: {reply:?}");
        let body = reply.json();
        assert_eq!(body["error"]["code"], json!("VALIDATION_ERROR"), "{url}");
        let details = body["error"]["details"].as_array().expect("details");
        assert_eq!(details.len(), 1, "{url}: {details:?}");
        assert_eq!(details[0]["path"], json!("webhook_url"), "{url}");
    }
    assert_eq!(svc.queue_depth().await, 0);

    let mut request = refund();
    request["webhook_url"] = json!("https://hooks.example.com/undertone");
    let reply = svc.post("/api/v1/ingest", &request).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");

    let local = Service::with_config(undertone_http::api::Config {
        allow_private_webhooks: true,
        ..Default::default()
    })
    .await;
    let mut request = refund();
    request["webhook_url"] = json!("http://127.0.0.1:9/hook");
    let reply = local.post("/api/v1/ingest", &request).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
}
