//! `score_until`: a stoppable run scores everything or reports how far it got.

use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use undertone_core::score::{Stopped, score, score_until};
use undertone_core::validate::{self, Options};

/// A request of `n` two-turn conversations.
fn request(n: usize) -> undertone_core::IngestRequest {
    let events: Vec<Value> = (0..n)
        .flat_map(|c| {
            [
                ("cust", "user", "my refund never arrived"),
                ("bot", "assistant", "I have resent it."),
            ]
            .into_iter()
            .enumerate()
            .map(move |(k, (actor, role, text))| {
                json!({
                    "conversation_id": format!("c-{c}"),
                    "actor_id": format!("{actor}-{c}"),
                    "content": text,
                    "timestamp": format!("2026-11-21T09:{:02}:00Z", k),
                    "metadata": {"role": role},
                })
            })
        })
        .collect();
    let body = json!({"deployment_id": "acme-bot", "pipeline": "support", "events": events});
    validate::ingest_request(&body, &Options::default()).expect("valid request")
}

#[test]
fn a_run_never_stopped_equals_score() {
    let r = request(5);
    let stopped = score_until(&r, |_, _| {}, || false).expect("not stopped");
    assert_eq!(stopped, score(&r));
}

#[test]
fn a_run_stopped_at_once_scores_nothing() {
    let r = request(5);
    assert_eq!(
        score_until(&r, |_, _| {}, || true),
        Err(Stopped { done: 0, total: 5 })
    );
}

#[test]
fn a_run_stopped_midway_reports_how_far_it_got() {
    // One thread, so conversations are scored in order and the third ask stops it.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let r = request(5);
    let asked = AtomicUsize::new(0);
    let out =
        pool.install(|| score_until(&r, |_, _| {}, || asked.fetch_add(1, Ordering::SeqCst) >= 2));
    assert_eq!(out, Err(Stopped { done: 2, total: 5 }));
}
