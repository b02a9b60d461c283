//! `undertone serve` as a process: acknowledged ingests survive `kill -9` and SIGTERM,
//! each is scored exactly once, and the database never holds a plaintext key
//! (DESIGN.md §5 and §7).
//!
//! The server runs with two workers and two-second leases on a SQLite file in a
//! temporary directory; requests go over plain TCP with the small HTTP/1.1 client
//! of `real_server` (`Connection: close`, one request per connection).

use std::collections::{BTreeMap, VecDeque};
use std::fs;
use std::path::Path;
use std::str::FromStr;
use std::thread;
use std::time::{Duration, Instant};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use crate::pg;
use crate::real_server::{self, Server, example_body, ingest_spread, request};

/// How long the restarted server may take to complete every acknowledged session.
const COMPLETE_TIMEOUT: Duration = Duration::from_secs(60);
/// Copies of the example's conversations in one request (20 events each), so that
/// scoring a request takes a moment and a backlog builds up behind two workers.
const COPIES: usize = 20;
/// Ingests sent per round, and concurrent clients sending them.
const ROUND: usize = 60;
const CLIENTS: usize = 4;
/// Rounds at most before giving up on building a backlog.
const MAX_ROUNDS: usize = 5;
/// Of the last `TAIL` acknowledged sessions, at least `BACKLOG` must not be complete
/// when the server is stopped, so the restart has work to recover.
const TAIL: usize = 5;
const BACKLOG: usize = 3;
/// `ut_live_` and 32 random characters and a 6-character checksum.
const KEY_LEN: usize = 46;
/// Characters of a key kept in the database for display.
const DISPLAY_LEN: usize = 12;
/// A longer prefix that must never be stored: `ut_live_` and 20 characters.
const SECRET_PREFIX_LEN: usize = 28;

/// `undertone serve` with two workers and two-second leases; returns once it listens.
fn start(database: &str) -> Server {
    Server::spawn(real_server::serve_command(
        database,
        &["--workers", "2", "--lease-seconds", "2"],
    ))
}

/// A session's status, from `GET /intelligence/{id}?view=condensed`.
fn status(server: &Server, key: &str, id: &str) -> String {
    let r = request(
        server.addr,
        "GET",
        &format!("/api/v1/intelligence/{id}?view=condensed"),
        key,
        None,
    );
    assert_eq!(
        r.status,
        200,
        "GET {id}: {}",
        String::from_utf8_lossy(&r.body)
    );
    let json = r.json();
    json["status"]
        .as_str()
        .unwrap_or_else(|| panic!("no status in {json}"))
        .to_owned()
}

/// Ingests in rounds until at least `BACKLOG` of the last `TAIL` acknowledged
/// sessions are not complete yet; returns every acknowledged id.
fn ingest_with_backlog(server: &Server, key: &str) -> Vec<String> {
    let body = example_body(COPIES, None);
    let mut acked = Vec::new();
    for _ in 0..MAX_ROUNDS {
        acked.extend(ingest_spread(&[server.addr], key, &body, ROUND, CLIENTS));
        let waiting = acked[acked.len() - TAIL..]
            .iter()
            .filter(|id| status(server, key, id) != "complete")
            .count();
        if waiting >= BACKLOG {
            return acked;
        }
    }
    panic!(
        "after {} ingests the two workers had caught up; no backlog to recover",
        acked.len()
    );
}

/// Polls until every session in `ids` is `complete`, at most `COMPLETE_TIMEOUT`.
/// Jobs run in ingest order, so only the oldest unfinished session is polled.
fn wait_all_complete(server: &Server, key: &str, ids: &[String]) {
    let deadline = Instant::now() + COMPLETE_TIMEOUT;
    let mut pending: VecDeque<&String> = ids.iter().collect();
    while let Some(id) = pending.front() {
        let now = status(server, key, id);
        match now.as_str() {
            "complete" => {
                pending.pop_front();
            }
            "failed" => panic!("session {id} failed; log:\n{}", server.log()),
            _ => {
                assert!(
                    Instant::now() < deadline,
                    "{} of {} acknowledged sessions still not complete after {COMPLETE_TIMEOUT:?} \
                     (first: {id}, {now}); log:\n{}",
                    pending.len(),
                    ids.len(),
                    server.log()
                );
                thread::sleep(Duration::from_millis(200));
            }
        }
    }
}

/// What the database holds once the server has stopped.
struct Stored {
    /// Session id → (status, completions).
    sessions: BTreeMap<String, (String, i64)>,
    jobs: i64,
    leased_jobs: i64,
}

/// Reads the sessions and jobs of the (stopped) server's database.
fn read_database(url: &str) -> Stored {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let mut conn = SqliteConnectOptions::from_str(url)
            .expect("the database URL parses")
            .connect()
            .await
            .expect("the database opens");
        let rows: Vec<(String, String, i64)> =
            sqlx::query_as("SELECT id, status, completions FROM sessions")
                .fetch_all(&mut conn)
                .await
                .expect("sessions can be read");
        let jobs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs")
            .fetch_one(&mut conn)
            .await
            .expect("jobs can be counted");
        let leased_jobs: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE leased = 1")
            .fetch_one(&mut conn)
            .await
            .expect("leased jobs can be counted");
        // Closed here, not by a background thread later: closing the last connection
        // removes the -wal and -shm files, which the next check lists and reads.
        conn.close().await.expect("the database closes");
        Stored {
            sessions: rows
                .into_iter()
                .map(|(id, status, completions)| (id, (status, completions)))
                .collect(),
            jobs,
            leased_jobs,
        }
    })
}

/// Every acknowledged session is complete, scored exactly once, and nothing else
/// is stored or queued.
fn assert_each_completed_once(url: &str, acked: &[String]) {
    let stored = read_database(url);
    for id in acked {
        let (status, completions) = stored
            .sessions
            .get(id)
            .unwrap_or_else(|| panic!("acknowledged session {id} is not in the database"));
        assert_eq!(status, "complete", "session {id}");
        assert_eq!(
            *completions, 1,
            "session {id} was completed {completions} times"
        );
    }
    assert_eq!(
        stored.sessions.len(),
        acked.len(),
        "the database holds sessions that were never acknowledged"
    );
    assert_eq!(stored.jobs, 0, "jobs are left in the queue");
}

/// No file under `dir` holds `key` or its first `SECRET_PREFIX_LEN` characters; the
/// display prefix is found, so the search reads the bytes the key row is in.
fn assert_no_plaintext_key(dir: &Path, key: &str) {
    let mut display_found = false;
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("the temporary directory is readable") {
        let path = entry.expect("a directory entry").path();
        if !path.is_file() {
            continue;
        }
        let bytes = fs::read(&path).expect("a database file is readable");
        for needle in [key, &key[..SECRET_PREFIX_LEN]] {
            assert!(
                !contains(&bytes, needle.as_bytes()),
                "{} holds `{needle}` in plain text",
                path.display()
            );
        }
        display_found |= contains(&bytes, &key.as_bytes()[..DISPLAY_LEN]);
        files.push(path.display().to_string());
    }
    assert!(
        display_found,
        "the display prefix {} is in none of {files:?}; the search reads the wrong files",
        &key[..DISPLAY_LEN]
    );
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn assert_key_shape(key: &str) {
    assert!(key.starts_with("ut_live_"), "{key}");
    assert_eq!(key.len(), KEY_LEN, "{key}");
}

/// `kill -9` with jobs queued and in progress loses nothing acknowledged: after a
/// restart on the same database every session completes exactly once (jobs whose
/// worker died are retried when their lease expires), and no database file holds the
/// plaintext key.
#[test]
fn kill_9_loses_no_acknowledged_ingest() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = format!("sqlite://{}", dir.path().join("u.db").display());

    let mut first = start(&url);
    let key = first
        .key
        .clone()
        .expect("the first start on an empty database prints a key");
    assert_key_shape(&key);
    let acked = ingest_with_backlog(&first, &key);
    first.kill_9();
    first.assert_no_panic();
    drop(first);
    // The key row is still in the write-ahead log here, as the kill left it.
    assert_no_plaintext_key(dir.path(), &key);

    let mut second = start(&url);
    assert_eq!(
        second.key, None,
        "a key is printed only for an empty database"
    );
    wait_all_complete(&second, &key, &acked);
    let log = second.log();
    eprintln!(
        "{} sessions acknowledged; restart requeued jobs of the killed workers: {}",
        acked.len(),
        log.contains("leases expired")
    );
    let status = second.terminate();
    assert!(
        status.success(),
        "exit after SIGTERM: {status}; log:\n{log}"
    );
    second.assert_no_panic();
    drop(second);

    assert_no_plaintext_key(dir.path(), &key);
    assert_each_completed_once(&url, &acked);
    assert_no_plaintext_key(dir.path(), &key);
}

/// The connection pool's acquire timeout on PostgreSQL (`store::db`): how long each
/// database call waits when the server is gone.
const POOL_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// SIGTERM while PostgreSQL refuses every connection: the loops that look for work
/// give way to the stop, so the server exits with status 0 well before even one
/// acquire timeout. It used to wait out one per stage of its shutdown, 20 s in all.
#[test]
fn sigterm_exits_0_promptly_when_postgresql_is_gone() {
    let Some(db) = pg::database() else {
        return;
    };
    let mut relay = pg::Relay::new(&db.url);
    let mut server = Server::spawn(real_server::serve_command(&relay.url, &[]));
    relay.cut_off();
    // Every loop is now waiting for a connection it will not get.
    thread::sleep(Duration::from_secs(1));
    let stopped_at = Instant::now();
    let status = server.terminate();
    let took = stopped_at.elapsed();
    let log = server.log();
    assert_eq!(
        status.code(),
        Some(0),
        "exit after SIGTERM: {status}; log:\n{log}"
    );
    assert!(
        took < POOL_ACQUIRE_TIMEOUT,
        "SIGTERM exit took {took:?} with the database gone; log:\n{log}"
    );
    assert!(
        log.contains("stopped"),
        "the shutdown did not run to its end; log:\n{log}"
    );
    server.assert_no_panic();
}

/// SIGTERM with work queued: the server exits with status 0 leaving no job leased
/// (each worker finishes the job it holds), and after a restart every acknowledged
/// session completes exactly once.
#[test]
fn sigterm_exits_0_and_queued_work_completes_after_restart() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = format!("sqlite://{}", dir.path().join("u.db").display());

    let mut first = start(&url);
    let key = first
        .key
        .clone()
        .expect("the first start on an empty database prints a key");
    assert_key_shape(&key);
    let acked = ingest_with_backlog(&first, &key);
    let stopped_at = Instant::now();
    let status = first.terminate();
    let stop_took = stopped_at.elapsed();
    let log = first.log();
    assert_eq!(
        status.code(),
        Some(0),
        "exit after SIGTERM: {status}; log:\n{log}"
    );
    first.assert_no_panic();
    drop(first);

    let stored = read_database(&url);
    assert_eq!(
        stored.leased_jobs, 0,
        "a graceful stop left jobs leased (they wait for lease expiry)"
    );
    let left: Vec<&String> = acked
        .iter()
        .filter(|id| stored.sessions.get(*id).map(|(s, _)| s.as_str()) != Some("complete"))
        .collect();
    for id in &left {
        assert_eq!(
            stored.sessions.get(*id).map(|(s, _)| s.as_str()),
            Some("received"),
            "after a graceful stop, session {id} is neither complete nor queued"
        );
    }
    assert_eq!(
        usize::try_from(stored.jobs).ok(),
        Some(left.len()),
        "every unfinished session keeps its job"
    );
    eprintln!(
        "SIGTERM exit took {stop_took:?}; {} of {} acknowledged sessions left queued",
        left.len(),
        acked.len()
    );

    let mut second = start(&url);
    assert_eq!(
        second.key, None,
        "a key is printed only for an empty database"
    );
    wait_all_complete(&second, &key, &acked);
    let status = second.terminate();
    assert!(
        status.success(),
        "exit after SIGTERM: {status}; log:\n{}",
        second.log()
    );
    second.assert_no_panic();
    drop(second);

    assert_each_completed_once(&url, &acked);
    assert_no_plaintext_key(dir.path(), &key);
}
