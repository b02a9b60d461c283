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

// ---------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------
// 1. kill -9 mid-delivery.

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
    let stamp = |r: &super::receiver::Received| -> i64 {
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

// ---------------------------------------------------------------------------------
// 2. Memory stays bounded whatever the endpoint answers.

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

// ---------------------------------------------------------------------------------
// 3. Signatures checked by an independent implementation.

/// A webhook receiver in Python's standard library: verifies `X-Undertone-Signature`
/// (GitHub style) and the Standard Webhooks headers with `hmac.compare_digest`,
/// answers 200 when both verify and the timestamp is fresh (else 401), and appends
/// one JSON line per request to a log. The secret is read from a file at each
/// request, so it can be written after the endpoint is registered.
const PYTHON_RECEIVER: &str = r#"
import base64, hashlib, hmac, json, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

secret_path, log_path = sys.argv[1], sys.argv[2]
lock = threading.Lock()

def verify(secret, headers, body):
    github = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    github_ok = hmac.compare_digest(github, headers.get("X-Undertone-Signature", ""))
    msg_id = headers.get("webhook-id", "")
    stamp = headers.get("webhook-timestamp", "")
    standard_ok = False
    if secret.startswith("whsec_"):
        key = base64.b64decode(secret[len("whsec_"):])
        signed = msg_id.encode() + b"." + stamp.encode() + b"." + body
        expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        # The header may carry several space-separated signatures.
        standard_ok = any(hmac.compare_digest(expected, given)
                          for given in headers.get("webhook-signature", "").split())
    try:
        fresh = abs(time.time() - int(stamp)) <= 300
    except ValueError:
        fresh = False
    return github_ok, standard_ok, fresh

class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            with open(secret_path) as f:
                secret = f.read().strip()
        except OSError:
            secret = ""
        github_ok, standard_ok, fresh = verify(secret, self.headers, body) if secret else (False, False, False)
        status = 200 if github_ok and standard_ok and fresh else 401
        record = {
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body.decode("utf-8", "replace"),
            "github_ok": github_ok,
            "standard_ok": standard_ok,
            "fresh": fresh,
            "status": status,
        }
        with lock:
            with open(log_path, "a") as f:
                f.write(json.dumps(record) + "\n")
        answer = b"verified" if status == 200 else b"bad signature"
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass

server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

/// The Python receiver process; killed when dropped.
struct PythonReceiver {
    child: Child,
    port: u16,
    secret_path: PathBuf,
    log_path: PathBuf,
}

impl Drop for PythonReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl PythonReceiver {
    fn start(dir: &Path) -> PythonReceiver {
        let script = dir.join("receiver.py");
        fs::write(&script, PYTHON_RECEIVER).expect("the receiver script is written");
        let secret_path = dir.join("secret.txt");
        let log_path = dir.join("received.jsonl");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(&secret_path)
            .arg(&log_path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let mut receiver = PythonReceiver {
            child,
            port: 0,
            secret_path,
            log_path,
        };
        let line = rx
            .recv_timeout(START_TIMEOUT)
            .expect("the Python receiver prints its port");
        receiver.port = line
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("the Python receiver printed `{line}`: {e}"));
        receiver
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    /// Hands the secret over (atomically: written aside, then renamed).
    fn give_secret(&self, secret: &str) {
        let aside = self.secret_path.with_extension("tmp");
        fs::write(&aside, secret).expect("the secret is written");
        fs::rename(&aside, &self.secret_path).expect("the secret is moved in place");
    }

    /// Every request logged so far.
    fn received(&self) -> Vec<Value> {
        let text = fs::read_to_string(&self.log_path).unwrap_or_default();
        text.lines()
            .filter(|l| l.ends_with('}'))
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("log line {l}: {e}")))
            .collect()
    }
}

/// Deliveries of an ingest of the support example, to an endpoint subscribed to
/// `intelligence.ready` and `layer_z_threshold_crossed`, verify in Python's `hmac`
/// under both schemes; each is the documented envelope for `acme-support-bot`, and
/// each delivery arrives once.
#[tokio::test(flavor = "multi_thread")]
async fn signatures_verify_in_an_independent_python_receiver() {
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temporary directory");
    let python = PythonReceiver::start(dir.path());
    let server = start(&database_url(dir.path()), &[]);
    let key = server.key.clone().expect("a key on an empty database");
    let hook = register(
        &server,
        &key,
        &python.url(),
        &["intelligence.ready", "layer_z_threshold_crossed"],
    );
    assert!(hook.secret.starts_with("whsec_"), "secret {}", hook.secret);
    python.give_secret(&hook.secret);
    let session = ingest_example(&server, &key);

    // Every queued delivery finished (or a request was refused, which fails below).
    let finished = wait_for(RECORD_TIMEOUT, "every delivery to finish", || {
        let received = python.received();
        if received.iter().any(|r| r["status"] != 200) {
            return Some(deliveries(&server, &key, &hook));
        }
        let all = deliveries(&server, &key, &hook);
        let kinds: BTreeSet<&str> = all
            .iter()
            .filter_map(|d| d["event_type"].as_str())
            .collect();
        let done = kinds.contains("intelligence.ready")
            && kinds.contains("layer_z_threshold_crossed")
            && all.iter().all(|d| d["status"] != "pending");
        done.then_some(all)
    });
    let received = python.received();
    let Some(listed) = finished else {
        panic!(
            "deliveries did not finish; received {received:#?}\nlisted {:#?}\nlog:\n{}",
            deliveries(&server, &key, &hook),
            server.log()
        );
    };

    for r in &received {
        assert!(
            r["github_ok"] == true && r["standard_ok"] == true && r["fresh"] == true,
            "Python did not verify a delivery: {r:#}"
        );
        assert_eq!(r["status"], 200, "{r:#}");
        assert_eq!(r["path"], "/hook");
    }
    for d in &listed {
        assert_eq!(d["status"], "succeeded", "{d:#}");
        assert_eq!(d["attempts"], 1, "{d:#}");
    }

    // One request per delivery, each the envelope of its event.
    let by_id: BTreeMap<&str, &Value> = listed
        .iter()
        .map(|d| (d["id"].as_str().unwrap_or(""), d))
        .collect();
    assert_eq!(
        by_id.len(),
        listed.len(),
        "repeated delivery ids: {listed:#?}"
    );
    assert_eq!(
        received.len(),
        listed.len(),
        "requests received vs deliveries listed:\n{received:#?}\n{listed:#?}"
    );
    let mut kinds = BTreeMap::<String, usize>::new();
    let mut seen = BTreeSet::new();
    let expected_fields: BTreeSet<&str> = [
        "id",
        "event_type",
        "version",
        "created_at",
        "org_id",
        "deployment_id",
        "data",
    ]
    .into_iter()
    .collect();
    for r in &received {
        let headers = &r["headers"];
        let delivery_id = headers["x-undertone-delivery"].as_str().unwrap_or("");
        assert!(uuid::Uuid::parse_str(delivery_id).is_ok(), "{r:#}");
        assert_eq!(headers["webhook-id"], delivery_id, "{r:#}");
        assert!(
            seen.insert(delivery_id),
            "delivery {delivery_id} arrived twice"
        );
        let listed = by_id
            .get(delivery_id)
            .unwrap_or_else(|| panic!("delivery {delivery_id} is not listed"));

        let body = r["body"].as_str().unwrap_or("");
        let envelope: Value =
            serde_json::from_str(body).unwrap_or_else(|e| panic!("envelope {body}: {e}"));
        let fields: BTreeSet<&str> = envelope
            .as_object()
            .unwrap_or_else(|| panic!("envelope {envelope}"))
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, expected_fields, "{envelope:#}");
        let kind = envelope["event_type"].as_str().unwrap_or("");
        assert_eq!(headers["x-undertone-event"], kind, "{r:#}");
        assert_eq!(listed["event_type"], kind);
        assert_eq!(listed["event_id"], envelope["id"]);
        assert!(
            envelope["id"].as_str().is_some_and(|s| !s.is_empty()),
            "{envelope:#}"
        );
        assert_eq!(envelope["version"], "webhooks-v1.0", "{envelope:#}");
        let created = envelope["created_at"].as_str().unwrap_or("");
        assert!(
            chrono::DateTime::parse_from_rfc3339(created).is_ok(),
            "created_at `{created}`"
        );
        assert!(
            envelope["org_id"].as_str().is_some_and(|s| !s.is_empty()),
            "{envelope:#}"
        );
        assert_eq!(
            envelope["deployment_id"], EXAMPLE_DEPLOYMENT,
            "{envelope:#}"
        );
        assert!(envelope["data"].is_object(), "{envelope:#}");
        if kind == "intelligence.ready" {
            assert_eq!(envelope["data"]["session_id"], session.as_str());
        }
        *kinds.entry(kind.to_owned()).or_default() += 1;
    }
    eprintln!(
        "Python verified {} deliveries {kinds:?}; test took {:?}",
        received.len(),
        started.elapsed()
    );
    assert_eq!(kinds.get("intelligence.ready"), Some(&1), "{kinds:?}");
    assert!(
        kinds
            .get("layer_z_threshold_crossed")
            .is_some_and(|n| *n >= 1),
        "{kinds:?}"
    );
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    server.assert_no_panic();
}

// ---------------------------------------------------------------------------------
// 4. A bad retry schedule.

/// Runs `undertone serve` to its exit (at most `START_TIMEOUT`; killed otherwise);
/// returns its status, stdout and stderr.
fn run_to_exit(mut command: Command) -> (ExitStatus, String, String) {
    let mut child = command.spawn().expect("undertone serve starts");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let out = thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + START_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the process can be polled") {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "undertone serve did not exit within {START_TIMEOUT:?}; stderr:\n{}",
                err.join().unwrap_or_default()
            );
        }
        thread::sleep(Duration::from_millis(20));
    };
    (
        status,
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default(),
    )
}

/// `--webhook-retry-schedule x`, or `UNDERTONE_WEBHOOK_RETRY_SCHEDULE=x`, makes
/// `serve` exit non-zero with a message naming the schedule, before it listens or
/// prints a key; the same command with a valid schedule does listen.
#[test]
fn a_bad_retry_schedule_stops_serve_before_it_listens() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = database_url(dir.path());

    let mut flag = serve_command(&url, &["--webhook-retry-schedule", "x"]);
    flag.env("RUST_LOG", "off");
    let mut env = serve_command(&url, &[]);
    env.env("UNDERTONE_WEBHOOK_RETRY_SCHEDULE", "x");
    let mut empty_item = serve_command(&url, &["--webhook-retry-schedule", "0,,5"]);
    empty_item.env("RUST_LOG", "off");
    for (how, command) in [
        ("--webhook-retry-schedule x", flag),
        ("UNDERTONE_WEBHOOK_RETRY_SCHEDULE=x", env),
        ("--webhook-retry-schedule 0,,5", empty_item),
    ] {
        let (status, stdout, stderr) = run_to_exit(command);
        eprintln!("{how}: {status}; stderr: {}", stderr.trim());
        assert!(
            !status.success(),
            "{how}: exit {status}; stdout:\n{stdout}\nstderr:\n{stderr}"
        );
        assert!(
            status.code().is_some(),
            "{how}: killed by a signal: {status}"
        );
        let message = stderr.to_lowercase();
        assert!(
            message.contains("retry schedule") || message.contains("retry-schedule"),
            "{how}: the message does not name the schedule:\n{stderr}"
        );
        assert!(
            !stdout.contains("listening") && !stdout.contains("ut_live_"),
            "{how}: the server started before refusing the schedule:\n{stdout}"
        );
    }

    // The control: the same command with a valid schedule (flag and variable) starts.
    let server = start(&url, &["--webhook-retry-schedule", "0,0.5,1.5"]);
    assert!(server.key.is_some(), "the database was empty until now");
    drop(server);
    let mut env_ok = serve_command(&url, &[]);
    env_ok.env("UNDERTONE_WEBHOOK_RETRY_SCHEDULE", "0,1");
    let server = Server::spawn(env_ok);
    assert_eq!(
        server.key, None,
        "a key is printed only for an empty database"
    );
}
