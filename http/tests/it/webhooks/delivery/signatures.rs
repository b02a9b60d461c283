//! Signatures checked by an independent implementation (Python's `hmac`).

use super::*;

/// Checks both signatures of a delivery with Python's `hmac`, `hashlib` and
/// `base64`; prints `ok`, or `bad <github-style ok> <standard ok>`.
const VERIFY_PY: &str = r#"
import base64, hashlib, hmac, json, sys
d = json.load(sys.stdin)
body = base64.b64decode(d["body"])
secret = d["secret"]
expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
github = hmac.compare_digest(expected, d["x_signature"])
assert secret.startswith("whsec_")
key = base64.b64decode(secret[len("whsec_"):])
signed = d["id"].encode() + b"." + d["timestamp"].encode() + b"." + body
tag = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
standard = any(hmac.compare_digest(tag, s) for s in d["signature"].split(" "))
print("ok" if github and standard else f"bad {github} {standard}")
"#;

/// What [`VERIFY_PY`] prints for this input.
fn python_verifies(
    secret: &str,
    body: &[u8],
    x_signature: &str,
    id: &str,
    timestamp: &str,
    signature: &str,
) -> String {
    use std::io::Write as _;
    let input = json!({
        "secret": secret,
        "body": STANDARD.encode(body),
        "x_signature": x_signature,
        "id": id,
        "timestamp": timestamp,
        "signature": signature,
    });
    let mut child = std::process::Command::new("python3")
        .args(["-c", VERIFY_PY])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("python3 reads its input");
    let out = child.wait_with_output().expect("python3 finishes");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[tokio::test]
async fn signatures_verify_with_pythons_hmac() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![]).await;
    let (hook, secret) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start(FAST, DEADLINE);
    // The test route queues a signed `webhook.test` event to this endpoint.
    let (status, queued) = hooks
        .call(Method::POST, &format!("/api/v1/webhooks/{hook}/test"), None)
        .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{queued}");
    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.event_type, "webhook.test");
    let got = receiver.requests();
    assert_eq!(got.len(), 1);
    let r = &got[0];
    let envelope: Value = serde_json::from_slice(&r.body).expect("a JSON envelope");
    assert_eq!(envelope["event_type"], "webhook.test");
    assert_eq!(envelope["id"], queued["event_id"]);
    assert_eq!(r.header("webhook-id"), done.id);

    let verify = |body: &[u8], timestamp: &str| {
        python_verifies(
            &secret,
            body,
            r.header("x-undertone-signature"),
            r.header("webhook-id"),
            timestamp,
            r.header("webhook-signature"),
        )
    };
    let timestamp = r.header("webhook-timestamp");
    assert_eq!(verify(&r.body, timestamp), "ok");
    let mut tampered = r.body.clone();
    tampered[1] ^= 0x01;
    assert_eq!(verify(&tampered, timestamp), "bad False False");
    let later = (timestamp.parse::<i64>().expect("unix seconds") + 1).to_string();
    assert_eq!(verify(&r.body, &later), "bad True False");
    hooks.stop().await;
}
