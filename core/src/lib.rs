//! Undertone's core: the input contract, conversation assembly and (in later modules)
//! scoring and statistics of the human side of AI conversations.
//!
//! This crate is pure: no I/O, no async, no clock reads. The REST service and every
//! language binding call these same functions, so they accept and reject the same
//! inputs with the same error codes.
//!
//! ```
//! use undertone_core::{assemble, validate};
//!
//! let body = br#"{"deployment_id": "acme-bot", "events": [
//!   {"actor_id": "cust-1", "content": "Where is my order?", "timestamp": "2026-11-21T09:30:00+01:00"},
//!   {"actor_id": "acme-bot", "content": "It ships today.", "timestamp": "2026-11-21T08:30:05Z"}
//! ]}"#;
//! let request = validate::ingest_request_bytes(body, &validate::Options::default())?;
//! let assembly = assemble(&request.events, Some(&request.deployment_id));
//! assert_eq!(assembly.conversation_count, 1);
//! assert_eq!(assembly.human_turn_count, 1);
//! # Ok::<(), undertone_core::Error>(())
//! ```

pub mod assembly;
pub mod connectors;
mod data_file;
pub mod decimal;
pub mod drift;
pub mod error;
pub mod eval;
pub mod features;
pub mod model;
pub mod monitor;
pub mod schema;
pub mod score;
pub mod sdk;
pub mod signature;
pub mod stats;
pub mod validate;

pub use assembly::{Assembly, Conversation, Role, Turn, assemble};
pub use error::{Error, ErrorCode, Result, Violation};
pub use schema::{DriftRequest, Event, IngestRequest, Period, Pipeline};
