//! The load generator and poller of `scripts/bench-service`: a small HTTP/1.1 client
//! over blocking `std::net` sockets, with keep-alive, one thread per connection.
//!
//! ```text
//! bench_load ttfs --url http://ADDR --key KEY --body FILE [--runs 100] [--warmup 3] [--poll-ms 1]
//! bench_load load --url http://ADDR [--url http://ADDR2 …] --body FILE [--key KEY]
//!                 [--seconds 10] [--connections 8] [--path /api/v1/ingest] [--backoff-ms 50]
//!                 [--drain] [--server-pid PID [--server-pid PID2 …]] [--clk-tck 100]
//! ```
//!
//! Several `--url`s are servers of one cluster (one database): load connections and
//! status reads are spread over them in turn; ttfs and the queue depth use the first.
//!
//! **ttfs** (time to first signal), sequentially `--runs` times after `--warmup`
//! uncounted runs: POST the body to `/api/v1/ingest`, then GET
//! `/api/v1/intelligence/{id}?view=condensed` every `--poll-ms` until `status` is
//! `complete`. The time runs from just before the POST is written to the end of the
//! first answer that says `complete`. Afterwards, outside that time, the full view
//! is fetched once and timed on its own.
//!
//! **load**: `--connections` threads, each with one keep-alive connection, POST the
//! body back to back for `--seconds`. A 202 counts its `event_count`; a 503 (queue
//! full) is counted and its connection waits `--backoff-ms` before the next POST;
//! anything else is an error. With `--drain` (the Undertone server), the generator
//! then polls `/api/v1/healthz` until `queue_depth` is 0, and reads the status of
//! every accepted session: the scored rate is the events of sessions that are
//! `complete`, divided by the time from the first POST to the empty queue. With
//! `--server-pid`, the servers' CPU time (user + system, from `/proc/PID/stat`, summed
//! over every PID given) over the same interval is divided by the events scored (or
//! accepted, without `--drain`).
//!
//! Output: readable lines, then `metric NAME VALUE` lines for the script.

use std::error::Error;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

type Failure = Box<dyn Error + Send + Sync>;

/// One HTTP answer.
struct Reply {
    status: u16,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Result<Value, Failure> {
        serde_json::from_slice(&self.body).map_err(|e| {
            format!(
                "HTTP {}: the body is not JSON ({e}): {}",
                self.status,
                String::from_utf8_lossy(&self.body[..self.body.len().min(300)])
            )
            .into()
        })
    }
}

/// A keep-alive HTTP/1.1 connection that reconnects after an error or a close.
struct Client {
    addr: String,
    conn: Option<BufReader<TcpStream>>,
}

impl Client {
    fn new(addr: &str) -> Self {
        Client {
            addr: addr.to_owned(),
            conn: None,
        }
    }

    /// The bytes of a request.
    fn request(&self, method: &str, path: &str, key: Option<&str>, body: Option<&[u8]>) -> Vec<u8> {
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.addr);
        if let Some(key) = key {
            head.push_str(&format!("Authorization: Bearer {key}\r\n"));
        }
        if let Some(body) = body {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        if let Some(body) = body {
            bytes.extend_from_slice(body);
        }
        bytes
    }

    /// Writes `request` and reads the answer; on any error the connection is dropped
    /// (and opened again by the next call). Never retries.
    fn send(&mut self, request: &[u8]) -> io::Result<Reply> {
        if self.conn.is_none() {
            let stream = TcpStream::connect(&self.addr)?;
            stream.set_nodelay(true)?;
            self.conn = Some(BufReader::with_capacity(64 * 1024, stream));
        }
        let Some(conn) = self.conn.as_mut() else {
            return Err(io::Error::other("no connection"));
        };
        let result = conn
            .get_mut()
            .write_all(request)
            .and_then(|()| read_reply(conn));
        match result {
            Ok((reply, keep)) => {
                if !keep {
                    self.conn = None;
                }
                Ok(reply)
            }
            Err(e) => {
                self.conn = None;
                Err(e)
            }
        }
    }

    fn get(&mut self, path: &str, key: Option<&str>) -> io::Result<Reply> {
        let request = self.request("GET", path, key, None);
        self.send(&request)
    }
}

/// Reads one answer; also says whether the connection stays open.
fn read_reply(r: &mut BufReader<TcpStream>) -> io::Result<(Reply, bool)> {
    let mut line = String::new();
    if r.read_line(&mut line)? == 0 {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the server closed the connection",
        ));
    }
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| io::Error::other(format!("bad status line {line:?}")))?;
    let mut length = None;
    let mut chunked = false;
    let mut keep = true;
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "end of stream in the headers",
            ));
        }
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((name, value)) = l.split_once(':') {
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse::<usize>().ok(),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "connection" => keep = !value.eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| io::Error::other(format!("bad chunk size {line:?}")))?;
            if size == 0 {
                loop {
                    line.clear();
                    if r.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            r.read_exact(&mut body[start..])?;
            line.clear();
            r.read_line(&mut line)?;
        }
    } else if let Some(n) = length {
        body.resize(n, 0);
        r.read_exact(&mut body)?;
    } else {
        r.read_to_end(&mut body)?;
        keep = false;
    }
    Ok((Reply { status, body }, keep))
}

/// Command-line options (`--name value` pairs after the mode).
struct Opts {
    mode: String,
    /// Servers, `host:port`; load connections are spread over them in turn.
    addrs: Vec<String>,
    key: Option<String>,
    body: Vec<u8>,
    runs: usize,
    warmup: usize,
    poll: Duration,
    seconds: f64,
    connections: usize,
    path: String,
    backoff: Duration,
    drain: bool,
    /// Processes whose CPU time is measured (every server of a cluster).
    server_pids: Vec<u32>,
    clk_tck: f64,
}

fn parse_args() -> Result<Opts, Failure> {
    let mut args = std::env::args().skip(1);
    let mode = args
        .next()
        .ok_or("usage: bench_load ttfs|load --url URL --body FILE …")?;
    let mut o = Opts {
        mode,
        addrs: Vec::new(),
        key: None,
        body: Vec::new(),
        runs: 100,
        warmup: 3,
        poll: Duration::from_millis(1),
        seconds: 10.0,
        connections: 8,
        path: "/api/v1/ingest".to_owned(),
        backoff: Duration::from_millis(50),
        drain: false,
        server_pids: Vec::new(),
        clk_tck: 100.0,
    };
    while let Some(flag) = args.next() {
        if flag == "--drain" {
            o.drain = true;
            continue;
        }
        let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => o.addrs.push(
                value
                    .strip_prefix("http://")
                    .ok_or("--url must start with http://")?
                    .trim_end_matches('/')
                    .to_owned(),
            ),
            "--key" => o.key = Some(value),
            "--body" => o.body = std::fs::read(&value)?,
            "--runs" => o.runs = value.parse()?,
            "--warmup" => o.warmup = value.parse()?,
            "--poll-ms" => o.poll = Duration::from_secs_f64(value.parse::<f64>()? / 1000.0),
            "--seconds" => o.seconds = value.parse()?,
            "--connections" => o.connections = value.parse::<usize>()?.max(1),
            "--path" => o.path = value,
            "--backoff-ms" => o.backoff = Duration::from_millis(value.parse()?),
            "--server-pid" => o.server_pids.push(value.parse()?),
            "--clk-tck" => o.clk_tck = value.parse()?,
            _ => return Err(format!("unknown option {flag}").into()),
        }
    }
    if o.addrs.is_empty() || o.body.is_empty() {
        return Err("--url and --body are required".into());
    }
    Ok(o)
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// User + system CPU seconds of a process (every thread), from `/proc/PID/stat`.
fn cpu_seconds(pid: &str, clk_tck: f64) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of proc(5); `after` starts at field 3.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / clk_tck)
}

fn status_of(reply: &Reply) -> Result<String, Failure> {
    let v = reply.json()?;
    v.get("status")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("HTTP {}: no status in {v}", reply.status).into())
}

fn ttfs(o: &Opts) -> Result<(), Failure> {
    let key = o.key.as_deref().ok_or("ttfs needs --key")?;
    let mut client = Client::new(&o.addrs[0]);
    let post = client.request("POST", "/api/v1/ingest", Some(key), Some(&o.body));
    let (mut signal, mut accepted, mut full, mut polls) = (vec![], vec![], vec![], vec![]);
    let mut full_bytes = 0;
    for run in 0..o.warmup + o.runs {
        let start = Instant::now();
        let reply = client.send(&post)?;
        if reply.status != 202 {
            return Err(format!(
                "POST /api/v1/ingest: HTTP {} {}",
                reply.status,
                String::from_utf8_lossy(&reply.body)
            )
            .into());
        }
        let t_accepted = start.elapsed();
        let id = reply.json()?["session_id"]
            .as_str()
            .ok_or("no session_id in the 202 answer")?
            .to_owned();
        let condensed = format!("/api/v1/intelligence/{id}?view=condensed");
        let poll = client.request("GET", &condensed, Some(key), None);
        let mut n = 0u32;
        let t_signal = loop {
            thread::sleep(o.poll);
            let reply = client.send(&poll)?;
            n += 1;
            if reply.status != 200 {
                return Err(format!("GET {condensed}: HTTP {}", reply.status).into());
            }
            match status_of(&reply)?.as_str() {
                "complete" => break start.elapsed(),
                "failed" => return Err(format!("session {id} failed").into()),
                _ if start.elapsed() > Duration::from_secs(30) => {
                    return Err(format!("session {id} not complete after 30 s").into());
                }
                _ => {}
            }
        };
        let t_full = Instant::now();
        let reply = client.get(&format!("/api/v1/intelligence/{id}"), Some(key))?;
        let t_full = t_full.elapsed();
        if reply.status != 200 || status_of(&reply)? != "complete" {
            return Err(format!("GET full view of {id}: HTTP {}", reply.status).into());
        }
        full_bytes = reply.body.len();
        if run >= o.warmup {
            signal.push(ms(t_signal));
            accepted.push(ms(t_accepted));
            full.push(ms(t_full));
            polls.push(f64::from(n));
        }
    }
    for v in [&mut signal, &mut accepted, &mut full] {
        v.sort_by(f64::total_cmp);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "time to first signal, {} runs (+{} warm-up), poll every {:.1} ms with view=condensed:",
        o.runs,
        o.warmup,
        ms(o.poll)
    );
    println!(
        "  POST -> complete  p50 {:.2} ms  p99 {:.2} ms  min {:.2}  max {:.2}  mean {:.2}",
        percentile(&signal, 0.5),
        percentile(&signal, 0.99),
        signal[0],
        signal[signal.len() - 1],
        mean(&signal)
    );
    println!(
        "  POST -> 202       p50 {:.2} ms  p99 {:.2} ms",
        percentile(&accepted, 0.5),
        percentile(&accepted, 0.99)
    );
    println!(
        "  then GET full view ({} bytes)  p50 {:.2} ms  p99 {:.2} ms; {:.1} polls per run",
        full_bytes,
        percentile(&full, 0.5),
        percentile(&full, 0.99),
        mean(&polls)
    );
    println!("metric ttfs_runs {}", o.runs);
    println!("metric ttfs_p50_ms {:.3}", percentile(&signal, 0.5));
    println!("metric ttfs_p99_ms {:.3}", percentile(&signal, 0.99));
    println!("metric ttfs_min_ms {:.3}", signal[0]);
    println!("metric ttfs_max_ms {:.3}", signal[signal.len() - 1]);
    println!("metric accept_p50_ms {:.3}", percentile(&accepted, 0.5));
    println!("metric accept_p99_ms {:.3}", percentile(&accepted, 0.99));
    println!("metric full_fetch_p50_ms {:.3}", percentile(&full, 0.5));
    println!("metric full_bytes {full_bytes}");
    println!("metric polls_mean {:.1}", mean(&polls));
    Ok(())
}

/// What one load connection saw.
#[derive(Default)]
struct Tally {
    accepted: u64,
    events: u64,
    full: u64,
    errors: u64,
    first_error: Option<String>,
    latencies_ms: Vec<f64>,
    sessions: Vec<(String, u64)>,
}

fn load_connection(o: &Opts, n: usize, stop: &AtomicBool) -> Tally {
    let mut client = Client::new(&o.addrs[n % o.addrs.len()]);
    let post = client.request("POST", &o.path, o.key.as_deref(), Some(&o.body));
    let mut t = Tally::default();
    while !stop.load(Ordering::Relaxed) {
        let start = Instant::now();
        match client.send(&post) {
            Ok(reply) if reply.status == 202 => {
                t.latencies_ms.push(ms(start.elapsed()));
                t.accepted += 1;
                let v: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
                let events = v["event_count"].as_u64().unwrap_or(0);
                t.events += events;
                if let Some(id) = v["session_id"].as_str() {
                    t.sessions.push((id.to_owned(), events));
                }
            }
            Ok(reply) if reply.status == 503 => {
                t.full += 1;
                thread::sleep(o.backoff);
            }
            Ok(reply) => {
                t.errors += 1;
                t.first_error.get_or_insert_with(|| {
                    format!(
                        "HTTP {} {}",
                        reply.status,
                        String::from_utf8_lossy(&reply.body[..reply.body.len().min(300)])
                    )
                });
                thread::sleep(o.backoff);
            }
            Err(e) => {
                t.errors += 1;
                t.first_error.get_or_insert_with(|| e.to_string());
                thread::sleep(o.backoff);
            }
        }
    }
    t
}

/// `queue_depth` of `/healthz`, which shows it to a caller with a valid key only.
fn queue_depth(client: &mut Client, key: Option<&str>) -> Result<u64, Failure> {
    let reply = client.get("/api/v1/healthz", key)?;
    reply.json()?["queue_depth"]
        .as_u64()
        .ok_or_else(|| format!("HTTP {}: no queue_depth", reply.status).into())
}

fn load(o: &Opts) -> Result<(), Failure> {
    // The servers' CPU seconds together; `None` when none is given or one is gone.
    let cpu = |pids: &[u32]| -> Option<f64> {
        if pids.is_empty() {
            return None;
        }
        pids.iter()
            .map(|p| cpu_seconds(&p.to_string(), o.clk_tck))
            .sum()
    };
    let pid = &o.server_pids;
    let client_cpu_before = cpu_seconds("self", o.clk_tck);
    let stop = Arc::new(AtomicBool::new(false));
    let depths = Arc::new(Mutex::new(Vec::new()));
    let server_cpu_before = cpu(pid);
    let start = Instant::now();
    let tallies: Vec<Tally> = thread::scope(|s| {
        let handles: Vec<_> = (0..o.connections)
            .map(|n| {
                let stop = &stop;
                s.spawn(move || load_connection(o, n, stop))
            })
            .collect();
        // The queue depth every 500 ms while the load runs (Undertone only).
        if o.drain {
            let (stop, depths) = (&stop, &depths);
            s.spawn(move || {
                let mut client = Client::new(&o.addrs[0]);
                while !stop.load(Ordering::Relaxed) {
                    thread::sleep(Duration::from_millis(500));
                    if let Ok(d) = queue_depth(&mut client, o.key.as_deref())
                        && let Ok(mut v) = depths.lock()
                    {
                        v.push(d);
                    }
                }
            });
        }
        thread::sleep(Duration::from_secs_f64(o.seconds));
        stop.store(true, Ordering::Relaxed);
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let load_s = start.elapsed().as_secs_f64();
    let server_cpu_load = cpu(pid);

    let mut total = Tally::default();
    for t in tallies {
        total.accepted += t.accepted;
        total.events += t.events;
        total.full += t.full;
        total.errors += t.errors;
        if total.first_error.is_none() {
            total.first_error = t.first_error;
        }
        total.latencies_ms.extend(t.latencies_ms);
        total.sessions.extend(t.sessions);
    }
    total.latencies_ms.sort_by(f64::total_cmp);
    let ingest_rate = total.events as f64 / load_s;
    println!(
        "load: {} connections for {load_s:.2} s: {} accepted ({} events, {ingest_rate:.0} events/s), \
         {} answered 503, {} errors",
        o.connections, total.accepted, total.events, total.full, total.errors
    );
    if let Some(e) = &total.first_error {
        println!("  first error: {e}");
    }
    println!(
        "  202 latency p50 {:.2} ms  p99 {:.2} ms",
        percentile(&total.latencies_ms, 0.5),
        percentile(&total.latencies_ms, 0.99)
    );
    println!("metric load_seconds {load_s:.3}");
    println!("metric accepted_requests {}", total.accepted);
    println!("metric accepted_events {}", total.events);
    println!("metric ingest_events_per_s {ingest_rate:.0}");
    println!("metric queue_full_503 {}", total.full);
    println!("metric errors {}", total.errors);
    println!(
        "metric accept_latency_p50_ms {:.3}",
        percentile(&total.latencies_ms, 0.5)
    );
    println!(
        "metric accept_latency_p99_ms {:.3}",
        percentile(&total.latencies_ms, 0.99)
    );

    let mut counted_events = total.events;
    let mut server_cpu_end = server_cpu_load;
    let mut wall = load_s;
    if o.drain {
        let depths = depths.lock().map(|v| v.clone()).unwrap_or_default();
        println!(
            "  queue depth every 0.5 s during the load: {}",
            depths
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        );
        let mut client = Client::new(&o.addrs[0]);
        let deadline = Duration::from_secs(180);
        let mut depth = queue_depth(&mut client, o.key.as_deref())?;
        let depth_at_end = depth;
        while depth > 0 && start.elapsed() < deadline {
            thread::sleep(Duration::from_millis(5));
            depth = queue_depth(&mut client, o.key.as_deref())?;
        }
        let drained_s = start.elapsed().as_secs_f64();
        server_cpu_end = cpu(pid);
        wall = drained_s;
        if depth > 0 {
            println!("  WARNING: the queue still held {depth} jobs after {drained_s:.1} s");
        }
        // Status of every accepted session, read after the clock stopped.
        let key = o.key.as_deref();
        let chunks: Vec<&[(String, u64)]> = total
            .sessions
            .chunks(total.sessions.len().div_ceil(o.connections).max(1))
            .collect();
        let counts: Vec<(u64, u64, u64, u64)> = thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .enumerate()
                .map(|(n, chunk)| {
                    s.spawn(move || {
                        let mut client = Client::new(&o.addrs[n % o.addrs.len()]);
                        let (mut done, mut events, mut failed, mut other) = (0, 0, 0, 0);
                        for (id, n) in *chunk {
                            let path = format!("/api/v1/intelligence/{id}?view=condensed");
                            match client.get(&path, key).ok().map(|r| status_of(&r)) {
                                Some(Ok(s)) if s == "complete" => {
                                    done += 1;
                                    events += n;
                                }
                                Some(Ok(s)) if s == "failed" => failed += 1,
                                _ => other += 1,
                            }
                        }
                        (done, events, failed, other)
                    })
                })
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        });
        let (done, events, failed, other) = counts.iter().fold((0, 0, 0, 0), |a, c| {
            (a.0 + c.0, a.1 + c.1, a.2 + c.2, a.3 + c.3)
        });
        counted_events = events;
        let scored_rate = events as f64 / drained_s;
        // Scoring alone, once the load stopped: the jobs queued at its end.
        let per_session = total.events as f64 / total.accepted.max(1) as f64;
        let drain_rate = depth_at_end as f64 * per_session / (drained_s - load_s).max(1e-9);
        println!(
            "drain: queue {depth_at_end} at the end of the load, empty {drained_s:.2} s after the first POST; \
             {done} sessions complete ({events} events), {failed} failed, {other} other"
        );
        println!(
            "  ingested and scored: {scored_rate:.0} events/s; after the load stopped, \
             scoring alone: {drain_rate:.0} events/s"
        );
        println!("metric queue_depth_at_load_end {depth_at_end}");
        println!(
            "metric queue_depth_max {}",
            depths.iter().copied().max().unwrap_or(depth_at_end)
        );
        println!("metric drained_seconds {drained_s:.3}");
        println!("metric sessions_complete {done}");
        println!("metric sessions_failed {failed}");
        println!("metric sessions_other {other}");
        println!("metric scored_events {events}");
        println!("metric scored_events_per_s {scored_rate:.0}");
        println!("metric drain_events_per_s {drain_rate:.0}");
    }
    if let (Some(before), Some(after)) = (server_cpu_before, server_cpu_end) {
        let used = after - before;
        let per_event = used * 1e6 / counted_events.max(1) as f64;
        println!(
            "server CPU: {used:.2} s (user + system) over the {} ({:.2} cores busy on average), \
             {per_event:.1} µs per event {}",
            if o.drain {
                "load and the drain"
            } else {
                "load"
            },
            used / wall,
            if o.drain { "scored" } else { "accepted" }
        );
        println!("metric server_cpu_s {used:.2}");
        println!("metric server_cpu_us_per_event {per_event:.2}");
    }
    if let (Some(before), Some(after)) = (client_cpu_before, cpu_seconds("self", o.clk_tck)) {
        println!("load generator CPU: {:.2} s", after - before);
        println!("metric client_cpu_s {:.2}", after - before);
    }
    Ok(())
}

fn main() -> Result<(), Failure> {
    let o = parse_args()?;
    match o.mode.as_str() {
        "ttfs" => ttfs(&o),
        "load" => load(&o),
        other => Err(format!("unknown mode {other}; use ttfs or load").into()),
    }
}
