//! A DBDC3 dialogue read as an Undertone request of one conversation: how the training
//! script's feature dump (`core/examples/train_features.rs`) and `undertone eval` both
//! read the corpus, so a model is measured on exactly what it was trained on.

use serde_json::{Value, json};

use crate::error::Error;
use crate::schema::IngestRequest;
use crate::validate::{self, Options};

/// One dialogue as a validated request.
#[derive(Debug)]
pub struct Dialog<'a> {
    /// The request: one conversation (`conversation_id` = the dialogue id), the user as
    /// `user`, the system as `bot` (`metadata.role` set), ten seconds between turns.
    pub request: IngestRequest,
    /// Per event of the request: the dialogue's turn index, whether it is a system
    /// turn, and the DBDC3 turn itself (with its labels).
    pub turns: Vec<(u64, bool, &'a Value)>,
}

/// Reads one DBDC3 dialogue (`{dialog_id, turns: [{role, text, turn_index, …}]}`);
/// turns without text are left out.
pub fn dialog(d: &Value) -> Result<Dialog<'_>, Error> {
    let id = d["dialog_id"].as_str().unwrap_or("dialog");
    let mut events = Vec::new();
    let mut turns = Vec::new();
    for (k, t) in d["turns"].as_array().into_iter().flatten().enumerate() {
        let content = t["text"].as_str().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let system = t["role"] == "system";
        let (role, actor) = if system {
            ("assistant", "bot")
        } else {
            ("user", "user")
        };
        let ts = chrono::DateTime::from_timestamp(1_700_000_000 + 10 * k as i64, 0)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        events.push(
            json!({"actor_id": actor, "content": content, "timestamp": ts,
            "conversation_id": id, "metadata": {"role": role}}),
        );
        turns.push((t["turn_index"].as_u64().unwrap_or(k as u64), system, t));
    }
    let body = json!({"deployment_id": "bot", "events": events});
    let options = Options {
        unlimited: true,
        ..Options::default()
    };
    let request = validate::ingest_request(&body, &options)?;
    Ok(Dialog { request, turns })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialogue_becomes_one_conversation_with_its_turn_indices() {
        let d = json!({"dialog_id": "CIC1", "turns": [
            {"role": "system", "text": "Hello.", "turn_index": 0},
            {"role": "user", "text": "  ", "turn_index": 1},
            {"role": "user", "text": "Hi there", "turn_index": 3}
        ]});
        let g = dialog(&d).unwrap();
        assert_eq!(g.request.events.len(), 2);
        assert_eq!(g.request.events[1].actor_id, "user");
        assert_eq!(g.request.events[0].conversation_id.as_deref(), Some("CIC1"));
        let idx: Vec<(u64, bool)> = g.turns.iter().map(|(i, s, _)| (*i, *s)).collect();
        assert_eq!(idx, [(0, true), (3, false)]);
    }
}
