//! Pages of a list: `?limit=1..100` and `?cursor=`, the id of the last item of the
//! previous page (`next_cursor`). The rule of every listing route: sessions and
//! deliveries (newest first, 20 by default, a UUID as the cursor), deployments (by
//! id, 100 by default, a deployment id as the cursor).

use serde::Deserialize;

use super::error::{ApiError, Code};

/// Items per page by default.
pub const PAGE_DEFAULT: u32 = 20;
/// Items per page at most.
pub const PAGE_MAX: u32 = 100;

/// `?limit=` and `?cursor=` as given; any other parameter is refused (a typo such as
/// `?limt=` would otherwise be ignored without a word).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    #[serde(default, deserialize_with = "super::body::whole_number")]
    limit: Option<String>,
    cursor: Option<String>,
}

impl PageQuery {
    /// The page size and the cursor, checked: the cursor must be an id (a UUID) of
    /// `what` (e.g. `a session id`). It is read in any spelling of a UUID (upper
    /// case, without hyphens, braced, `urn:uuid:`), as a path id is, and given back
    /// in the one the ids are stored in.
    pub fn checked(self, what: &str) -> Result<(u32, Option<String>), ApiError> {
        let limit = super::body::from_one_to("limit", self.limit, PAGE_DEFAULT, PAGE_MAX)?;
        let cursor = match self.cursor.as_deref().map(uuid::Uuid::parse_str) {
            None => None,
            Some(Ok(id)) => Some(id.hyphenated().to_string()),
            Some(Err(_)) => {
                return Err(ApiError::new(
                    Code::ValidationError,
                    format!("cursor: must be the `next_cursor` of a previous page ({what})"),
                ));
            }
        };
        Ok((limit, cursor))
    }

    /// The page size (`default` when not given) and the cursor of a list in the order
    /// of its ids, which are identifiers (deployment ids): the cursor is checked as an
    /// identifier in a request is.
    pub fn checked_names(self, default: u32) -> Result<(u32, Option<String>), ApiError> {
        let limit = super::body::from_one_to("limit", self.limit, default, PAGE_MAX)?;
        if let Some(cursor) = &self.cursor {
            undertone_core::validate::identifier(cursor, "cursor")?;
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
