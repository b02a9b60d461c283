//! Retries: a receiver down, always failing, or asking to wait (`Retry-After`): the
//! same delivery each time, and an endpoint that never answers well is disabled.

use super::*;

#[tokio::test]
async fn a_receiver_down_for_two_attempts_gets_the_third() {
    let mut hooks = Hooks::new().await;
    let port = unused_port().await;
    let (hook, _) = hooks
        .register(&format!("http://127.0.0.1:{port}/hook"), &[KIND])
        .await;
    hooks.start("0,1,1,1,1", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-down", KIND)).await, 1);

    let failing = hooks
        .delivery_when(&hook, "two finished attempts", |d| {
            d.attempt_log.len() == 2 && d.attempt_log.iter().all(|a| a.duration_ms.is_some())
        })
        .await;
    assert_eq!(failing.status, DeliveryStatus::Pending);
    // The third attempt is due about 1 s (at least 0.8 s) after the second failed.
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .expect("the port is free again");
    let receiver = Receiver::on(listener, vec![]);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 3);
    assert_eq!(done.response_status, Some(200));
    assert_eq!(done.error, None);
    assert_eq!(receiver.requests().len(), 1);
    let numbers: Vec<u32> = done.attempt_log.iter().map(|a| a.attempt).collect();
    assert_eq!(numbers, [1, 2, 3]);
    for refused in &done.attempt_log[..2] {
        assert_eq!(refused.response_status, None, "{refused:?}");
        let error = refused.error.as_deref().unwrap_or_default();
        assert!(
            error.to_ascii_lowercase().contains("connection refused"),
            "{error}"
        );
    }
    assert_eq!(done.attempt_log[2].response_status, Some(200));
    assert_eq!(done.attempt_log[2].error, None);
    hooks.stop().await;
}

#[tokio::test]
async fn an_endpoint_that_always_fails_gets_five_attempts_then_the_delivery_fails() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::Status(500)]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start(FAST, DEADLINE);
    assert_eq!(hooks.emit(&event("evt-500", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed, "{done:#?}");
    assert_eq!(done.attempts, 5);
    assert_eq!(done.response_status, Some(500));
    assert!(done.completed_at.is_some());
    assert_eq!(done.next_attempt_at, None);
    assert_eq!(receiver.requests().len(), 5);
    let numbers: Vec<u32> = done.attempt_log.iter().map(|a| a.attempt).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5]);
    for a in &done.attempt_log {
        assert_eq!(a.response_status, Some(500), "{a:?}");
        assert!(
            a.error.as_deref().is_some_and(|e| e.contains("500")),
            "{a:?}"
        );
        assert_eq!(a.response_body.as_deref(), Some(&b"answered"[..]));
    }
    hooks.stop().await;
}

#[tokio::test]
async fn every_retry_carries_the_same_delivery_id_body_and_signature() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![
        Answer::Status(500),
        Answer::Status(500),
        Answer::Status(200),
    ])
    .await;
    let (hook, secret) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start(FAST, DEADLINE);
    let sent = event("evt-retries", KIND);
    assert_eq!(hooks.emit(&sent).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 3);
    assert_eq!(done.event_id, "evt-retries");
    assert_eq!(done.event_type, KIND);
    let got = receiver.requests();
    assert_eq!(got.len(), 3);
    let signature = undertone_core::signature::sign(&secret, &sent.body);
    for r in &got {
        assert_eq!(r.body, sent.body, "the stored envelope, byte for byte");
        assert_eq!(r.header("x-undertone-delivery"), done.id);
        assert_eq!(r.header("webhook-id"), done.id);
        assert_eq!(r.header("x-undertone-event"), KIND);
        assert_eq!(r.header("x-undertone-signature"), signature);
        assert_eq!(r.header("content-type"), "application/json");
        assert!(r.header("user-agent").starts_with("Undertone-Webhooks/"));
        assert!(r.header("webhook-timestamp").parse::<i64>().is_ok());
        assert!(r.header("webhook-signature").starts_with("v1,"));
    }
    hooks.stop().await;
}

#[tokio::test]
async fn retry_after_is_honoured_within_the_delay_and_twice_it() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::RetryAfter(503, 2), Answer::Status(200)]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start("0,0.5,0.5,0.5,0.5", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-retry-after", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 2);
    assert_eq!(done.attempt_log[0].response_status, Some(503));
    let got = receiver.requests();
    assert_eq!(got.len(), 2);
    let gap = got[1].at.duration_since(got[0].at).as_secs_f64();
    // Attempt 2's delay is 0.5 s with ±20% jitter: d in [0.4, 0.6] s. The endpoint
    // asked for 2 s, which is clamped into [d, 2d]; 2 s > 2d, so the wait is 2d, in
    // [0.8, 1.2] s — whereas ignoring Retry-After would wait at most 0.6 s. The wait
    // is counted from after the first answer (later than its arrival), less under
    // 1 ms of the clock's truncation to milliseconds: hence 0.79 s at least. On top
    // of 1.2 s come claiming, connecting and sending: 0.3 s of slack.
    assert!(
        (0.79..=1.5).contains(&gap),
        "{gap} s between the 503 and the retry"
    );
    hooks.stop().await;
}

#[tokio::test]
async fn an_endpoint_that_fails_every_attempt_is_disabled_and_listed_so() {
    let mut hooks = Hooks::new().await;
    let port = unused_port().await;
    let (hook, _) = hooks
        .register(&format!("http://127.0.0.1:{port}/hook"), &[KIND])
        .await;
    // Disabled once every attempt failed for more than 0.5 s.
    let config = DeliveryConfig {
        schedule: "0,0.3,0.3,0.3,0.3".parse().expect("valid schedule"),
        timeout: DEADLINE,
        concurrency: 8,
        allow_private: true,
        disable_after: Duration::from_millis(500),
        ..DeliveryConfig::default()
    };
    let sender = Sender::new(config, SafeResolver::new(true)).expect("client builds");
    hooks.worker = Some(Deliverer::spawn(&hooks.state, sender));
    assert_eq!(hooks.emit(&event("evt-dead", KIND)).await, 1);
    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed);
    assert_eq!(
        done.error.as_deref(),
        Some("cancelled: the endpoint was disabled after failing every attempt"),
        "{done:#?}"
    );
    let (status, list) = hooks.call(Method::GET, "/api/v1/webhooks", None).await;
    assert_eq!(status, StatusCode::OK);
    let listed = &list["data"][0];
    assert_eq!(listed["id"], json!(hook));
    assert_eq!(listed["disabled"]["event_type"], "webhook.disabled");
    assert_eq!(
        listed["disabled"]["reason"],
        "every attempt failed for more than 0.5 s"
    );
    // A disabled endpoint gets no more events, and a test is refused, not queued.
    assert_eq!(hooks.emit(&event("evt-after", KIND)).await, 0);
    let (status, refused) = hooks
        .call(Method::POST, &format!("/api/v1/webhooks/{hook}/test"), None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["error"]["code"], "CONFLICT");
    let at = listed["disabled"]["at"].as_str().expect("a time");
    assert_eq!(
        refused["error"]["message"],
        format!(
            "this webhook was disabled at {at} (every attempt failed for more than 0.5 s) and \
             receives nothing, a test included; delete it and register it again once it answers"
        )
    );
    hooks.stop().await;
}
