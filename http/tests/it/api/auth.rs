//! The key matrix: 401 for every missing, malformed, unknown or revoked key, 403 for a
//! read-only key on a write route, and which responses carry rate-limit headers.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use undertone_http::keys::{self, Scope};
use undertone_http::limits::Plan;

use super::{
    HOUR_END, ORG, Reply, Service, assert_error, assert_no_quota, assert_quota, drift_body, refund,
    unknown_id,
};

const MISSING: &str = "missing API key: send `Authorization: Bearer ut_live_…`";
const NOT_BEARER: &str = "the Authorization header must use the Bearer scheme: `Bearer ut_live_…`";
const MALFORMED: &str =
    "the API key is malformed: expected `ut_live_` followed by 38 letters and digits";
const CHECKSUM: &str = "the API key's checksum does not match; check that it was copied whole";
const UNKNOWN: &str = "unknown API key";
const REVOKED: &str = "this API key has been revoked";

/// `key` with one character of its random part changed (still letters and digits).
fn typo(key: &str) -> String {
    let mut bytes = key.as_bytes().to_vec();
    bytes[12] = if bytes[12] == b'a' { b'b' } else { b'a' };
    String::from_utf8(bytes).expect("ASCII")
}

/// Sends `method path` with the raw `Authorization` value `auth` (or none).
async fn send_with(svc: &Service, method: Method, path: &str, auth: Option<&str>) -> Reply {
    let mut builder = Request::builder().method(method.clone()).uri(path);
    if let Some(auth) = auth {
        builder = builder.header(header::AUTHORIZATION, auth);
    }
    let body = if method == Method::POST {
        builder = builder.header(header::CONTENT_TYPE, "application/json");
        let body = if path.ends_with("/drift") {
            drift_body()
        } else {
            refund()
        };
        Body::from(serde_json::to_vec(&body).expect("serialisable"))
    } else {
        Body::empty()
    };
    svc.send(builder.body(body).expect("valid request")).await
}

/// A 401 as the contract has it: envelope, `WWW-Authenticate: Bearer`, no quota.
#[track_caller]
fn assert_unauthorized(reply: &Reply, message: &str) {
    assert_error(reply, StatusCode::UNAUTHORIZED, "UNAUTHORIZED", message);
    assert_eq!(
        reply.header("www-authenticate"),
        Some("Bearer"),
        "{reply:?}"
    );
    assert_no_quota(reply);
}

#[tokio::test]
async fn every_kind_of_bad_key_is_401_on_every_route() {
    let svc = Service::new().await;
    let (revoked_record, revoked) = svc.issue(ORG, Scope::ReadWrite, Plan::default()).await;
    assert!(
        svc.store
            .revoke_key(&revoked_record.id, svc.now())
            .await
            .expect("the store answers")
    );
    let never_stored = keys::generate().plaintext;
    assert_eq!(keys::check(&never_stored), Ok(keys::digest(&never_stored)));
    let wrong_prefix = svc.key.replacen("ut_live_", "ut_test_", 1);
    let typo = typo(&svc.key);

    let cases: Vec<(String, Option<String>, &str)> = vec![
        ("missing header".into(), None, MISSING),
        (
            "Basic".into(),
            Some("Basic dXNlcjpwYXNz".into()),
            NOT_BEARER,
        ),
        ("the key alone".into(), Some(svc.key.clone()), NOT_BEARER),
        ("Bearer, no key".into(), Some("Bearer".into()), MALFORMED),
        (
            "ut_test_ prefix".into(),
            Some(format!("Bearer {wrong_prefix}")),
            MALFORMED,
        ),
        (
            "truncated".into(),
            Some(format!("Bearer {}", &svc.key[..svc.key.len() - 1])),
            MALFORMED,
        ),
        (
            "one changed character".into(),
            Some(format!("Bearer {typo}")),
            CHECKSUM,
        ),
        (
            "well-formed, never stored".into(),
            Some(format!("Bearer {never_stored}")),
            UNKNOWN,
        ),
        ("revoked".into(), Some(format!("Bearer {revoked}")), REVOKED),
    ];
    let session = format!("/api/v1/intelligence/{}", unknown_id());
    let drift = format!("/api/v1/drift/{}", unknown_id());
    let routes = [
        (Method::POST, "/api/v1/ingest"),
        (Method::GET, session.as_str()),
        (Method::POST, "/api/v1/drift"),
        (Method::GET, drift.as_str()),
    ];
    for (name, auth, message) in &cases {
        for (method, path) in &routes {
            let reply = send_with(&svc, method.clone(), path, auth.as_deref()).await;
            assert_eq!(
                reply.status,
                StatusCode::UNAUTHORIZED,
                "{name}: {method} {path}"
            );
            assert_unauthorized(&reply, message);
        }
    }
    // Nothing was queued, and the good key's quota is untouched.
    assert_eq!(svc.queue_depth().await, 0);
    let reply = svc.get(&session).await;
    assert_quota(&reply, 1000, 999, HOUR_END);
}

#[tokio::test]
async fn the_scheme_is_case_insensitive() {
    let svc = Service::new().await;
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let reply = send_with(
            &svc,
            Method::GET,
            &format!("/api/v1/intelligence/{}", unknown_id()),
            Some(&format!("{scheme} {}", svc.key)),
        )
        .await;
        assert_error(
            &reply,
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            "session not found",
        );
    }
}

#[tokio::test]
async fn revoking_one_key_leaves_the_others_working() {
    let svc = Service::new().await;
    let (record, other) = svc.issue(ORG, Scope::ReadWrite, Plan::default()).await;
    let path = format!("/api/v1/intelligence/{}", unknown_id());
    assert_eq!(
        svc.get_as(&path, Some(&other)).await.status,
        StatusCode::NOT_FOUND
    );
    assert!(
        svc.store
            .revoke_key(&record.id, svc.now())
            .await
            .expect("store")
    );
    assert!(
        !svc.store
            .revoke_key(&record.id, svc.now())
            .await
            .expect("store"),
        "a revoked key cannot be revoked again"
    );
    assert_unauthorized(&svc.get_as(&path, Some(&other)).await, REVOKED);
    assert_eq!(svc.get(&path).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_read_only_key_cannot_write_and_each_refusal_counts() {
    let svc = Service::new().await;
    let (_, read_only) = svc.issue(ORG, Scope::ReadOnly, Plan::default()).await;

    let reply = svc
        .post_as("/api/v1/ingest", Some(&read_only), &refund())
        .await;
    assert_error(
        &reply,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
        "this key is read-only; POST needs a read-write key",
    );
    // SPEC.md §8: every request counts, refused ones too; only a 429 does not.
    assert_quota(&reply, 1000, 999, HOUR_END);

    let reply = svc
        .post_as("/api/v1/drift", Some(&read_only), &drift_body())
        .await;
    assert_error(
        &reply,
        StatusCode::FORBIDDEN,
        "FORBIDDEN",
        "this key is read-only; POST needs a read-write key",
    );
    // The drift window (10 per hour, none used) is the most constrained.
    assert_quota(&reply, 10, 10, HOUR_END);

    assert_eq!(svc.queue_depth().await, 0);
    // The two refused writes counted as requests (but started no drift session).
    let reply = svc
        .get_as(
            &format!("/api/v1/intelligence/{}", unknown_id()),
            Some(&read_only),
        )
        .await;
    assert_error(
        &reply,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
        "session not found",
    );
    assert_quota(&reply, 1000, 997, HOUR_END);
}

#[tokio::test]
async fn a_read_only_key_reads_every_get_route() {
    let svc = Service::new().await;
    let ingest = svc.ingest(&refund()).await;
    let drift = svc.drift(&drift_body()).await;
    assert!(svc.run_one().await);
    assert!(svc.run_one().await);
    let (_, read_only) = svc.issue(ORG, Scope::ReadOnly, Plan::default()).await;

    let paths = [
        format!("/api/v1/intelligence/{ingest}"),
        format!("/api/v1/intelligence/{ingest}?view=condensed"),
        format!("/api/v1/drift/{drift}"),
        "/api/v1/openapi".to_owned(),
        "/api/v1/healthz".to_owned(),
    ];
    for (i, path) in paths.iter().enumerate() {
        let reply = svc.get_as(path, Some(&read_only)).await;
        assert_eq!(reply.status, StatusCode::OK, "{path}: {reply:?}");
        let own = svc.get(path).await;
        assert_eq!(reply.body, own.body, "{path}");
        if i < 3 {
            assert_quota(&reply, 1000, 999 - i as i64, HOUR_END);
        } else {
            assert_no_quota(&reply);
        }
    }
}

#[tokio::test]
async fn every_authenticated_response_carries_the_rate_limit_headers() {
    let svc = Service::new().await;
    let (_, read_only) = svc.issue(ORG, Scope::ReadOnly, Plan::default()).await;
    let (_, tiny) = svc
        .issue(
            ORG,
            Scope::ReadWrite,
            Plan {
                per_hour: 1,
                per_day: 10,
                drift_per_hour: 1,
            },
        )
        .await;

    let accepted = svc.post("/api/v1/ingest", &refund()).await;
    assert_eq!(accepted.status, StatusCode::ACCEPTED);
    assert_quota(&accepted, 1000, 999, HOUR_END);

    let id = super::session_id(&accepted);
    let ok = svc.get(&format!("/api/v1/intelligence/{id}")).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_quota(&ok, 1000, 998, HOUR_END);

    let bad = svc
        .get(&format!("/api/v1/intelligence/{id}?view=nope"))
        .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_quota(&bad, 1000, 997, HOUR_END);

    let missing = svc.get(&format!("/api/v1/drift/{}", unknown_id())).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_quota(&missing, 1000, 996, HOUR_END);

    let not_json = send_with(
        &svc,
        Method::GET,
        "/api/v1/ingest",
        Some(&format!("Bearer {}", svc.key)),
    )
    .await;
    assert_eq!(not_json.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_quota(&not_json, 1000, 995, HOUR_END);

    let forbidden = svc
        .post_as("/api/v1/ingest", Some(&read_only), &refund())
        .await;
    assert_eq!(forbidden.status, StatusCode::FORBIDDEN);
    assert_quota(&forbidden, 1000, 999, HOUR_END);

    let first = svc
        .get_as(&format!("/api/v1/drift/{}", unknown_id()), Some(&tiny))
        .await;
    assert_eq!(first.status, StatusCode::NOT_FOUND);
    assert_quota(&first, 1, 0, HOUR_END);
    let limited = svc
        .get_as(&format!("/api/v1/drift/{}", unknown_id()), Some(&tiny))
        .await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_quota(&limited, 1, 0, HOUR_END);
}
