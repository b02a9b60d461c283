//! `POST /webhooks`, `GET /webhooks` and `DELETE /webhooks/{id}`: the 201 and its
//! secret, body and event kind checks, the SSRF refusals at registration, the limit
//! of twenty per key, the list, and what deleting does to pending deliveries.

use std::net::IpAddr;

use axum::http::{Method, StatusCode};
use base64::Engine as _;
use serde_json::{Value, json};
use undertone_http::api::Config;
use undertone_http::keys::Scope;
use undertone_http::resolver::SafeResolver;

use super::{assert_error, fire_test, listed_ids};
use crate::webhooks::events::{NOW_TEXT, ORG, Reply, SINK, Svc, keys_of, sorted};

/// The five subscribable kinds.
const KINDS: [&str; 5] = [
    "intelligence.ready",
    "layer_z_threshold_crossed",
    "anomaly_detected",
    "uhr_generated",
    "outcome_shift_detected",
];

/// A service with the default (strict) configuration whose resolver answers
/// `hooks.example.com` with a public address and `inside.example` with a private one,
/// without asking any DNS server.
async fn strict() -> Svc {
    Svc::build(Config::default(), |mut state| {
        state.resolver = SafeResolver::new(false)
            .with_fixed("hooks.example.com", vec![ip("93.184.216.34")])
            .with_fixed("inside.example", vec![ip("10.0.0.1")])
            .with_fixed(
                "mixed.example",
                vec![ip("93.184.216.34"), ip("192.168.1.10")],
            )
            .with_fixed("mapped.example", vec![ip("::ffff:127.0.0.1")]);
        state
    })
    .await
}

fn ip(s: &str) -> IpAddr {
    s.parse().expect("an IP address")
}

/// `POST /webhooks` of `body` with the default key.
async fn create(svc: &Svc, body: &Value) -> Reply {
    svc.post("/api/v1/webhooks", Some(body)).await
}

#[tokio::test]
async fn registering_answers_201_with_a_secret_shown_once() {
    let svc = strict().await;
    let reply = create(
        &svc,
        &json!({"url": "https://hooks.example.com/undertone",
            "events": ["uhr_generated", "intelligence.ready"]}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let created = reply.json();
    assert_eq!(
        keys_of(&created),
        sorted(&["id", "url", "secret", "events", "created_at"])
    );
    let id = created["id"].as_str().expect("id").to_owned();
    assert!(
        id.len() == 35 && id.starts_with("wh_") && id[3..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{id}"
    );
    let location = format!("/api/v1/webhooks/{id}");
    assert_eq!(reply.header("location"), Some(location.as_str()));
    assert_eq!(created["url"], "https://hooks.example.com/undertone");
    assert_eq!(
        created["events"],
        json!(["intelligence.ready", "uhr_generated"])
    );
    assert_eq!(created["created_at"], NOW_TEXT);
    let secret = created["secret"].as_str().expect("secret").to_owned();
    let raw = secret.strip_prefix("whsec_").expect("whsec_ prefix");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .expect("base64");
    assert_eq!(bytes.len(), 32);

    // A second endpoint, a second later, gets its own secret.
    svc.advance(1);
    let second = create(
        &svc,
        &json!({"url": "https://hooks.example.com/other", "events": KINDS}),
    )
    .await;
    assert_eq!(second.status, StatusCode::CREATED, "{second:?}");
    let second = second.json();
    assert_ne!(second["secret"], created["secret"]);
    assert_ne!(second["id"], created["id"]);
    assert_eq!(second["events"], json!(KINDS));

    // Listed oldest first, with the documented fields and never the secret.
    let list = svc.get("/api/v1/webhooks").await;
    assert_eq!(list.status, StatusCode::OK);
    let text = String::from_utf8_lossy(&list.body).into_owned();
    assert!(!text.contains("secret"), "{text}");
    assert!(!text.contains(raw), "{text}");
    let list = list.json();
    assert_eq!(keys_of(&list), sorted(&["data"]));
    let data = list["data"].as_array().expect("data");
    assert_eq!(data.len(), 2);
    assert_eq!(
        data[0],
        json!({
            "id": id,
            "url": "https://hooks.example.com/undertone",
            "events": ["intelligence.ready", "uhr_generated"],
            "created_at": NOW_TEXT,
            "last_delivery_at": null,
            "failure_count": 0,
            "disabled": null,
        })
    );
    // The Location reads the endpoint as the list shows it.
    let one = svc.get(&location).await;
    assert_eq!(one.status, StatusCode::OK, "{one:?}");
    assert_eq!(one.json(), data[0]);
    assert!(!String::from_utf8_lossy(&one.body).contains(raw));
    assert_eq!(data[1]["id"], second["id"]);
    assert_eq!(data[1]["created_at"], "2026-11-18T11:06:41.000Z");
    assert_eq!(
        keys_of(&data[1]),
        sorted(&[
            "id",
            "url",
            "events",
            "created_at",
            "last_delivery_at",
            "failure_count",
            "disabled"
        ])
    );
}

#[tokio::test]
async fn http_urls_need_allow_private_webhooks() {
    let svc = strict().await;
    let reply = create(
        &svc,
        &json!({"url": "http://hooks.example.com/undertone", "events": ["uhr_generated"]}),
    )
    .await;
    let message = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert!(message.starts_with("url:"), "{message}");
    assert!(message.contains("https"), "{message}");
    assert_eq!(listed_ids(&svc, &svc.key).await, Vec::<String>::new());

    let open = Svc::new().await;
    let reply = create(&open, &json!({"url": SINK, "events": ["uhr_generated"]})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["url"], SINK);
}

#[tokio::test]
async fn event_kind_lists_and_bodies_are_validated() {
    let svc = strict().await;
    let url = "https://hooks.example.com/undertone";
    let mut six: Vec<&str> = KINDS.to_vec();
    six.push("uhr_generated");
    // Ok: the whole message; Err: how it starts (the field where the body went wrong).
    let cases: Vec<(Value, Result<&str, &str>)> = vec![
        (
            json!({"url": url, "events": []}),
            Ok("events: must list 1 to 5 event kinds, got 0"),
        ),
        (
            json!({"url": url, "events": six}),
            Ok("events: must list 1 to 5 event kinds, got 6"),
        ),
        (
            json!({"url": url, "events": ["uhr_generated", "uhr_generated"]}),
            Ok("events: each event kind may be listed once"),
        ),
        (
            json!({"url": url, "events": ["session.created"]}),
            Ok(
                "events[0]: must be one of intelligence.ready, layer_z_threshold_crossed, \
                anomaly_detected, uhr_generated, outcome_shift_detected; got \"session.created\"",
            ),
        ),
        (
            json!({"url": url, "events": ["webhook.test"]}),
            Err("events[0]: must be one of intelligence.ready, "),
        ),
        (
            json!({"url": url, "events": ["UHR_GENERATED"]}),
            Err("events[0]: must be one of intelligence.ready, "),
        ),
        (
            json!({"url": url, "events": "uhr_generated"}),
            Err("events: invalid type"),
        ),
        (json!({"url": url}), Ok("events: is required")),
        (json!({"events": ["uhr_generated"]}), Ok("url: is required")),
        (
            json!({"url": url, "events": ["uhr_generated"], "secret": "whsec_mine"}),
            Ok("secret: unknown field; allowed fields are url, events"),
        ),
        (
            json!({"url": url, "events": ["uhr_generated"], "active": true}),
            Ok("active: unknown field; allowed fields are url, events"),
        ),
        // Serde would read a struct from an array of its fields in order, and name
        // the Rust type when it cannot.
        (json!([url]), Ok("body: must be a JSON object, got array")),
        (
            json!([url, ["uhr_generated"]]),
            Ok("body: must be a JSON object, got array"),
        ),
        (json!([]), Ok("body: must be a JSON object, got array")),
    ];
    for (body, message) in cases {
        let reply = create(&svc, &body).await;
        let got = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        match message {
            Ok(m) => assert_eq!(got, m, "{body}"),
            Err(start) => assert!(got.starts_with(start), "{body}: {got}"),
        }
    }
    assert_eq!(listed_ids(&svc, &svc.key).await, Vec::<String>::new());

    // Not JSON at all.
    let reply = svc
        .send(Method::POST, "/api/v1/webhooks", Some(&svc.key), None)
        .await;
    assert_error(
        &reply,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
    );
    // Each kind alone is fine (each endpoint at a URL of its own).
    for kind in KINDS {
        let reply = create(
            &svc,
            &json!({"url": format!("{url}/{kind}"), "events": [kind]}),
        )
        .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{kind}: {reply:?}");
        assert_eq!(reply.json()["events"], json!([kind]));
    }
    assert_eq!(listed_ids(&svc, &svc.key).await.len(), 5);
}

#[tokio::test]
async fn non_public_targets_are_refused_at_registration() {
    let svc = strict().await;
    let refused = [
        "https://127.0.0.1/",
        "https://127.1.2.3/hook",
        "https://localhost/",
        "https://api.localhost/",
        "https://[::1]/",
        "https://169.254.169.254/latest/meta-data/",
        "https://10.0.0.1/",
        "https://172.16.5.4/",
        "https://192.168.0.10/",
        "https://100.64.0.1/",
        "https://224.0.0.1/",
        "https://[::ffff:127.0.0.1]/",
        "https://[::ffff:10.0.0.1]/",
        "https://[fd00::1]/",
        "https://[fe80::1]/",
        "https://0.0.0.0/",
        "https://2130706433/",
        "https://0x7f000001/",
        "https://017700000001/",
        "https://inside.example/hook",
        "https://INSIDE.example./hook",
        "https://mixed.example/hook",
        "https://mapped.example/hook",
        "https://user:pass@hooks.example.com/hook",
        "ftp://hooks.example.com/hook",
        "not a url",
        "https://[::1",
    ];
    let too_long = format!("https://hooks.example.com/{}", "a".repeat(2049 - 26));
    assert_eq!(too_long.chars().count(), 2049);
    let just_fits = format!("https://hooks.example.com/{}", "a".repeat(2048 - 26));
    for url in refused.iter().copied().chain([too_long.as_str()]) {
        let reply = create(&svc, &json!({"url": url, "events": ["uhr_generated"]})).await;
        let message = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(message.starts_with("url:"), "{url}: {message}");
    }
    let reply = create(
        &svc,
        &json!({"url": "https://inside.example/hook", "events": ["uhr_generated"]}),
    )
    .await;
    let message = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        message,
        "url: `inside.example` resolves to 10.0.0.1, which is not a public address"
    );
    assert_eq!(listed_ids(&svc, &svc.key).await, Vec::<String>::new());

    // A public address is fine, literal or by name; a name that does not resolve
    // (yet) is accepted too (docs/webhooks.md "Decisions": every attempt checks it).
    for url in [
        "https://93.184.216.34/hook",
        "https://hooks.example.com/hook",
        "https://does-not-exist.invalid/hook",
        just_fits.as_str(),
    ] {
        let reply = create(&svc, &json!({"url": url, "events": ["uhr_generated"]})).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{url}: {reply:?}");
    }
    assert_eq!(listed_ids(&svc, &svc.key).await.len(), 4);
}

#[tokio::test]
async fn a_key_may_hold_twenty_webhooks() {
    let svc = Svc::new().await;
    let mut ids = Vec::new();
    for _ in 0..20 {
        ids.push(svc.register(&["uhr_generated"]).await);
        svc.advance(1);
    }
    // docs/webhooks.md "Decisions": the 21st is 409 CONFLICT.
    let reply = create(&svc, &json!({"url": SINK, "events": ["uhr_generated"]})).await;
    let message = assert_error(&reply, StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(
        message,
        "this key has 20 webhooks already, the most it may have; delete one first"
    );
    assert_eq!(listed_ids(&svc, &svc.key).await, ids);
    // The limit is per key.
    let (other, _) = svc.issue(ORG, Scope::ReadWrite).await;
    svc.register_as(&other, SINK, &["uhr_generated"]).await;
    // A deleted one frees a place.
    let reply = svc.delete(&format!("/api/v1/webhooks/{}", ids[0])).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    let reply = create(&svc, &json!({"url": SINK, "events": ["uhr_generated"]})).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(listed_ids(&svc, &svc.key).await.len(), 20);
    let reply = create(&svc, &json!({"url": SINK, "events": ["uhr_generated"]})).await;
    assert_error(&reply, StatusCode::CONFLICT, "CONFLICT");
    // An invalid body is still a 400 at the limit, not a 409.
    let reply = create(&svc, &json!({"url": SINK, "events": []})).await;
    assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
}

#[tokio::test]
async fn a_key_registers_a_url_once() {
    let svc = Svc::new().await;
    let first = svc.register_as(&svc.key, SINK, &["uhr_generated"]).await;
    let id = first["id"].as_str().expect("id");
    let expected = format!(
        "this key has an endpoint for this URL already ({id}); use it, or delete it before \
         registering the URL again"
    );
    // Also when written otherwise but stored the same (case, a fragment never sent).
    for url in [
        SINK.to_owned(),
        SINK.to_uppercase().replace("/HOOK", "/hook"),
        format!("{SINK}#again"),
    ] {
        let reply = create(&svc, &json!({"url": url, "events": ["anomaly_detected"]})).await;
        assert_eq!(
            assert_error(&reply, StatusCode::CONFLICT, "CONFLICT"),
            expected,
            "{url}"
        );
    }
    assert_eq!(listed_ids(&svc, &svc.key).await, vec![id.to_owned()]);
    // Another key may register it; once deleted, it may be registered again.
    let (other, _) = svc.issue(ORG, Scope::ReadWrite).await;
    svc.register_as(&other, SINK, &["uhr_generated"]).await;
    let reply = svc.delete(&format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    let again = create(&svc, &json!({"url": SINK, "events": ["uhr_generated"]})).await;
    assert_eq!(again.status, StatusCode::CREATED, "{again:?}");
}

/// One endpoint's `events` read the same in the 201 and in the list.
#[tokio::test]
async fn the_list_shows_events_as_registration_answered() {
    let svc = Svc::new().await;
    let created = svc
        .register_as(
            &svc.key,
            SINK,
            &["uhr_generated", "anomaly_detected", "intelligence.ready"],
        )
        .await;
    let list = svc.get("/api/v1/webhooks").await.json();
    assert_eq!(list["data"][0]["id"], created["id"]);
    assert_eq!(
        list["data"][0]["events"], created["events"],
        "POST /webhooks and GET /webhooks order the same endpoint's kinds differently"
    );
}

#[tokio::test]
async fn deleting_a_webhook_is_204_then_404_and_fails_its_pending_deliveries() {
    let svc = Svc::new().await;
    let keep = svc.register(&["uhr_generated"]).await;
    let hook = svc.register(&["uhr_generated"]).await;
    let queued = fire_test(&svc, &hook).await;

    let reply = svc.delete(&format!("/api/v1/webhooks/{hook}")).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{reply:?}");
    assert!(reply.body.is_empty(), "{reply:?}");
    assert_eq!(listed_ids(&svc, &svc.key).await, vec![keep.clone()]);

    for (method, path) in [
        (Method::GET, format!("/api/v1/webhooks/{hook}")),
        (Method::DELETE, format!("/api/v1/webhooks/{hook}")),
        (Method::POST, format!("/api/v1/webhooks/{hook}/test")),
        (Method::GET, format!("/api/v1/webhooks/{hook}/deliveries")),
    ] {
        let reply = svc.send(method, &path, Some(&svc.key), None).await;
        let message = assert_error(&reply, StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(message, "webhook not found");
    }
    let reply = svc
        .delete("/api/v1/webhooks/wh_00000000000000000000000000000000")
        .await;
    assert_error(&reply, StatusCode::NOT_FOUND, "NOT_FOUND");

    // Its pending delivery failed for good.
    let row: (String, Option<String>, Option<String>) =
        sqlx::query_as("SELECT status, error, completed_at FROM deliveries WHERE event_id = ?")
            .bind(queued["event_id"].as_str().expect("event_id"))
            .fetch_one(&svc.db)
            .await
            .expect("the delivery is stored");
    assert_eq!(row.0, "failed");
    assert_eq!(row.1.as_deref(), Some("the webhook was deleted"));
    assert!(row.2.is_some());
    // A later event of its kind does not go to it.
    let reply = svc
        .post("/api/v1/deployments/bot/health-reports", None)
        .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let to_deleted: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM deliveries WHERE webhook_id = ?")
            .bind(&hook)
            .fetch_one(&svc.db)
            .await
            .expect("readable");
    assert_eq!(to_deleted, 1);
    assert_eq!(svc.deliveries(&keep).await.len(), 1);
}

#[tokio::test]
async fn an_ingest_webhook_url_is_resolved_like_a_registration() {
    // The same URL was refused at registration and accepted at ingest (the delivery
    // then failed, out of the caller's sight).
    let svc = strict().await;
    let body = |url: &str| {
        json!({"deployment_id": "acme-bot", "webhook_url": url, "events": [
            {"actor_id": "cust-1", "content": "Where is my refund?", "timestamp": "2026-11-21T09:30:00Z"}
        ]})
    };
    let reply = svc
        .post("/api/v1/ingest", Some(&body("https://inside.example/hook")))
        .await;
    let message = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    assert_eq!(
        message,
        "webhook_url: `inside.example` resolves to 10.0.0.1, which is not a public address"
    );
    let reply = svc
        .post(
            "/api/v1/ingest",
            Some(&body("https://hooks.example.com/hook")),
        )
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
}
