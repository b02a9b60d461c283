//! `/mcp` and `GET /api/v1/key` through the router: authentication, the tool list per
//! scope, tool calls counted against the key's limits like the REST requests they
//! mirror, and errors in the REST envelope. (End-to-end with the official MCP Python
//! SDK over HTTP and stdio: tests/mcp.)

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use serde_json::{Value, json};
use undertone_http::keys::Scope;
use undertone_http::limits::Plan;

use super::{HOUR_END, Reply, Service, assert_error, refund};

const PROTOCOL: &str = "2025-06-18";

/// One JSON-RPC request to `/mcp` with `key` (or none).
async fn rpc(svc: &Service, key: Option<&str>, method: &str, params: Value) -> Reply {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut builder = Request::builder()
        .method(Method::POST)
        .uri("/mcp")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", PROTOCOL)
        .header(header::HOST, "undertone.test");
    if let Some(key) = key {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {key}"));
    }
    svc.send(builder.body(Body::from(body.to_string())).unwrap())
        .await
}

/// The JSON-RPC `result` of a successful exchange.
async fn result(svc: &Service, key: &str, method: &str, params: Value) -> Value {
    let reply = rpc(svc, Some(key), method, params).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    let body = reply.json();
    assert!(body.get("error").is_none(), "{body}");
    body["result"].clone()
}

/// A tool call: whether it is an error, and its JSON text.
async fn tool(svc: &Service, key: &str, name: &str, arguments: Value) -> (bool, Value) {
    let r = result(
        svc,
        key,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
    .await;
    let text = r["content"][0]["text"].as_str().expect("one text block");
    (
        r["isError"] == json!(true),
        serde_json::from_str(text).expect("the text is JSON"),
    )
}

fn names(list: &Value) -> Vec<String> {
    list["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

const READ_TOOLS: [&str; 7] = [
    "get_session",
    "explain_score",
    "score_conversation",
    "get_drift",
    "get_health_report",
    "list_webhooks",
    "list_deliveries",
];

#[tokio::test]
async fn the_mcp_endpoint_needs_a_key_and_answers_401_with_the_envelope() {
    let svc = Service::new().await;
    for key in [None, Some("ut_live_not-a-key")] {
        let reply = rpc(&svc, key, "tools/list", json!({})).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{reply:?}");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
        assert_eq!(reply.json()["error"]["code"], "UNAUTHORIZED");
    }
}

#[tokio::test]
async fn a_message_that_gives_a_key_twice_is_refused_as_a_rest_body_is() {
    let svc = Service::new().await;
    // The SDK's reader would keep the last value: the session would be filed under
    // "evil" with nobody told.
    let events = refund()["events"].to_string();
    let body = format!(
        r#"{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name":
"ingest_conversation", "arguments": {{"deployment_id": "bot", "deployment_id": "evil", "events": {events}}}}}}}"#
    );
    let request = |body: String| {
        Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL)
            .header(header::HOST, "undertone.test")
            .header(header::AUTHORIZATION, format!("Bearer {}", svc.key))
            .body(Body::from(body))
            .unwrap()
    };
    let reply = svc.send(request(body.clone())).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    let error = &reply.json()["error"];
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert_eq!(error["details"][0]["path"], "body");
    assert_eq!(
        error["details"][0]["message"],
        "is not valid JSON: the key \"deployment_id\" is given twice in one object at line 2 column 76"
    );
    assert_eq!(svc.queue_depth().await, 0, "nothing was queued");
    // The same message with the key once goes through.
    let reply = svc
        .send(request(body.replacen(
            r#""deployment_id": "evil", "#,
            "",
            1,
        )))
        .await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.json()["result"]["isError"], false, "{reply:?}");
    assert_eq!(svc.queue_depth().await, 1);
    // An array longer than any body may hold is refused as it is read, as a body is.
    let zeros = vec!["0"; 10_001].join(",");
    let reply = svc
        .send(request(format!(
            r#"{{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {{"name":
"ingest_conversation", "arguments": {{"deployment_id": "bot", "events": [{zeros}]}}}}}}"#
        )))
        .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    let message = reply.json()["error"]["details"][0]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with(
            "is refused as it is read: an array or object holds more than 10000 items"
        ),
        "{message}"
    );
    assert_eq!(svc.queue_depth().await, 1, "nothing more was queued");
}

#[tokio::test]
async fn a_read_only_key_lists_and_calls_only_read_tools() {
    let svc = Service::new().await;
    let (_, ro) = svc.issue("org-a", Scope::ReadOnly, Plan::default()).await;
    let all = names(&result(&svc, &svc.key, "tools/list", json!({})).await);
    assert_eq!(all.len(), 10, "{all:?}");
    for write in ["ingest_conversation", "start_drift", "create_deploy_marker"] {
        assert!(all.iter().any(|n| n == write), "{write} missing: {all:?}");
    }
    let read = result(&svc, &ro, "tools/list", json!({})).await;
    assert_eq!(names(&read), READ_TOOLS);
    for t in read["tools"].as_array().unwrap() {
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
    }

    let (is_error, body) = tool(&svc, &ro, "ingest_conversation", refund()).await;
    assert!(is_error);
    assert_eq!(body["error"]["code"], "FORBIDDEN");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("read-only"), "{message}");
    assert!(message.contains("get_session"), "{message}");
    assert_eq!(svc.queue_depth().await, 0, "nothing was queued");
}

#[tokio::test]
async fn each_mcp_message_counts_once_and_a_full_window_is_429_before_the_body_is_read() {
    let svc = Service::new().await;
    let plan = Plan {
        per_hour: 4,
        ..Plan::default()
    };
    let (_, key) = svc.issue("org-a", Scope::ReadWrite, plan).await;
    // Four messages; the REST calls the tools make are not counted again.
    let listed = rpc(&svc, Some(&key), "tools/list", json!({})).await;
    assert_eq!(listed.status, StatusCode::OK, "{listed:?}");
    assert_eq!(listed.int("x-ratelimit-remaining"), 3);
    let (e, accepted) = tool(&svc, &key, "ingest_conversation", refund()).await;
    assert!(!e, "{accepted}");
    assert_eq!(accepted["status"], "received");
    assert_eq!(accepted["event_count"], 20);
    let (e, scored) = tool(&svc, &key, "score_conversation", refund()).await;
    assert!(!e, "{scored}");
    assert_eq!(scored["status"], "scored");
    let (e, hooks) = tool(&svc, &key, "list_webhooks", json!({})).await;
    assert!(!e, "{hooks}");
    assert_eq!(hooks, json!({"data": []}));

    let refused = rpc(
        &svc,
        Some(&key),
        "tools/call",
        json!({"name": "list_webhooks"}),
    )
    .await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS, "{refused:?}");
    assert_eq!(refused.json()["error"]["code"], "RATE_LIMITED");
    assert_eq!(refused.int("retry-after"), HOUR_END - 1_795_000_000);
    assert_eq!(refused.int("x-ratelimit-remaining"), 0);
}

#[tokio::test]
async fn start_drift_over_mcp_counts_against_the_drift_window() {
    let svc = Service::new().await;
    let plan = Plan {
        drift_per_hour: 1,
        ..Plan::default()
    };
    let (_, key) = svc.issue("org-a", Scope::ReadWrite, plan).await;
    let (e, first) = tool(&svc, &key, "start_drift", super::drift_body()).await;
    assert!(!e, "{first}");
    assert_eq!(first["status"], "received");
    let (e, second) = tool(&svc, &key, "start_drift", super::drift_body()).await;
    assert!(e, "{second}");
    assert_eq!(second["error"]["code"], "RATE_LIMITED");
    assert_eq!(
        second["error"]["retry_after_seconds"],
        HOUR_END - 1_795_000_000
    );
}

#[tokio::test]
async fn ingest_then_get_session_gives_the_scores_of_local_scoring() {
    let svc = Service::new().await;
    let (e, accepted) = tool(&svc, &svc.key, "ingest_conversation", refund()).await;
    assert!(!e, "{accepted}");
    let id = accepted["session_id"].as_str().unwrap().to_owned();
    let (_, pending) = tool(&svc, &svc.key, "get_session", json!({"session_id": id})).await;
    assert_eq!(pending["status"], "received");
    assert_eq!(pending["scores"], Value::Null);
    assert!(svc.run_one().await);
    let (_, summary) = tool(&svc, &svc.key, "get_session", json!({"session_id": id})).await;
    assert_eq!(summary["status"], "complete");
    let (_, local) = tool(&svc, &svc.key, "score_conversation", refund()).await;
    assert_eq!(summary["scores"], local["scores"]);
    assert_eq!(summary["flagged_turns"], local["flagged_turns"]);

    let full = svc.get(&format!("/api/v1/intelligence/{id}")).await.json();
    let layer_z = &full["full_output"]["intelligence"]["layer_z"];
    for (dim, d) in layer_z.as_object().unwrap() {
        assert_eq!(summary["scores"][dim]["score"], d["score"], "{dim}");
        assert_eq!(summary["scores"][dim]["band"], d["band"], "{dim}");
    }
    let first = &summary["flagged_turns"][0];
    let (e, why) = tool(
        &svc,
        &svc.key,
        "explain_score",
        json!({"session_id": id, "event_index": first["event_index"],
            "dimension": first["dimension"]}),
    )
    .await;
    assert!(!e, "{why}");
    let dim = first["dimension"].as_str().unwrap();
    assert_eq!(why["dimensions"][dim]["score"], first["score"]);
    assert!(
        !why["dimensions"][dim]["evidence"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // A session id that is not a UUID is the REST 404.
    let (e, missing) = tool(&svc, &svc.key, "get_session", json!({"session_id": "nope"})).await;
    assert!(e);
    assert_eq!(missing["error"]["code"], "NOT_FOUND");
    // Unknown arguments are refused, not ignored.
    // Unknown, missing and mistyped arguments are named as a REST body's fields are,
    // in the same words.
    let (e, bad) = tool(&svc, &svc.key, "get_session", json!({"session": id})).await;
    assert!(e);
    assert_eq!(
        bad["error"],
        json!({"code": "VALIDATION_ERROR",
               "message": "session: unknown field; allowed fields are session_id, view",
               "details": [{"path": "session",
                            "message": "unknown field; allowed fields are session_id, view"}]})
    );
    let (e, bad) = tool(&svc, &svc.key, "get_session", json!({"view": "condensed"})).await;
    assert!(e);
    assert_eq!(
        bad["error"]["details"],
        json!([{"path": "session_id", "message": "is required"}])
    );
    let args = json!({"session_id": id, "view": "everything"});
    let (e, bad) = tool(&svc, &svc.key, "get_session", args).await;
    assert!(e);
    assert_eq!(
        bad["error"]["details"],
        json!([{"path": "view",
                "message": "must be one of summary, condensed, full; got \"everything\""}])
    );
    let args = json!({"session_id": id, "event_index": "x", "dimension": "frustration_buildup"});
    let (e, bad) = tool(&svc, &svc.key, "explain_score", args).await;
    assert!(e);
    assert_eq!(
        bad["error"]["details"],
        json!([{"path": "event_index", "message": "invalid type: string \"x\", expected u64"}])
    );
}

#[tokio::test]
async fn the_key_route_describes_the_calling_key() {
    let svc = Service::new().await;
    let plan = Plan {
        per_hour: 7,
        per_day: 70,
        drift_per_hour: 2,
    };
    let (record, ro) = svc.issue("org-a", Scope::ReadOnly, plan).await;
    let reply = svc.get_as("/api/v1/key", Some(&ro)).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(
        reply.json(),
        json!({"id": record.id, "name": "another", "scope": "read-only",
            "prefix": record.display_prefix, "created_at": "2026-11-18T11:06:40.000Z",
            "limits": {"per_hour": 7, "per_day": 70, "drift_per_hour": 2}})
    );
    assert_eq!(reply.int("x-ratelimit-remaining"), 6);
    let reply = svc.get_as("/api/v1/key", None).await;
    assert_error(
        &reply,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
        "missing API key: send `Authorization: Bearer ut_live_…`",
    );
}

#[tokio::test]
async fn a_revoked_keys_mcp_access_ends_with_the_next_message() {
    // MCP here is stateless: every message is authenticated on its own, so no session
    // outlives its key.
    let svc = Service::new().await;
    let (record, key) = svc.issue("org-a", Scope::ReadWrite, Plan::default()).await;
    let (is_error, _) = tool(&svc, &key, "list_webhooks", json!({})).await;
    assert!(!is_error);
    assert!(
        svc.store
            .revoke_key(&record.id, svc.now())
            .await
            .expect("the store answers")
    );
    let reply = rpc(&svc, Some(&key), "tools/list", json!({})).await;
    assert_error(
        &reply,
        StatusCode::UNAUTHORIZED,
        "UNAUTHORIZED",
        "this API key has been revoked",
    );
}

#[tokio::test]
async fn score_conversation_is_held_to_the_rest_body_limit() {
    let svc = Service::new().await;
    // 600 events of 30 KB: every event is valid, the body is 18 MB, over 16 MiB.
    let text = "word ".repeat(6_000);
    let events: Vec<Value> = (0..600)
        .map(|i| {
            json!({
                "actor_id": if i % 2 == 0 { "cust" } else { "acme-bot" },
                "content": text,
                "timestamp": format!("2026-11-21T09:{:02}:{:02}Z", i / 60 % 60, i % 60),
                "conversation_id": "c-1",
            })
        })
        .collect();
    let args = json!({"deployment_id": "acme-bot", "events": events});
    let (is_error, body) = tool(&svc, &svc.key, "score_conversation", args).await;
    assert!(is_error);
    assert_eq!(
        body,
        json!({"error": {"code": "VALIDATION_ERROR",
            "message": "body: is 18056439 bytes; the limit is 16777216 bytes (16 MiB)",
            "details": [{"path": "body",
                "message": "is 18056439 bytes; the limit is 16777216 bytes (16 MiB)"}]}})
    );
}

/// A request to `/mcp` with the service's key, built by hand: `method`, `body`, and
/// the `Content-Type` and `Accept` headers when given.
async fn raw(
    svc: &Service,
    method: Method,
    body: &str,
    content_type: Option<&str>,
    accept: Option<&str>,
) -> Reply {
    let mut builder = Request::builder()
        .method(method)
        .uri("/mcp")
        .header("mcp-protocol-version", PROTOCOL)
        .header(header::HOST, "undertone.test")
        .header(header::AUTHORIZATION, format!("Bearer {}", svc.key));
    if let Some(c) = content_type {
        builder = builder.header(header::CONTENT_TYPE, c);
    }
    if let Some(a) = accept {
        builder = builder.header(header::ACCEPT, a);
    }
    svc.send(builder.body(Body::from(body.to_owned())).unwrap())
        .await
}

#[tokio::test]
async fn transport_errors_come_back_in_the_envelope() {
    let svc = Service::new().await;
    let (json, both) = (
        Some("application/json"),
        Some("application/json, text/event-stream"),
    );
    // Bodies that are no JSON-RPC message: 400, as a REST body would be, not 415.
    for body in ["xx", "", "[]", r#"{"jsonrpc": "2.0", "id": 1}"#] {
        let reply = raw(&svc, Method::POST, body, json, both).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}: {reply:?}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        let error = &reply.json()["error"];
        assert_eq!(error["code"], "VALIDATION_ERROR", "{body}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("body: is not a JSON-RPC message ("),
            "{body}: {message}"
        );
        // The message was counted, and the answer still says so.
        assert!(reply.header("x-ratelimit-remaining").is_some(), "{reply:?}");
    }
    let reply = raw(&svc, Method::GET, "", None, both).await;
    assert!(reply.header("allow").is_some(), "{reply:?}");
    assert_error(
        &reply,
        StatusCode::METHOD_NOT_ALLOWED,
        "METHOD_NOT_ALLOWED",
        "/mcp answers POST: one JSON-RPC message per request (MCP streamable HTTP, \
         without sessions)",
    );
    let ping = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
    let reply = raw(&svc, Method::POST, ping, json, None).await;
    assert_error(
        &reply,
        StatusCode::BAD_REQUEST,
        "VALIDATION_ERROR",
        "headers: `Accept` must list application/json and text/event-stream \
         (MCP streamable HTTP)",
    );
    let reply = raw(&svc, Method::POST, ping, Some("text/plain"), both).await;
    assert_eq!(
        reply.status,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "{reply:?}"
    );
    assert_eq!(reply.json()["error"]["code"], "UNSUPPORTED_MEDIA_TYPE");
    // A good message is untouched.
    let reply = raw(&svc, Method::POST, ping, json, both).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.json()["result"], json!({}));
}

#[tokio::test]
async fn a_transport_refusal_in_its_own_words_names_the_request() {
    // The MCP library answers an unknown protocol version in plain text; its
    // "Bad Request: …" once became a violation at the path "Bad Request".
    let svc = Service::new().await;
    let ping = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;
    let request = Request::builder()
        .method(Method::POST)
        .uri("/mcp")
        .header("mcp-protocol-version", "1999-01-01")
        .header(header::HOST, "undertone.test")
        .header(header::AUTHORIZATION, format!("Bearer {}", svc.key))
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .body(Body::from(ping))
        .unwrap();
    let reply = svc.send(request).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{reply:?}");
    let error = &reply.json()["error"];
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert_eq!(error["details"][0]["path"], "request", "{error}");
    let message = error["details"][0]["message"].as_str().unwrap();
    assert!(message.contains("1999-01-01"), "{message}");
}

/// `arguments` with `idempotency_key` added.
fn keyed(mut arguments: Value, key: Value) -> Value {
    arguments["idempotency_key"] = key;
    arguments
}

/// A repeated call's answer without its `idempotent_replayed: true`, which it must
/// carry.
fn replayed(mut answer: Value) -> Value {
    let flag = answer
        .as_object_mut()
        .and_then(|a| a.remove("idempotent_replayed"));
    assert_eq!(flag, Some(json!(true)), "{answer}");
    answer
}

#[tokio::test]
async fn an_idempotency_key_makes_ingest_and_drift_safe_to_repeat() {
    let svc = Service::new().await;
    let plan = Plan {
        drift_per_hour: 1,
        ..Plan::default()
    };
    let (_, key) = svc.issue("org-a", Scope::ReadWrite, plan).await;
    let ingest = keyed(refund(), json!("batch-7"));
    let (e, first) = tool(&svc, &key, "ingest_conversation", ingest.clone()).await;
    assert!(!e, "{first}");
    assert_eq!(first.get("idempotent_replayed"), None, "{first}");
    let (e, again) = tool(&svc, &key, "ingest_conversation", ingest).await;
    assert!(!e, "{again}");
    assert_eq!(replayed(again), first);
    // A retry whose arguments come in another order (a model writes them anew), the
    // key first, is the same call.
    let Value::Object(args) = keyed(refund(), json!("batch-7")) else {
        panic!("an object")
    };
    let (e, reordered) = tool(
        &svc,
        &key,
        "ingest_conversation",
        Value::Object(args.into_iter().rev().collect()),
    )
    .await;
    assert!(!e, "{reordered}");
    assert_eq!(replayed(reordered), first);
    let sessions = svc.get_as("/api/v1/sessions", Some(&key)).await.json();
    assert_eq!(
        sessions["data"].as_array().map(Vec::len),
        Some(1),
        "{sessions}"
    );

    // The same key with other arguments names the session it started.
    let mut other = keyed(refund(), json!("batch-7"));
    other["deployment_id"] = json!("another-bot");
    let (e, conflict) = tool(&svc, &key, "ingest_conversation", other).await;
    assert!(e, "{conflict}");
    assert_eq!(conflict["error"]["code"], "CONFLICT");
    let id = first["session_id"].as_str().unwrap();
    let message = conflict["error"]["message"].as_str().unwrap();
    assert!(message.contains(id), "{message}");

    // A drift repeated with its key is answered again, not refused by the full window.
    let drift = keyed(super::drift_body(), json!("drift-1"));
    let (e, started) = tool(&svc, &key, "start_drift", drift.clone()).await;
    assert!(!e, "{started}");
    assert_eq!(started.get("idempotent_replayed"), None, "{started}");
    let (e, repeated) = tool(&svc, &key, "start_drift", drift).await;
    assert!(!e, "{repeated}");
    assert_eq!(replayed(repeated), started);
    let (e, refused) = tool(&svc, &key, "start_drift", super::drift_body()).await;
    assert!(e, "{refused}");
    assert_eq!(refused["error"]["code"], "RATE_LIMITED");
}

#[tokio::test]
async fn a_bad_idempotency_key_is_a_validation_error_at_the_argument() {
    let svc = Service::new().await;
    let rule = "idempotency_key: must be 1 to 255 visible ASCII characters (no spaces), \
                such as a UUID";
    for (key, message) in [
        (json!("two words"), rule.to_owned()),
        // Not even a header value: refused before the request is built.
        (json!("line\nbreak"), rule.to_owned()),
        (json!(""), rule.to_owned()),
        (json!("k".repeat(256)), rule.to_owned()),
        (
            json!(7),
            "idempotency_key: must be a string, got number".to_owned(),
        ),
        (
            json!(["k"]),
            "idempotency_key: must be a string, got array".to_owned(),
        ),
    ] {
        let (e, body) = tool(
            &svc,
            &svc.key,
            "ingest_conversation",
            keyed(refund(), key.clone()),
        )
        .await;
        assert!(e, "{key}: {body}");
        assert_eq!(body["error"]["code"], "VALIDATION_ERROR", "{key}");
        assert_eq!(body["error"]["message"], message, "{key}");
    }
    let sessions = svc.get("/api/v1/sessions").await.json();
    assert_eq!(sessions["data"], json!([]));
}

#[tokio::test]
async fn a_misspelt_idempotency_key_is_pointed_to_the_argument() {
    let svc = Service::new().await;
    let mut arguments = refund();
    arguments["idempotency_kye"] = json!("k-1");
    let (e, body) = tool(&svc, &svc.key, "ingest_conversation", arguments).await;
    assert!(e, "{body}");
    assert_eq!(body["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(
        body["error"]["details"],
        json!([{
            "path": "idempotency_kye",
            "message": "unknown field; allowed fields are deployment_id, events, pipeline, \
                        webhook_url (an idempotency key is not a body field: send it as the \
                        Idempotency-Key header, or as the idempotency_key argument of an MCP \
                        tool)"
        }])
    );
    let sessions = svc.get("/api/v1/sessions").await.json();
    assert_eq!(sessions["data"], json!([]));
}

#[tokio::test]
async fn params_a_method_cannot_take_are_invalid_params_not_an_unknown_method() {
    let svc = Service::new().await;
    let refused = |method: &str, why: &str| json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": format!("{method}: {why}")}});
    for (params, why) in [
        (
            json!({"name": "get_session", "arguments": "str"}),
            "params.arguments must be an object, got string",
        ),
        (json!({"name": 7}), "params.name must be a string"),
        (
            json!("get_session"),
            "params must be an object with a `name` and optional `arguments`",
        ),
    ] {
        let reply = rpc(&svc, Some(&svc.key), "tools/call", params).await;
        assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
        assert_eq!(reply.json(), refused("tools/call", why));
    }
    let reply = rpc(&svc, Some(&svc.key), "resources/read", json!({})).await;
    assert_eq!(
        reply.json(),
        refused("resources/read", "params.uri must be a string")
    );
    // A well-formed call is the SDK's, as before.
    let (e, session) = tool(&svc, &svc.key, "get_session", json!({"session_id": "nope"})).await;
    assert!(e);
    assert_eq!(session["error"]["code"], "NOT_FOUND");
}
