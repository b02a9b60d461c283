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
    /// A folder given as input holds no file.
    #[error("{0} is an empty folder")]
    EmptyFolder(String),
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
}
