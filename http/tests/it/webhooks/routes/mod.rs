//! The webhook routes and the per-deployment routes through the router: exact
//! statuses, error envelopes and bodies. One file per resource: registering, listing
//! and deleting webhooks (with the SSRF refusals at registration) in `register.rs`,
//! test events in `test_event.rs`, the deliveries log and its paging in
//! `deliveries.rs`, and the deployment routes' input checks in `deployments.rs`. Here:
//! the helpers they share, and what holds for every route (per-key lists, the key
//! scopes, no key).

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use undertone_http::clock::Clock;
use undertone_http::keys::Scope;
use undertone_http::store::WebhookRecord;

use crate::webhooks::events::{ORG, Reply, SINK, Svc};

mod deliveries;
mod deployments;
mod register;
mod test_event;

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

#[tokio::test]
async fn webhooks_belong_to_the_key_that_registered_them() {
    let svc = Svc::new().await;
    let hook = svc.register(&["uhr_generated"]).await;
    fire_test(&svc, &hook).await;
    let (other, _) = svc.issue(ORG, Scope::ReadWrite).await;

    assert_eq!(listed_ids(&svc, &other).await, Vec::<String>::new());
    for (method, path) in [
        (Method::GET, format!("/api/v1/webhooks/{hook}")),
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
    let one = svc
        .send(
            Method::GET,
            &format!("/api/v1/webhooks/{hook}"),
            Some(&ro),
            None,
        )
        .await;
    assert_eq!(one.status, StatusCode::OK, "{one:?}");
    assert_eq!(one.json()["id"], hook);
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
        (Method::GET, format!("/api/v1/webhooks/{hook}")),
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
