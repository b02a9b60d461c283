//! Pages of a list, newest first: `?limit=1..100` (default 20) and `?cursor=`, the id
//! of the last item of the previous page (`next_cursor`). The rule of every listing
//! route (sessions, deliveries).

use serde::Deserialize;

use super::error::{ApiError, Code};

/// Items per page by default.
pub const PAGE_DEFAULT: u32 = 20;
/// Items per page at most.
pub const PAGE_MAX: u32 = 100;

/// `?limit=` and `?cursor=` as given.
#[derive(Debug, Deserialize)]
pub struct PageQuery {
    limit: Option<u32>,
    cursor: Option<String>,
}

impl PageQuery {
    /// The page size and the cursor, checked: the cursor must be an id (a UUID) of
    /// `what` (e.g. `a session id`).
    pub fn checked(self, what: &str) -> Result<(u32, Option<String>), ApiError> {
        let limit = self.limit.unwrap_or(PAGE_DEFAULT);
        if !(1..=PAGE_MAX).contains(&limit) {
            return Err(ApiError::new(
                Code::ValidationError,
                format!("limit: must be from 1 to {PAGE_MAX}, got {limit}"),
            ));
        }
        if let Some(c) = &self.cursor
            && uuid::Uuid::parse_str(c).is_err()
        {
            return Err(ApiError::new(
                Code::ValidationError,
                format!("cursor: must be the `next_cursor` of a previous page ({what})"),
            ));
        }
        Ok((limit, self.cursor))
    }
}

/// The first `limit` of `rows` (fetched with one more than `limit`), and the cursor of
/// the next page: the last kept item's id when more followed.
pub fn page<T>(
    mut rows: Vec<T>,
    limit: u32,
    id: impl Fn(&T) -> String,
) -> (Vec<T>, Option<String>) {
    let more = rows.len() > limit as usize;
    rows.truncate(limit as usize);
    let next = if more { rows.last().map(id) } else { None };
    (rows, next)
}
