//! `GET /api/v1/openapi` and `GET /api/v1/healthz`: no key needed.

use axum::http::StatusCode;
use serde_json::json;
use undertone_core::score::SCORER_VERSION;

use super::{Service, assert_no_quota, drift_body, refund};

#[tokio::test]
async fn openapi_needs_no_key_and_is_an_openapi_3_1_document() {
    let svc = Service::new().await;
    let reply = svc.get_as("/api/v1/openapi", None).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_no_quota(&reply);
    let doc = reply.json();
    assert_eq!(doc["openapi"], json!("3.1.0"));
    let paths = doc["paths"].as_object().expect("paths");
    for path in [
        "/api/v1/ingest",
        "/api/v1/intelligence/{session_id}",
        "/api/v1/drift",
        "/api/v1/drift/{session_id}",
        "/api/v1/openapi",
        "/api/v1/healthz",
    ] {
        assert!(
            paths.contains_key(path),
            "{path} missing from {:?}",
            paths.keys()
        );
    }

    // A bad key does not matter where no key is needed.
    let bad = svc
        .get_as("/api/v1/openapi", Some("ut_live_not-a-key"))
        .await;
    assert_eq!(bad.status, StatusCode::OK, "{bad:?}");
    assert_eq!(bad.body, reply.body);
    let bad = svc
        .get_as("/api/v1/healthz", Some("ut_live_not-a-key"))
        .await;
    assert_eq!(bad.status, StatusCode::OK, "{bad:?}");

    // With a key it is the same document.
    let keyed = svc.get("/api/v1/openapi").await;
    assert_eq!(keyed.status, StatusCode::OK);
    assert_eq!(keyed.body, reply.body);
}

#[tokio::test]
async fn healthz_needs_no_key_and_shows_the_queue_only_to_a_key() {
    let svc = Service::new().await;
    let open = json!({"status": "ok", "scorer_version": SCORER_VERSION});
    let keyed = |depth: u64| json!({"status": "ok", "scorer_version": SCORER_VERSION, "queue_depth": depth});
    let key = Some(svc.key.as_str());

    let reply = svc.get_as("/api/v1/healthz", None).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_no_quota(&reply);
    assert_eq!(reply.json(), open);
    let reply = svc.get_as("/api/v1/healthz", key).await;
    assert_no_quota(&reply);
    assert_eq!(reply.json(), keyed(0));

    svc.ingest(&refund()).await;
    svc.ingest(&refund()).await;
    svc.drift(&drift_body()).await;
    assert_eq!(svc.get_as("/api/v1/healthz", key).await.json(), keyed(3));
    // Without a key, or with a wrong one, the load stays hidden.
    assert_eq!(svc.get_as("/api/v1/healthz", None).await.json(), open);
    let wrong = svc
        .get_as("/api/v1/healthz", Some("ut_live_not-a-key"))
        .await;
    assert_eq!(wrong.json(), open);

    assert!(svc.run_one().await);
    assert_eq!(svc.get_as("/api/v1/healthz", key).await.json(), keyed(2));
    assert!(svc.run_one().await);
    assert!(svc.run_one().await);
    assert!(!svc.run_one().await);
    assert_eq!(svc.get_as("/api/v1/healthz", key).await.json(), keyed(0));
}

#[tokio::test]
async fn a_database_file_deleted_or_replaced_under_the_server_is_reported_not_written_to() {
    // SQLite keeps serving a deleted file through the connections that hold it open:
    // everything acknowledged after that would be lost at restart.
    let svc = Service::new().await;
    let db = svc._dir.path().join("t.db");
    assert_eq!(
        svc.get_as("/api/v1/healthz", None).await.status,
        StatusCode::OK
    );
    for gone in ["t.db", "t.db-wal", "t.db-shm"] {
        let _ = std::fs::remove_file(svc._dir.path().join(gone));
    }
    let unavailable = json!({"error": {"code": "SERVICE_UNAVAILABLE",
        "message": "the server's database file was deleted or replaced; nothing is stored \
                    until an operator restores it or restarts the server"}});
    let health = svc.get_as("/api/v1/healthz", None).await;
    assert_eq!(health.status, StatusCode::SERVICE_UNAVAILABLE, "{health:?}");
    assert_eq!(health.json(), unavailable);
    // Every 503 says when to come back (SPEC.md §7).
    assert_eq!(health.header("retry-after"), Some("60"));
    let ingest = svc.post("/api/v1/ingest", &refund()).await;
    assert_eq!(ingest.status, StatusCode::SERVICE_UNAVAILABLE, "{ingest:?}");
    assert_eq!(ingest.json(), unavailable);
    assert_eq!(ingest.header("retry-after"), Some("60"));
    // Another file at the same path is not the one the server opened either.
    std::fs::write(&db, b"").expect("a new file");
    let health = svc.get_as("/api/v1/healthz", None).await;
    assert_eq!(health.status, StatusCode::SERVICE_UNAVAILABLE, "{health:?}");
}
