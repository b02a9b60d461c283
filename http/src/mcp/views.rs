//! The concise shapes MCP tools answer with: key numbers first, evidence only where
//! asked for. Built from the same JSON the REST API returns, so the hosted endpoint
//! and the stdio server (a REST client) give identical results.

use serde_json::{Map, Value, json};

/// Turns listed in a summary's `flagged_turns` at most.
pub const FLAGGED_TURNS_SHOWN: usize = 10;

/// A dimension's numbers without its evidence: `{score, band, confidence, mode?}`.
fn numbers(dimension: &Value) -> Value {
    let mut out = Map::new();
    for key in ["score", "band", "confidence", "mode"] {
        if let Some(v) = dimension.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    Value::Object(out)
}

/// `{dimension: {score, band, confidence, mode?}}` of a `layer_z` object.
pub fn scores(layer_z: &Value) -> Value {
    match layer_z.as_object() {
        Some(dims) => Value::Object(
            dims.iter()
                .map(|(name, d)| (name.clone(), numbers(d)))
                .collect(),
        ),
        None => Value::Null,
    }
}

/// Every (turn, dimension) outside the healthy band, worst risk first (ties by event
/// index, then dimension name), and how many there are in all.
fn flagged_turns(intelligence: &Value) -> (Vec<Value>, usize) {
    let mut found: Vec<(f64, u64, &str, Value)> = Vec::new();
    let conversations = intelligence["conversations"].as_array();
    for conversation in conversations.into_iter().flatten() {
        for turn in conversation["turns"].as_array().into_iter().flatten() {
            let Some(dims) = turn["layer_z"].as_object() else {
                continue;
            };
            let index = turn["event_index"].as_u64().unwrap_or(u64::MAX);
            for (name, d) in dims {
                let band = d["band"].as_str().unwrap_or("healthy");
                if band == "healthy" {
                    continue;
                }
                let risk = d["risk"].as_f64().unwrap_or(0.0);
                found.push((
                    risk,
                    index,
                    name.as_str(),
                    json!({
                        "event_index": turn["event_index"],
                        "conversation_id": turn["conversation_id"],
                        "dimension": name,
                        "score": d["score"],
                        "band": band,
                    }),
                ));
            }
        }
    }
    found.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then_with(|| a.2.cmp(b.2))
    });
    let total = found.len();
    let shown = found
        .into_iter()
        .take(FLAGGED_TURNS_SHOWN)
        .map(|(.., v)| v)
        .collect();
    (shown, total)
}

/// The summary's keys after `head`, in order; all present (null until scored).
const SUMMARY_KEYS: [&str; 10] = [
    "scores",
    "key_finding",
    "recommendation",
    "flagged_turns",
    "flagged_turn_total",
    "archetype",
    "event_count",
    "conversation_count",
    "human_turn_count",
    "plain_summary",
];

/// The summary of a scored request: scores, finding, flagged turns, counts. `head`
/// goes first (`session_id`, `status`), `tail` last (times, error).
pub fn summary(
    head: Map<String, Value>,
    intelligence: Option<&Value>,
    tail: Map<String, Value>,
) -> Value {
    let mut out = head;
    match intelligence {
        Some(intel) => {
            let (flagged, total) = flagged_turns(intel);
            out.insert("scores".into(), scores(&intel["layer_z"]));
            out.insert("key_finding".into(), intel["key_finding"].clone());
            out.insert("recommendation".into(), intel["recommendation"].clone());
            out.insert("flagged_turns".into(), Value::Array(flagged));
            out.insert("flagged_turn_total".into(), json!(total));
            for key in SUMMARY_KEYS.into_iter().skip(5) {
                out.insert(key.into(), intel[key].clone());
            }
        }
        None => {
            for key in SUMMARY_KEYS {
                out.insert(key.into(), Value::Null);
            }
        }
    }
    out.extend(tail);
    Value::Object(out)
}

/// The summary of a REST session object (`GET /intelligence/{id}`, full view).
pub fn session_summary(session: &Value) -> Value {
    let status = session["status"].as_str().unwrap_or("");
    let mut head = Map::new();
    head.insert("session_id".into(), session["session_id"].clone());
    head.insert("status".into(), session["status"].clone());
    let intelligence = session["full_output"]
        .get("intelligence")
        .filter(|i| i.is_object());
    let mut tail = Map::new();
    for key in ["created_at", "completed_at", "error"] {
        tail.insert(key.into(), session[key].clone());
    }
    if matches!(status, "received" | "processing") {
        tail.insert(
            "next".into(),
            json!("scoring has not finished: call get_session again in a second or two"),
        );
    }
    let mut out = summary(head, intelligence, tail);
    if intelligence.is_none()
        && let Some(obj) = out.as_object_mut()
    {
        obj.insert("event_count".into(), session["event_count"].clone());
    }
    out
}

/// What `explain_score` answers for a human turn: where it is and, per dimension
/// (or only `dimension`), its numbers and evidence. `None` when no scored human turn
/// has `event_index`.
pub fn explain(
    session_id: &str,
    intelligence: &Value,
    event_index: u64,
    dimension: Option<&str>,
) -> Option<Value> {
    let turn = intelligence["conversations"]
        .as_array()?
        .iter()
        .flat_map(|c| c["turns"].as_array().into_iter().flatten())
        .find(|t| t["event_index"].as_u64() == Some(event_index))?;
    let dims = turn["layer_z"].as_object()?;
    let dimensions: Map<String, Value> = dims
        .iter()
        .filter(|(name, _)| dimension.is_none_or(|d| d == name.as_str()))
        .map(|(name, d)| {
            let mut v = numbers(d);
            if let Some(obj) = v.as_object_mut() {
                obj.insert("evidence".into(), d["evidence"].clone());
            }
            (name.clone(), v)
        })
        .collect();
    Some(json!({
        "session_id": session_id,
        "event_index": event_index,
        "conversation_id": turn["conversation_id"],
        "actor_id": turn["actor_id"],
        "timestamp": turn["timestamp"],
        "dimensions": dimensions,
    }))
}

/// Event indexes of the scored human turns, in order.
pub fn human_turn_indexes(intelligence: &Value) -> Vec<u64> {
    let mut out: Vec<u64> = intelligence["conversations"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["turns"].as_array().into_iter().flatten())
        .filter_map(|t| t["event_index"].as_u64())
        .collect();
    out.sort_unstable();
    out
}

/// `value`'s object keys reordered: `first` (those present) in that order, then the
/// rest as they were. Non-objects are returned unchanged.
pub fn key_numbers_first(value: Value, first: &[&str]) -> Value {
    let Value::Object(mut map) = value else {
        return value;
    };
    let mut out = Map::new();
    for key in first {
        if let Some(v) = map.shift_remove(*key) {
            out.insert((*key).to_owned(), v);
        }
    }
    out.extend(map);
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(score: f64, band: &str, evidence: Value) -> Value {
        json!({"score": score, "risk": score, "band": band, "direction": "higher_is_worse",
            "confidence": 0.5, "evidence": evidence})
    }

    fn intelligence() -> Value {
        json!({
            "archetype": "cx_chatbot", "event_count": 5, "conversation_count": 1,
            "human_turn_count": 2, "key_finding": "kf", "recommendation": "rec",
            "plain_summary": "ps",
            "layer_z": {"frustration_buildup": dim(0.6, "broken", json!([{"signal": "x"}]))},
            "conversations": [{"conversation_id": "c", "turns": [
                {"event_index": 0, "conversation_id": "c", "actor_id": "a", "timestamp": "t0",
                 "layer_z": {"frustration_buildup": dim(0.4, "watch", json!([])),
                             "trust_calibration": dim(0.1, "healthy", json!([]))}},
                {"event_index": 2, "conversation_id": "c", "actor_id": "a", "timestamp": "t2",
                 "layer_z": {"frustration_buildup": dim(0.7, "broken", json!([{"signal": "repeat"}])),
                             "trust_calibration": dim(0.1, "healthy", json!([]))}}
            ]}]
        })
    }

    #[test]
    fn summary_puts_scores_first_and_lists_flagged_turns_worst_first() {
        let mut head = Map::new();
        head.insert("status".into(), json!("scored"));
        let s = summary(head, Some(&intelligence()), Map::new());
        let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(&keys[..3], ["status", "scores", "key_finding"]);
        assert_eq!(
            s["scores"]["frustration_buildup"],
            json!({"score": 0.6, "band": "broken", "confidence": 0.5})
        );
        assert_eq!(s["flagged_turn_total"], 2);
        assert_eq!(s["flagged_turns"][0]["event_index"], 2);
        assert_eq!(s["flagged_turns"][0]["band"], "broken");
        assert_eq!(s["flagged_turns"][1]["event_index"], 0);
        assert_eq!(s["human_turn_count"], 2);
    }

    #[test]
    fn an_unfinished_session_has_null_scores_and_says_to_poll() {
        let s = session_summary(&json!({"session_id": "s", "status": "processing",
            "event_count": 4, "full_output": null, "created_at": "t", "completed_at": null,
            "error": null}));
        assert_eq!(s["scores"], Value::Null);
        assert_eq!(s["event_count"], 4);
        assert!(s["next"].as_str().unwrap().contains("get_session"));
    }

    #[test]
    fn explain_finds_the_turn_and_filters_one_dimension() {
        let intel = intelligence();
        let e = explain("s", &intel, 2, Some("frustration_buildup")).unwrap();
        assert_eq!(e["timestamp"], "t2");
        let dims = e["dimensions"].as_object().unwrap();
        assert_eq!(dims.len(), 1);
        assert_eq!(
            dims["frustration_buildup"]["evidence"][0]["signal"],
            "repeat"
        );
        assert_eq!(explain("s", &intel, 1, None), None);
        assert_eq!(human_turn_indexes(&intel), vec![0, 2]);
    }

    #[test]
    fn key_numbers_first_moves_only_present_keys() {
        let v = key_numbers_first(json!({"a": 1, "b": 2, "c": 3}), &["c", "z", "a"]);
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["c", "a", "b"]);
    }
}
