//! One delivery per (event, endpoint), however often the event is emitted.

use super::*;

/// Two receivers subscribed to [`KIND`], their webhook ids, and a worker started.
async fn two_subscribers(hooks: &mut Hooks) -> [(Receiver, String); 2] {
    let a = Receiver::start(vec![]).await;
    let b = Receiver::start(vec![]).await;
    let (a_hook, _) = hooks.register(&a.url("/a"), &[KIND, OTHER_KIND]).await;
    let (b_hook, _) = hooks.register(&b.url("/b"), &[KIND]).await;
    [(a, a_hook), (b, b_hook)]
}

/// Each endpoint got one delivery of `event_id`, which succeeded, and one request.
async fn delivered_once_each(hooks: &Hooks, subscribers: &[(Receiver, String); 2], event_id: &str) {
    for (receiver, hook) in subscribers {
        let done = hooks.settled(hook).await;
        assert_eq!(done.status, DeliveryStatus::Succeeded, "{done:#?}");
        assert_eq!(done.event_id, event_id);
        assert_eq!(done.attempts, 1);
        let got = receiver.requests();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header("x-undertone-delivery"), done.id);
    }
}

#[tokio::test]
async fn an_event_emitted_twice_is_delivered_once_per_endpoint() {
    let mut hooks = Hooks::new().await;
    let subscribers = two_subscribers(&mut hooks).await;
    let again = event("evt-twice", KIND);
    assert_eq!(hooks.emit(&again).await, 2);
    assert_eq!(hooks.emit(&again).await, 0);
    hooks.start(FAST, DEADLINE);
    hooks.state.deliveries.notify_one();
    delivered_once_each(&hooks, &subscribers, "evt-twice").await;
    // Emitted once more after delivery: still nothing new.
    assert_eq!(hooks.emit(&again).await, 0);
    for (_, hook) in &subscribers {
        assert_eq!(hooks.deliveries(hook).await.len(), 1);
    }
    hooks.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_event_emitted_eight_times_at_once_is_delivered_once_per_endpoint() {
    let mut hooks = Hooks::new().await;
    let subscribers = two_subscribers(&mut hooks).await;
    hooks.start(FAST, DEADLINE);
    let same = event("evt-concurrent", KIND);
    let gate = Arc::new(tokio::sync::Barrier::new(8));
    let mut emits = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (store, same, gate) = (hooks.store.clone(), same.clone(), gate.clone());
        emits.spawn(async move {
            gate.wait().await;
            store.emit(&[same], Utc::now()).await
        });
    }
    let mut queued = 0;
    while let Some(result) = emits.join_next().await {
        queued += result.expect("no panic").expect("the outbox takes it");
    }
    assert_eq!(queued, 2, "one delivery per endpoint in all");
    hooks.state.deliveries.notify_one();
    delivered_once_each(&hooks, &subscribers, "evt-concurrent").await;
    hooks.stop().await;
}
