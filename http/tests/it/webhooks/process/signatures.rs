//! Signatures checked by an independent implementation: a Python receiver using `hmac`.

use super::*;

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
