//! What a command can fail with; each prints as the one line the user sees after
//! `error: `.

use crate::store::StoreError;

/// A command's failure.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A file, folder or standard input could not be read.
    #[error("cannot read {what}: {source}")]
    Read {
        /// What was read, as the user named it.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A file is larger than the API accepts (its size known before reading).
    #[error("{what} is {len} bytes; the limit is {limit} bytes (16 MiB)")]
    TooLarge {
        /// The file.
        what: String,
        /// Its size.
        len: u64,
        /// The limit.
        limit: usize,
    },
    /// An input read in full turned out larger than the API accepts.
    #[error("{what} is over the limit of {limit} bytes (16 MiB)")]
    OverLimit {
        /// The input.
        what: String,
        /// The limit.
        limit: usize,
    },
    /// An export folder could not be read, or holds no file.
    #[error(transparent)]
    Files(#[from] undertone_files::ReadError),
    /// The database could not be opened (its URL shown without a password).
    #[error("cannot open the database {url}: {source}")]
    OpenDatabase {
        /// The redacted URL.
        url: String,
        /// Why.
        source: StoreError,
    },
    /// A database operation failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The server could not listen where it was asked to.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The first API key of an empty database could not be created.
    #[error("cannot create the first API key: {0}")]
    FirstKey(StoreError),
    /// The webhook HTTP client could not start.
    #[error("cannot build the webhook HTTP client: {0}")]
    HttpClient(reqwest::Error),
    /// The metrics listener could not start.
    #[error(transparent)]
    Metrics(#[from] crate::metrics::BindError),
    /// `--webhook-disable-after` is not a number of hours in (0, 87600].
    #[error("`{0}` is not a number of hours above 0 and at most 87600 (ten years)")]
    Hours(String),
    /// `--queue-key-share` is not in (0, 1].
    #[error("`{0}` is not a share above 0 and at most 1")]
    Share(String),
    /// A file or folder could not be written.
    #[error("cannot write {what}: {source}")]
    Write {
        /// What was written.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A line of a data file is not JSON.
    #[error("{at}: {source}")]
    BadJson {
        /// File and line.
        at: String,
        /// What the parser said.
        source: serde_json::Error,
    },
    /// A record of a data file breaks the input contract.
    #[error("{at}: {source}")]
    Invalid {
        /// File and line, or the record's id.
        at: String,
        /// The violations.
        source: undertone_core::Error,
    },
    /// `undertone eval` found no labelled data at all.
    #[error("no labelled data found; pass --data, --annotations and/or --labelled")]
    NoLabelledData,
    /// A metrics recorder is installed already (a second server in one process).
    #[error("cannot install the metrics recorder: one is installed already")]
    MetricsRecorder,
}
