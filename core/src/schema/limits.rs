//! The numeric limits of the input contract (DESIGN.md §2), in one place.

/// Fewest events an ingest request may hold.
pub const INGEST_EVENTS_MIN: usize = 1;
/// Most events an ingest request may hold.
pub const INGEST_EVENTS_MAX: usize = 5000;
/// Fewest events a drift period (`before` or `after`) may hold.
pub const DRIFT_EVENTS_MIN: usize = 5;
/// Most events a drift period may hold.
pub const DRIFT_EVENTS_MAX: usize = 2000;
/// Largest `content`, in UTF-8 bytes after trimming surrounding whitespace.
pub const CONTENT_MAX_BYTES: usize = 32 * 1024;
/// Largest `metadata` object, in bytes of its compact JSON serialisation.
pub const METADATA_MAX_BYTES: usize = 16 * 1024;
/// Deepest nesting of `metadata`; the metadata object itself is level 1.
pub const METADATA_MAX_DEPTH: usize = 8;
/// Longest identifier (`actor_id`, `deployment_id`, `conversation_id`, `context`, labels), in characters.
pub const ID_MAX_CHARS: usize = 256;
/// Longest drift `question`, in characters.
pub const QUESTION_MAX_CHARS: usize = 2000;
/// Longest `webhook_url`, in characters.
pub const URL_MAX_CHARS: usize = 2048;
/// Longest release name of a deploy marker (`POST /deploys`, or `metadata.release` /
/// `metadata.model_version` of events), in characters.
pub const RELEASE_MAX_CHARS: usize = 256;
/// Longest description of a deploy marker, in characters.
pub const DEPLOY_DESCRIPTION_MAX_CHARS: usize = 2000;
/// Largest request body, in bytes.
pub const BODY_MAX_BYTES: usize = 16 * 1024 * 1024;
/// Most items of one array, or members of one object, in a request body. No valid body
/// needs more (an ingest holds at most [`INGEST_EVENTS_MAX`] events, a drift period
/// [`DRIFT_EVENTS_MAX`], and [`METADATA_MAX_BYTES`] of metadata at most 8,192 values),
/// so a body that gives more is refused as soon as it does, while it is read: 16 MiB of
/// `[0,0,…]` would otherwise become eight million parsed values, about a gigabyte.
pub const BODY_ITEMS_MAX: usize = 10_000;
/// Gap between turns, in seconds, beyond which an implicitly grouped conversation is split.
pub const CONVERSATION_GAP_SECS: i64 = 30 * 60;
/// Most conversations a period of a drift over a deployment's history may hold.
pub const DRIFT_HISTORY_CONVERSATIONS_MAX: usize = 10_000;
