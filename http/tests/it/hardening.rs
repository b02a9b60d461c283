//! The real `undertone serve` under hostile and unlucky clients: a slow request head is
//! disconnected, a stalled body fails, requests beyond the request and body-byte
//! budgets are shed with 503 and `Retry-After` while the others are served, and what
//! the HTTP layer refuses before any route gets the status docs/service.md gives.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::real_server::{Server, request, serve_command};

/// A server on a fresh SQLite file with `args`, and its first key.
fn start(dir: &tempfile::TempDir, args: &[&str]) -> (Server, String) {
    let db = format!("sqlite://{}/h.db", dir.path().display());
    let server = Server::spawn(serve_command(&db, args));
    let key = server.key.clone().expect("the first start prints a key");
    (server, key)
}

/// Opens a connection and sends `head` (and nothing more).
fn send_head(server: &Server, head: &str) -> TcpStream {
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .expect("read timeout");
    stream.write_all(head.as_bytes()).expect("head sent");
    stream
}

/// Everything the server sends until it closes the connection.
fn read_all(stream: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    String::from_utf8_lossy(&raw).into_owned()
}

/// The head of an ingest whose body of `length` bytes is not sent (yet).
fn pending_ingest(server: &Server, key: &str, length: usize) -> String {
    format!(
        "POST /api/v1/ingest HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n",
        server.addr
    )
}

#[test]
fn a_client_slower_than_the_header_timeout_is_disconnected() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--header-timeout", "1"]);
    let started = Instant::now();
    let mut slow = send_head(&server, "GET /api/v1/healthz HTTP/1.1\r\nHost: x\r\n");
    let answer = read_all(&mut slow);
    let waited = started.elapsed();
    // Closed by the server after about a second, with no answer to a request it never
    // finished reading (or a 408 saying so).
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    // Everyone else is served.
    let ok = request(server.addr, "GET", "/api/v1/key", &key, None);
    assert_eq!(ok.status, 200);
    server.assert_no_panic();
}

/// Reads one HTTP/2 frame: `(type, flags, payload)`, or `None` once the server has
/// closed the connection.
fn read_frame(stream: &mut TcpStream) -> Option<(u8, u8, Vec<u8>)> {
    let mut head = [0u8; 9];
    stream.read_exact(&mut head).ok()?;
    let length = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
    let mut payload = vec![0u8; length];
    stream.read_exact(&mut payload).ok()?;
    Some((head[3], head[4], payload))
}

#[test]
fn an_idle_http2_connection_that_answers_pings_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--header-timeout", "1"]);
    // Cleartext HTTP/2 with prior knowledge: the preface and empty settings, then
    // every frame answered as a live client would (settings acknowledged, pings
    // returned) and no request ever sent.
    let mut h2 = TcpStream::connect(server.addr).expect("connect");
    h2.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("read timeout");
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    h2.write_all(&preface).expect("preface sent");
    let started = Instant::now();
    let (mut pings, mut goaway) = (0, false);
    while let Some((kind, flags, payload)) = read_frame(&mut h2) {
        let ack = flags & 1 == 1;
        match kind {
            // SETTINGS: acknowledged.
            4 if !ack => {
                let _ = h2.write_all(&[0, 0, 0, 4, 1, 0, 0, 0, 0]);
            }
            // PING: returned with the ACK flag.
            6 if !ack => {
                pings += 1;
                let mut pong = vec![0, 0, 8, 6, 1, 0, 0, 0, 0];
                pong.extend(&payload);
                let _ = h2.write_all(&pong);
            }
            7 => goaway = true,
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "still open after {:?} ({pings} pings answered)",
            started.elapsed()
        );
    }
    // Told to go away and closed after one to two header timeouts of idleness, the
    // pings answered all along.
    let waited = started.elapsed();
    assert!(goaway, "closed without GOAWAY");
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    let ok = request(server.addr, "GET", "/api/v1/key", &key, None);
    assert_eq!(ok.status, 200);
    server.assert_no_panic();
}

#[test]
fn a_client_that_sends_nothing_is_disconnected_after_the_header_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--header-timeout", "1"]);
    // Connections that never send a byte: each is closed after about a second, not
    // held until the client lets go (enough of them would take every descriptor).
    let started = Instant::now();
    let mut silent: Vec<TcpStream> = (0..20).map(|_| send_head(&server, "")).collect();
    for stream in &mut silent {
        assert_eq!(read_all(stream), "");
    }
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    // An HTTP/2 connection (cleartext, prior knowledge) that sends its preface and
    // settings and then nothing is pinged, and closed when the ping goes unanswered.
    let started = Instant::now();
    let mut preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    preface.extend([0, 0, 0, 4, 0, 0, 0, 0, 0]); // an empty SETTINGS frame
    let mut h2 = TcpStream::connect(server.addr).expect("connect");
    h2.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("read timeout");
    h2.write_all(&preface).expect("preface sent");
    let mut frames = Vec::new();
    let closed = h2.read_to_end(&mut frames).is_ok();
    assert!(closed, "still open after {:?}", started.elapsed());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // A connection kept alive after an answer is closed the same way once idle.
    let mut idle = send_head(
        &server,
        &format!(
            "GET /api/v1/healthz HTTP/1.1\r\nHost: {}\r\n\r\n",
            server.addr
        ),
    );
    let started = Instant::now();
    let answer = read_all(&mut idle);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let ok = request(server.addr, "GET", "/api/v1/key", &key, None);
    assert_eq!(ok.status, 200);
    server.assert_no_panic();
}

#[test]
fn a_stalled_body_fails_after_the_body_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--body-timeout", "1"]);
    let started = Instant::now();
    let mut stalled = send_head(&server, &pending_ingest(&server, &key, 1000));
    stalled
        .write_all(b"{\"deployment_id\": ")
        .expect("a first piece");
    let answer = read_all(&mut stalled);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("the request body could not be read"),
        "{answer}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // An MCP message that stalls says the same, not that it was too large.
    let mut stalled = send_head(
        &server,
        &format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: 100\r\nConnection: close\r\n\r\n{{",
            server.addr
        ),
    );
    let answer = read_all(&mut stalled);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("body: the request body could not be read"),
        "{answer}"
    );
    server.assert_no_panic();
}

#[test]
fn a_declared_body_over_16_mib_is_refused_at_once_and_takes_no_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--max-inflight-body-mib", "16"]);
    // 100 GiB declared, nothing sent: answered at once, not after the 30 s body timeout.
    let started = Instant::now();
    let mut huge = send_head(&server, &pending_ingest(&server, &key, 100 << 30));
    let answer = read_all(&mut huge);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains(
            r#""message":"body: is 107374182400 bytes; the limit is 16777216 bytes (16 MiB)""#
        ),
        "{answer}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // One byte over the limit is refused the same way, and while such a client is
    // still connected an ingest of someone else is accepted: it reserved nothing.
    let _over = send_head(
        &server,
        &pending_ingest(&server, &key, 16 * 1024 * 1024 + 1),
    );
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/support-refund-goes-wrong.json"
    ))
    .expect("example");
    let ok = request(server.addr, "POST", "/api/v1/ingest", &key, Some(&body));
    assert_eq!(ok.status, 202, "{}", ok.text());
    server.assert_no_panic();
}

#[test]
fn an_mcp_message_may_be_larger_than_a_rest_body_up_to_its_own_limit() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &[]);
    let head = |length: usize| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\n\
             Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
             Content-Length: {length}\r\nConnection: close\r\n\r\n",
            server.addr
        )
    };
    // Over the MCP limit (3 × 16 MiB + 64 KiB): refused at once, in the body's words.
    let mut over = send_head(&server, &head(50_397_185));
    let answer = read_all(&mut over);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains(r#""message":"body: is 50397185 bytes; the limit is 50397184 bytes""#),
        "{answer}"
    );
    // 20 MiB declared is within it: the server waits for the body instead (it is never
    // sent, so the read times out or the connection is dropped; not a 400 about size).
    let mut within = send_head(&server, &head(20 << 20));
    within
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut first = [0u8; 64];
    let read = Read::read(&mut within, &mut first);
    assert!(
        matches!(read, Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock
            || e.kind() == std::io::ErrorKind::TimedOut),
        "answered before the body came: {read:?} {:?}",
        String::from_utf8_lossy(&first)
    );
    server.assert_no_panic();
}

#[test]
fn a_body_that_drips_in_fails_soon_after_the_body_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--body-timeout", "1"]);
    let mut dripping = send_head(&server, &pending_ingest(&server, &key, 1000));
    let started = Instant::now();
    // One byte every 200 ms: never a pause as long as the body timeout, so only the
    // rate floor can end it (1 000 bytes would take 200 s).
    let mut writer = dripping.try_clone().expect("a second handle");
    let drip = std::thread::spawn(move || {
        for _ in 0..75 {
            if writer.write_all(b" ").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    });
    let answer = read_all(&mut dripping);
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("the body arrived slower than 64 KiB/s on average after the first 1 s"),
        "{answer}"
    );
    assert!(took < Duration::from_secs(5), "{took:?}");
    let _ = drip.join();
    server.assert_no_panic();
}

#[test]
fn a_compressed_body_is_refused_with_415_naming_the_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &[]);
    let body = b"\x1f\x8b\x08\x00\x00\x00\x00\x00";
    let head = format!(
        "POST /api/v1/ingest HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {key}\r\n\
         Content-Type: application/json\r\nContent-Encoding: gzip\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        server.addr,
        body.len()
    );
    let mut stream = send_head(&server, &head);
    stream.write_all(body).expect("the body");
    let answer = read_all(&mut stream);
    assert!(answer.starts_with("HTTP/1.1 415"), "{answer}");
    assert!(
        answer.contains("`Content-Encoding: gzip` is not supported; send the body uncompressed"),
        "{answer}"
    );
    server.assert_no_panic();
}

/// The status line and the body of an answer (empty when it has none).
fn status_and_body(answer: &str) -> (&str, &str) {
    let status = answer.lines().next().unwrap_or_default();
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, body)
}

#[test]
fn requests_the_http_layer_cannot_read_get_a_bare_status_as_documented() {
    // docs/service.md, "Errors": these three are answered by the HTTP layer before any
    // route sees the request, with no JSON body, and the connection closed.
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &[]);
    // 101 headers in all (`Host` and 100 more): one over the HTTP layer's limit.
    let headers: String = (0..100).map(|i| format!("X-Header-{i}: v\r\n")).collect();
    let cases = [
        (
            format!("GET /api/v1/key HTTP/1.1\r\nHost: x\r\n{headers}\r\n"),
            "HTTP/1.1 431 Request Header Fields Too Large",
        ),
        (
            format!(
                "GET /api/v1/key?q={} HTTP/1.1\r\nHost: x\r\n\r\n",
                "a".repeat(65_535)
            ),
            "HTTP/1.1 414 URI Too Long",
        ),
        (
            "NOT HTTP AT ALL\r\n\r\n".to_string(),
            "HTTP/1.1 400 Bad Request",
        ),
    ];
    for (head, expected) in &cases {
        let answer = read_all(&mut send_head(&server, head));
        let (status, body) = status_and_body(&answer);
        assert_eq!(status, *expected, "{answer}");
        assert!(answer.contains("content-length: 0\r\n"), "{answer}");
        assert_eq!(body, "", "{answer}");
    }
    // 100 headers in all, and a URI of 65 534 bytes: at the limits, they reach the
    // routes (and their JSON).
    let headers: String = (0..97).map(|i| format!("X-Header-{i}: v\r\n")).collect();
    let head = format!(
        "GET /api/v1/key HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
         Connection: close\r\n{headers}\r\n"
    );
    let answer = read_all(&mut send_head(&server, &head));
    assert_eq!(status_and_body(&answer).0, "HTTP/1.1 200 OK", "{answer}");
    let path = format!(
        "/api/v1/key?q={}",
        "a".repeat(65_534 - "/api/v1/key?q=".len())
    );
    let head = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    let answer = read_all(&mut send_head(&server, &head));
    let (status, body) = status_and_body(&answer);
    assert_eq!(status, "HTTP/1.1 401 Unauthorized", "{answer}");
    assert!(
        body.starts_with("{\"error\":{\"code\":\"UNAUTHORIZED\""),
        "{body}"
    );
    server.assert_no_panic();
}

#[test]
fn bodies_over_the_byte_budget_are_shed_until_room_frees_up() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--max-inflight-body-mib", "16"]);
    // One client declares a 16 MiB body and sends nothing: the budget is taken.
    let holder = send_head(&server, &pending_ingest(&server, &key, 16 * 1024 * 1024));
    std::thread::sleep(Duration::from_millis(300));
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/support-refund-goes-wrong.json"
    ))
    .expect("example");
    let shed = request(server.addr, "POST", "/api/v1/ingest", &key, Some(&body));
    assert_eq!(shed.status, 503, "{}", shed.text());
    assert_eq!(shed.json()["error"]["code"], "SERVICE_UNAVAILABLE");
    let message = shed.json()["error"]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("request bodies"), "{message}");
    // Reads need no body budget and are still served.
    assert_eq!(
        request(server.addr, "GET", "/api/v1/key", &key, None).status,
        200
    );
    // The holder goes away: the same ingest is accepted.
    drop(holder);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = request(server.addr, "POST", "/api/v1/ingest", &key, Some(&body));
        if reply.status == 202 {
            break;
        }
        assert!(Instant::now() < deadline, "{}", reply.text());
        std::thread::sleep(Duration::from_millis(100));
    }
    server.assert_no_panic();
}

#[test]
fn requests_over_the_concurrency_limit_are_shed_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(&dir, &["--max-concurrent-requests", "1"]);
    let holder = send_head(&server, &pending_ingest(&server, &key, 100));
    std::thread::sleep(Duration::from_millis(300));
    let mut second = send_head(
        &server,
        &format!(
            "GET /api/v1/key HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\n\
             Connection: close\r\n\r\n"
        ),
    );
    let answer = read_all(&mut second);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\nretry-after: 1\r\n"),
        "{answer}"
    );
    drop(holder);
    let deadline = Instant::now() + Duration::from_secs(10);
    while request(server.addr, "GET", "/api/v1/key", &key, None).status != 200 {
        assert!(Instant::now() < deadline, "never served again");
        std::thread::sleep(Duration::from_millis(100));
    }
    server.assert_no_panic();
}

#[test]
fn metrics_and_json_logs_describe_what_the_server_did() {
    let dir = tempfile::tempdir().unwrap();
    let (server, key) = start(
        &dir,
        &["--metrics-addr", "127.0.0.1:0", "--log-format", "json"],
    );
    let metrics_at = server.metrics.expect("the metrics address is printed");
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/support-refund-goes-wrong.json"
    ))
    .expect("example");
    let accepted = request(server.addr, "POST", "/api/v1/ingest", &key, Some(&body));
    assert_eq!(accepted.status, 202, "{}", accepted.text());
    let id = accepted.json()["session_id"].as_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    let session = loop {
        let s = request(
            server.addr,
            "GET",
            &format!("/api/v1/intelligence/{id}"),
            &key,
            None,
        );
        if s.json()["status"] == "complete" {
            break s.json();
        }
        assert!(Instant::now() < deadline, "{}", s.text());
        std::thread::sleep(Duration::from_millis(50));
    };
    let turns = session["full_output"]["intelligence"]["human_turn_count"]
        .as_u64()
        .expect("a count");
    // Metrics are served on their own listener, off the API.
    let scraped = request(metrics_at, "GET", "/metrics", "", None);
    assert_eq!(scraped.status, 200);
    let text = scraped.text();
    let value = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in\n{text}"))
    };
    assert_eq!(
        value(r#"undertone_jobs_finished_total{kind="ingest",status="complete"}"#),
        1.0
    );
    assert_eq!(value("undertone_scored_turns_total"), turns as f64);
    assert_eq!(value("undertone_queue_depth"), 0.0);
    assert_eq!(value("undertone_queue_oldest_age_seconds"), 0.0);
    assert!(text.contains("undertone_job_duration_seconds"), "{text}");
    assert_eq!(
        request(server.addr, "GET", "/metrics", &key, None).status,
        404,
        "not on the API listener"
    );
    // Every log line is one JSON object with a level.
    let log = server.log();
    let lines: Vec<&str> = log.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!lines.is_empty());
    for line in lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v["level"].is_string(), "{line}");
    }
    server.assert_no_panic();
}

/// A key created with `undertone keys create` on the server's database.
fn second_key(dir: &tempfile::TempDir) -> String {
    let db = format!("sqlite://{}/h.db", dir.path().display());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_undertone"))
        .args([
            "keys",
            "create",
            "--name",
            "second",
            "--scope",
            "read-write",
            "--database",
            &db,
        ])
        .output()
        .expect("keys create runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("key:"))
        .map(|k| k.trim().to_owned())
        .expect("a key line")
}

/// An HTTP receiver on 127.0.0.1 that answers 200 to everything; its URL.
fn ok_receiver() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            });
        }
    });
    url
}

#[test]
#[ignore = "the load check: scripts/test runs it with --ignored --nocapture to print its figures"]
fn load_one_key_floods_ingest_and_webhook_tests_while_another_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let (server, flooder) = start(
        &dir,
        &[
            "--queue-capacity",
            "20",
            "--workers",
            "1",
            "--allow-private-webhooks",
        ],
    );
    let other = second_key(&dir);
    let body = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/support-refund-goes-wrong.json"
    ))
    .expect("example");
    let hook = request(
        server.addr,
        "POST",
        "/api/v1/webhooks",
        &flooder,
        Some(
            serde_json::json!({"url": ok_receiver(), "events": ["anomaly_detected"]})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(hook.status, 201, "{}", hook.text());
    let hook_id = hook.json()["id"].as_str().unwrap().to_owned();

    // The flood: four connections of ingests and webhook tests from one key.
    let started = Instant::now();
    let flood: Vec<_> = (0..4)
        .map(|t| {
            let (addr, key, body, hook_id) =
                (server.addr, flooder.clone(), body.clone(), hook_id.clone());
            std::thread::spawn(move || {
                let mut counts = std::collections::BTreeMap::<u16, u32>::new();
                for i in 0..40 {
                    let reply = if (i + t) % 4 == 0 {
                        request(
                            addr,
                            "POST",
                            &format!("/api/v1/webhooks/{hook_id}/test"),
                            &key,
                            Some(b"{}"),
                        )
                    } else {
                        request(addr, "POST", "/api/v1/ingest", &key, Some(&body))
                    };
                    *counts.entry(reply.status).or_default() += 1;
                }
                counts
            })
        })
        .collect();
    // Meanwhile the other key ingests ten times.
    let mut accepted = Vec::new();
    for _ in 0..10 {
        let reply = request(server.addr, "POST", "/api/v1/ingest", &other, Some(&body));
        assert_eq!(
            reply.status,
            202,
            "the other key was refused: {}",
            reply.text()
        );
        accepted.push((
            Instant::now(),
            reply.json()["session_id"].as_str().unwrap().to_owned(),
        ));
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut flood_counts = std::collections::BTreeMap::<u16, u32>::new();
    for f in flood {
        for (status, n) in f.join().expect("the flood thread ends") {
            *flood_counts.entry(status).or_default() += n;
        }
    }
    // Every one of the other key's sessions completes.
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut waits = Vec::new();
    for (at, id) in &accepted {
        loop {
            let s = request(
                server.addr,
                "GET",
                &format!("/api/v1/intelligence/{id}"),
                &other,
                None,
            );
            if s.json()["status"] == "complete" {
                waits.push(at.elapsed().as_secs_f64());
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{id} never completed: {}",
                s.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    waits.sort_by(f64::total_cmp);
    println!(
        "load check ({:.1} s): flooding key, 160 requests (120 ingests, 40 webhook tests) \
         on 4 connections, answered {flood_counts:?}; other key: 10/10 ingests accepted (202), \
         all complete, from acceptance to complete median {:.2} s, max {:.2} s \
         (queue capacity 20, a key's share 50%, 1 worker)",
        started.elapsed().as_secs_f64(),
        waits[waits.len() / 2],
        waits[waits.len() - 1]
    );
    assert!(
        flood_counts.get(&503).copied().unwrap_or(0) > 0,
        "the flood never reached its share: {flood_counts:?}"
    );
    server.assert_no_panic();
}

#[test]
fn a_job_longer_than_its_lease_is_scored_once_by_one_worker() {
    let dir = tempfile::tempdir().unwrap();
    // A one-second lease; the job below takes longer than that to score here.
    let (server, key) = start(&dir, &["--lease-seconds", "1", "--workers", "2"]);
    let text = "my refund still has not arrived and nobody answers ".repeat(50);
    let events: Vec<serde_json::Value> = (0..3000)
        .map(|i| {
            serde_json::json!({
                "conversation_id": "long",
                "actor_id": if i % 2 == 0 { "cust" } else { "acme-bot" },
                "content": format!("{text} ({i})"),
                "timestamp": format!("2026-11-21T{:02}:{:02}:{:02}Z", 9 + i / 3600, i / 60 % 60, i % 60),
            })
        })
        .collect();
    let body = serde_json::json!({"deployment_id": "acme-bot", "events": events}).to_string();
    let accepted = request(
        server.addr,
        "POST",
        "/api/v1/ingest",
        &key,
        Some(body.as_bytes()),
    );
    assert_eq!(accepted.status, 202, "{}", accepted.text());
    let id = accepted.json()["session_id"].as_str().unwrap().to_owned();
    let started = Instant::now();
    loop {
        let s = request(
            server.addr,
            "GET",
            &format!("/api/v1/intelligence/{id}?view=condensed"),
            &key,
            None,
        );
        match s.json()["status"].as_str() {
            Some("complete") => break,
            Some("failed") => panic!("{}", s.text()),
            _ => {}
        }
        assert!(started.elapsed() < Duration::from_secs(300), "not complete");
        std::thread::sleep(Duration::from_millis(100));
    }
    let took = started.elapsed();
    let log = server.log();
    // The heartbeat kept the lease: no second worker took the job over.
    assert!(!log.contains("leases expired"), "{log}");
    assert!(!log.contains("lease lost"), "{log}");
    assert_eq!(log.matches("job finished").count(), 1, "{log}");
    eprintln!("a 3000-event job took {took:?} with a 1 s lease");
    server.assert_no_panic();
}
