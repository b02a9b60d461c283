//! The real `undertone` binary for the tests that run it as a process: `undertone
//! serve` started on 127.0.0.1:0 and killed by a Drop guard on every exit path, and a
//! minimal HTTP/1.1 client over `std::net` (one request per connection,
//! `Connection: close`, the whole response read and parsed: `Content-Length`,
//! chunked, or up to close).

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a server may take to print its listening line (or to exit when it refuses to start).
pub const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a server may take to exit after SIGTERM.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `undertone serve`; killed (SIGKILL) and reaped when dropped, so no test
/// exit path leaves a server behind.
pub struct Server {
    /// The process.
    pub child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// The key printed on first start with an empty database.
    pub key: Option<String>,
    /// Where the metrics listener is, when `--metrics-addr` started one.
    pub metrics: Option<SocketAddr>,
    /// Everything the server wrote to stderr so far (its log).
    log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// `undertone serve` on 127.0.0.1:0 with `database` and `args`, output piped, logs
/// at info, and no retry schedule or backtrace settings inherited from the caller.
pub fn serve_command(database: &str, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_undertone"));
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--database", database])
        .args(args)
        .env("RUST_LOG", "info,sqlx=warn")
        .env_remove("UNDERTONE_WEBHOOK_RETRY_SCHEDULE")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

impl Server {
    /// Runs `command` (an `undertone serve` with piped output); returns once it
    /// listens.
    pub fn spawn(mut command: Command) -> Server {
        let child = command.spawn().expect("undertone serve starts");
        let mut server = Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            key: None,
            metrics: None,
            log: Arc::new(Mutex::new(String::new())),
        };
        let stderr = server.child.stderr.take().expect("stderr is piped");
        let log = Arc::clone(&server.log);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                log.push_str(&line);
                log.push('\n');
            }
        });
        let stdout = server.child.stdout.take().expect("stdout is piped");
        let (lines, received) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = lines.send(line);
            }
        });
        let deadline = Instant::now() + START_TIMEOUT;
        let mut printed = String::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match received.recv_timeout(left) {
                Ok(line) => line,
                Err(e) => panic!(
                    "the server did not print its listening line ({e:?}); stdout:\n{printed}\n\
                     stderr:\n{}",
                    server.log()
                ),
            };
            printed.push_str(&line);
            printed.push('\n');
            let trimmed = line.trim();
            if trimmed.starts_with("ut_live_") {
                server.key = Some(trimmed.to_owned());
            }
            if let Some(rest) = line.strip_prefix("undertone: metrics on http://") {
                server.metrics = rest.trim_end_matches("/metrics").parse().ok();
            }
            if let Some(rest) = line.strip_prefix("undertone: listening on http://") {
                let addr = rest.split(' ').next().unwrap_or_default();
                server.addr = addr
                    .parse()
                    .unwrap_or_else(|e| panic!("bad listening address `{addr}`: {e}"));
                return server;
            }
        }
    }

    /// The log so far.
    pub fn log(&self) -> String {
        self.log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9`: no chance to finish anything.
    pub fn kill_9(&mut self) {
        self.child.kill().expect("the server can be killed");
        self.child.wait().expect("the killed server is reaped");
    }

    /// A `kB` line of `/proc/<pid>/status` (`VmHWM`, `VmRSS`), in KiB.
    pub fn proc_status_kib(&self, field: &str) -> u64 {
        let path = format!("/proc/{}/status", self.pid());
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        text.lines()
            .find_map(|line| {
                let rest = line.strip_prefix(field)?.strip_prefix(':')?;
                rest.trim().strip_suffix("kB")?.trim().parse().ok()
            })
            .unwrap_or_else(|| panic!("no {field} in {path}:\n{text}"))
    }

    /// SIGTERM, then waits (bounded) for the exit status.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("`kill` runs");
        assert!(sent.success(), "kill -TERM failed: {sent}");
        let deadline = Instant::now() + STOP_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("the server can be polled") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {STOP_TIMEOUT:?} of SIGTERM; log:\n{}",
                self.log()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Fails the test when the server's log shows a panic.
    pub fn assert_no_panic(&self) {
        let log = self.log();
        assert!(!log.contains("panicked"), "the server panicked:\n{log}");
    }
}

/// One HTTP response.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body, de-chunked.
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON; panics with the body when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "the body is not JSON ({e}): {}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request on a fresh connection and reads the whole response.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    key: &str,
    body: Option<&[u8]>,
) -> Response {
    let mut stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("read timeout can be set");
    stream
        .set_write_timeout(Some(Duration::from_secs(60)))
        .expect("write timeout can be set");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\n\
         Accept: application/json\r\nConnection: close\r\n"
    );
    if let Some(body) = body {
        head.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    stream
        .write_all(head.as_bytes())
        .expect("request head is sent");
    if let Some(body) = body {
        stream.write_all(body).expect("request body is sent");
    }
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{method} {path}: reading the response: {e}"));
    parse_response(&raw).unwrap_or_else(|| {
        panic!(
            "{method} {path}: malformed response: {}",
            String::from_utf8_lossy(&raw)
        )
    })
}

/// Parses a whole HTTP/1.1 response (`Content-Length`, chunked, or up to close).
fn parse_response(raw: &[u8]) -> Option<Response> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let rest = &raw[end + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse::<usize>().ok()?);
        }
    }
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        rest.get(..n)?.to_vec()
    } else {
        rest.to_vec()
    };
    Some(Response { status, body })
}

fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// Sends `n` copies of `body` to `POST /api/v1/ingest`, the i-th to
/// `servers[i % len]`, from `clients` threads; returns the acknowledged session ids.
/// Anything but 202 `received` fails the test.
pub fn ingest_spread(
    servers: &[SocketAddr],
    key: &str,
    body: &[u8],
    n: usize,
    clients: usize,
) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let acked = Mutex::new(Vec::with_capacity(n));
    thread::scope(|s| {
        for _ in 0..clients {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    let addr = servers[i % servers.len()];
                    let r = request(addr, "POST", "/api/v1/ingest", key, Some(body));
                    assert_eq!(r.status, 202, "ingest to {addr}: {}", r.text());
                    let json = r.json();
                    assert_eq!(json["status"], "received", "{json}");
                    let id = json["session_id"]
                        .as_str()
                        .expect("session_id is a string")
                        .to_owned();
                    acked.lock().unwrap_or_else(|e| e.into_inner()).push(id);
                }
            });
        }
    });
    acked.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The support example as an ingest body; `copies` times its conversations (each copy
/// with its own conversation ids), and `webhook_url` when given.
pub fn example_body(copies: usize, webhook_url: Option<&str>) -> Vec<u8> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/support-refund-goes-wrong.json");
    let text = fs::read_to_string(&path).expect("the example is readable");
    let mut request: Value = serde_json::from_str(&text).expect("the example is JSON");
    let events = request["events"].as_array().expect("events").clone();
    let mut all = Vec::with_capacity(events.len() * copies);
    for copy in 0..copies {
        for event in &events {
            let mut event = event.clone();
            let id = event["conversation_id"].as_str().expect("conversation_id");
            event["conversation_id"] = Value::from(format!("{id}-{copy}"));
            all.push(event);
        }
    }
    request["events"] = Value::from(all);
    if let Some(url) = webhook_url {
        request["webhook_url"] = Value::from(url);
    }
    serde_json::to_vec(&request).expect("the request serialises")
}
