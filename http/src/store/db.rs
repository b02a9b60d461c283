//! The dialect layer: the only part of the store that knows which database it talks
//! to. Every query of the resource modules is written once, with `$1`, `$2` …
//! placeholders (sqlx reads them on SQLite too) and portable SQL; this module runs it
//! on either backend and hides what differs:
//!
//! - **Opening**: a SQLite file (created 0600, WAL, `synchronous = NORMAL`, four
//!   connections) or a PostgreSQL pool sized by the URL's `pool_size`, each migrated
//!   with its own embedded schema (`migrations/sqlite`, `migrations/postgres`).
//! - **Values** ([`Value`]): a time is RFC 3339 text on SQLite and a `timestamptz`
//!   (to the millisecond) on PostgreSQL; a NULL is typed on PostgreSQL; a bool is an
//!   INTEGER 0/1 on SQLite. [`Row`] reads them back the same way.
//! - **Write transactions** ([`Pool::begin_write`]): `BEGIN IMMEDIATE` on SQLite, so
//!   writers queue for the one write lock instead of failing; a plain `BEGIN` on
//!   PostgreSQL, where the queries take row locks instead.
//! - **Row locks** ([`Lock`], [`Tx::lock_rows`], [`Tx::lock_table`]): `FOR UPDATE`,
//!   `FOR NO KEY UPDATE`, `FOR UPDATE OF … SKIP LOCKED` and `LOCK TABLE` on PostgreSQL;
//!   nothing on SQLite, whose write transaction already excludes every other writer.
//! - **Wake-ups** ([`Tx::notify`], [`Listener`]): `pg_notify` inside the transaction
//!   and a `LISTEN` task on PostgreSQL; nothing on SQLite (one process, whose workers
//!   are woken directly).

use std::borrow::Cow;
use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx::postgres::{
    PgArguments, PgConnectOptions, PgListener, PgPool, PgPoolOptions, PgRow, Postgres,
};
use sqlx::sqlite::{
    Sqlite, SqliteArguments, SqliteConnectOptions, SqliteJournalMode, SqlitePool,
    SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{
    AssertSqlSafe, Column as _, Database, Decode, Encode, Row as _, Transaction, Type,
    TypeInfo as _,
};
use tokio::task::JoinHandle;

use super::{StoreError, StoreResult, Wake, format_time, parse_time};

/// The SQLite schema, embedded in the binary.
static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/sqlite");
/// The PostgreSQL schema, embedded in the binary. sqlx's migrator holds an advisory
/// lock while it runs, so servers started together apply each migration once.
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("migrations/postgres");

/// How long a SQLite statement waits for another connection's write lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections to a SQLite file (one writes at a time; the others read).
const SQLITE_CONNECTIONS: u32 = 4;
/// PostgreSQL connections per process unless the URL says otherwise (`pool_size`).
const DEFAULT_MAX_CONNECTIONS: u32 = 10;
/// How long a request waits for a free PostgreSQL connection before failing.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);
/// Wait before the listener reconnects after losing its connection.
const LISTEN_RETRY: Duration = Duration::from_secs(1);

/// A bound value, mapped to each backend's type when the query runs.
#[derive(Debug, Clone)]
pub(super) enum Value<'a> {
    /// TEXT.
    Text(Cow<'a, str>),
    /// TEXT or NULL.
    OptText(Option<Cow<'a, str>>),
    /// An integer (BIGINT on PostgreSQL).
    Int(i64),
    /// An integer or NULL.
    OptInt(Option<i64>),
    /// A double.
    Float(f64),
    /// A bool (INTEGER 0 or 1 on SQLite).
    Bool(bool),
    /// A BLOB / BYTEA.
    Bytes(Cow<'a, [u8]>),
    /// A BLOB / BYTEA or NULL.
    OptBytes(Option<Cow<'a, [u8]>>),
    /// A time: RFC 3339 text on SQLite, `timestamptz` to the millisecond on PostgreSQL.
    Time(DateTime<Utc>),
    /// A time or NULL (a typed `timestamptz` NULL on PostgreSQL).
    OptTime(Option<DateTime<Utc>>),
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Text(Cow::Borrowed(v))
    }
}

impl<'a> From<&'a String> for Value<'a> {
    fn from(v: &'a String) -> Self {
        Value::Text(Cow::Borrowed(v))
    }
}

impl From<String> for Value<'_> {
    fn from(v: String) -> Self {
        Value::Text(Cow::Owned(v))
    }
}

impl<'a> From<Option<&'a str>> for Value<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Value::OptText(v.map(Cow::Borrowed))
    }
}

impl<'a> From<&'a Option<String>> for Value<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Value::OptText(v.as_deref().map(Cow::Borrowed))
    }
}

impl From<i64> for Value<'_> {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}

impl From<u32> for Value<'_> {
    fn from(v: u32) -> Self {
        Value::Int(i64::from(v))
    }
}

impl From<Option<i64>> for Value<'_> {
    fn from(v: Option<i64>) -> Self {
        Value::OptInt(v)
    }
}

impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}

impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl<'a> From<&'a [u8]> for Value<'a> {
    fn from(v: &'a [u8]) -> Self {
        Value::Bytes(Cow::Borrowed(v))
    }
}

impl<'a> From<&'a Vec<u8>> for Value<'a> {
    fn from(v: &'a Vec<u8>) -> Self {
        Value::Bytes(Cow::Borrowed(v))
    }
}

impl From<Vec<u8>> for Value<'_> {
    fn from(v: Vec<u8>) -> Self {
        Value::Bytes(Cow::Owned(v))
    }
}

impl<'a> From<&'a Option<Vec<u8>>> for Value<'a> {
    fn from(v: &'a Option<Vec<u8>>) -> Self {
        Value::OptBytes(v.as_deref().map(Cow::Borrowed))
    }
}

impl From<DateTime<Utc>> for Value<'_> {
    fn from(v: DateTime<Utc>) -> Self {
        Value::Time(v)
    }
}

impl From<&DateTime<Utc>> for Value<'_> {
    fn from(v: &DateTime<Utc>) -> Self {
        Value::Time(*v)
    }
}

impl From<Option<DateTime<Utc>>> for Value<'_> {
    fn from(v: Option<DateTime<Utc>>) -> Self {
        Value::OptTime(v)
    }
}

/// A row lock a query takes on PostgreSQL (nothing on SQLite: see the module docs).
#[derive(Debug, Clone, Copy)]
pub(super) enum Lock {
    /// `FOR UPDATE`: the selected rows, until commit.
    Update,
    /// `FOR NO KEY UPDATE`: the selected rows, still letting foreign keys refer to them.
    NoKeyUpdate,
    /// `FOR UPDATE OF <alias> SKIP LOCKED`: the rows of one table of the join, passing
    /// over those another transaction holds.
    SkipLocked(&'static str),
}

impl Lock {
    fn clause(self) -> Cow<'static, str> {
        match self {
            Lock::Update => Cow::Borrowed(" FOR UPDATE"),
            Lock::NoKeyUpdate => Cow::Borrowed(" FOR NO KEY UPDATE"),
            Lock::SkipLocked(alias) => Cow::Owned(format!(" FOR UPDATE OF {alias} SKIP LOCKED")),
        }
    }
}

/// The channels work is announced on between processes (PostgreSQL only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Channel {
    /// A job was queued or given back.
    Jobs,
    /// A delivery was queued or is to be retried.
    Deliveries,
}

impl Channel {
    fn name(self) -> &'static str {
        match self {
            Channel::Jobs => "undertone_jobs",
            Channel::Deliveries => "undertone_deliveries",
        }
    }
}

/// One statement and its parameters, built by [`query`].
#[derive(Debug, Clone)]
pub(super) struct Query<'a> {
    sql: Cow<'static, str>,
    args: Vec<Value<'a>>,
    lock: Option<Lock>,
}

/// A statement whose text uses `$1`, `$2` … for the values bound to it in order.
pub(super) fn query(sql: &'static str) -> Query<'static> {
    Query {
        sql: Cow::Borrowed(sql),
        args: Vec::new(),
        lock: None,
    }
}

/// The text that stands for an `IN (…)` list in a query, filled by
/// [`Query::bind_list`].
const LIST: &str = "$list";

impl<'a> Query<'a> {
    /// Binds the next parameter.
    pub(super) fn bind(mut self, value: impl Into<Value<'a>>) -> Self {
        self.args.push(value.into());
        self
    }

    /// Binds `values` as the next parameters and writes their placeholders where the
    /// text says `$list` (as in `id IN ($list)`). An empty list is `NULL`, which
    /// matches nothing.
    pub(super) fn bind_list<V: Into<Value<'a>>>(
        mut self,
        values: impl IntoIterator<Item = V>,
    ) -> Self {
        let first = self.args.len() + 1;
        self.args.extend(values.into_iter().map(Into::into));
        let list = if self.args.len() < first {
            "NULL".to_owned()
        } else {
            (first..=self.args.len())
                .map(|n| format!("${n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.sql = Cow::Owned(self.sql.replacen(LIST, &list, 1));
        self
    }

    /// Takes `lock` on the selected rows (PostgreSQL); the clause is appended, so the
    /// text must end where it goes.
    pub(super) fn lock(mut self, lock: Lock) -> Self {
        self.lock = Some(lock);
        self
    }

    fn sqlite(self) -> sqlx::query::Query<'static, Sqlite, SqliteArguments> {
        // Only the text of our own constants and `bind_list`'s placeholders.
        bound(self.sql, self.args, format_time)
    }

    fn postgres(self) -> sqlx::query::Query<'static, Postgres, PgArguments> {
        let sql = match self.lock {
            Some(lock) => Cow::Owned(format!("{}{}", self.sql, lock.clause())),
            None => self.sql,
        };
        // Only the text of our own constants, `bind_list`'s placeholders and the lock.
        bound(sql, self.args, ms)
    }
}

/// A Rust type a backend binds.
trait Binds<DB: Database>: for<'e> Encode<'e, DB> + Type<DB> {}

impl<DB: Database, T: for<'e> Encode<'e, DB> + Type<DB>> Binds<DB> for T {}

/// `sql` with `args` bound for the backend `DB`, times as `time` makes them.
fn bound<DB, T>(
    sql: Cow<'static, str>,
    args: Vec<Value<'_>>,
    time: fn(&DateTime<Utc>) -> T,
) -> sqlx::query::Query<'static, DB, <DB as Database>::Arguments>
where
    DB: Database,
    String: Binds<DB>,
    Option<String>: Binds<DB>,
    i64: Binds<DB>,
    Option<i64>: Binds<DB>,
    f64: Binds<DB>,
    bool: Binds<DB>,
    Vec<u8>: Binds<DB>,
    Option<Vec<u8>>: Binds<DB>,
    T: Binds<DB>,
    Option<T>: Binds<DB>,
{
    let mut q = sqlx::query(AssertSqlSafe(sql));
    for value in args {
        q = match value {
            Value::Text(v) => q.bind(v.into_owned()),
            Value::OptText(v) => q.bind(v.map(Cow::into_owned)),
            Value::Int(v) => q.bind(v),
            Value::OptInt(v) => q.bind(v),
            Value::Float(v) => q.bind(v),
            Value::Bool(v) => q.bind(v),
            Value::Bytes(v) => q.bind(v.into_owned()),
            Value::OptBytes(v) => q.bind(v.map(Cow::into_owned)),
            Value::Time(v) => q.bind(time(&v)),
            Value::OptTime(v) => q.bind(v.as_ref().map(time)),
        };
    }
    q
}

/// `t` to the millisecond, as SQLite's text keeps it, so both backends read back
/// equal times.
fn ms(t: &DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(*t)
}

/// A database: the pool every query runs on.
#[derive(Debug, Clone)]
pub(super) enum Pool {
    /// A SQLite file, and which file it is.
    Sqlite(SqlitePool, Option<FileIdentity>),
    /// A PostgreSQL database.
    Postgres(PgPool),
}

/// Which file a SQLite database is: its path, and the device and inode it had when
/// opened. A file deleted or replaced under a running server goes on taking writes
/// through the connections that have it open, and all of it is lost at restart, while
/// a connection opened since finds an empty database; every query outside a
/// transaction, and every transaction, checks first (a `stat` of the path).
#[derive(Debug, Clone)]
pub(super) struct FileIdentity {
    path: std::path::PathBuf,
    id: (u64, u64),
    /// The file itself, held open for as long as the pool lives: while it is, its
    /// inode cannot be freed and given to a new file at the same path (with every
    /// pooled connection closed, after their idle timeout, it could be, and a replaced
    /// file would pass). It is closed only with the last clone of the pool: closing a
    /// descriptor of a file drops the process's POSIX locks on it, SQLite's included.
    _held: std::sync::Arc<std::fs::File>,
}

impl FileIdentity {
    /// The identity of the file at `path` now; `None` where it cannot be told (no
    /// file, or not Unix).
    fn of(path: &std::path::Path) -> Option<FileIdentity> {
        let held = std::fs::File::open(path).ok()?;
        Some(FileIdentity {
            path: path.to_owned(),
            // Of the file held, not of whatever the path names a moment later.
            id: file_id(&held.metadata().ok()?)?,
            _held: std::sync::Arc::new(held),
        })
    }

    /// An error when the path no longer names the file that was opened.
    fn check(&self) -> StoreResult<()> {
        match device_and_inode(&self.path) {
            Some(id) if id == self.id => Ok(()),
            _ => Err(StoreError::FileGone(self.path.display().to_string())),
        }
    }
}

/// The device and inode of the file at `path` now.
fn device_and_inode(path: &std::path::Path) -> Option<(u64, u64)> {
    file_id(&std::fs::metadata(path).ok()?)
}

#[cfg(unix)]
fn file_id(m: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// A transaction, committed by [`Tx::commit`] and rolled back when dropped.
#[derive(Debug)]
pub(super) enum Tx {
    /// On SQLite.
    Sqlite(Transaction<'static, Sqlite>),
    /// On PostgreSQL.
    Postgres(Transaction<'static, Postgres>),
}

/// A row of either backend, read by column name.
#[derive(Debug)]
pub(super) enum Row {
    /// From SQLite.
    Sqlite(SqliteRow),
    /// From PostgreSQL.
    Postgres(PgRow),
}

/// Where a statement runs: a pool, or a transaction's connection.
enum Exec<'c> {
    SqlitePool(&'c SqlitePool),
    Sqlite(&'c mut sqlx::SqliteConnection),
    PgPool(&'c PgPool),
    Postgres(&'c mut sqlx::PgConnection),
}

impl Exec<'_> {
    async fn execute(self, q: Query<'_>) -> StoreResult<u64> {
        let done = match self {
            Exec::SqlitePool(pool) => q.sqlite().execute(pool).await?.rows_affected(),
            Exec::Sqlite(conn) => q.sqlite().execute(conn).await?.rows_affected(),
            Exec::PgPool(pool) => q.postgres().execute(pool).await?.rows_affected(),
            Exec::Postgres(conn) => q.postgres().execute(conn).await?.rows_affected(),
        };
        Ok(done)
    }

    async fn fetch_all(self, q: Query<'_>) -> StoreResult<Vec<Row>> {
        let rows: Vec<Row> = match self {
            Exec::SqlitePool(pool) => wrap(q.sqlite().fetch_all(pool).await?, Row::Sqlite),
            Exec::Sqlite(conn) => wrap(q.sqlite().fetch_all(conn).await?, Row::Sqlite),
            Exec::PgPool(pool) => wrap(q.postgres().fetch_all(pool).await?, Row::Postgres),
            Exec::Postgres(conn) => wrap(q.postgres().fetch_all(conn).await?, Row::Postgres),
        };
        Ok(rows)
    }

    async fn fetch_optional(self, q: Query<'_>) -> StoreResult<Option<Row>> {
        Ok(match self {
            Exec::SqlitePool(p) => q.sqlite().fetch_optional(p).await?.map(Row::Sqlite),
            Exec::Sqlite(c) => q.sqlite().fetch_optional(c).await?.map(Row::Sqlite),
            Exec::PgPool(p) => q.postgres().fetch_optional(p).await?.map(Row::Postgres),
            Exec::Postgres(c) => q.postgres().fetch_optional(c).await?.map(Row::Postgres),
        })
    }

    async fn fetch_one(self, q: Query<'_>) -> StoreResult<Row> {
        self.fetch_optional(q)
            .await?
            .ok_or(StoreError::Database(sqlx::Error::RowNotFound))
    }
}

fn wrap<R>(rows: Vec<R>, to: fn(R) -> Row) -> Vec<Row> {
    rows.into_iter().map(to).collect()
}

impl Pool {
    fn exec(&self) -> Exec<'_> {
        match self {
            Pool::Sqlite(pool, _) => Exec::SqlitePool(pool),
            Pool::Postgres(pool) => Exec::PgPool(pool),
        }
    }

    /// Every row of a query.
    pub(super) async fn fetch_all(&self, q: Query<'_>) -> StoreResult<Vec<Row>> {
        self.check_file()?;
        self.exec().fetch_all(q).await
    }

    /// The first row of a query, if any.
    pub(super) async fn fetch_optional(&self, q: Query<'_>) -> StoreResult<Option<Row>> {
        self.check_file()?;
        self.exec().fetch_optional(q).await
    }

    /// The first row of a query, which must have one.
    pub(super) async fn fetch_one(&self, q: Query<'_>) -> StoreResult<Row> {
        self.check_file()?;
        self.exec().fetch_one(q).await
    }

    /// An error when this is a SQLite file that was deleted or replaced since it was
    /// opened ([`FileIdentity`]).
    pub(super) fn check_file(&self) -> StoreResult<()> {
        match self {
            Pool::Sqlite(_, Some(file)) => file.check(),
            _ => Ok(()),
        }
    }

    /// Starts a transaction that writes: `BEGIN IMMEDIATE` on SQLite, which takes the
    /// database's write lock at once (so two writers never both read, then both fail
    /// to upgrade); `BEGIN` on PostgreSQL.
    pub(super) async fn begin_write(&self) -> StoreResult<Tx> {
        Ok(match self {
            Pool::Sqlite(pool, _) => {
                self.check_file()?;
                Tx::Sqlite(pool.begin_with("BEGIN IMMEDIATE").await?)
            }
            Pool::Postgres(pool) => Tx::Postgres(pool.begin().await?),
        })
    }
}

impl Tx {
    fn exec(&mut self) -> Exec<'_> {
        match self {
            Tx::Sqlite(tx) => Exec::Sqlite(tx),
            Tx::Postgres(tx) => Exec::Postgres(tx),
        }
    }

    /// Runs a statement; the rows it changed.
    pub(super) async fn execute(&mut self, q: Query<'_>) -> StoreResult<u64> {
        self.exec().execute(q).await
    }

    /// Every row of a query.
    pub(super) async fn fetch_all(&mut self, q: Query<'_>) -> StoreResult<Vec<Row>> {
        self.exec().fetch_all(q).await
    }

    /// The first row of a query, if any.
    pub(super) async fn fetch_optional(&mut self, q: Query<'_>) -> StoreResult<Option<Row>> {
        self.exec().fetch_optional(q).await
    }

    /// The first row of a query, which must have one.
    pub(super) async fn fetch_one(&mut self, q: Query<'_>) -> StoreResult<Row> {
        self.exec().fetch_one(q).await
    }

    /// Commits.
    pub(super) async fn commit(self) -> StoreResult<()> {
        match self {
            Tx::Sqlite(tx) => tx.commit().await?,
            Tx::Postgres(tx) => tx.commit().await?,
        }
        Ok(())
    }

    /// Runs `q`, a SELECT with a [`Lock`], only for the locks it takes: on PostgreSQL
    /// the selected rows are held until commit. Nothing on SQLite, where the write
    /// transaction holds the whole database already.
    pub(super) async fn lock_rows(&mut self, q: Query<'_>) -> StoreResult<()> {
        if let Tx::Postgres(_) = self {
            self.execute(q).await?;
        }
        Ok(())
    }

    /// Keeps every other writer of `table` (and every other caller of this) out until
    /// commit, readers not blocked: `LOCK TABLE … IN SHARE ROW EXCLUSIVE MODE` on
    /// PostgreSQL; nothing on SQLite, for the reason of [`Tx::lock_rows`].
    pub(super) async fn lock_table(&mut self, table: &'static str) -> StoreResult<()> {
        if let Tx::Postgres(tx) = self {
            let sql = format!("LOCK TABLE {table} IN SHARE ROW EXCLUSIVE MODE");
            // `table` is one of our own constants.
            sqlx::query(AssertSqlSafe(sql)).execute(&mut **tx).await?;
        }
        Ok(())
    }

    /// Announces work on `channel` to every process's listener when this transaction
    /// commits (`pg_notify`). Nothing on SQLite.
    pub(super) async fn notify(&mut self, channel: Channel) -> StoreResult<()> {
        if let Tx::Postgres(_) = self {
            self.execute(query("SELECT pg_notify($1, '')").bind(channel.name()))
                .await?;
        }
        Ok(())
    }
}

impl Row {
    /// A column of a type both backends decode alike.
    fn get<T>(&self, column: &str) -> StoreResult<T>
    where
        T: for<'r> Decode<'r, Sqlite>
            + Type<Sqlite>
            + for<'r> Decode<'r, Postgres>
            + Type<Postgres>,
    {
        Ok(match self {
            Row::Sqlite(row) => row.try_get(column)?,
            Row::Postgres(row) => row.try_get(column)?,
        })
    }

    /// Whether the row has `column` (a column that only some schemas have).
    pub(super) fn has(&self, column: &str) -> bool {
        match self {
            Row::Sqlite(row) => row.try_column(column).is_ok(),
            Row::Postgres(row) => row.try_column(column).is_ok(),
        }
    }

    /// A text column.
    pub(super) fn str(&self, column: &str) -> StoreResult<String> {
        self.get(column)
    }

    /// A text column that may be NULL.
    pub(super) fn opt_str(&self, column: &str) -> StoreResult<Option<String>> {
        self.get(column)
    }

    /// An integer column that may be NULL. On PostgreSQL any of SMALLINT, INTEGER
    /// and BIGINT (a literal `1` is an INTEGER there).
    pub(super) fn opt_i64(&self, column: &str) -> StoreResult<Option<i64>> {
        match self {
            Row::Sqlite(row) => Ok(row.try_get(column)?),
            Row::Postgres(row) => Ok(match row.try_column(column)?.type_info().name() {
                "INT2" => row.try_get::<Option<i16>, _>(column)?.map(i64::from),
                "INT4" => row.try_get::<Option<i32>, _>(column)?.map(i64::from),
                _ => row.try_get::<Option<i64>, _>(column)?,
            }),
        }
    }

    /// An integer column.
    pub(super) fn i64(&self, column: &str) -> StoreResult<i64> {
        self.opt_i64(column)?
            .ok_or_else(|| StoreError::Corrupt(format!("{column} is NULL")))
    }

    /// An integer column that holds a count.
    pub(super) fn u32(&self, column: &str) -> StoreResult<u32> {
        let v = self.i64(column)?;
        u32::try_from(v).map_err(|_| StoreError::Corrupt(format!("{column} {v}")))
    }

    /// A floating-point column.
    pub(super) fn f64(&self, column: &str) -> StoreResult<f64> {
        self.get(column)
    }

    /// A bool column (an INTEGER on SQLite).
    pub(super) fn bool(&self, column: &str) -> StoreResult<bool> {
        self.get(column)
    }

    /// A BLOB / BYTEA column.
    pub(super) fn bytes(&self, column: &str) -> StoreResult<Vec<u8>> {
        self.get(column)
    }

    /// A BLOB / BYTEA column that may be NULL.
    pub(super) fn opt_bytes(&self, column: &str) -> StoreResult<Option<Vec<u8>>> {
        self.get(column)
    }

    /// A time column that may be NULL: RFC 3339 text on SQLite, `timestamptz` on
    /// PostgreSQL.
    pub(super) fn opt_time(&self, column: &str) -> StoreResult<Option<DateTime<Utc>>> {
        match self {
            Row::Sqlite(row) => row
                .try_get::<Option<String>, _>(column)?
                .as_deref()
                .map(parse_time)
                .transpose(),
            Row::Postgres(row) => Ok(row.try_get(column)?),
        }
    }

    /// A time column.
    pub(super) fn time(&self, column: &str) -> StoreResult<DateTime<Utc>> {
        self.opt_time(column)?
            .ok_or_else(|| StoreError::Corrupt(format!("{column} is NULL")))
    }
}

/// A `LISTEN` connection of its own (PostgreSQL), so that the listener never takes a
/// connection from the requests and workers.
#[derive(Debug, Clone)]
pub(super) struct Listener(PgPool);

impl Listener {
    /// Starts a task that wakes this process's idle workers whenever another process
    /// announces work.
    pub(super) fn spawn(&self, wake: Wake) -> JoinHandle<()> {
        let pool = self.0.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = relay(&pool, &wake).await {
                    tracing::warn!(error = %e, "LISTEN connection lost; polling until it is back");
                }
                tokio::time::sleep(LISTEN_RETRY).await;
                // Anything announced while disconnected is found by the next claim.
                wake.jobs.notify_one();
                wake.deliveries.notify_one();
            }
        })
    }
}

/// Listens on both channels and wakes the matching workers until the connection
/// fails.
async fn relay(pool: &PgPool, wake: &Wake) -> StoreResult<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener
        .listen_all([Channel::Jobs.name(), Channel::Deliveries.name()])
        .await?;
    loop {
        // `None`: the connection was lost (notifications meanwhile may be lost too);
        // the caller wakes everyone and listens again.
        let Some(n) = listener.try_recv().await? else {
            return Ok(());
        };
        if n.channel() == Channel::Jobs.name() {
            wake.jobs.notify_one();
        } else {
            wake.deliveries.notify_one();
        }
    }
}

/// Opens and migrates the database at `url`, with the listener it offers (PostgreSQL
/// only).
pub(super) async fn open(url: &str) -> StoreResult<(Pool, Option<Listener>)> {
    if url.starts_with("sqlite:") {
        let pool = open_sqlite(url).await?;
        // The file SQLite itself opened, as an absolute path; none for a database in
        // memory, which has no file to lose.
        let file: String =
            sqlx::query_scalar("SELECT file FROM pragma_database_list WHERE name = 'main'")
                .fetch_one(&pool)
                .await?;
        let identity = match file.is_empty() {
            true => None,
            false => FileIdentity::of(std::path::Path::new(&file)),
        };
        Ok((Pool::Sqlite(pool, identity), None))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let (pool, listener) = open_postgres(url).await?;
        Ok((Pool::Postgres(pool), Some(listener)))
    } else {
        Err(StoreError::UnsupportedUrl(super::redact(url)))
    }
}

/// Opens (creating if needed) the SQLite file of a `sqlite://PATH` URL.
///
/// WAL with `synchronous = NORMAL`: a committed transaction survives the process
/// being killed; a power cut may lose the last few (docs/service.md).
async fn open_sqlite(url: &str) -> StoreResult<SqlitePool> {
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(BUSY_TIMEOUT)
        .foreign_keys(true);
    // A database in memory (`sqlite::memory:`, `?mode=memory`) has no file to create.
    if !(url.contains(":memory:") || url.contains("mode=memory")) {
        create_private(options.get_filename())?;
    }
    let pool = SqlitePoolOptions::new()
        .max_connections(SQLITE_CONNECTIONS)
        .before_acquire(|conn, _| Box::pin(async move { Ok(outside_a_transaction(conn)) }))
        .connect_with(options)
        .await?;
    SQLITE_MIGRATOR.run(&pool).await?;
    Ok(pool)
}

/// Whether a pooled connection may be handed out: not while sqlx still counts it as
/// inside a transaction. A COMMIT that fails (SQLite's "database or disk is full")
/// can leave it so; every later BEGIN on it would then fail ("attempted to call
/// begin_with at non-zero transaction depth"), long after the disk has room again.
/// Such a connection is closed and another opened in its place.
fn outside_a_transaction(conn: &mut impl sqlx::Connection) -> bool {
    let clean = !conn.is_in_transaction();
    if !clean {
        tracing::warn!("a database connection left inside a failed transaction was closed");
    }
    clean
}

/// Creates a missing database file readable and writable by its owner only (0600):
/// it holds conversations. SQLite gives the `-wal` and `-shm` files it creates beside
/// it the database file's permissions. An existing file is left as it is.
fn create_private(path: &std::path::Path) -> StoreResult<()> {
    if path.as_os_str().is_empty() || path.as_os_str() == ":memory:" || path.exists() {
        return Ok(());
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        // Another process created it first: it is that process's file now.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(StoreError::Database(sqlx::Error::Io(e))),
    }
}

/// Connects to a `postgres://` URL and migrates the database.
///
/// The URL may end in `pool_size=N` among its query parameters: the connections
/// this process opens for requests and workers (default 10; one more is opened for
/// `LISTEN`). It is taken out before the URL reaches the driver.
async fn open_postgres(url: &str) -> StoreResult<(PgPool, Listener)> {
    let (url, pool_size) = split_pool_size(url)?;
    let options = PgConnectOptions::from_str(&url)?.application_name("undertone");
    let pool = PgPoolOptions::new()
        .max_connections(pool_size)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .before_acquire(|conn, _| Box::pin(async move { Ok(outside_a_transaction(conn)) }))
        .connect_with(options.clone())
        .await?;
    POSTGRES_MIGRATOR.run(&pool).await?;
    let listen_pool = PgPoolOptions::new()
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .connect_lazy_with(options);
    Ok((pool, Listener(listen_pool)))
}

/// The URL without `pool_size`, and the pool size.
fn split_pool_size(url: &str) -> StoreResult<(String, u32)> {
    let mut parsed =
        url::Url::parse(url).map_err(|e| StoreError::UnsupportedUrl(format!("{url}: {e}")))?;
    let mut size = DEFAULT_MAX_CONNECTIONS;
    let mut kept = Vec::new();
    for (k, v) in parsed.query_pairs() {
        if k == "pool_size" {
            size = v.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                StoreError::UnsupportedUrl(format!(
                    "pool_size must be a positive integer, got `{v}`"
                ))
            })?;
        } else {
            kept.push((k.into_owned(), v.into_owned()));
        }
    }
    if kept.is_empty() {
        parsed.set_query(None);
    } else {
        parsed.query_pairs_mut().clear().extend_pairs(kept);
    }
    Ok((parsed.to_string(), size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_size_is_taken_out_of_the_url() {
        let (url, n) = split_pool_size("postgres://u:p@db:5432/ut?pool_size=3&sslmode=require")
            .expect("valid");
        assert_eq!(
            (url.as_str(), n),
            ("postgres://u:p@db:5432/ut?sslmode=require", 3)
        );
        let (url, n) = split_pool_size("postgres://db/ut?pool_size=7").expect("valid");
        assert_eq!((url.as_str(), n), ("postgres://db/ut", 7));
        let (url, n) = split_pool_size("postgres://db/ut").expect("valid");
        assert_eq!(
            (url.as_str(), n),
            ("postgres://db/ut", DEFAULT_MAX_CONNECTIONS)
        );
        assert!(split_pool_size("postgres://db/ut?pool_size=0").is_err());
        assert!(split_pool_size("postgres://db/ut?pool_size=x").is_err());
    }

    #[test]
    fn a_list_is_numbered_after_the_values_before_it() {
        let q = query("SELECT 1 WHERE a = $1 AND b IN ($list)")
            .bind(1_i64)
            .bind_list(["x", "y", "z"]);
        assert_eq!(q.sql, "SELECT 1 WHERE a = $1 AND b IN ($2, $3, $4)");
        assert_eq!(q.args.len(), 4);
        let empty: [&str; 0] = [];
        let q = query("SELECT 1 WHERE b IN ($list)").bind_list(empty);
        assert_eq!(q.sql, "SELECT 1 WHERE b IN (NULL)");
    }

    #[tokio::test]
    async fn a_database_in_memory_has_no_file_to_watch_or_create() {
        // sqlx names an in-memory database `file:sqlx-in-memory-N`: that name was once
        // created as an empty file in the working directory and watched, so deleting
        // the stray file made a healthy server answer 503.
        let stray = || {
            std::fs::read_dir(".")
                .expect("the working directory")
                .filter_map(Result::ok)
                .any(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("file:sqlx-in-memory")
                })
        };
        let before = stray();
        let (pool, _) = open("sqlite::memory:").await.expect("opens");
        assert!(matches!(pool, Pool::Sqlite(_, None)), "{pool:?}");
        assert!(pool.check_file().is_ok());
        assert_eq!(stray(), before, "no file created for a database in memory");
        // A file database is watched, by its absolute path.
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("w.db").display());
        let (pool, _) = open(&url).await.expect("opens");
        let Pool::Sqlite(_, Some(file)) = &pool else {
            panic!("{pool:?}")
        };
        assert!(
            file.path.is_absolute() && file.path.ends_with("w.db"),
            "{file:?}"
        );
        assert!(pool.check_file().is_ok());
    }

    #[tokio::test]
    async fn a_connection_left_inside_a_transaction_is_not_handed_out_again() {
        // What a COMMIT that failed on a full disk leaves behind: a connection sqlx
        // counts as inside a transaction, back in the pool. Every BEGIN on it failed
        // ("non-zero transaction depth") until the process restarted.
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}", dir.path().join("t.db").display());
        let pool = open_sqlite(&url).await.expect("opens");
        for _ in 0..SQLITE_CONNECTIONS {
            let mut conn = pool.acquire().await.expect("a connection");
            let tx = sqlx::Connection::begin(&mut *conn).await.expect("begins");
            // Neither committed nor rolled back, as after the failed COMMIT.
            std::mem::forget(tx);
            assert!(sqlx::Connection::is_in_transaction(&*conn));
        }
        for _ in 0..2 * SQLITE_CONNECTIONS {
            let tx = pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .expect("a fresh connection");
            tx.commit().await.expect("commits");
        }
    }
}
