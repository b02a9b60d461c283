//! What a receiver answers: hanging, redirecting, without end or huge, and what of it
//! is stored.

use super::*;

#[tokio::test]
async fn a_hanging_endpoint_times_out_at_ten_seconds_while_others_keep_flowing() {
    let mut hooks = Hooks::new().await;
    let slow = Receiver::start(vec![
        Answer::Sleep(Duration::from_secs(11)),
        Answer::Status(200),
    ])
    .await;
    let fast = Receiver::start(vec![]).await;
    let (slow_hook, _) = hooks.register(&slow.url("/slow"), &[KIND]).await;
    let (fast_hook, _) = hooks.register(&fast.url("/fast"), &[OTHER_KIND]).await;
    hooks.start(FAST, DEADLINE);
    assert_eq!(hooks.emit(&event("evt-slow", KIND)).await, 1);
    requests_reach(&slow, 1).await;

    // While the slow attempt hangs, another delivery goes through.
    assert_eq!(hooks.emit(&event("evt-fast", OTHER_KIND)).await, 1);
    let quick = hooks.settled(&fast_hook).await;
    assert_eq!(quick.status, DeliveryStatus::Succeeded, "{quick:#?}");
    assert_eq!(fast.requests().len(), 1);
    let hanging = hooks.deliveries(&slow_hook).await;
    assert_eq!(hanging.len(), 1);
    assert_eq!(hanging[0].status, DeliveryStatus::Pending);
    assert_eq!(
        hanging[0].attempt_log[0].duration_ms, None,
        "the slow attempt is still in flight: {hanging:#?}"
    );

    let done = hooks.settled(&slow_hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    assert_eq!(done.attempts, 2);
    assert_eq!(slow.requests().len(), 2);
    let timed_out = &done.attempt_log[0];
    assert_eq!(timed_out.response_status, None, "{timed_out:?}");
    assert!(
        timed_out
            .error
            .as_deref()
            .is_some_and(|e| e.contains("timed out")),
        "{timed_out:?}"
    );
    let took = timed_out.duration_ms.expect("a finished attempt");
    assert!((9_500..=10_500).contains(&took), "took {took} ms");
    assert_eq!(done.attempt_log[1].response_status, Some(200));
    hooks.stop().await;
}

#[tokio::test]
async fn a_redirect_is_a_failure_and_is_not_followed() {
    let mut hooks = Hooks::new().await;
    let elsewhere = Receiver::start(vec![]).await;
    let redirecting = Receiver::start(vec![Answer::Redirect(elsewhere.url("/landed"))]).await;
    let (hook, _) = hooks.register(&redirecting.url("/hook"), &[KIND]).await;
    hooks.start("0", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-302", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed, "{done:#?}");
    assert_eq!(done.attempts, 1);
    let a = &done.attempt_log[0];
    assert_eq!(a.response_status, Some(302));
    assert!(
        a.error
            .as_deref()
            .is_some_and(|e| e.contains("302") && e.contains("redirects are not followed")),
        "{a:?}"
    );
    assert_eq!(redirecting.requests().len(), 1);
    assert_eq!(elsewhere.requests().len(), 0);
    hooks.stop().await;
}

#[tokio::test]
async fn an_endless_answer_times_out_and_keeps_its_status_and_first_16_kib() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::Endless]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    // A 2 s deadline instead of 10 s keeps the test short; one attempt in all.
    hooks.start("0", Duration::from_secs(2));
    assert_eq!(hooks.emit(&event("evt-endless", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Failed, "{done:#?}");
    assert_eq!(done.attempts, 1);
    let a = &done.attempt_log[0];
    assert!(
        a.error.as_deref().is_some_and(|e| e.contains("timed out")),
        "{:?}",
        a.error
    );
    let took = a.duration_ms.expect("a finished attempt");
    assert!((2_000..=2_500).contains(&took), "took {took} ms");
    assert_eq!(
        a.response_status,
        Some(200),
        "the endpoint answered 200 before its body ran out of time: {a:?}"
    );
    let body = a.response_body.as_deref().unwrap_or_default();
    assert_eq!(body.len(), MAX_STORED_BODY);
    assert!(body.iter().all(|&b| b == b'x'));
    hooks.stop().await;
}

#[tokio::test]
async fn a_timed_out_answer_keeps_its_status_and_first_16_kib_every_time() {
    // The sender has two deadlines of the same length: the HTTP client's own, which
    // ends the body and keeps what was read, and a `tokio::time::timeout` around the
    // whole exchange, which drops it. Which fires first is down to chance (a few
    // percent of attempts, more on a busy machine, lose the answer), so this makes
    // many short attempts: the outcome must not vary.
    let receiver = Receiver::start(vec![Answer::Endless]).await;
    let sender = local_sender("0", Duration::from_millis(75));
    let mut lost = Vec::new();
    for i in 0..40 {
        let sent = sender.send(&job(&receiver.url("/hook")), 0).await;
        assert!(!sent.ok, "{sent:?}");
        let error = sent.error.as_deref().unwrap_or_default();
        assert!(error.contains("timed out"), "{error}");
        if sent.status != Some(200) || sent.body.len() != MAX_STORED_BODY {
            lost.push((i, sent.status, sent.body.len(), error.to_owned()));
        }
    }
    assert_eq!(receiver.requests().len(), 40);
    assert_eq!(lost, [], "attempts that lost the 200 and its first bytes");
}

#[tokio::test]
async fn a_huge_answer_succeeds_and_only_its_first_16_kib_are_stored() {
    let mut hooks = Hooks::new().await;
    let receiver = Receiver::start(vec![Answer::Huge(100 * 1024 * 1024)]).await;
    let (hook, _) = hooks.register(&receiver.url("/hook"), &[KIND]).await;
    hooks.start("0", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-huge", KIND)).await, 1);

    let done = hooks.settled(&hook).await;
    assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
    let a = &done.attempt_log[0];
    assert_eq!(a.response_status, Some(200));
    assert_eq!(a.error, None);
    let body = a.response_body.as_deref().unwrap_or_default();
    assert_eq!(body.len(), MAX_STORED_BODY);
    assert!(body.iter().all(|&b| b == b'y'));
    hooks.stop().await;
}

#[tokio::test]
async fn a_stored_delivery_error_never_holds_the_urls_query_string() {
    let mut hooks = Hooks::new().await;
    // A credential in the query string.
    let port = unused_port().await;
    let (hook, _) = hooks
        .register(
            &format!("http://127.0.0.1:{port}/hook?token=s3cret-token"),
            &[KIND],
        )
        .await;
    hooks.start("0,1", DEADLINE);
    assert_eq!(hooks.emit(&event("evt-query", KIND)).await, 1);
    let failing = hooks
        .delivery_when(&hook, "one finished attempt", |d| {
            d.attempt_log
                .first()
                .is_some_and(|a| a.duration_ms.is_some())
        })
        .await;
    let error = failing.attempt_log[0].error.clone().unwrap_or_default();
    assert!(
        error.to_ascii_lowercase().contains("connection refused"),
        "{error}"
    );
    assert!(!error.contains("s3cret"), "{error}");
    assert!(!error.contains("token="), "{error}");
    hooks.stop().await;
}
