//! A delivery interrupted by `kill -9` is made again by the restarted server with the
//! same delivery id.

use super::*;

/// The server is killed (SIGKILL) while its first attempt waits for the receiver's
/// answer. Restarted on the same database, it makes the delivery again once the
/// attempt's lease (10 s deadline + 5 s) runs out: same `X-Undertone-Delivery` and
/// `webhook-id`, byte-identical body; the delivery is then `succeeded` after 2
/// attempts, the first recorded as interrupted; one delivery row for the event.
#[tokio::test(flavor = "multi_thread")]
async fn kill_9_mid_delivery_is_delivered_after_restart_with_the_same_id() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = database_url(dir.path());
    let receiver = Receiver::start(vec![
        Answer::Sleep(Duration::from_secs(120)),
        Answer::Status(200),
    ])
    .await;

    let mut first = start(&url, &[]);
    let key = first
        .key
        .clone()
        .expect("the first start on an empty database prints a key");
    let hook = register(
        &first,
        &key,
        &receiver.url("/hook"),
        &["intelligence.ready"],
    );
    let session = ingest_example(&first, &key);

    let got_first = wait_for(FIRST_DELIVERY_TIMEOUT, "the first attempt", || {
        (!receiver.requests().is_empty()).then_some(())
    });
    assert!(got_first.is_some(), "server log:\n{}", first.log());
    first.kill_9();
    let killed_at = Instant::now();
    first.assert_no_panic();
    drop(first);
    let sent_first = receiver.requests()[0].clone();
    assert_eq!(
        receiver.requests().len(),
        1,
        "a second request before the kill"
    );

    let second = start(&url, &[]);
    assert_eq!(
        second.key, None,
        "a key is printed only for an empty database"
    );
    let got_second = wait_for(
        RETRY_AFTER_KILL_TIMEOUT,
        "the retry after the restart",
        || (receiver.requests().len() >= 2).then_some(()),
    );
    assert!(
        got_second.is_some(),
        "no retry within {RETRY_AFTER_KILL_TIMEOUT:?} of the restart; log:\n{}",
        second.log()
    );
    let retried_after = killed_at.elapsed();
    let sent = receiver.requests();
    let sent_second = &sent[1];

    let id = sent_first.header("x-undertone-delivery").to_owned();
    assert!(
        uuid::Uuid::parse_str(&id).is_ok(),
        "X-Undertone-Delivery is not a UUID: `{id}`"
    );
    assert_eq!(sent_second.header("x-undertone-delivery"), id);
    assert_eq!(sent_first.header("webhook-id"), id);
    assert_eq!(sent_second.header("webhook-id"), id);
    assert_eq!(sent_first.header("x-undertone-event"), "intelligence.ready");
    assert_eq!(
        sent_second.header("x-undertone-event"),
        "intelligence.ready"
    );
    assert!(
        sent_first.body == sent_second.body,
        "the retried body differs:\n{}\n{}",
        String::from_utf8_lossy(&sent_first.body),
        String::from_utf8_lossy(&sent_second.body)
    );
    let stamp = |r: &crate::webhooks::receiver::Received| -> i64 {
        r.header("webhook-timestamp")
            .parse()
            .unwrap_or_else(|e| panic!("webhook-timestamp: {e}"))
    };
    assert!(stamp(sent_second) >= stamp(&sent_first));
    let envelope: Value = serde_json::from_slice(&sent_first.body).expect("the body is JSON");
    assert_eq!(envelope["event_type"], "intelligence.ready");
    assert_eq!(envelope["data"]["session_id"], session.as_str());

    let delivery = wait_finished(&second, &key, &hook, envelope["id"].as_str().unwrap_or(""));
    let all = deliveries(&second, &key, &hook);
    assert_eq!(all.len(), 1, "one delivery for the one event: {all:#?}");
    assert_eq!(delivery["id"], id.as_str(), "{delivery:#}");
    assert_eq!(delivery["status"], "succeeded", "{delivery:#}");
    assert_eq!(delivery["attempts"], 2, "{delivery:#}");
    assert_eq!(delivery["response_status"], 200, "{delivery:#}");
    let log = attempt_log(&delivery);
    assert_eq!(log.len(), 2, "{delivery:#}");
    assert_eq!(log[0]["attempt"], 1);
    let interrupted = log[0]["error"].as_str().unwrap_or("");
    assert!(
        interrupted.contains("interrupted"),
        "attempt 1's error: {delivery:#}"
    );
    assert!(log[0]["duration_ms"].is_null(), "{delivery:#}");
    assert!(log[0]["response_status"].is_null(), "{delivery:#}");
    assert_eq!(log[1]["attempt"], 2);
    assert_eq!(log[1]["response_status"], 200, "{delivery:#}");
    assert!(log[1]["error"].is_null(), "{delivery:#}");

    // Nothing more arrives: the delivery is done.
    thread::sleep(Duration::from_millis(700));
    assert_eq!(receiver.requests().len(), 2, "a third request arrived");
    second.assert_no_panic();
    eprintln!(
        "kill -9 → retry after {retried_after:?}; test took {:?}",
        started.elapsed()
    );
}
