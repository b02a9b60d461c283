//! `GET /webhooks/{id}/deliveries`: the deliveries log, newest first, and its paging
//! (limits, cursors, deliveries of the same instant).

use std::collections::BTreeSet;

use axum::http::StatusCode;
use base64::Engine as _;
use serde_json::{Value, json};

use super::{assert_error, fire_test};
use crate::webhooks::events::{NOW_TEXT, Reply, Svc, keys_of, sorted};

/// The answer to a cursor that is not a delivery id.
const BAD_CURSOR: &str = "cursor: must be the `next_cursor` of a previous page (a delivery id)";

/// A page of deliveries.
async fn page(svc: &Svc, hook: &str, query: &str) -> Reply {
    svc.get(&format!("/api/v1/webhooks/{hook}/deliveries{query}"))
        .await
}

#[tokio::test]
async fn deliveries_page_newest_first_and_every_one_once() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    let mut events = Vec::new();
    for _ in 0..5 {
        events.push(
            fire_test(&svc, &hook).await["event_id"]
                .as_str()
                .expect("event_id")
                .to_owned(),
        );
        svc.advance(1);
    }
    let newest_first: Vec<String> = events.iter().rev().cloned().collect();

    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    let mut query = "?limit=2".to_owned();
    loop {
        let reply = page(&svc, &hook, &query).await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        let body = reply.json();
        assert_eq!(keys_of(&body), sorted(&["data", "next_cursor"]));
        let data = body["data"].as_array().expect("data");
        sizes.push(data.len());
        seen.extend(
            data.iter()
                .map(|d| d["event_id"].as_str().expect("event_id").to_owned()),
        );
        match body["next_cursor"].as_str() {
            Some(c) => {
                assert_eq!(data.last().map(|d| &d["id"]), Some(&json!(c)));
                query = format!("?limit=2&cursor={c}");
            }
            None => break,
        }
    }
    assert_eq!(sizes, vec![2, 2, 1]);
    assert_eq!(seen, newest_first);

    // The default page holds them all; an exact fit has no next page.
    let all = page(&svc, &hook, "").await.json();
    assert_eq!(all["data"].as_array().map(Vec::len), Some(5));
    assert_eq!(all["next_cursor"], Value::Null);
    let exact = page(&svc, &hook, "?limit=5").await.json();
    assert_eq!(exact["data"].as_array().map(Vec::len), Some(5));
    assert_eq!(exact["next_cursor"], Value::Null);
    let four = page(&svc, &hook, "?limit=4").await.json();
    let cursor = four["next_cursor"].as_str().expect("a next page");
    let rest = page(&svc, &hook, &format!("?limit=100&cursor={cursor}"))
        .await
        .json();
    assert_eq!(rest["data"].as_array().map(Vec::len), Some(1));
    assert_eq!(rest["data"][0]["event_id"], events[0].as_str());
    assert_eq!(rest["next_cursor"], Value::Null);
    let created: Vec<&str> = all["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|d| d["created_at"].as_str().expect("created_at"))
        .collect();
    assert_eq!(
        created,
        vec![
            "2026-11-18T11:06:44.000Z",
            "2026-11-18T11:06:43.000Z",
            "2026-11-18T11:06:42.000Z",
            "2026-11-18T11:06:41.000Z",
            NOW_TEXT,
        ]
    );
}

#[tokio::test]
async fn deliveries_of_the_same_instant_page_without_loss_or_repeat() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    let mut events = BTreeSet::new();
    for _ in 0..7 {
        let queued = fire_test(&svc, &hook).await;
        events.insert(queued["event_id"].as_str().expect("event_id").to_owned());
    }
    for limit in [1, 2, 3] {
        let mut seen = Vec::new();
        let mut query = format!("?limit={limit}");
        loop {
            let body = page(&svc, &hook, &query).await.json();
            let data = body["data"].as_array().expect("data");
            assert!(data.len() <= limit);
            seen.extend(
                data.iter()
                    .map(|d| d["event_id"].as_str().expect("event_id").to_owned()),
            );
            match body["next_cursor"].as_str() {
                Some(c) => query = format!("?limit={limit}&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(seen.len(), 7, "limit {limit}: {seen:?}");
        let distinct: BTreeSet<String> = seen.into_iter().collect();
        assert_eq!(distinct, events, "limit {limit}");
    }
}

#[tokio::test]
async fn bad_paging_parameters_are_400() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    fire_test(&svc, &hook).await;
    let not_uuid = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("not-a-delivery");
    let not_uuid = format!("?cursor={not_uuid}");
    for (query, message) in [
        ("?limit=0", Some("limit: must be from 1 to 100, got 0")),
        ("?limit=101", Some("limit: must be from 1 to 100, got 101")),
        ("?limit=-1", Some("limit: must be from 1 to 100, got -1")),
        (
            "?limit=two",
            Some("limit: must be a whole number, got \"two\""),
        ),
        (
            "?limit=99999999999999999999",
            Some("limit: must be from 1 to 100, got 99999999999999999999"),
        ),
        (
            "?limit=5000000000",
            Some("limit: must be from 1 to 100, got 5000000000"),
        ),
        ("?cursor=%21%21%21", Some(BAD_CURSOR)),
        ("?cursor=", Some(BAD_CURSOR)),
        (not_uuid.as_str(), Some(BAD_CURSOR)),
        // An error of no one parameter.
        ("?limit=1&limit=2", None),
    ] {
        let reply = page(&svc, &hook, query).await;
        let got = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        match message {
            Some(m) => assert_eq!(got, m, "{query}"),
            None => assert_eq!(
                got, "query: the parameter \"limit\" is given twice",
                "{query}"
            ),
        }
    }
    let ok = page(&svc, &hook, "?limit=100").await;
    assert_eq!(ok.status, StatusCode::OK);
    let ok = page(&svc, &hook, "?limit=1").await;
    assert_eq!(ok.json()["data"].as_array().map(Vec::len), Some(1));
}

/// A cursor is a delivery id; one that names no delivery of this endpoint (another
/// endpoint's, or none) gives an empty page (the documented answer), and never
/// another endpoint's deliveries.
#[tokio::test]
async fn a_cursor_of_another_webhook_gives_an_empty_page() {
    let svc = Svc::new().await;
    let a = svc.register(&["uhr_generated"]).await;
    let b = svc.register(&["uhr_generated"]).await;
    for _ in 0..3 {
        fire_test(&svc, &a).await;
        fire_test(&svc, &b).await;
        svc.advance(1);
    }
    let first = page(&svc, &a, "?limit=1").await.json();
    let cursor = first["next_cursor"].as_str().expect("a next page");
    assert_eq!(first["data"][0]["id"], cursor);
    for c in [cursor.to_owned(), uuid::Uuid::new_v4().to_string()] {
        let reply = page(&svc, &b, &format!("?limit=10&cursor={c}")).await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        assert_eq!(reply.json(), json!({"data": [], "next_cursor": null}));
    }
    // On its own endpoint the cursor goes on with the older two.
    let rest = page(&svc, &a, &format!("?cursor={cursor}")).await.json();
    assert_eq!(rest["data"].as_array().map(Vec::len), Some(2));
}
