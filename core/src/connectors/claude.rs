//! Claude's data export: `conversations.json`, an array of conversations, each with
//! `chat_messages` in order (`sender`: `human` or `assistant`, `created_at` RFC 3339,
//! the text in `text` or in `content` blocks of type `text`).
//!
//! Kept: human and assistant messages with text. Left out, each reported: messages
//! with no text (attachments only), another sender, or no readable time. Attachment
//! names are kept in `metadata.attachments`; their extracted contents are not turned
//! into the person's words.

use serde_json::{Map, Value, json};

use super::{
    Collected, File, Format, Message, Role, created_at, event, for_each_conversation, invalid,
    no_text, text,
};
use crate::error::Result;
use crate::validate::type_name;

pub(super) fn read(file: &File<'_>, out: &mut Collected) -> Result<()> {
    for_each_conversation(file, "Claude's conversations.json", |c, at| {
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
    let messages = match c.get("chat_messages") {
        Some(Value::Array(m)) => m,
        Some(other) => {
            return Err(invalid(
                &format!("{at}.chat_messages"),
                format!("expected an array of messages, got {}", type_name(other)),
            ));
        }
        None => {
            return Err(invalid(
                at,
                "expected a Claude conversation with `chat_messages` (is this another export format?)",
            ));
        }
    };
    let id = c
        .get("uuid")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| at.to_owned());
    let title = c
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty());
    for (j, m) in messages.iter().enumerate() {
        let m_at = format!("{at}.chat_messages[{j}]");
        let role = match m["sender"].as_str() {
            Some("human") => Role::User,
            Some("assistant") => Role::Assistant,
            Some(other) => {
                out.skip(
                    m_at,
                    format!("sender {other:?} is neither human nor assistant"),
                );
                continue;
            }
            None => {
                out.skip(m_at, "no sender");
                continue;
            }
        };
        let attachments: Vec<Value> = ["attachments", "files"]
            .iter()
            .flat_map(|k| m[*k].as_array().into_iter().flatten())
            .filter_map(|a| a["file_name"].as_str().map(|n| json!(n)))
            .collect();
        let Some(content) = message_text(m) else {
            out.skip(m_at, no_text(&attachments));
            continue;
        };
        let timestamp = match created_at(m) {
            Ok(t) => t,
            Err(why) => {
                out.skip(m_at, why.to_string());
                continue;
            }
        };
        let mut extra = Map::new();
        if let Some(uuid) = m["uuid"].as_str() {
            extra.insert("message_id".into(), json!(uuid));
        }
        if let Some(title) = title {
            extra.insert("title".into(), json!(title));
        }
        if !attachments.is_empty() {
            extra.insert("attachments".into(), Value::Array(attachments));
        }
        let actor_id = match role {
            Role::User => "claude:human",
            Role::Assistant => "claude:assistant",
        };
        out.add(
            &m_at,
            event(
                Format::Claude.name(),
                Message {
                    role,
                    actor_id: actor_id.to_owned(),
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

/// `text`, or the `text` blocks of `content` joined by a newline.
fn message_text(m: &Value) -> Option<String> {
    if let Some(t) = m["text"].as_str().and_then(text) {
        return Some(t);
    }
    let blocks: Vec<&str> = m["content"]
        .as_array()?
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    text(&blocks.join("\n"))
}
