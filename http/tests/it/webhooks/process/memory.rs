//! A 100 MiB or endless answer costs time, never memory (peak RSS read from `/proc`).

use super::*;

/// Starts a one-attempt server and a receiver that answers a warm-up delivery with
/// 200 and then `answer`; makes the warm-up delivery and returns the server, its key,
/// the endpoint, the receiver and the peak RSS so far (the baseline, in KiB).
async fn memory_setup(dir: &Path, answer: Answer) -> (Server, String, Webhook, Receiver, u64) {
    let receiver = Receiver::start(vec![Answer::Status(200), answer]).await;
    let server = start(
        &database_url(dir),
        &[
            "--webhook-retry-schedule",
            "0",
            "--webhook-concurrency",
            "2",
        ],
    );
    let key = server.key.clone().expect("a key on an empty database");
    let hook = register(
        &server,
        &key,
        &receiver.url("/hook"),
        &["intelligence.ready"],
    );
    let warm_up = send_test(&server, &key, &hook);
    let delivery = wait_finished(&server, &key, &hook, &warm_up);
    assert_eq!(delivery["status"], "succeeded", "warm-up: {delivery:#}");
    let baseline = server.proc_status_kib("VmHWM");
    (server, key, hook, receiver, baseline)
}

/// The peak-RSS bound for a given baseline.
fn rss_bound_kib(baseline: u64) -> u64 {
    RSS_BOUND_KIB.max(baseline + RSS_HEADROOM_KIB)
}

/// A 100 MiB answer (200, Content-Length) is read to its end and dropped: the
/// delivery succeeds, its attempt keeps the first 16 KiB, and the server's peak RSS
/// stays far below the answer's size.
#[tokio::test(flavor = "multi_thread")]
async fn a_100_mib_answer_is_not_buffered() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temporary directory");
    let (server, key, hook, receiver, baseline) =
        memory_setup(dir.path(), Answer::Huge(HUGE)).await;

    let event = send_test(&server, &key, &hook);
    let delivery = wait_finished(&server, &key, &hook, &event);
    let peak = server.proc_status_kib("VmHWM");
    let rss = server.proc_status_kib("VmRSS");
    let bound = rss_bound_kib(baseline);
    eprintln!(
        "100 MiB answer: VmHWM idle {:.1} MiB, after {:.1} MiB (VmRSS now {:.1} MiB), \
         bound {:.1} MiB; attempt took {} ms; test took {:?}",
        mib(baseline),
        mib(peak),
        mib(rss),
        mib(bound),
        attempt_log(&delivery)
            .first()
            .map(|a| a["duration_ms"].to_string())
            .unwrap_or_default(),
        started.elapsed()
    );

    assert_eq!(receiver.requests().len(), 2);
    assert_eq!(
        delivery["status"],
        "succeeded",
        "{delivery:#}\nlog:\n{}",
        server.log()
    );
    let log = attempt_log(&delivery);
    assert_eq!(log.len(), 1, "{delivery:#}");
    assert_eq!(log[0]["response_status"], 200, "{delivery:#}");
    let body = log[0]["response_body"].as_str().unwrap_or_else(|| {
        panic!("no response_body: {delivery:#}");
    });
    assert_eq!(body.len(), STORED_BODY, "stored answer length");
    assert!(
        body.bytes().all(|b| b == b'y'),
        "stored answer: {body:.80}…"
    );
    assert!(
        peak < bound,
        "peak RSS {:.1} MiB ≥ bound {:.1} MiB (idle {:.1} MiB): the answer was buffered",
        mib(peak),
        mib(bound),
        mib(baseline)
    );
    server.assert_no_panic();
}

/// An answer that never ends fails the attempt at the 10 s deadline (timed out),
/// keeps the answer's first 16 KiB, and leaves the server's peak RSS bounded.
#[tokio::test(flavor = "multi_thread")]
async fn an_endless_answer_times_out_with_bounded_memory() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temporary directory");
    let (server, key, hook, receiver, baseline) = memory_setup(dir.path(), Answer::Endless).await;

    let event = send_test(&server, &key, &hook);
    let delivery = wait_finished(&server, &key, &hook, &event);
    let peak = server.proc_status_kib("VmHWM");
    let rss = server.proc_status_kib("VmRSS");
    let bound = rss_bound_kib(baseline);
    eprintln!(
        "endless answer: VmHWM idle {:.1} MiB, after {:.1} MiB (VmRSS now {:.1} MiB), \
         bound {:.1} MiB; test took {:?}\n{delivery:#}",
        mib(baseline),
        mib(peak),
        mib(rss),
        mib(bound),
        started.elapsed()
    );

    assert_eq!(receiver.requests().len(), 2);
    assert!(
        peak < bound,
        "peak RSS {:.1} MiB ≥ bound {:.1} MiB (idle {:.1} MiB): the answer was buffered",
        mib(peak),
        mib(bound),
        mib(baseline)
    );
    assert_eq!(delivery["status"], "failed", "{delivery:#}");
    assert_eq!(delivery["attempts"], 1, "{delivery:#}");
    let log = attempt_log(&delivery);
    assert_eq!(log.len(), 1, "{delivery:#}");
    let error = log[0]["error"].as_str().unwrap_or("");
    assert!(error.contains("timed out"), "attempt error: {delivery:#}");
    let took = log[0]["duration_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("no duration_ms: {delivery:#}"));
    assert!(
        (ATTEMPT_DEADLINE_MS - DEADLINE_SLACK_MS..=ATTEMPT_DEADLINE_MS + DEADLINE_SLACK_MS)
            .contains(&took),
        "the attempt took {took} ms, not the {ATTEMPT_DEADLINE_MS} ms deadline"
    );
    // DESIGN.md §7: an attempt stores its status code and the first 16 KiB of the
    // answer; the endless answer sent 200 and far more than 16 KiB before the deadline.
    let body = log[0]["response_body"].as_str().unwrap_or("");
    assert_eq!(
        body.len(),
        STORED_BODY,
        "the timed-out attempt kept {} bytes of the answer, not its first 16 KiB: {delivery:#}",
        body.len()
    );
    assert!(
        body.bytes().all(|b| b == b'x'),
        "stored answer: {body:.80}…"
    );
    assert_eq!(log[0]["response_status"], 200, "{delivery:#}");
    server.assert_no_panic();
}
