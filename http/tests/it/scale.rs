//! Several `undertone serve` processes on one PostgreSQL database (DESIGN.md §7
//! "Storage", docs/deploy.md): the real binary, started as processes, sharing one
//! queue, one outbox and one set of rate limits.
//!
//! - three servers started at the same moment on an empty database migrate it once
//!   and create one first key; 2,000 ingests spread over them are each scored exactly
//!   once, by whichever process claimed it;
//! - `kill -9` of one of two servers in the middle of scoring and delivering: every
//!   acknowledged session still completes exactly once and every `intelligence.ready`
//!   delivery succeeds, under the same delivery id;
//! - 1,000 concurrent requests of one key against a limit of 100 per hour, spread over
//!   three servers, are admitted exactly 100 times.
//!
//! Each test makes a database of its own on `UNDERTONE_TEST_POSTGRES` (see `pg`) and
//! is skipped, saying so, when that is not set.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::{Connection, PgConnection};

use crate::pg;
use crate::real_server::{self, Server, example_body, ingest_spread, request};
use crate::webhooks::receiver::{Answer, Receiver};

/// How long the servers may take to finish everything acknowledged.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(180);

/// Starts `n` servers on `database` at the same moment (so they race to migrate and
/// to create the first key); returns them once all listen.
fn start_together(database: &str, n: usize, args: &[&str]) -> Vec<Server> {
    thread::scope(|s| {
        let starting: Vec<_> = (0..n)
            .map(|_| s.spawn(|| Server::spawn(real_server::serve_command(database, args))))
            .collect();
        starting
            .into_iter()
            .map(|h| h.join().expect("a server starts"))
            .collect()
    })
}

/// `undertone keys create` with the given limits; returns the key.
fn create_key(database: &str, per_hour: u32, per_day: u32) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_undertone"))
        .args(["keys", "create", "--name", "scale", "--scope", "read-write"])
        .args(["--database", database])
        .args(["--per-hour", &per_hour.to_string()])
        .args(["--per-day", &per_day.to_string()])
        .output()
        .expect("`undertone keys create` runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "keys create failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("key:"))
        .map(|k| k.trim().to_owned())
        .unwrap_or_else(|| panic!("no key in:\n{stdout}"))
}

/// Runs statements against the test database from a sync test.
struct Db {
    runtime: tokio::runtime::Runtime,
    conn: PgConnection,
}

impl Db {
    fn connect(url: &str) -> Db {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let conn = runtime
            .block_on(PgConnection::connect(url))
            .expect("the test database accepts connections");
        Db { runtime, conn }
    }

    fn scalar(&mut self, sql: &'static str) -> i64 {
        self.runtime
            .block_on(sqlx::query_scalar(sql).fetch_one(&mut self.conn))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Runs statements (several, separated by `;`) in one round trip.
    fn execute(&mut self, sql: String) {
        self.runtime
            .block_on(sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&mut self.conn))
            .unwrap_or_else(|e| panic!("the statements fail: {e}"));
    }

    /// Session id → (status, completions).
    fn sessions(&mut self) -> BTreeMap<String, (String, i64)> {
        let rows: Vec<(String, String, i64)> = self
            .runtime
            .block_on(
                sqlx::query_as("SELECT id, status, completions FROM sessions")
                    .fetch_all(&mut self.conn),
            )
            .expect("sessions can be read");
        rows.into_iter().map(|(id, s, c)| (id, (s, c))).collect()
    }

    /// Delivery id → (endpoint, status, attempts).
    fn deliveries(&mut self) -> BTreeMap<String, (String, String, i64)> {
        let rows: Vec<(String, String, String, i64)> = self
            .runtime
            .block_on(
                sqlx::query_as("SELECT id, endpoint, status, attempts FROM deliveries")
                    .fetch_all(&mut self.conn),
            )
            .expect("deliveries can be read");
        rows.into_iter()
            .map(|(id, e, s, a)| (id, (e, s, a)))
            .collect()
    }

    /// Polls until `done` holds, at most `DRAIN_TIMEOUT`; `what` describes the wait.
    fn wait_until(
        &mut self,
        what: &str,
        servers: &[&Server],
        mut done: impl FnMut(&mut Db) -> bool,
    ) {
        let deadline = Instant::now() + DRAIN_TIMEOUT;
        while !done(self) {
            if Instant::now() > deadline {
                let logs: String = servers.iter().map(|s| s.log()).collect();
                panic!("{what}: not done after {DRAIN_TIMEOUT:?}; logs:\n{logs}");
            }
            thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Lines of a server's log that record a finished job.
fn jobs_finished(server: &Server) -> usize {
    server.log().matches("job finished").count()
}

#[test]
fn two_thousand_ingests_over_three_servers_are_each_scored_exactly_once() {
    let Some(db) = pg::database() else { return };
    let servers = start_together(&db.url, 3, &["--workers", "2", "--queue-capacity", "10000"]);
    // One migration run and one first key, whoever won the race.
    let printed: Vec<&String> = servers.iter().filter_map(|s| s.key.as_ref()).collect();
    assert_eq!(printed.len(), 1, "servers that printed a first key");
    let mut sql = Db::connect(&db.url);
    assert_eq!(sql.scalar("SELECT COUNT(*) FROM api_keys"), 1);
    let migrations = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres"))
        .expect("the migrations directory")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "sql"))
        })
        .count();
    assert_eq!(
        sql.scalar("SELECT COUNT(*) FROM _sqlx_migrations WHERE success"),
        i64::try_from(migrations).expect("a count"),
        "each migration is recorded once"
    );

    let key = create_key(&db.url, 1_000_000, 1_000_000);
    let addrs: Vec<SocketAddr> = servers.iter().map(|s| s.addr).collect();
    let body = example_body(1, None);
    let acked = ingest_spread(&addrs, &key, &body, 2000, 8);
    assert_eq!(acked.len(), 2000);
    let distinct: BTreeSet<&String> = acked.iter().collect();
    assert_eq!(distinct.len(), 2000, "every ingest got its own session");

    let refs: Vec<&Server> = servers.iter().collect();
    sql.wait_until("2,000 sessions complete", &refs, |db| {
        db.scalar("SELECT COUNT(*) FROM sessions WHERE status IN ('complete', 'failed')") == 2000
    });
    let sessions = sql.sessions();
    assert_eq!(
        sessions.len(),
        2000,
        "only acknowledged sessions are stored"
    );
    for id in &acked {
        assert_eq!(
            sessions.get(id),
            Some(&("complete".to_owned(), 1)),
            "session {id}: (status, completions)"
        );
    }
    assert_eq!(
        sql.scalar("SELECT COUNT(*) FROM jobs"),
        0,
        "the queue is empty"
    );
    // Each job was finished by exactly one process, and every process took part.
    let finished: Vec<usize> = servers.iter().map(jobs_finished).collect();
    assert_eq!(
        finished.iter().sum::<usize>(),
        2000,
        "jobs finished per server: {finished:?}"
    );
    assert!(
        finished.iter().all(|&n| n > 0),
        "every server scored some jobs: {finished:?}"
    );
    // A session is readable from any process, whichever scored it.
    let r = request(
        addrs[2],
        "GET",
        &format!("/api/v1/intelligence/{}?view=condensed", acked[0]),
        &key,
        None,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["status"], "complete");
    for s in &servers {
        s.assert_no_panic();
    }
}

#[test]
fn kill_9_of_one_server_mid_work_loses_no_session_and_no_delivery() {
    let Some(db) = pg::database() else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime for the receiver");
    // Every delivery takes 300 ms to answer, so some are in flight at the kill.
    let receiver = runtime.block_on(Receiver::start(vec![Answer::Sleep(Duration::from_millis(
        300,
    ))]));
    let args = [
        "--workers",
        "2",
        "--lease-seconds",
        "2",
        "--queue-capacity",
        "10000",
        "--allow-private-webhooks",
    ];
    let mut servers = start_together(&db.url, 2, &args);
    let key = create_key(&db.url, 1_000_000, 1_000_000);
    let addrs: Vec<SocketAddr> = servers.iter().map(|s| s.addr).collect();
    let body = example_body(10, Some(&receiver.url("/hook")));
    let acked = ingest_spread(&addrs, &key, &body, 120, 4);
    assert_eq!(acked.len(), 120);

    let mut sql = Db::connect(&db.url);
    // Mid-work: jobs are queued and leased, and some results are already out for
    // delivery. Each worker holds one lease at a time, so with three or more leased the
    // victim (two workers) holds at least one: the survivor must take it over. (With
    // one leased, both could be the survivor's, and the takeover below never happen.)
    // The counts are those of the moment the wait ended, just before the kill.
    let (mut queued, mut leased) = (0, 0);
    {
        let refs: Vec<&Server> = servers.iter().collect();
        sql.wait_until("deliveries under way, three jobs leased", &refs, |db| {
            queued = db.scalar("SELECT COUNT(*) FROM jobs");
            leased = db.scalar("SELECT COUNT(*) FROM jobs WHERE leased");
            db.scalar("SELECT COUNT(*) FROM deliveries") > 0 && leased >= 3
        });
    }
    assert!(
        queued >= 4 && leased >= 3,
        "no backlog at the kill ({queued} jobs, {leased} leased): the test proves nothing"
    );
    let victim_finished_before = jobs_finished(&servers[0]);
    servers[0].kill_9();
    let survivor = &servers[1];

    sql.wait_until("every session complete and delivered", &[survivor], |db| {
        db.scalar("SELECT COUNT(*) FROM sessions WHERE status IN ('complete', 'failed')") == 120
            && db.scalar("SELECT COUNT(*) FROM deliveries WHERE status = 'pending'") == 0
    });
    let sessions = sql.sessions();
    assert_eq!(sessions.len(), 120);
    for id in &acked {
        assert_eq!(
            sessions.get(id),
            Some(&("complete".to_owned(), 1)),
            "session {id}: (status, completions)"
        );
    }
    assert_eq!(sql.scalar("SELECT COUNT(*) FROM jobs"), 0);
    // The survivor took over the victim's leased jobs.
    assert!(
        survivor.log().contains("leases expired"),
        "the survivor never reclaimed a lost lease; log:\n{}",
        survivor.log()
    );
    assert!(jobs_finished(survivor) + victim_finished_before >= 120);

    // One delivery per session, each succeeded, each seen by the receiver under its
    // id; a delivery reaches the receiver more than once only when an attempt was
    // interrupted by the kill (at most once per attempt).
    let deliveries = sql.deliveries();
    let endpoints: BTreeSet<String> = deliveries.values().map(|(e, _, _)| e.clone()).collect();
    let expected: BTreeSet<String> = acked.iter().map(|id| format!("ingest:{id}")).collect();
    assert_eq!(endpoints, expected, "one delivery per acknowledged session");
    assert_eq!(deliveries.len(), 120);
    let mut seen: BTreeMap<String, i64> = BTreeMap::new();
    for r in receiver.requests() {
        *seen
            .entry(r.header("x-undertone-delivery").to_owned())
            .or_default() += 1;
        let envelope: Value = serde_json::from_slice(&r.body).expect("the envelope is JSON");
        assert_eq!(envelope["event_type"], "intelligence.ready");
        assert_eq!(envelope["data"]["status"], "complete", "{envelope}");
    }
    for (id, (_, status, attempts)) in &deliveries {
        assert_eq!(status, "succeeded", "delivery {id}");
        let received = seen.get(id).copied().unwrap_or(0);
        assert!(
            (1..=*attempts).contains(&received),
            "delivery {id}: received {received} times, {attempts} attempts"
        );
    }
    assert_eq!(
        seen.keys().cloned().collect::<BTreeSet<_>>(),
        deliveries.keys().cloned().collect::<BTreeSet<_>>(),
        "the receiver saw exactly the stored delivery ids"
    );
    survivor.assert_no_panic();
}

#[test]
fn one_key_limited_to_100_per_hour_is_admitted_100_times_across_three_servers() {
    let Some(db) = pg::database() else { return };
    let servers = start_together(&db.url, 3, &["--workers", "1"]);
    let key = create_key(&db.url, 100, 100_000);
    let addrs: Vec<SocketAddr> = servers.iter().map(|s| s.addr).collect();
    // Fixed UTC hour windows: stay clear of a boundary so all 1,000 fall in one.
    let into_hour = chrono::Utc::now().timestamp().rem_euclid(3600);
    if into_hour > 3600 - 60 {
        thread::sleep(Duration::from_secs(
            u64::try_from(3600 - into_hour + 1).unwrap_or(61),
        ));
    }

    let statuses = Arc::new(Mutex::new(BTreeMap::<u16, usize>::new()));
    let next = AtomicUsize::new(0);
    thread::scope(|s| {
        for _ in 0..50 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= 1000 {
                        break;
                    }
                    let r = request(
                        addrs[i % addrs.len()],
                        "GET",
                        "/api/v1/webhooks",
                        &key,
                        None,
                    );
                    *statuses
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .entry(r.status)
                        .or_default() += 1;
                }
            });
        }
    });
    let statuses = statuses.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert_eq!(
        statuses,
        BTreeMap::from([(200, 100), (429, 900)]),
        "status → count over 1,000 requests"
    );
    let mut sql = Db::connect(&db.url);
    assert_eq!(
        sql.scalar("SELECT used FROM rate_windows WHERE kind = 'hour'"),
        100,
        "the stored hour window"
    );
    for s in &servers {
        s.assert_no_panic();
    }
}

/// The SQL block of docs/deploy.md's "Retention" section.
fn retention_sql() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/deploy.md");
    let doc = std::fs::read_to_string(&path).expect("docs/deploy.md is readable");
    let after = doc
        .split_once("<!-- retention-sql")
        .expect("docs/deploy.md marks its retention SQL")
        .1;
    let block = after
        .split_once("```sql\n")
        .expect("a sql block follows the marker")
        .1;
    block
        .split_once("```")
        .expect("the sql block ends")
        .0
        .to_owned()
}

#[test]
fn the_retention_statements_of_deploy_md_delete_only_old_finished_records() {
    let Some(db) = pg::database() else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the receiver");
    let receiver = runtime.block_on(Receiver::start(Vec::new()));
    let mut server = Server::spawn(real_server::serve_command(
        &db.url,
        &["--workers", "2", "--allow-private-webhooks"],
    ));
    let key = create_key(&db.url, 1000, 1000);
    let body = example_body(1, Some(&receiver.url("/hook")));
    let ids = ingest_spread(&[server.addr], &key, &body, 4, 1);
    let mut sql = Db::connect(&db.url);
    sql.wait_until("four sessions delivered", &[&server], |db| {
        db.scalar("SELECT COUNT(*) FROM deliveries WHERE status = 'succeeded'") == 4
    });
    assert_eq!(server.terminate().code(), Some(0));

    // a, b: finished long ago. c: long ago but still queued. d: recent.
    let (a, b, c, d) = (&ids[0], &ids[1], &ids[2], &ids[3]);
    let aged = format!(
        "UPDATE sessions SET created_at = now() - interval '100 days' \
         WHERE id IN ('{a}', '{b}', '{c}');
         UPDATE sessions SET status = 'received' WHERE id = '{c}';
         INSERT INTO jobs (session_id, kind) VALUES ('{c}', 'ingest');
         UPDATE deliveries SET created_at = now() - interval '40 days' \
         WHERE endpoint IN ('ingest:{a}', 'ingest:{b}');"
    );
    sql.execute(aged);
    sql.execute(retention_sql());

    let sessions = sql.sessions();
    let kept: BTreeSet<&String> = sessions.keys().collect();
    assert_eq!(kept, BTreeSet::from([c, d]), "sessions left");
    assert_eq!(sql.scalar("SELECT COUNT(*) FROM session_inputs"), 2);
    let endpoints: BTreeSet<String> = sql.deliveries().into_values().map(|(e, _, _)| e).collect();
    assert_eq!(
        endpoints,
        BTreeSet::from([format!("ingest:{c}"), format!("ingest:{d}")]),
        "deliveries left"
    );
    assert_eq!(sql.scalar("SELECT COUNT(*) FROM delivery_attempts"), 2);
    assert_eq!(sql.scalar("SELECT COUNT(*) FROM webhook_events"), 2);
    assert_eq!(
        sql.scalar("SELECT COUNT(*) FROM jobs"),
        1,
        "the queued job stays"
    );
}
