//! The webhook routes (register, list, delete, test, deliveries with their paging)
//! and the per-deployment routes' input checks, through the router: exact statuses,
//! error envelopes and bodies, the SSRF refusals at registration, per-key lists and
//! the key scopes.

use std::collections::BTreeSet;
use std::net::IpAddr;

use axum::http::{Method, StatusCode};
use base64::Engine as _;
use serde_json::{Value, json};
use undertone_http::api::Config;
use undertone_http::clock::Clock;
use undertone_http::keys::Scope;
use undertone_http::resolver::SafeResolver;
use undertone_http::store::WebhookRecord;

use super::events::{NOW_TEXT, ORG, Reply, SINK, Svc, keys_of, sorted};

/// The answer to a cursor that is not a delivery id.
const BAD_CURSOR: &str = "cursor: must be the `next_cursor` of a previous page (a delivery id)";

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

/// An error reply with this status and code; its message.
#[track_caller]
fn assert_error(reply: &Reply, status: StatusCode, code: &str) -> String {
    assert_eq!(reply.status, status, "{reply:?}");
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{reply:?}"
    );
    let body = reply.json();
    assert_eq!(body["error"]["code"], code, "{reply:?}");
    body["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("no message: {reply:?}"))
        .to_owned()
}

/// `POST /webhooks` of `body` with the default key.
async fn create(svc: &Svc, body: &Value) -> Reply {
    svc.post("/api/v1/webhooks", Some(body)).await
}

/// The ids of the default key's webhooks, oldest first.
async fn listed_ids(svc: &Svc, key: &str) -> Vec<String> {
    let reply = svc
        .send(Method::GET, "/api/v1/webhooks", Some(key), None)
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    reply.json()["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|w| w["id"].as_str().expect("id").to_owned())
        .collect()
}

/// Queues a test event to `hook` with the default key; the 202 body.
async fn fire_test(svc: &Svc, hook: &str) -> Value {
    let reply = svc
        .post(&format!("/api/v1/webhooks/{hook}/test"), None)
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    reply.json()
}

/// A page of deliveries.
async fn page(svc: &Svc, hook: &str, query: &str) -> Reply {
    svc.get(&format!("/api/v1/webhooks/{hook}/deliveries{query}"))
        .await
}

// ---------------------------------------------------------------------------------
// POST /webhooks
// ---------------------------------------------------------------------------------

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
    assert_eq!(
        reply.header("location"),
        Some(format!("/api/v1/webhooks/{id}/deliveries").as_str())
    );
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
    let cases: Vec<(Value, Option<&str>)> = vec![
        (
            json!({"url": url, "events": []}),
            Some("events: must list 1 to 5 event kinds, got 0"),
        ),
        (
            json!({"url": url, "events": six}),
            Some("events: must list 1 to 5 event kinds, got 6"),
        ),
        (
            json!({"url": url, "events": ["uhr_generated", "uhr_generated"]}),
            Some("events: each event kind may be listed once"),
        ),
        (json!({"url": url, "events": ["session.created"]}), None),
        (json!({"url": url, "events": ["webhook.test"]}), None),
        (json!({"url": url, "events": ["UHR_GENERATED"]}), None),
        (json!({"url": url, "events": "uhr_generated"}), None),
        (json!({"url": url}), None),
        (json!({"events": ["uhr_generated"]}), None),
        (
            json!({"url": url, "events": ["uhr_generated"], "secret": "whsec_mine"}),
            None,
        ),
        (
            json!({"url": url, "events": ["uhr_generated"], "active": true}),
            None,
        ),
        (json!([url]), None),
    ];
    for (body, message) in cases {
        let reply = create(&svc, &body).await;
        let got = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        match message {
            Some(m) => assert_eq!(got, m, "{body}"),
            None => assert!(got.starts_with("body:"), "{body}: {got}"),
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
    // Each kind alone is fine.
    for kind in KINDS {
        let reply = create(&svc, &json!({"url": url, "events": [kind]})).await;
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

// ---------------------------------------------------------------------------------
// Keys: per-key lists, scopes, no key
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn webhooks_belong_to_the_key_that_registered_them() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    fire_test(&svc, &hook).await;
    let (other, _) = svc.issue(ORG, Scope::ReadWrite).await;

    assert_eq!(listed_ids(&svc, &other).await, Vec::<String>::new());
    for (method, path) in [
        (Method::GET, format!("/api/v1/webhooks/{hook}/deliveries")),
        (Method::DELETE, format!("/api/v1/webhooks/{hook}")),
        (Method::POST, format!("/api/v1/webhooks/{hook}/test")),
    ] {
        let reply = svc.send(method.clone(), &path, Some(&other), None).await;
        let message = assert_error(&reply, StatusCode::NOT_FOUND, "NOT_FOUND");
        assert_eq!(message, "webhook not found", "{method} {path}");
    }
    // Nothing happened to it.
    assert_eq!(listed_ids(&svc, &svc.key).await, vec![hook.clone()]);
    assert_eq!(svc.deliveries(&hook).await.len(), 1);

    // The other key's own webhook is not in the first key's list.
    let own = svc.register_as(&other, SINK, &["uhr_generated"]).await;
    assert_eq!(listed_ids(&svc, &svc.key).await, vec![hook.clone()]);
    assert_eq!(
        listed_ids(&svc, &other).await,
        vec![own["id"].as_str().expect("id").to_owned()]
    );
}

#[tokio::test]
async fn a_read_only_key_reads_but_does_not_write() {
    let svc = Svc::new().await;
    let (ro, ro_id) = svc.issue(ORG, Scope::ReadOnly).await;
    // A webhook of the read-only key (it could not register one itself).
    let hook = "wh_0123456789abcdef0123456789abcdef";
    svc.store
        .create_webhook(
            &WebhookRecord {
                id: hook.into(),
                org_id: ORG.into(),
                key_id: ro_id,
                url: SINK.into(),
                secret: "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".into(),
                events: vec!["uhr_generated".into()],
                created_at: svc.clock.now(),
                last_delivery_at: None,
                failure_count: 0,
                disabled: None,
            },
            20,
        )
        .await
        .expect("stored");

    let writes = [
        (
            Method::POST,
            "/api/v1/webhooks".to_owned(),
            Some(json!({"url": SINK, "events": ["uhr_generated"]})),
        ),
        (Method::DELETE, format!("/api/v1/webhooks/{hook}"), None),
        (Method::POST, format!("/api/v1/webhooks/{hook}/test"), None),
        (
            Method::POST,
            "/api/v1/deployments/bot/deploys".to_owned(),
            Some(json!({"release": "r1"})),
        ),
        (
            Method::POST,
            "/api/v1/deployments/bot/health-reports".to_owned(),
            None,
        ),
    ];
    for (method, path, body) in writes {
        let reply = svc
            .send(method.clone(), &path, Some(&ro), body.as_ref())
            .await;
        let message = assert_error(&reply, StatusCode::FORBIDDEN, "FORBIDDEN");
        assert_eq!(
            message,
            format!("this key is read-only; {method} needs a read-write key"),
            "{path}"
        );
    }
    assert_eq!(listed_ids(&svc, &ro).await, vec![hook.to_owned()]);
    assert_eq!(svc.deliveries_as(&ro, hook).await, Vec::<Value>::new());
    for path in [
        "/api/v1/deployments/bot/deploys",
        "/api/v1/deployments/bot/health-reports",
    ] {
        let reply = svc.send(Method::GET, path, Some(&ro), None).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {reply:?}");
        assert_eq!(reply.json(), json!({"data": []}));
    }
    // Nothing was written by the refused requests.
    let reports = svc.get("/api/v1/deployments/bot/health-reports").await;
    assert_eq!(reports.json(), json!({"data": []}));
    let deploys = svc.get("/api/v1/deployments/bot/deploys").await;
    assert_eq!(deploys.json(), json!({"data": []}));
}

#[tokio::test]
async fn webhook_and_deployment_routes_need_a_key() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    for (method, path) in [
        (Method::POST, "/api/v1/webhooks".to_owned()),
        (Method::GET, "/api/v1/webhooks".to_owned()),
        (Method::DELETE, format!("/api/v1/webhooks/{hook}")),
        (Method::POST, format!("/api/v1/webhooks/{hook}/test")),
        (Method::GET, format!("/api/v1/webhooks/{hook}/deliveries")),
        (Method::GET, "/api/v1/deployments/bot/deploys".to_owned()),
        (Method::POST, "/api/v1/deployments/bot/deploys".to_owned()),
        (
            Method::GET,
            "/api/v1/deployments/bot/health-reports".to_owned(),
        ),
        (
            Method::POST,
            "/api/v1/deployments/bot/health-reports".to_owned(),
        ),
    ] {
        let reply = svc.send(method.clone(), &path, None, None).await;
        assert_error(&reply, StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    assert_eq!(listed_ids(&svc, &svc.key).await, vec![hook]);
}

// ---------------------------------------------------------------------------------
// DELETE and test
// ---------------------------------------------------------------------------------

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
async fn a_test_event_is_queued_for_that_webhook_only() {
    let svc = Svc::new().await;
    // Subscribed to something else entirely: a test goes to it anyway.
    let hook = svc.register(&["outcome_shift_detected"]).await;
    let sibling = svc.register(&["outcome_shift_detected"]).await;
    let reply = svc
        .post(&format!("/api/v1/webhooks/{hook}/test"), None)
        .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    let deliveries_url = format!("/api/v1/webhooks/{hook}/deliveries");
    assert_eq!(reply.header("location"), Some(deliveries_url.as_str()));
    let queued = reply.json();
    assert_eq!(
        keys_of(&queued),
        sorted(&["event_id", "event_type", "deliveries_url"])
    );
    assert_eq!(queued["event_type"], "webhook.test");
    assert_eq!(queued["deliveries_url"], deliveries_url.as_str());
    let event_id = queued["event_id"].as_str().expect("event_id");
    assert!(uuid::Uuid::parse_str(event_id).is_ok(), "{event_id}");

    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), 1);
    let d = &listed[0];
    assert!(
        d["id"]
            .as_str()
            .is_some_and(|s| uuid::Uuid::parse_str(s).is_ok()),
        "{d}"
    );
    assert_ne!(d["id"], queued["event_id"]);
    assert_eq!(
        *d,
        json!({
            "id": d["id"],
            "event_id": event_id,
            "event_type": "webhook.test",
            "status": "pending",
            "attempts": 0,
            "response_status": null,
            "error": null,
            "created_at": NOW_TEXT,
            "last_attempt_at": null,
            "next_attempt_at": NOW_TEXT,
            "completed_at": null,
            "attempt_log": [],
        })
    );
    assert_eq!(svc.deliveries(&sibling).await, Vec::<Value>::new());

    let envelopes = svc.envelopes("webhook.test").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(
        envelopes[0],
        json!({
            "id": event_id,
            "event_type": "webhook.test",
            "version": "webhooks-v1.0",
            "created_at": "2026-11-18T11:06:40Z",
            "org_id": ORG,
            "deployment_id": "webhook-test",
            "data": {
                "webhook_id": hook,
                "message": "This is a test event from Undertone.",
            },
        })
    );
    // Each test is a new event.
    let again = fire_test(&svc, &hook).await;
    assert_ne!(again["event_id"], queued["event_id"]);
    assert_eq!(svc.deliveries(&hook).await.len(), 2);
}

// ---------------------------------------------------------------------------------
// Deliveries: paging
// ---------------------------------------------------------------------------------

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
        ("?limit=-1", None),
        ("?limit=two", None),
        ("?cursor=%21%21%21", Some(BAD_CURSOR)),
        ("?cursor=", Some(BAD_CURSOR)),
        (not_uuid.as_str(), Some(BAD_CURSOR)),
    ] {
        let reply = page(&svc, &hook, query).await;
        let got = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        match message {
            Some(m) => assert_eq!(got, m, "{query}"),
            None => assert!(got.starts_with("query:"), "{query}: {got}"),
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

// ---------------------------------------------------------------------------------
// Deployment routes
// ---------------------------------------------------------------------------------

#[tokio::test]
async fn deployment_ids_are_checked() {
    let svc = Svc::new().await;
    let long = "d".repeat(257);
    for (id, fragment) in [
        ("bad%01id", "control characters"),
        ("bad%0Aid", "control characters"),
        ("bad%7Fid", "control characters"),
        (long.as_str(), "at most 256 characters"),
    ] {
        for (method, path, body) in [
            (
                Method::POST,
                format!("/api/v1/deployments/{id}/deploys"),
                Some(json!({"release": "r1"})),
            ),
            (
                Method::GET,
                format!("/api/v1/deployments/{id}/deploys"),
                None,
            ),
            (
                Method::POST,
                format!("/api/v1/deployments/{id}/health-reports"),
                None,
            ),
            (
                Method::GET,
                format!("/api/v1/deployments/{id}/health-reports"),
                None,
            ),
            (
                Method::GET,
                format!(
                    "/api/v1/deployments/{id}/health-reports/uhr_00000000000000000000000000000000"
                ),
                None,
            ),
        ] {
            let reply = svc
                .send(method.clone(), &path, Some(&svc.key), body.as_ref())
                .await;
            let message = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
            assert!(
                message.starts_with("deployment_id:") && message.contains(fragment),
                "{method} {path}: {message}"
            );
        }
    }
    let stored: i64 = sqlx::query_scalar(
        "SELECT (SELECT COUNT(*) FROM deploys) + (SELECT COUNT(*) FROM health_reports)",
    )
    .fetch_one(&svc.db)
    .await
    .expect("readable");
    assert_eq!(stored, 0);
    // A percent-encoded but valid id is decoded.
    let reply = svc
        .post(
            "/api/v1/deployments/acme%20bot/deploys",
            Some(&json!({"release": "r1"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["deployment_id"], "acme bot");
}

#[tokio::test]
async fn deploy_bodies_are_checked() {
    let svc = Svc::new().await;
    let path = "/api/v1/deployments/bot/deploys";
    let long = "r".repeat(257);
    let long_description = "d".repeat(2001);
    for (body, start) in [
        (json!({"deployed_at": "yesterday"}), "deployed_at:"),
        (
            json!({"deployed_at": "2026-11-21T08:00:00"}),
            "deployed_at:",
        ),
        (json!({"deployed_at": "2026-11-21"}), "deployed_at:"),
        (
            json!({"deployed_at": "2026-13-01T00:00:00Z"}),
            "deployed_at:",
        ),
        (json!({"deployed_at": ""}), "deployed_at:"),
        (json!({"deployed_at": 1795000000}), "body:"),
        (json!({"release": 7}), "body:"),
        (
            json!({"release": long}),
            "release: must be at most 256 characters",
        ),
        (
            json!({"description": long_description}),
            "description: must be at most 2000 characters",
        ),
        (
            json!({"release": "r1\u{0}"}),
            "release: must not contain NUL characters (U+0000)",
        ),
        (
            json!({"description": "a\u{0}b"}),
            "description: must not contain NUL characters (U+0000)",
        ),
        (json!({"release": "r1", "model": "x"}), "body:"),
        (json!(["r1"]), "body:"),
    ] {
        let reply = svc.post(path, Some(&body)).await;
        let message = assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(message.starts_with(start), "{body}: {message}");
    }
    assert_eq!(svc.get(path).await.json(), json!({"data": []}));

    // Valid: an empty body (now, no release), an offset (stored in UTC), trimmed
    // text, blank text as absent, a limit counted in characters.
    let reply = svc.post(path, Some(&json!({}))).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let now = reply.json();
    assert_eq!(now["deployed_at"], NOW_TEXT);
    assert_eq!(now["release"], Value::Null);
    assert_eq!(now["description"], Value::Null);
    let reply = svc
        .post(
            path,
            Some(&json!({"release": "  r7  ", "description": "   ",
                "deployed_at": "2026-11-17T09:30:00-02:00"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let earlier = reply.json();
    assert_eq!(earlier["deployed_at"], "2026-11-17T11:30:00.000Z");
    assert_eq!(earlier["release"], "r7");
    assert_eq!(earlier["description"], Value::Null);
    let accented = "é".repeat(256);
    let reply = svc
        .post(
            path,
            Some(&json!({"release": accented, "deployed_at": "2026-11-18T12:00:00Z"})),
        )
        .await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    let later = reply.json();
    assert_eq!(later["release"], accented.as_str());
    // Listed in time order, as created.
    let list = svc.get(path).await.json();
    assert_eq!(list, json!({"data": [earlier, now, later]}));
    // Another org sees none of them.
    let (other, _) = svc.issue("org-b", Scope::ReadWrite).await;
    let theirs = svc.send(Method::GET, path, Some(&other), None).await;
    assert_eq!(theirs.json(), json!({"data": []}));
}

/// Text given is text kept: a release with a NUL character (valid JSON) is either
/// refused or stored and listed exactly as given.
#[tokio::test]
async fn a_release_with_a_nul_character_is_kept_whole_or_refused() {
    let svc = Svc::new().await;
    let path = "/api/v1/deployments/bot/deploys";
    let reply = svc
        .post(path, Some(&json!({"release": "v1\u{0}-evil"})))
        .await;
    if reply.status == StatusCode::BAD_REQUEST {
        assert_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert_eq!(svc.get(path).await.json(), json!({"data": []}));
        return;
    }
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
    assert_eq!(reply.json()["release"], "v1\u{0}-evil");
    let list = svc.get(path).await.json();
    assert_eq!(list["data"][0]["release"], "v1\u{0}-evil", "{list}");
}

/// Any id core accepts (no control characters) names a deployment; the `Location` of
/// what is created under it, and a report's `report_url`, must lead back to it.
#[tokio::test]
async fn locations_under_any_deployment_id_lead_back_to_the_resource() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    let mut broken = Vec::new();
    for (encoded, id) in [
        ("plain-bot", "plain-bot"),
        ("a%20b", "a b"),
        ("a%2Fb", "a/b"),
        ("a%3Fb", "a?b"),
        ("%C3%A9t%C3%A9", "été"),
    ] {
        let reply = svc
            .post(
                &format!("/api/v1/deployments/{encoded}/health-reports"),
                None,
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{id}: {reply:?}");
        let report = reply.json();
        assert_eq!(report["deployment_id"], id);
        let location = reply
            .headers
            .get("location")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .expect("a Location header");
        // The event names the same place.
        let envelopes = svc.envelopes("uhr_generated").await;
        let event = envelopes
            .iter()
            .find(|e| e["data"]["report_id"] == report["id"])
            .expect("the report's event");
        assert_eq!(event["data"]["report_url"], location.as_str(), "{id}");
        let follows =
            location.is_ascii() && axum::http::Uri::try_from(location.as_str()).is_ok() && {
                let read = svc.get(&location).await;
                read.status == StatusCode::OK && read.json() == report
            };
        if !follows {
            broken.push(format!("{id:?}: {location}"));
        }

        let reply = svc
            .post(
                &format!("/api/v1/deployments/{encoded}/deploys"),
                Some(&json!({})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{id}: {reply:?}");
        let deploy = reply.json();
        let location = reply
            .headers
            .get("location")
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .expect("a Location header");
        let follows =
            location.is_ascii() && axum::http::Uri::try_from(location.as_str()).is_ok() && {
                let read = svc.get(&location).await;
                read.status == StatusCode::OK && read.json()["data"][0] == deploy
            };
        if !follows {
            broken.push(format!("{id:?}: {location}"));
        }
    }
    assert_eq!(svc.deliveries(&hook).await.len(), 5);
    assert_eq!(
        broken,
        Vec::<String>::new(),
        "Location / report_url do not percent-encode the deployment id"
    );
}
