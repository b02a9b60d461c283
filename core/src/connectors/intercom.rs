//! Intercom conversations as the Conversations API returns them: one conversation
//! (`"type": "conversation"`), an array or JSON Lines of them, or a list response
//! `{"conversations": [...]}`. The opening message is `source`; the rest are
//! `conversation_parts.conversation_parts`, in order. Bodies are HTML.
//!
//! Who wrote a part (`author.type`): `user`, `lead` or `contact` is the customer; `bot`
//! (Fin, custom bots) is the AI; `admin` is a human teammate. Teammates, like the bot,
//! are the answering side: `metadata.role` `assistant`, with `metadata.responder`
//! `bot` or `human_agent`.
//!
//! Left out, each reported: internal notes, parts with no text (assignments, opens
//! and closes without a message, attachments only), parts by another author type,
//! parts without a time.

use serde_json::{Map, Value, json};

use super::markup::html_to_text;
use super::{
    Collected, File, Format, Message, Role, documents, epoch_seconds, event, invalid, no_text, text,
};
use crate::error::Result;
use crate::schema::HUMAN_AGENT;
use crate::validate::type_name;

/// Part types that are internal to the team: the customer never saw them.
const NOTES: [&str; 2] = ["note", "note_and_reopen"];

pub(super) fn read(file: &File<'_>, out: &mut Collected) -> Result<()> {
    for (at, doc) in documents(file)? {
        conversations_in(&doc, &at, out)?;
    }
    Ok(())
}

fn conversations_in(doc: &Value, at: &str, out: &mut Collected) -> Result<()> {
    match doc {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, c)| conversations_in(c, &format!("{at}[{i}]"), out)),
        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("conversation") => {
            conversation(o, at, out)
        }
        Value::Object(o) if o.contains_key("conversations") => match &o["conversations"] {
            Value::Array(items) => items.iter().enumerate().try_for_each(|(i, c)| {
                conversations_in(c, &format!("{at}.conversations[{i}]"), out)
            }),
            other => Err(invalid(
                &format!("{at}.conversations"),
                format!(
                    "expected an array of conversations, got {}",
                    type_name(other)
                ),
            )),
        },
        other => Err(invalid(
            at,
            format!(
                "expected an Intercom conversation (an object with \"type\": \"conversation\"), \
                 an array of them or {{\"conversations\": [...]}}; got {} (is this another \
                 export format?)",
                match other {
                    Value::Object(_) => "an object without \"type\": \"conversation\"",
                    v => type_name(v),
                }
            ),
        )),
    }
}

fn conversation(c: &Map<String, Value>, at: &str, out: &mut Collected) -> Result<()> {
    let id = match c.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => at.to_owned(),
    };
    let title = c
        .get("title")
        .and_then(Value::as_str)
        .filter(|t| !t.trim().is_empty());
    // The API's `{"conversation_parts": [...]}`, or the array itself in some dumps.
    let (parts, parts_at) = match c.get("conversation_parts") {
        None | Some(Value::Null) => (&[][..], String::new()),
        Some(Value::Array(p)) => (p.as_slice(), format!("{at}.conversation_parts")),
        Some(list) => match list.get("conversation_parts") {
            Some(Value::Array(p)) => (
                p.as_slice(),
                format!("{at}.conversation_parts.conversation_parts"),
            ),
            _ => {
                return Err(invalid(
                    &format!("{at}.conversation_parts"),
                    format!(
                        "expected {{\"conversation_parts\": [...]}}, got {}",
                        type_name(list)
                    ),
                ));
            }
        },
    };
    // The opening message has no `created_at` of its own: it is the conversation's.
    if let Some(source) = c.get("source").filter(|s| s.is_object()) {
        let when = source.get("created_at").or_else(|| c.get("created_at"));
        part(source, when, &format!("{at}.source"), &id, title, out);
    }
    for (j, p) in parts.iter().enumerate() {
        part(
            p,
            p.get("created_at"),
            &format!("{parts_at}[{j}]"),
            &id,
            title,
            out,
        );
    }
    Ok(())
}

fn part(
    p: &Value,
    created_at: Option<&Value>,
    at: &str,
    conversation_id: &str,
    title: Option<&str>,
    out: &mut Collected,
) {
    let kind = p["part_type"].as_str();
    if let Some(kind) = kind.filter(|k| NOTES.contains(k)) {
        out.skip(
            at,
            format!("an internal note (part_type {kind}), which the customer never saw"),
        );
        return;
    }
    let author = &p["author"];
    let (role, responder) = match author["type"].as_str() {
        Some("user" | "lead" | "contact") => (Role::User, None),
        Some("bot") => (Role::Assistant, Some("bot")),
        Some("admin") => (Role::Assistant, Some(HUMAN_AGENT)),
        Some(other) => {
            out.skip(
                at,
                format!("author type {other:?} is neither user, lead, contact, bot nor admin"),
            );
            return;
        }
        None => {
            out.skip(at, "no author.type");
            return;
        }
    };
    let attachments: Vec<Value> = p["attachments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| a["name"].as_str().map(|n| json!(n)))
        .collect();
    let Some(content) = p["body"].as_str().and_then(|b| text(&html_to_text(b))) else {
        let what = match kind {
            Some(kind) if kind != "comment" && attachments.is_empty() => {
                format!("no text (part_type {kind})")
            }
            _ => no_text(&attachments).to_owned(),
        };
        out.skip(at, what);
        return;
    };
    let Some(timestamp) = created_at.and_then(epoch_seconds) else {
        out.skip(at, "no created_at (epoch seconds)");
        return;
    };
    let author_id = match &author["id"] {
        Value::String(s) if !s.is_empty() => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => role.as_str().to_owned(),
    };
    let mut extra = Map::new();
    if let Some(id) = p["id"].as_str() {
        extra.insert("message_id".into(), json!(id));
    }
    if let Some(responder) = responder {
        extra.insert("responder".into(), json!(responder));
    }
    if let Some(title) = title {
        extra.insert("title".into(), json!(title));
    }
    if !attachments.is_empty() {
        extra.insert("attachments".into(), Value::Array(attachments));
    }
    out.add(
        at,
        event(
            Format::Intercom.name(),
            Message {
                role,
                actor_id: format!("intercom:{author_id}"),
                content,
                timestamp,
                conversation_id,
                extra,
            },
        ),
    );
}
