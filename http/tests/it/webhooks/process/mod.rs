//! Webhooks with the real `undertone serve` process (DESIGN.md §7 "Webhooks"):
//! a delivery interrupted by `kill -9` is made again by the restarted server with the
//! same delivery id; a 100 MiB or endless answer costs time, never memory (peak RSS
//! read from `/proc`); signatures are checked by an independent implementation (a
//! Python receiver using `hmac`); and a bad retry schedule stops `serve` before it
//! listens.
//!
//! Each test runs its own server on port 0 with a SQLite file in its own temporary
//! directory; requests go over plain TCP with the small HTTP/1.1 client of
//! `real_server` (`Connection: close`, one request per connection). Servers and receivers are
//! killed by Drop guards on every exit path.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::receiver::{Answer, Receiver};
use crate::real_server::{self, START_TIMEOUT, Server, request};

mod memory;
mod restart;
mod signatures;
mod startup;

/// How long an ingest may take to reach the receiver.
const FIRST_DELIVERY_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the restarted server may take to retry the interrupted delivery: its
/// lease (the 10 s deadline plus 5 s) runs out first.
const RETRY_AFTER_KILL_TIMEOUT: Duration = Duration::from_secs(40);
/// How long an attempt's outcome may take to show in the delivery list.
const RECORD_TIMEOUT: Duration = Duration::from_secs(30);
/// The deadline of one attempt, and the slack allowed over it.
const ATTEMPT_DEADLINE_MS: u64 = 10_000;
const DEADLINE_SLACK_MS: u64 = 500;
/// Bytes of an answer kept with its attempt.
const STORED_BODY: usize = 16 * 1024;
/// The huge answer.
const HUGE: usize = 100 * 1024 * 1024;
/// Peak RSS that shows nothing the size of [`HUGE`] was held: at most 100 MiB, or
/// the idle baseline plus 50 MiB when the baseline is already above 50 MiB.
const RSS_BOUND_KIB: u64 = 100 * 1024;
const RSS_HEADROOM_KIB: u64 = 50 * 1024;
/// The example ingested, and its deployment.
const EXAMPLE: &str = "../examples/support-refund-goes-wrong.json";
const EXAMPLE_DEPLOYMENT: &str = "acme-support-bot";

// The server process.

/// The `--database` URL of a SQLite file in `dir`.
fn database_url(dir: &Path) -> String {
    format!("sqlite://{}", dir.join("u.db").display())
}

/// `undertone serve` with one scoring worker, private webhooks allowed, and `extra`
/// arguments.
fn serve_command(database: &str, extra: &[&str]) -> Command {
    let mut args = vec!["--workers", "1", "--allow-private-webhooks"];
    args.extend_from_slice(extra);
    real_server::serve_command(database, &args)
}

/// Starts [`serve_command`]; returns once it listens.
fn start(database: &str, extra: &[&str]) -> Server {
    Server::spawn(serve_command(database, extra))
}

// The API calls the tests make.

/// A registered endpoint.
struct Webhook {
    id: String,
    secret: String,
}

/// `POST /webhooks`; expects 201.
fn register(server: &Server, key: &str, url: &str, events: &[&str]) -> Webhook {
    let body = json!({ "url": url, "events": events }).to_string();
    let r = request(
        server.addr,
        "POST",
        "/api/v1/webhooks",
        key,
        Some(body.as_bytes()),
    );
    assert_eq!(r.status, 201, "register {url}: {}", r.text());
    let json = r.json();
    let field = |name: &str| {
        json[name]
            .as_str()
            .unwrap_or_else(|| panic!("no {name} in {json}"))
            .to_owned()
    };
    Webhook {
        id: field("id"),
        secret: field("secret"),
    }
}

/// `POST /webhooks/{id}/test`; returns the test event's id.
fn send_test(server: &Server, key: &str, hook: &Webhook) -> String {
    let r = request(
        server.addr,
        "POST",
        &format!("/api/v1/webhooks/{}/test", hook.id),
        key,
        Some(b""),
    );
    assert_eq!(r.status, 202, "test {}: {}", hook.id, r.text());
    let json = r.json();
    json["event_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no event_id in {json}"))
        .to_owned()
}

/// Ingests the support example; returns the session id.
fn ingest_example(server: &Server, key: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);
    let body = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let example: Value = serde_json::from_slice(&body).expect("the example is JSON");
    assert_eq!(
        example["deployment_id"], EXAMPLE_DEPLOYMENT,
        "the example's deployment changed"
    );
    let r = request(server.addr, "POST", "/api/v1/ingest", key, Some(&body));
    assert_eq!(r.status, 202, "ingest: {}", r.text());
    let json = r.json();
    json["session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no session_id in {json}"))
        .to_owned()
}

/// `GET /webhooks/{id}/deliveries` (up to 100, newest first).
fn deliveries(server: &Server, key: &str, hook: &Webhook) -> Vec<Value> {
    let r = request(
        server.addr,
        "GET",
        &format!("/api/v1/webhooks/{}/deliveries?limit=100", hook.id),
        key,
        None,
    );
    assert_eq!(r.status, 200, "deliveries of {}: {}", hook.id, r.text());
    let json = r.json();
    assert!(
        json["next_cursor"].is_null(),
        "more than 100 deliveries: {json}"
    );
    json["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data in {json}"))
        .clone()
}

/// The delivery of `event_id`, once its status is no longer `pending`.
fn wait_finished(server: &Server, key: &str, hook: &Webhook, event_id: &str) -> Value {
    wait_for(
        RECORD_TIMEOUT,
        &format!("the delivery of {event_id}"),
        || {
            let all = deliveries(server, key, hook);
            let mine: Vec<&Value> = all.iter().filter(|d| d["event_id"] == event_id).collect();
            assert!(
                mine.len() <= 1,
                "several deliveries of {event_id}: {all:#?}"
            );
            mine.first()
                .filter(|d| d["status"] != "pending")
                .map(|d| (*d).clone())
        },
    )
    .unwrap_or_else(|| panic!("server log:\n{}", server.log()))
}

/// Polls `check` every 50 ms until it returns something, at most `timeout`; None
/// (after printing what was awaited) when it never does.
fn wait_for<T>(timeout: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(found) = check() {
            return Some(found);
        }
        if Instant::now() >= deadline {
            eprintln!("gave up after {timeout:?} waiting for {what}");
            return None;
        }
        thread::sleep(Duration::from_millis(50));
    }
}

/// The `attempt_log` of a delivery.
fn attempt_log(delivery: &Value) -> &Vec<Value> {
    delivery["attempt_log"]
        .as_array()
        .unwrap_or_else(|| panic!("no attempt_log in {delivery:#}"))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}
