//! Every error code in the envelope `{"error": {"code", "message"}}`, as JSON.

use axum::body::Body;
use axum::http::{Method, StatusCode, header};
use serde_json::json;
use undertone_http::keys::Scope;
use undertone_http::limits::Plan;

use super::{
    HOUR_END, ORG, Reply, Service, assert_error, assert_error_with, assert_no_quota, assert_quota,
    drift_body, refund, request, unknown_id,
};

const NOT_A_ROUTE: &str = "no such route; the API lives under /api/v1";

#[tokio::test]
async fn an_empty_events_list_is_a_validation_error_naming_events() {
    let svc = Service::new().await;
    let reply = svc
        .post(
            "/api/v1/ingest",
            &json!({"deployment_id": "acme-support-bot", "events": []}),
        )
        .await;
    assert_error_with(
        &reply,
        StatusCode::BAD_REQUEST,
        json!({
            "code": "VALIDATION_ERROR",
            "message": "events: must hold 1 to 5000 events, got 0",
            "details": [{"path": "events", "message": "must hold 1 to 5000 events, got 0"}],
        }),
    );
    assert_quota(&reply, 1000, 999, HOUR_END);
    assert_eq!(svc.queue_depth().await, 0);
}

#[tokio::test]
async fn malformed_json_is_a_validation_error_naming_the_body() {
    let svc = Service::new().await;
    for route in ["/api/v1/ingest", "/api/v1/drift"] {
        let reply = svc
            .send(request(
                Method::POST,
                route,
                Some(&svc.key),
                Some("application/json"),
                Body::from(r#"{"deployment_id": "acme", "events": ["#),
            ))
            .await;
        let message = "is not valid JSON: EOF while parsing a list at line 1 column 37";
        assert_error_with(
            &reply,
            StatusCode::BAD_REQUEST,
            json!({
                "code": "VALIDATION_ERROR",
                "message": format!("body: {message}"),
                "details": [{"path": "body", "message": message}],
            }),
        );
    }
    assert_eq!(svc.queue_depth().await, 0);
}

#[tokio::test]
async fn a_body_over_16_mib_is_a_validation_error_not_413() {
    let svc = Service::new().await;
    let limit = 16 * 1024 * 1024;
    // A JSON string that makes the whole body one byte too large.
    let mut body = br#"{"deployment_id": "acme", "events": [], "pad": ""#.to_vec();
    let tail = br#""}"#;
    body.resize(limit + 1 - tail.len(), b'x');
    body.extend_from_slice(tail);
    assert_eq!(body.len(), limit + 1);
    let reply = svc
        .send(request(
            Method::POST,
            "/api/v1/ingest",
            Some(&svc.key),
            Some("application/json"),
            Body::from(body),
        ))
        .await;
    // No Content-Length: read until it did not stop at the limit.
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        reply.json(),
        json!({"error": {"code": "VALIDATION_ERROR",
            "message": "body: is more than 16777216 bytes; the limit is 16777216 bytes (16 MiB)",
            "details": [{"path": "body",
                "message": "is more than 16777216 bytes; the limit is 16777216 bytes (16 MiB)"}]}})
    );
    assert_quota(&reply, 1000, 999, HOUR_END);
    assert_eq!(svc.queue_depth().await, 0);
}

#[tokio::test]
async fn a_body_that_is_not_json_is_415() {
    let svc = Service::new().await;
    let body = serde_json::to_vec(&refund()).expect("serialisable");
    for route in ["/api/v1/ingest", "/api/v1/drift"] {
        let plain = svc
            .send(request(
                Method::POST,
                route,
                Some(&svc.key),
                Some("text/plain"),
                Body::from(body.clone()),
            ))
            .await;
        assert_error(
            &plain,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "the body must be JSON sent as `Content-Type: application/json`; \
             got Content-Type `text/plain`",
        );
        // Authenticated, so counted: the drift route reports its drift window.
        let limit = if route.ends_with("/drift") { 10 } else { 1000 };
        assert_eq!(plain.int("x-ratelimit-limit"), limit, "{plain:?}");

        let missing = svc
            .send(request(
                Method::POST,
                route,
                Some(&svc.key),
                None,
                Body::from(body.clone()),
            ))
            .await;
        assert_error(
            &missing,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            "the body must be JSON sent as `Content-Type: application/json`; \
             got no Content-Type",
        );
    }
    assert_eq!(svc.queue_depth().await, 0);
}

/// The refund example posted to `/api/v1/ingest` with the service's key, sent as
/// `content_type`.
async fn ingest_as(svc: &Service, content_type: &str) -> Reply {
    let body = serde_json::to_vec(&refund()).expect("serialisable");
    svc.send(request(
        Method::POST,
        "/api/v1/ingest",
        Some(&svc.key),
        Some(content_type),
        Body::from(body),
    ))
    .await
}

#[tokio::test]
async fn a_body_declared_in_another_charset_than_utf_8_is_415() {
    let svc = Service::new().await;
    for (content_type, charset) in [
        ("application/json; charset=latin-1", "latin-1"),
        ("application/json;charset=\"UTF-16\"", "UTF-16"),
    ] {
        let reply = ingest_as(&svc, content_type).await;
        assert_error(
            &reply,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            &format!("the body must be JSON in UTF-8; got charset `{charset}`"),
        );
    }
    assert_eq!(svc.queue_depth().await, 0);
}

#[tokio::test]
async fn two_authorization_headers_are_refused_whichever_comes_first() {
    let svc = Service::new().await;
    let body = serde_json::to_vec(&refund()).expect("serialisable");
    for pair in [
        [svc.key.as_str(), "ut_live_wrong"],
        ["ut_live_wrong", svc.key.as_str()],
    ] {
        let mut req = request(
            Method::POST,
            "/api/v1/ingest",
            None,
            Some("application/json"),
            Body::from(body.clone()),
        );
        for key in pair {
            req.headers_mut().append(
                header::AUTHORIZATION,
                format!("Bearer {key}").parse().expect("a header value"),
            );
        }
        let reply = svc.send(req).await;
        assert_error(
            &reply,
            StatusCode::UNAUTHORIZED,
            "UNAUTHORIZED",
            "more than one Authorization header: send exactly one, \
             `Authorization: Bearer ut_live_…`",
        );
    }
    assert_eq!(svc.queue_depth().await, 0);
}

#[tokio::test]
async fn json_with_parameters_or_a_json_suffix_is_accepted() {
    let svc = Service::new().await;
    for content_type in [
        "application/json; charset=utf-8",
        "application/json; charset=\"UTF8\"",
        "application/vnd.api+json",
    ] {
        let reply = ingest_as(&svc, content_type).await;
        assert_eq!(
            reply.status,
            StatusCode::ACCEPTED,
            "{content_type}: {reply:?}"
        );
    }
}

#[tokio::test]
async fn an_unknown_route_is_404_with_or_without_a_key() {
    let svc = Service::new().await;
    // Outside the API, where it is; inside it, where its routes are listed.
    let in_api = "no such route; GET /api/v1/openapi lists every route";
    for (path, message) in [
        ("/nope", NOT_A_ROUTE),
        ("/api/v2/ingest", NOT_A_ROUTE),
        ("/", NOT_A_ROUTE),
        ("/api/v1x", NOT_A_ROUTE),
        ("/api/v1/nope", in_api),
        ("/api/v1", in_api),
        ("/api/v1/sessions/s_1", in_api),
    ] {
        let anonymous = svc.get_as(path, None).await;
        assert_error(&anonymous, StatusCode::NOT_FOUND, "NOT_FOUND", message);
        assert_no_quota(&anonymous);
        let keyed = svc.get(path).await;
        assert_error(&keyed, StatusCode::NOT_FOUND, "NOT_FOUND", message);
        let posted = svc.post(path, &refund()).await;
        assert_error(&posted, StatusCode::NOT_FOUND, "NOT_FOUND", message);
    }
}

#[tokio::test]
async fn an_unknown_or_malformed_session_id_is_404() {
    let svc = Service::new().await;
    for (route, what) in [
        ("/api/v1/intelligence", "session not found"),
        ("/api/v1/drift", "drift session not found"),
    ] {
        for id in [
            unknown_id(),
            "not-a-uuid".to_owned(),
            "00000000-0000-0000-0000-00000000000g".to_owned(),
            "%27%20OR%201%3D1".to_owned(),
        ] {
            let reply = svc.get(&format!("{route}/{id}")).await;
            assert_error(&reply, StatusCode::NOT_FOUND, "NOT_FOUND", what);
            assert_eq!(reply.header("x-ratelimit-limit"), Some("1000"));
        }
    }
}

#[tokio::test]
async fn a_path_segment_that_is_not_utf_8_is_404_in_the_apis_words() {
    let svc = Service::new().await;
    for (path, key) in [
        ("/api/v1/intelligence/%ff", "session_id"),
        ("/api/v1/deployments/a%c3%28/history", "deployment_id"),
    ] {
        let reply = svc.get(path).await;
        assert_error(
            &reply,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            &format!(
                "no such resource: the path segment `{key}` is not UTF-8 once percent-decoded"
            ),
        );
    }
}

#[tokio::test]
async fn a_session_id_in_capitals_names_the_same_session() {
    let svc = Service::new().await;
    let id = svc.ingest(&refund()).await;
    let lower = svc.get(&format!("/api/v1/intelligence/{id}")).await;
    assert_eq!(lower.status, StatusCode::OK, "{lower:?}");
    let upper = svc
        .get(&format!("/api/v1/intelligence/{}", id.to_uppercase()))
        .await;
    assert_eq!(upper.status, StatusCode::OK, "{upper:?}");
    assert_eq!(upper.json()["session_id"], json!(id));
}

#[tokio::test]
async fn a_session_is_only_found_through_its_own_kind_of_route() {
    let svc = Service::new().await;
    let ingest = svc.ingest(&refund()).await;
    let drift = svc.drift(&drift_body()).await;

    let reply = svc.get(&format!("/api/v1/intelligence/{drift}")).await;
    assert_error(
        &reply,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "session not found",
    );
    let reply = svc
        .get(&format!("/api/v1/intelligence/{drift}?view=condensed"))
        .await;
    assert_error(
        &reply,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "session not found",
    );
    let reply = svc.get(&format!("/api/v1/drift/{ingest}")).await;
    assert_error(
        &reply,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "drift session not found",
    );

    // Each through its own route.
    assert_eq!(
        svc.get(&format!("/api/v1/intelligence/{ingest}"))
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        svc.get(&format!("/api/v1/drift/{drift}")).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn another_orgs_drift_session_is_404() {
    let svc = Service::new().await;
    let id = svc.drift(&drift_body()).await;
    let (_, other) = svc.issue("org-b", Scope::ReadWrite, Plan::default()).await;
    let reply = svc
        .get_as(&format!("/api/v1/drift/{id}"), Some(&other))
        .await;
    assert_error(
        &reply,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "drift session not found",
    );
}

/// A 405: the envelope, the `Allow` header, and a message that names the method.
#[track_caller]
fn assert_method_not_allowed(reply: &Reply, method: &Method, allow: &str) {
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.header("allow"), Some(allow), "{reply:?}");
    let body = reply.json();
    let error = body["error"].as_object().expect("error envelope");
    let mut keys: Vec<&str> = error.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "message"], "{reply:?}");
    assert_eq!(error["code"], json!("METHOD_NOT_ALLOWED"));
    let message = error["message"].as_str().expect("message is text");
    assert_eq!(
        message,
        format!(
            "{method} is not allowed on this route; the Allow header lists the methods it accepts"
        )
    );
}

#[tokio::test]
async fn a_wrong_method_is_405_with_allow() {
    let svc = Service::new().await;
    let id = unknown_id();
    let intelligence = format!("/api/v1/intelligence/{id}");
    let drift_read = format!("/api/v1/drift/{id}");
    for (method, path, allow) in [
        (Method::DELETE, "/api/v1/ingest", "POST"),
        (Method::GET, "/api/v1/ingest", "POST"),
        (Method::PUT, "/api/v1/drift", "POST"),
        (Method::POST, intelligence.as_str(), "GET,HEAD"),
        (Method::DELETE, drift_read.as_str(), "GET,HEAD"),
    ] {
        let reply = svc
            .send(request(
                method.clone(),
                path,
                Some(&svc.key),
                Some("application/json"),
                Body::from("{}"),
            ))
            .await;
        assert_method_not_allowed(&reply, &method, allow);
        assert_eq!(reply.int("x-ratelimit-limit"), 1000, "{reply:?}");
    }
}

#[tokio::test]
async fn a_read_only_key_gets_405_for_a_method_the_route_does_not_have() {
    let svc = Service::new().await;
    let (_, read_only) = svc.issue(ORG, Scope::ReadOnly, Plan::default()).await;
    let id = unknown_id();
    let intelligence = format!("/api/v1/intelligence/{id}");
    let webhook = format!("/api/v1/webhooks/{id}");
    for (method, path, allow) in [
        (Method::PUT, "/api/v1/ingest", "POST"),
        (Method::OPTIONS, "/api/v1/ingest", "POST"),
        (Method::DELETE, "/api/v1/drift", "POST"),
        (Method::POST, intelligence.as_str(), "GET,HEAD"),
        (Method::PATCH, webhook.as_str(), "GET,HEAD,DELETE"),
    ] {
        let reply = svc
            .send(request(
                method.clone(),
                path,
                Some(&read_only),
                Some("application/json"),
                Body::from("{}"),
            ))
            .await;
        assert_method_not_allowed(&reply, &method, allow);
    }
    // A method the route has is still refused for what the key may not do.
    let reply = svc
        .send(request(
            Method::DELETE,
            &webhook,
            Some(&read_only),
            None,
            Body::empty(),
        ))
        .await;
    assert_error(
        &reply,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
        "this key is read-only; DELETE needs a read-write key",
    );
}

#[tokio::test]
async fn a_wrong_method_on_a_keyless_route_is_405_with_allow() {
    let svc = Service::new().await;
    for path in ["/api/v1/openapi", "/api/v1/healthz"] {
        let reply = svc
            .send(request(
                Method::POST,
                path,
                None,
                Some("application/json"),
                Body::from("{}"),
            ))
            .await;
        assert_method_not_allowed(&reply, &Method::POST, "GET,HEAD");
        assert_no_quota(&reply);
    }
}

#[tokio::test]
async fn every_route_refuses_a_query_parameter_it_does_not_declare() {
    let svc = Service::new().await;
    // Every operation of the OpenAPI document, with the query parameters it declares.
    let doc: serde_json::Value = svc.get_as("/api/v1/openapi", None).await.json();
    let mut routes = 0;
    for (path, operations) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in operations.as_object().expect("operations") {
            let declared: Vec<&str> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|p| p["in"] == "query")
                .map(|p| p["name"].as_str().expect("a name"))
                .collect();
            // Path parameters filled in with any id: the query is read first.
            let uri = format!("{}?colour=blue", path.replace(['{', '}'], ""));
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
            let key = (path != "/api/v1/openapi" && path != "/api/v1/healthz").then_some(&svc.key);
            // A body only where the route reads one (elsewhere a body is refused too).
            let body = if operation.get("requestBody").is_some() {
                "{}"
            } else {
                ""
            };
            let reply = svc
                .send(request(
                    method.clone(),
                    &uri,
                    key.map(String::as_str),
                    Some("application/json"),
                    Body::from(body),
                ))
                .await;
            let message = if declared.is_empty() {
                "unknown parameter; no parameters are allowed".to_owned()
            } else {
                format!(
                    "unknown parameter; allowed parameters are {}",
                    declared.join(", ")
                )
            };
            assert_error_with(
                &reply,
                StatusCode::BAD_REQUEST,
                json!({
                    "code": "VALIDATION_ERROR",
                    "message": format!("colour: {message}"),
                    "details": [{"path": "colour", "message": message}],
                }),
            );
            // Without a key, the key is what is wrong.
            if key.is_some() {
                let anonymous = svc
                    .send(request(method, &uri, None, None, Body::empty()))
                    .await;
                assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED, "{uri}");
            }
            routes += 1;
        }
    }
    assert!(routes >= 23, "{routes}");
    // An empty query string is no parameter.
    let reply = svc.get("/api/v1/key?").await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
}

#[tokio::test]
async fn every_route_without_a_body_refuses_one() {
    let svc = Service::new().await;
    let doc: serde_json::Value = svc.get_as("/api/v1/openapi", None).await.json();
    let mut routes = Vec::new();
    for (path, operations) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in operations.as_object().expect("operations") {
            if operation.get("requestBody").is_some() {
                continue;
            }
            let uri = path.replace(['{', '}'], "");
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
            let key = (path != "/api/v1/openapi" && path != "/api/v1/healthz").then_some(&svc.key);
            let send = |body: &'static str| {
                svc.send(request(
                    method.clone(),
                    &uri,
                    key.map(String::as_str),
                    Some("application/json"),
                    Body::from(body),
                ))
            };
            assert_error_with(
                &send("{\"event\": \"x\"}").await,
                StatusCode::BAD_REQUEST,
                json!({
                    "code": "VALIDATION_ERROR",
                    "message": "body: must be empty: this route reads no body",
                    "details": [{"path": "body", "message": "must be empty: this route reads no body"}],
                }),
            );
            // An empty body is no body: the route answers as it would without one.
            let empty = send("").await;
            assert_ne!(empty.status, StatusCode::BAD_REQUEST, "{method} {uri}");
            routes.push(format!("{method} {path}"));
        }
    }
    // Among them the three that act without a body.
    for route in [
        "DELETE /api/v1/webhooks/{webhook_id}",
        "POST /api/v1/webhooks/{webhook_id}/test",
        "POST /api/v1/deployments/{deployment_id}/health-reports",
    ] {
        assert!(routes.iter().any(|r| r == route), "{route}: {routes:?}");
    }
}

#[tokio::test]
async fn every_json_body_is_read_as_an_ingest_body_is() {
    let svc = Service::new().await;
    let deep = format!("{}{}", "[".repeat(1000), "]".repeat(1000));
    let texts: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"   ".to_vec(),
        b"{".to_vec(),
        b"{\"url\": \"\xff\"}".to_vec(),
        br#"{"url": "\ud800"}"#.to_vec(),
        br#"{"url": "a", "url": "b"}"#.to_vec(),
        br#"{"url": NaN}"#.to_vec(),
        deep.into_bytes(),
    ];
    let post = |path: &'static str, text: Vec<u8>| {
        svc.send(request(
            Method::POST,
            path,
            Some(&svc.key),
            Some("application/json"),
            Body::from(text),
        ))
    };
    for text in texts {
        let ingest = post("/api/v1/ingest", text.clone()).await;
        assert_eq!(ingest.status, StatusCode::BAD_REQUEST, "{ingest:?}");
        let expected = ingest.json();
        assert!(
            expected["error"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("body: ")),
            "{expected}"
        );
        for path in [
            "/api/v1/webhooks",
            "/api/v1/deployments/bot/deploys",
            "/api/v1/deployments/bot/drift",
        ] {
            let reply = post(path, text.clone()).await;
            assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{path}: {reply:?}");
            assert_eq!(reply.json(), expected, "{path}");
        }
    }
    // A byte order mark before the JSON is ignored, as by ingest.
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend(br#"{"release": "r1"}"#);
    let reply = post("/api/v1/deployments/bot/deploys", bom).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{reply:?}");
}

#[tokio::test]
async fn the_apps_errors_are_in_the_envelope_too() {
    let svc = Service::new().await;
    let page = svc.get_as("/app", None).await;
    assert_eq!(page.status, StatusCode::OK, "{page:?}");
    assert_eq!(
        page.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let asset = svc.get_as("/app/assets/app.js", None).await;
    assert_eq!(asset.status, StatusCode::OK, "{asset:?}");
    let missing = "no such page; the app is at /app and the API under /api/v1";
    for path in [
        "/app/assets/nope.js",
        "/app/assets/%FF",
        "/app/assets/app%2Ejs",
    ] {
        let reply = svc.get_as(path, None).await;
        assert_error(&reply, StatusCode::NOT_FOUND, "NOT_FOUND", missing);
    }
    for path in ["/app", "/app/assets/app.js"] {
        let reply = svc.post_as(path, None, &json!({})).await;
        assert_error(
            &reply,
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "POST is not allowed on this route; the Allow header lists the methods it accepts",
        );
        assert_eq!(reply.header("allow"), Some("GET,HEAD"), "{path}");
    }
}

#[tokio::test]
async fn the_body_headers_are_read_whole() {
    let svc = Service::new().await;
    let body = serde_json::to_vec(&refund()).expect("serialisable");
    let send = |headers: Vec<(&'static str, &'static [u8])>| {
        let mut req = request(
            Method::POST,
            "/api/v1/ingest",
            Some(&svc.key),
            None,
            Body::from(body.clone()),
        );
        for (name, value) in headers {
            req.headers_mut().append(
                name,
                axum::http::HeaderValue::from_bytes(value).expect("a header value"),
            );
        }
        svc.send(req)
    };
    let json = "the body must be JSON sent as `Content-Type: application/json`; got";
    for (headers, message) in [
        // A suffix alone is no media type.
        (
            vec![("content-type", &b"+json"[..])],
            format!("{json} Content-Type `+json`"),
        ),
        (
            vec![("content-type", &b"text/+json"[..])],
            format!("{json} Content-Type `text/+json`"),
        ),
        (
            vec![("content-type", &b"application/json; charset=\xe9"[..])],
            format!("{json} a Content-Type that is not ASCII"),
        ),
        (
            vec![
                ("content-type", &b"application/json"[..]),
                ("content-type", &b"text/plain"[..]),
            ],
            format!("{json} more than one Content-Type"),
        ),
        // Every charset parameter is read, not only the first.
        (
            vec![(
                "content-type",
                &b"application/json; charset=utf-8; charset=latin1"[..],
            )],
            "the body must be JSON in UTF-8; got charset `latin1`".to_owned(),
        ),
        // A list of codings is read item by item.
        (
            vec![
                ("content-type", &b"application/json"[..]),
                ("content-encoding", &b"identity, gzip"[..]),
            ],
            "`Content-Encoding: gzip` is not supported; send the body uncompressed".to_owned(),
        ),
        (
            vec![
                ("content-type", &b"application/json"[..]),
                ("transfer-encoding", &b"gzip, chunked"[..]),
            ],
            "`Transfer-Encoding: gzip` is not supported; send the body uncompressed, chunked \
             or with a Content-Length"
                .to_owned(),
        ),
    ] {
        let reply = send(headers).await;
        assert_error(
            &reply,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "UNSUPPORTED_MEDIA_TYPE",
            &message,
        );
    }
    // An empty coding is none.
    let reply = send(vec![
        ("content-type", &b"application/json"[..]),
        ("content-encoding", &b""[..]),
    ])
    .await;
    assert_eq!(reply.status, StatusCode::ACCEPTED, "{reply:?}");
    assert_eq!(svc.queue_depth().await, 1);
}
