//! `GET /api/v1/sessions` (the organisation's ingest sessions, newest first, a page at
//! a time), `GET /api/v1/deployments` (its deployments by id, a page at a time) and `GET /api/v1/sessions/{id}/transcript` (its conversations as core
//! assembles them): what the app's session pages read.

use axum::http::StatusCode;
use serde_json::{Value, json};
use undertone_core::{assemble, validate};
use undertone_http::keys::Scope;
use undertone_http::limits::Plan;

use super::{Service, assert_error, refund, unknown_id};

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|s| s["session_id"].as_str().expect("id").to_owned())
        .collect()
}

#[tokio::test]
async fn sessions_are_listed_newest_first_a_page_at_a_time_per_organisation() {
    let svc = Service::new().await;
    let mut made = Vec::new();
    for _ in 0..3 {
        made.push(svc.ingest(&refund()).await);
        svc.advance(1);
    }
    assert!(svc.run_one().await);
    let first = svc.get("/api/v1/sessions?limit=2").await;
    assert_eq!(first.status, StatusCode::OK, "{first:?}");
    let page = first.json();
    assert_eq!(ids(&page), vec![made[2].clone(), made[1].clone()]);
    assert_eq!(page["next_cursor"], made[1].as_str());
    assert_eq!(page["data"][0]["status"], "received");
    assert_eq!(page["data"][0]["deployment_id"], "acme-support-bot");
    assert_eq!(page["data"][0]["event_count"], 20);
    let oldest = svc
        .get(&format!("/api/v1/sessions?limit=2&cursor={}", made[1]))
        .await
        .json();
    assert_eq!(ids(&oldest), vec![made[0].clone()]);
    assert_eq!(
        oldest["data"][0]["status"], "complete",
        "the first ingest was scored"
    );
    assert_eq!(oldest["next_cursor"], Value::Null);
    // The cursor in another spelling of the same UUID reads as the same cursor, as a
    // session id in a path does (before, it matched nothing: an empty last page).
    let id = uuid::Uuid::parse_str(&made[1]).unwrap();
    for spelling in [
        made[1].to_uppercase(),
        id.simple().to_string(),
        format!("{{{}}}", made[1]),
        id.urn().to_string(),
    ] {
        let again = svc
            .get(&format!("/api/v1/sessions?limit=2&cursor={spelling}"))
            .await
            .json();
        assert_eq!(ids(&again), vec![made[0].clone()], "{spelling}");
    }
    assert_eq!(ids(&svc.get("/api/v1/sessions").await.json()).len(), 3);

    let (_, stranger) = svc.issue("org-b", Scope::ReadOnly, Plan::default()).await;
    let theirs = svc.get_as("/api/v1/sessions", Some(&stranger)).await.json();
    assert_eq!(ids(&theirs), Vec::<String>::new());
    let crossing = svc
        .get_as(
            &format!("/api/v1/sessions?cursor={}", made[2]),
            Some(&stranger),
        )
        .await
        .json();
    assert_eq!(
        ids(&crossing),
        Vec::<String>::new(),
        "a cursor of another org lists nothing"
    );
}

#[tokio::test]
async fn deployments_are_listed_by_id_a_page_at_a_time() {
    let svc = Service::new().await;
    let names = ["bot-c", "bot-a", "bot-e", "bot-b", "bot-d"];
    for name in names {
        let mut body = refund();
        body["deployment_id"] = json!(name);
        svc.ingest(&body).await;
    }
    while svc.run_one().await {}
    let deployments = |page: &Value| -> Vec<String> {
        page["data"]
            .as_array()
            .expect("data")
            .iter()
            .map(|d| d["deployment_id"].as_str().expect("id").to_owned())
            .collect()
    };
    // One page by default; each item with its conversations and latest start.
    let all = svc.get("/api/v1/deployments").await;
    assert_eq!(all.status, StatusCode::OK, "{all:?}");
    let all = all.json();
    assert_eq!(
        deployments(&all),
        ["bot-a", "bot-b", "bot-c", "bot-d", "bot-e"]
    );
    assert_eq!(all["next_cursor"], Value::Null);
    // The refund example holds two conversations.
    assert_eq!(all["data"][0]["conversations"], 2);
    // Two at a time, following the cursors, the same list.
    let mut paged = Vec::new();
    let mut cursors = Vec::new();
    let mut query = "limit=2".to_owned();
    loop {
        let page = svc
            .get(&format!("/api/v1/deployments?{query}"))
            .await
            .json();
        paged.extend(deployments(&page));
        let Some(next) = page["next_cursor"].as_str() else {
            break;
        };
        cursors.push(next.to_owned());
        query = format!("limit=2&cursor={next}");
    }
    assert_eq!(paged, deployments(&all));
    assert_eq!(cursors, ["bot-b", "bot-d"]);
    // Another organisation sees none of them.
    let (_, stranger) = svc.issue("org-b", Scope::ReadOnly, Plan::default()).await;
    let theirs = svc
        .get_as("/api/v1/deployments", Some(&stranger))
        .await
        .json();
    assert_eq!(theirs, json!({"data": [], "next_cursor": null}));
    for (query, message) in [
        ("limit=0", "limit: must be from 1 to 100, got 0"),
        ("limit=101", "limit: must be from 1 to 100, got 101"),
        (
            "limt=5",
            "limt: unknown parameter; allowed parameters are limit, cursor",
        ),
        // Bytes that are no text read as another id, not as this one.
        ("cursor=%FF", "query: is not UTF-8 once percent-decoded"),
        ("cursor=bot-%C3", "query: is not UTF-8 once percent-decoded"),
    ] {
        let r = svc.get(&format!("/api/v1/deployments?{query}")).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message);
    }
}

#[tokio::test]
async fn a_bad_page_is_a_validation_error() {
    let svc = Service::new().await;
    for (query, message) in [
        ("limit=0", "limit: must be from 1 to 100, got 0"),
        ("limit=101", "limit: must be from 1 to 100, got 101"),
        ("limit=-1", "limit: must be from 1 to 100, got -1"),
        ("limit=1.5", "limit: must be a whole number, got \"1.5\""),
        (
            "cursor=yesterday",
            "cursor: must be the `next_cursor` of a previous page (a session id)",
        ),
        // A misspelt parameter is refused, not ignored.
        (
            "limt=5",
            "limt: unknown parameter; allowed parameters are limit, cursor",
        ),
        // A whole number of any size is out of range, not "not a whole number".
        (
            "limit=99999999999999999999",
            "limit: must be from 1 to 100, got 99999999999999999999",
        ),
        ("limit=", "limit: must be a whole number, got \"\""),
        ("limit=1e2", "limit: must be a whole number, got \"1e2\""),
        // Any name is a parameter's, read apart from the error.
        (
            "foo-bar=1",
            "foo-bar: unknown parameter; allowed parameters are limit, cursor",
        ),
        // An error of no one parameter is the query string's.
        (
            "limit=5&limit=6",
            "query: the parameter \"limit\" is given twice",
        ),
        (
            "=5",
            "query: unknown parameter; allowed parameters are limit, cursor (this one has an \
             empty name)",
        ),
    ] {
        let r = svc.get(&format!("/api/v1/sessions?{query}")).await;
        assert_error(&r, StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message);
    }
}

#[tokio::test]
async fn a_transcript_is_the_request_as_core_assembles_it_for_its_org_only() {
    let svc = Service::new().await;
    let request = refund();
    let id = svc.ingest(&request).await;
    let path = format!("/api/v1/sessions/{id}/transcript");
    let got = svc.get(&path).await;
    assert_eq!(got.status, StatusCode::OK, "{got:?}");

    let bytes = serde_json::to_vec(&request).expect("JSON");
    let validated =
        validate::ingest_request_bytes(&bytes, &validate::Options::STORED).expect("valid");
    let expected =
        serde_json::to_value(assemble(&validated.events, Some("acme-support-bot"))).expect("JSON");
    assert_eq!(got.json(), expected);
    let turns = &got.json()["conversations"][0]["turns"];
    assert_eq!(turns[0]["role"], "human");
    assert_eq!(turns[0]["content"], request["events"][0]["content"]);

    let (_, stranger) = svc.issue("org-b", Scope::ReadWrite, Plan::default()).await;
    let theirs = svc.get_as(&path, Some(&stranger)).await;
    assert_error(
        &theirs,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "session not found",
    );
    let unknown = svc
        .get(&format!("/api/v1/sessions/{}/transcript", unknown_id()))
        .await;
    assert_error(
        &unknown,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "session not found",
    );
}

#[tokio::test]
async fn a_bad_history_span_is_a_validation_error() {
    let svc = Service::new().await;
    for (query, message) in [
        ("days=0", "days: must be from 1 to 366, got 0"),
        ("days=367", "days: must be from 1 to 366, got 367"),
        ("days=-1", "days: must be from 1 to 366, got -1"),
        ("days=week", "days: must be a whole number, got \"week\""),
    ] {
        let r = svc
            .get(&format!(
                "/api/v1/deployments/acme-support-bot/history?{query}"
            ))
            .await;
        assert_error(&r, StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message);
    }
    let r = svc
        .get("/api/v1/deployments/acme-support-bot/history?days=366")
        .await;
    assert_eq!(r.status, StatusCode::OK, "{r:?}");
}

#[tokio::test]
async fn a_parameter_name_is_read_apart_from_its_error() {
    let svc = Service::new().await;
    // A name holding ": " is the path as a whole, not split at it.
    let r = svc.get("/api/v1/sessions?limit%3A%20x=1").await;
    super::assert_error_with(
        &r,
        StatusCode::BAD_REQUEST,
        json!({
            "code": "VALIDATION_ERROR",
            "message": "limit: x: unknown parameter; allowed parameters are limit, cursor",
            "details": [{
                "path": "limit: x",
                "message": "unknown parameter; allowed parameters are limit, cursor",
            }],
        }),
    );
}
