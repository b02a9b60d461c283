//! `Idempotency-Key` on the routes that start a session: a repeat gets the first
//! answer and starts nothing, a reuse with another request is 409, and a key that is
//! no key is 400 before anything is stored.

use axum::body::Body;
use axum::http::{HeaderValue, Method, StatusCode};
use serde_json::{Value, json};

use undertone_http::keys::Scope;
use undertone_http::limits::Plan;

use super::{
    HOUR_END, ORG, Reply, Service, assert_error, assert_quota, drift_body, refund, request,
    session_id,
};

/// `POST path` of `body` with the default key and each of `keys` as an
/// `Idempotency-Key` header.
async fn post_keyed(svc: &Service, path: &str, body: &Value, keys: &[&str]) -> Reply {
    post_keyed_as(svc, &svc.key, path, body, keys).await
}

/// [`post_keyed`] with the API key `api_key`.
async fn post_keyed_as(
    svc: &Service,
    api_key: &str,
    path: &str,
    body: &Value,
    keys: &[&str],
) -> Reply {
    let mut req = request(
        Method::POST,
        path,
        Some(api_key),
        Some("application/json"),
        Body::from(serde_json::to_vec(body).expect("serialisable")),
    );
    for key in keys {
        req.headers_mut().append(
            "idempotency-key",
            HeaderValue::from_bytes(key.as_bytes()).expect("a header value"),
        );
    }
    svc.send(req).await
}

#[tokio::test]
async fn a_repeated_ingest_gets_its_first_answer_and_starts_nothing() {
    let svc = Service::new().await;
    let first = post_keyed(&svc, "/api/v1/ingest", &refund(), &["order-5512-try"]).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{first:?}");
    assert_eq!(first.header("idempotent-replayed"), None);
    let id = session_id(&first);

    for _ in 0..2 {
        let again = post_keyed(&svc, "/api/v1/ingest", &refund(), &["order-5512-try"]).await;
        assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
        assert_eq!(again.json(), first.json());
        assert_eq!(again.header("location"), first.header("location"));
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
    }
    // One session; each of the three requests was counted (SPEC.md §8), and the read.
    assert_eq!(svc.queue_depth().await, 1);
    let counted = svc.get(&format!("/api/v1/intelligence/{id}")).await;
    assert_quota(&counted, 1000, 996, HOUR_END);

    // Without the header, the same body is a new request.
    let unkeyed = post_keyed(&svc, "/api/v1/ingest", &refund(), &[]).await;
    assert_eq!(unkeyed.status, StatusCode::ACCEPTED, "{unkeyed:?}");
    assert_ne!(session_id(&unkeyed), id);
    assert_eq!(svc.queue_depth().await, 2);
}

#[tokio::test]
async fn a_repeat_is_the_same_json_however_it_is_spaced_or_ordered() {
    let svc = Service::new().await;
    let first = post_keyed(&svc, "/api/v1/ingest", &refund(), &["k-order"]).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{first:?}");
    // The same request pretty-printed, with its top-level and event keys reversed.
    let mut reordered = serde_json::Map::new();
    let Value::Object(body) = refund() else {
        panic!("an object")
    };
    for (k, v) in body.into_iter().rev() {
        let v = match v {
            Value::Array(events) => Value::Array(
                events
                    .into_iter()
                    .map(|e| match e {
                        Value::Object(e) => Value::Object(e.into_iter().rev().collect()),
                        other => other,
                    })
                    .collect(),
            ),
            other => other,
        };
        reordered.insert(k, v);
    }
    let pretty = serde_json::to_vec_pretty(&reordered).expect("serialisable");
    assert_ne!(pretty, serde_json::to_vec(&refund()).expect("serialisable"));
    let mut req = request(
        Method::POST,
        "/api/v1/ingest",
        Some(&svc.key),
        Some("application/json"),
        Body::from(pretty),
    );
    req.headers_mut()
        .append("idempotency-key", HeaderValue::from_static("k-order"));
    let again = svc.send(req).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
    assert_eq!(again.json(), first.json());
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    // So is the same body after a byte order mark, which every reader ignores.
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend(serde_json::to_vec(&refund()).expect("serialisable"));
    let mut req = request(
        Method::POST,
        "/api/v1/ingest",
        Some(&svc.key),
        Some("application/json"),
        Body::from(bom),
    );
    req.headers_mut()
        .append("idempotency-key", HeaderValue::from_static("k-order"));
    let again = svc.send(req).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
    assert_eq!(again.json(), first.json());
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(svc.queue_depth().await, 1);
}

#[tokio::test]
async fn a_key_sent_with_another_request_is_409_and_starts_nothing() {
    let svc = Service::new().await;
    let first = post_keyed(&svc, "/api/v1/ingest", &refund(), &["k-1"]).await;
    let id = session_id(&first);
    let mut other = refund();
    other["deployment_id"] = json!("another-bot");
    let expected = format!(
        "Idempotency-Key \"k-1\" was sent before with a different request, which started \
         session {id}; send a new key with a new request"
    );
    for (path, body) in [("/api/v1/ingest", other), ("/api/v1/drift", drift_body())] {
        let reply = post_keyed(&svc, path, &body, &["k-1"]).await;
        assert_error(&reply, StatusCode::CONFLICT, "CONFLICT", &expected);
    }
    assert_eq!(svc.queue_depth().await, 1);
}

#[tokio::test]
async fn a_repeated_drift_gets_its_first_session() {
    let svc = Service::new().await;
    let first = post_keyed(&svc, "/api/v1/drift", &drift_body(), &["drift-1"]).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{first:?}");
    let again = post_keyed(&svc, "/api/v1/drift", &drift_body(), &["drift-1"]).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
    assert_eq!(again.json(), first.json());
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(
        again.json()["poll_url"],
        format!("/api/v1/drift/{}", session_id(&first))
    );
    assert_eq!(svc.queue_depth().await, 1);
}

#[tokio::test]
async fn a_repeated_drift_is_answered_when_the_drift_window_is_full() {
    let svc = Service::new().await;
    let plan = Plan {
        drift_per_hour: 1,
        ..Plan::default()
    };
    let (_, one_drift) = svc.issue(ORG, Scope::ReadWrite, plan).await;
    let first = post_keyed_as(&svc, &one_drift, "/api/v1/drift", &drift_body(), &["d-1"]).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{first:?}");
    // The window is full now: the repeat is answered, a new drift refused.
    let again = post_keyed_as(&svc, &one_drift, "/api/v1/drift", &drift_body(), &["d-1"]).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
    assert_eq!(again.json(), first.json());
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    for keys in [vec!["d-2"], vec![]] {
        let refused = post_keyed_as(&svc, &one_drift, "/api/v1/drift", &drift_body(), &keys).await;
        assert_eq!(
            refused.status,
            StatusCode::TOO_MANY_REQUESTS,
            "{keys:?}: {refused:?}"
        );
    }
    assert_eq!(svc.queue_depth().await, 1);
    // The first sending and its repeat counted as requests, and this read does; the
    // two 429s did not (SPEC.md §8), with the key or without.
    let read = svc.get_as("/api/v1/key", Some(&one_drift)).await;
    assert_quota(&read, 1000, 997, HOUR_END);
}

#[tokio::test]
async fn a_key_that_is_no_key_is_400_and_nothing_is_stored() {
    let svc = Service::new().await;
    let long = "k".repeat(256);
    let rule =
        "Idempotency-Key: must be 1 to 255 visible ASCII characters (no spaces), such as a UUID";
    for (keys, message) in [
        (vec![""], rule),
        (vec!["caf\u{e9}"], rule),
        (vec![long.as_str()], rule),
        (vec!["two words"], rule),
        (
            vec!["k-1", "k-2"],
            "Idempotency-Key: must be sent once, got more than one",
        ),
    ] {
        let reply = post_keyed(&svc, "/api/v1/ingest", &refund(), &keys).await;
        assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR", message);
    }
    // The longest key is accepted.
    let longest = "k".repeat(255);
    let reply = post_keyed(&svc, "/api/v1/ingest", &refund(), &[&longest]).await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(svc.queue_depth().await, 1);
}

#[tokio::test]
async fn a_keyed_body_with_an_overlong_array_is_refused_as_an_unkeyed_one_is() {
    // The digest reads the body as validation does: 10 001 events are refused at the
    // 10 001st, keyed or not, and nothing is stored.
    let svc = Service::new().await;
    let body = json!({"deployment_id": "acme-bot", "events": vec![0; 10_001]});
    for keys in [&[][..], &["order-5512-try"][..]] {
        let reply = post_keyed(&svc, "/api/v1/ingest", &body, keys).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
        let message = reply.json()["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            message.starts_with(
                "body: is refused as it is read: an array or object holds more than 10000 items"
            ),
            "{message}"
        );
    }
    assert_eq!(svc.queue_depth().await, 0);
    // The key was not taken: a valid request with it starts a session.
    let first = post_keyed(&svc, "/api/v1/ingest", &refund(), &["order-5512-try"]).await;
    assert_eq!(first.status, StatusCode::ACCEPTED, "{first:?}");
}
