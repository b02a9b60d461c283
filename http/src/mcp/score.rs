//! `score_conversation`: scoring in this process, nothing stored, and the slots that
//! keep a shared server's CPU from being held by one key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::JsonObject;
use serde_json::{Map, Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ToolError;
use super::views;
use crate::api::error::Code;

/// The slots of `score_conversation` on a shared server: as many at once as there are
/// cores, and at most half of them (at least one) for any one key, so one key cannot
/// hold every slot.
pub struct Scoring {
    all: Arc<Semaphore>,
    per_key: usize,
    keys: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// Which limit refused a scoring slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Busy {
    /// Every slot of the server is taken.
    Server,
    /// This key holds its share already.
    Key,
}

/// A scoring slot, held until dropped.
pub type Slot = (OwnedSemaphorePermit, OwnedSemaphorePermit);

impl Scoring {
    /// `slots` at once in all, `per_key` of them for one key.
    pub fn new(slots: usize, per_key: usize) -> Self {
        Scoring {
            all: Arc::new(Semaphore::new(slots.max(1))),
            per_key: per_key.max(1),
            keys: Mutex::default(),
        }
    }

    /// A slot for `key_id`, held until the permits are dropped.
    pub fn try_acquire(&self, key_id: &str) -> Result<Slot, Busy> {
        let mine = {
            let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
            if keys.len() > 4096 {
                // Forget keys that hold nothing, so the map stays small.
                let idle = self.per_key;
                keys.retain(|_, s| s.available_permits() < idle);
            }
            keys.entry(key_id.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(self.per_key)))
                .clone()
        };
        let key = mine.try_acquire_owned().map_err(|_| Busy::Key)?;
        let server = self
            .all
            .clone()
            .try_acquire_owned()
            .map_err(|_| Busy::Server)?;
        Ok((key, server))
    }

    /// A slot for `key_id`, or the `SERVICE_UNAVAILABLE` that says to retry.
    pub fn slot(&self, key_id: &str) -> Result<Slot, ToolError> {
        self.try_acquire(key_id).map_err(|busy| {
            let why = match busy {
                Busy::Server => "every scoring slot of this server is busy",
                Busy::Key => "this key already holds its share of the scoring slots",
            };
            ToolError::new(
                Code::ServiceUnavailable,
                format!("{why}: retry in a second, or ingest_conversation to queue the work"),
            )
            .retry_after(1)
        })
    }
}

/// Scores `args` (an ingest body plus `view`) on the blocking pool, holding `slot`
/// (if any) until it is done.
pub async fn score_off_runtime(args: JsonObject, slot: Option<Slot>) -> Result<Value, ToolError> {
    tokio::task::spawn_blocking(move || {
        let _slot = slot;
        score_locally(&args)
    })
    .await
    .unwrap_or_else(|e| {
        tracing::error!(error = %e, "local scoring panicked");
        Err(ToolError::new(
            Code::InternalError,
            "scoring failed; it has been logged",
        ))
    })
}

/// Scores `args` (an ingest body plus `view`) locally; nothing is stored.
pub fn score_locally(args: &JsonObject) -> Result<Value, ToolError> {
    let mut body = args.clone();
    let full = match body.shift_remove("view") {
        None => false,
        Some(Value::String(v)) if v == "summary" => false,
        Some(Value::String(v)) if v == "full" => true,
        Some(other) => {
            return Err(ToolError::new(
                Code::ValidationError,
                format!("view: must be `summary` or `full`, got {other}"),
            ));
        }
    };
    if body.contains_key("webhook_url") {
        return Err(ToolError::new(
            Code::ValidationError,
            "webhook_url: score_conversation sends nothing; pass webhook_url to \
             ingest_conversation instead",
        ));
    }
    // The REST body limit, on the body as REST would receive it.
    let body = Value::Object(body);
    let size = serde_json::to_vec(&body).map_or(usize::MAX, |b| b.len());
    if size > crate::api::MAX_BODY_BYTES {
        let e = undertone_core::Error::Validation(vec![undertone_core::Violation::new(
            "body",
            format!(
                "is {size} bytes; the limit is {} bytes (16 MiB)",
                crate::api::MAX_BODY_BYTES
            ),
        )]);
        return Err(ToolError(e.to_envelope()["error"].clone()));
    }
    let options = undertone_core::validate::Options {
        allow_private_webhooks: false,
        unlimited: false,
        repeated_keys: false,
    };
    let request = undertone_core::validate::ingest_request(&body, &options)
        .map_err(|e| ToolError(e.to_envelope()["error"].clone()))?;
    let result = undertone_core::score::score(&request);
    // `{pipeline, intelligence}`: exactly what a complete session's `full_output` holds.
    let output = serde_json::to_value(&result)
        .map_err(|e| ToolError::new(Code::InternalError, format!("could not render: {e}")))?;
    if full {
        return Ok(json!({"status": "scored", "pipeline": output["pipeline"],
            "intelligence": output["intelligence"]}));
    }
    let intelligence = &output["intelligence"];
    let mut head = Map::new();
    head.insert("status".into(), json!("scored"));
    Ok(views::summary(head, Some(intelligence), Map::new()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_key_holds_at_most_its_share_and_the_server_at_most_all() {
        let slots = Scoring::new(3, 2);
        let a1 = slots.try_acquire("key_a").expect("first slot");
        let a2 = slots.try_acquire("key_a").expect("second slot");
        assert_eq!(slots.try_acquire("key_a").err(), Some(Busy::Key));
        let b1 = slots.try_acquire("key_b").expect("another key's slot");
        assert_eq!(slots.try_acquire("key_c").err(), Some(Busy::Server));
        drop(a1);
        let a3 = slots.try_acquire("key_a").expect("a slot freed");
        drop((a2, a3, b1));
        assert!(slots.try_acquire("key_c").is_ok());
    }

    #[test]
    fn local_scoring_refuses_bad_input_with_paths() {
        let args: JsonObject =
            serde_json::from_value(json!({"deployment_id": "d", "events": []})).unwrap();
        let e = score_locally(&args).unwrap_err();
        assert_eq!(e.0["code"], "VALIDATION_ERROR");
        assert_eq!(e.0["details"][0]["path"], "events");
        let args: JsonObject = serde_json::from_value(json!({"deployment_id": "d",
            "events": [{"actor_id": "u", "content": "hi", "timestamp": "2026-01-01T00:00:00Z"}],
            "webhook_url": "https://example.com"}))
        .unwrap();
        assert!(
            score_locally(&args).unwrap_err().0["message"]
                .as_str()
                .unwrap()
                .starts_with("webhook_url")
        );
    }
}
