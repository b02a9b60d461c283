//! ChatGPT's data export: `conversations.json`, an array of conversations whose
//! messages form a tree (`mapping`: node id → `{message, parent, children}`), because
//! an edited prompt or a regenerated answer starts a new branch. The conversation as
//! the person last saw it is the branch from `current_node` up to the root.
//!
//! Kept: `user` and `assistant` messages with text (`parts` strings joined by a
//! newline). Left out, each reported: system and tool messages, hidden ones, messages
//! with no text (an image or file only), and messages without a time (when no earlier
//! message of the branch has one either).

use serde_json::{Map, Value, json};

use super::{
    Collected, File, Format, Message, Role, epoch_seconds, event, for_each_conversation, invalid,
    text,
};
use crate::error::Result;
use crate::validate::type_name;

/// Longest branch followed; a longer one (or a cycle) is refused as malformed.
const MAX_DEPTH: usize = 100_000;

pub(super) fn read(file: &File<'_>, out: &mut Collected) -> Result<()> {
    for_each_conversation(file, "ChatGPT's conversations.json", |c, at| {
        conversation_events(c, at, out)
    })
}

fn conversation_events(c: &Value, at: &str, out: &mut Collected) -> Result<()> {
    let Some(c) = c.as_object() else {
        return Err(invalid(
            at,
            format!("expected a conversation object, got {}", type_name(c)),
        ));
    };
    let mapping = match c.get("mapping") {
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(invalid(
                &format!("{at}.mapping"),
                format!(
                    "expected an object of message nodes, got {}",
                    type_name(other)
                ),
            ));
        }
        None => {
            return Err(invalid(
                at,
                "expected a ChatGPT conversation with `mapping` (is this another export format?)",
            ));
        }
    };
    let id = c
        .get("conversation_id")
        .or_else(|| c.get("id"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| at.to_owned());
    let branch = current_branch(c, mapping, at)?;
    let title = c.get("title").and_then(Value::as_str);
    let mut last_time = c.get("create_time").and_then(epoch_seconds);
    for node_id in branch {
        let node_at = format!("{at}.mapping.{node_id}");
        let Some(message) = mapping[node_id].get("message").filter(|m| m.is_object()) else {
            continue; // the root placeholder every export has
        };
        let role = message["author"]["role"].as_str().unwrap_or("");
        let role = match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "system" | "tool" | "critic" | "" => {
                if !is_empty_system(message) {
                    let what = if role.is_empty() {
                        "no author role"
                    } else {
                        role
                    };
                    out.skip(
                        node_at,
                        format!("{what} message: only user and assistant turns are events"),
                    );
                }
                continue;
            }
            other => {
                out.skip(
                    node_at,
                    format!("author role {other:?} is neither user nor assistant"),
                );
                continue;
            }
        };
        if message["metadata"]["is_visually_hidden_from_conversation"] == json!(true) {
            out.skip(node_at, "hidden from the conversation in ChatGPT");
            continue;
        }
        let Some(content) = message_text(&message["content"]) else {
            let what = message["content"]["content_type"]
                .as_str()
                .unwrap_or("unknown");
            out.skip(node_at, format!("no text (content type {what})"));
            continue;
        };
        let timestamp = match message.get("create_time").and_then(epoch_seconds) {
            Some(t) => t,
            None => match last_time {
                Some(t) => t,
                None => {
                    out.skip(
                        node_at,
                        "no create_time, and no earlier time in the conversation",
                    );
                    continue;
                }
            },
        };
        last_time = Some(timestamp);
        let mut extra = Map::new();
        extra.insert("message_id".into(), json!(node_id));
        if let Some(title) = title {
            extra.insert("title".into(), json!(title));
        }
        if let Some(model) = message["metadata"]["model_slug"].as_str() {
            extra.insert("model_version".into(), json!(model));
        }
        let actor_id = match role {
            Role::User => "chatgpt:user".to_owned(),
            Role::Assistant => "chatgpt:assistant".to_owned(),
        };
        out.add(
            &node_at,
            event(
                Format::ChatGpt.name(),
                Message {
                    role,
                    actor_id,
                    content,
                    timestamp,
                    conversation_id: &id,
                    extra,
                },
            ),
        );
    }
    Ok(())
}

/// The node ids from the root to `current_node` (or, without one, to the last leaf
/// reached by following each node's last child).
fn current_branch<'a>(
    c: &Map<String, Value>,
    mapping: &'a Map<String, Value>,
    at: &str,
) -> Result<Vec<&'a str>> {
    let leaf = match c.get("current_node").and_then(Value::as_str) {
        Some(id) => mapping
            .get_key_value(id)
            .map(|(k, _)| k.as_str())
            .ok_or_else(|| {
                invalid(
                    &format!("{at}.current_node"),
                    format!("names node {id:?}, which is not in `mapping`"),
                )
            })?,
        None => {
            let Some(mut node) = mapping
                .iter()
                .find(|(_, n)| n.get("parent").is_none_or(Value::is_null))
                .map(|(k, _)| k.as_str())
            else {
                return Ok(Vec::new());
            };
            for _ in 0..MAX_DEPTH {
                let next = mapping[node]["children"]
                    .as_array()
                    .and_then(|c| c.last())
                    .and_then(Value::as_str)
                    .and_then(|id| mapping.get_key_value(id).map(|(k, _)| k.as_str()));
                match next {
                    Some(n) => node = n,
                    None => break,
                }
            }
            node
        }
    };
    let mut branch = vec![leaf];
    let mut node = leaf;
    while let Some(parent) = mapping[node].get("parent").and_then(Value::as_str) {
        let Some((key, _)) = mapping.get_key_value(parent) else {
            return Err(invalid(
                &format!("{at}.mapping.{node}.parent"),
                format!("names node {parent:?}, which is not in `mapping`"),
            ));
        };
        if branch.len() >= MAX_DEPTH {
            return Err(invalid(
                &format!("{at}.mapping"),
                "the parent links form a cycle or a branch deeper than 100000 messages",
            ));
        }
        branch.push(key.as_str());
        node = key.as_str();
    }
    branch.reverse();
    Ok(branch)
}

/// A system message with no text (ChatGPT starts most conversations with one): not
/// worth reporting.
fn is_empty_system(message: &Value) -> bool {
    message["author"]["role"] == "system" && message_text(&message["content"]).is_none()
}

/// The text of a message's `content`: its string `parts` (or `text`) joined by a
/// newline; images and other non-text parts are left out.
fn message_text(content: &Value) -> Option<String> {
    let joined = match content.get("parts").and_then(Value::as_array) {
        Some(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.as_str()),
                Value::Object(o) => o.get("text").and_then(Value::as_str),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        None => content.get("text").and_then(Value::as_str)?.to_owned(),
    };
    text(&joined)
}
