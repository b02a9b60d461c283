//! PostgreSQL for the tests. `UNDERTONE_TEST_POSTGRES` names a server by a URL whose
//! role may create databases (`scripts/test` sets it, starting a throwaway cluster
//! when needed); each test gets a database of its own, dropped when the test ends.
//!
//! Without the variable the PostgreSQL tests print why and return, unless
//! `UNDERTONE_REQUIRE_POSTGRES=1` (set by `.ci/run`), which makes that a failure.

use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use sqlx::{Connection, Executor, PgConnection};

/// The variable naming the server.
pub const VAR: &str = "UNDERTONE_TEST_POSTGRES";
/// The variable that turns a missing server into a failure.
const REQUIRE_VAR: &str = "UNDERTONE_REQUIRE_POSTGRES";

/// A database made for one test; dropped (with its connections) on drop.
#[derive(Debug)]
pub struct TestDatabase {
    /// `postgres://…/ut_test_…`: give this to `undertone serve --database` or
    /// `store::open`.
    pub url: String,
    admin: String,
    name: String,
}

/// The server URL, or `None` (with the reason printed) when the test should be
/// skipped. Panics when PostgreSQL is required and not configured.
pub fn server() -> Option<String> {
    match std::env::var(VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let required = std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1");
            assert!(
                !required,
                "{REQUIRE_VAR}=1 but {VAR} is not set: the PostgreSQL suite cannot run"
            );
            eprintln!("skipped: {VAR} is not set (scripts/test sets it)");
            None
        }
    }
}

/// A fresh, empty database on the test server, or `None` when there is no server
/// (see [`server`]).
pub fn database() -> Option<TestDatabase> {
    let admin = server()?;
    let name = format!("ut_test_{}", uuid::Uuid::new_v4().simple());
    let statement = format!("CREATE DATABASE {name}");
    let admin_url = admin.clone();
    on_own_runtime(move || async move {
        let mut conn = PgConnection::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("cannot connect to {VAR}={admin_url}: {e}"));
        conn.execute(sqlx::AssertSqlSafe(statement))
            .await
            .unwrap_or_else(|e| panic!("cannot create a test database: {e}"));
        let _ = conn.close().await;
    });
    let url = database_url(&admin, &name);
    Some(TestDatabase { url, admin, name })
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let admin = self.admin.clone();
        let statement = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        on_own_runtime(move || async move {
            if let Ok(mut conn) = PgConnection::connect(&admin).await {
                let _ = conn.execute(sqlx::AssertSqlSafe(statement)).await;
                let _ = conn.close().await;
            }
        });
    }
}

/// A TCP relay in front of the test server, which a test can cut off as if
/// PostgreSQL were gone: its port then refuses connections and the ones it carried
/// are closed, so the pool's connection attempts fail until their acquire timeout.
/// (`ALTER DATABASE … ALLOW_CONNECTIONS false` would not do: PostgreSQL then answers
/// at once, and a refusal with an answer fails fast.)
pub struct Relay {
    /// `url` with its host and port replaced by the relay's.
    pub url: String,
    cut: Arc<AtomicBool>,
    streams: Arc<Mutex<Vec<TcpStream>>>,
    accepting: Option<thread::JoinHandle<()>>,
}

impl Relay {
    /// Relays connections to the server of `url` (a `postgres://` URL).
    pub fn new(url: &str) -> Relay {
        let mut parsed = url::Url::parse(url).unwrap_or_else(|e| panic!("{VAR} is not a URL: {e}"));
        let host = parsed.host_str().unwrap_or("127.0.0.1").to_owned();
        let target = format!("{host}:{}", parsed.port().unwrap_or(5432));
        let listener = TcpListener::bind("127.0.0.1:0").expect("a relay port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking listener");
        let port = listener.local_addr().expect("the relay's address").port();
        let _ = parsed.set_host(Some("127.0.0.1"));
        let _ = parsed.set_port(Some(port));
        let cut = Arc::new(AtomicBool::new(false));
        let streams: Arc<Mutex<Vec<TcpStream>>> = Arc::default();
        let accepting = {
            let (cut, streams) = (Arc::clone(&cut), Arc::clone(&streams));
            thread::spawn(move || {
                // The listener is dropped, and its port closed, once cut.
                while !cut.load(Ordering::SeqCst) {
                    match listener.accept() {
                        Ok((client, _)) => relay(client, &target, &streams),
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            thread::sleep(Duration::from_millis(5));
                        }
                        Err(_) => return,
                    }
                }
            })
        };
        Relay {
            url: parsed.to_string(),
            cut,
            streams,
            accepting: Some(accepting),
        }
    }

    /// Closes the port and every relayed connection.
    pub fn cut_off(&mut self) {
        self.cut.store(true, Ordering::SeqCst);
        if let Some(h) = self.accepting.take() {
            let _ = h.join();
        }
        for s in self.streams.lock().expect("the relay's streams").drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.cut_off();
    }
}

/// Copies bytes both ways between `client` and a new connection to `target`.
fn relay(client: TcpStream, target: &str, streams: &Mutex<Vec<TcpStream>>) {
    let Ok(server) = TcpStream::connect(target) else {
        return;
    };
    let _ = client.set_nonblocking(false);
    let pair = (client.try_clone(), server.try_clone());
    let (Ok(client_in), Ok(server_in)) = pair else {
        return;
    };
    streams.lock().expect("the relay's streams").extend(
        [client.try_clone(), server.try_clone()]
            .into_iter()
            .flatten(),
    );
    for (mut from, mut to) in [(client_in, server), (server_in, client)] {
        thread::spawn(move || {
            let _ = std::io::copy(&mut from, &mut to);
            let _ = to.shutdown(Shutdown::Write);
        });
    }
}

/// `admin` with its database name replaced by `name` (query string kept).
fn database_url(admin: &str, name: &str) -> String {
    let mut url = url::Url::parse(admin).unwrap_or_else(|e| panic!("{VAR} is not a URL: {e}"));
    url.set_path(&format!("/{name}"));
    url.to_string()
}

/// Runs an async block to completion on a runtime of its own, on a thread of its own,
/// so that sync tests, async tests and `Drop` can all call it.
fn on_own_runtime<F, Fut>(f: F)
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = ()>,
{
    let joined = thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a test runtime starts");
        rt.block_on(f());
    })
    .join();
    if let Err(panic) = joined {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn database_url_replaces_only_the_path() {
    assert_eq!(
        database_url(
            "postgres://u@127.0.0.1:5433/postgres?sslmode=disable",
            "ut_x"
        ),
        "postgres://u@127.0.0.1:5433/ut_x?sslmode=disable"
    );
}
