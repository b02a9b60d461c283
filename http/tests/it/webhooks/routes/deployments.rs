//! The per-deployment routes (`/deployments/{id}/deploys` and
//! `/deployments/{id}/health-reports`): deployment ids and deploy bodies checked, text
//! kept as given, and `Location`s that lead back under any deployment id.

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};
use undertone_http::keys::Scope;

use super::assert_error;
use crate::webhooks::events::{NOW_TEXT, Svc};

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
        (
            json!({"deployed_at": "yesterday"}),
            "deployed_at: must be an RFC 3339 timestamp with a UTC offset, e.g. \
             2026-11-21T09:30:00Z; got \"yesterday\"",
        ),
        (
            json!({"deployed_at": "2026-11-21T08:00:00"}),
            "deployed_at: \"2026-11-21T08:00:00\" has no UTC offset",
        ),
        (json!({"deployed_at": "2026-11-21"}), "deployed_at:"),
        (
            json!({"deployed_at": "2026-13-01T00:00:00Z"}),
            "deployed_at: \"2026-13-01T00:00:00Z\" is not a real date and time",
        ),
        // The input contract's rules for an event's timestamp: a leap second only at
        // 23:59:60, and only the years 0000 to 9999 once in UTC.
        (
            json!({"deployed_at": "2026-06-30T12:00:60Z"}),
            "deployed_at: \"2026-06-30T12:00:60Z\" is not a real date and time",
        ),
        (
            json!({"deployed_at": "9999-12-31T23:59:59-05:00"}),
            "deployed_at: \"9999-12-31T23:59:59-05:00\" falls outside the years 0000 to 9999 in UTC",
        ),
        (
            json!({"deployed_at": "0000-01-01T00:00:00+01:00"}),
            "deployed_at: \"0000-01-01T00:00:00+01:00\" falls outside the years 0000 to 9999 in UTC",
        ),
        (json!({"deployed_at": ""}), "deployed_at:"),
        (
            json!({"deployed_at": 1795000000}),
            "deployed_at: invalid type",
        ),
        (json!({"release": 7}), "release: invalid type"),
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
        (
            json!({"release": "r1", "model": "x"}),
            "model: unknown field; allowed fields are release, description, deployed_at",
        ),
        // Serde would read a struct from an array of its fields in order.
        (json!(["r1"]), "body: must be a JSON object, got array"),
        (
            json!(["v3", "desc", "2026-11-21T09:00:00Z"]),
            "body: must be a JSON object, got array",
        ),
        (json!("r1"), "body: must be a JSON object, got string"),
        (json!(null), "body: must be a JSON object, got null"),
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
