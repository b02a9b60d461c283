//! Zendesk tickets with their comments, as the Tickets and Ticket Comments APIs return
//! them: `{"tickets": [...], "users": [...]}` with each ticket's `comments` merged in,
//! or one ticket's `{"ticket": {...}, "comments": [...], "users": [...]}`, or an
//! array (or JSON Lines) of either.
//!
//! Who wrote a comment:
//! - the bot, when the comment came through a bot channel (`via.channel`
//!   `answer_bot…` or `ai_agent`), its `metadata.custom` says so (`bot: true`, or
//!   `role` an AI role), or its author's user record is tagged `bot`/`ai_agent`;
//! - the customer, when the author is an `end-user` in `users` (without `users`: when
//!   the author is the ticket's requester);
//! - otherwise a human agent. Agents, like the bot, are the answering side:
//!   `metadata.role` `assistant`, with `metadata.responder` `bot` or `human_agent` so
//!   the two can be told apart.
//!
//! Left out, each reported: internal notes (`public: false`), comments with no text
//! or no readable time, tickets without `comments`.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::markup::{html_to_text, looks_like_html};
use super::{
    Collected, File, Format, Message, Role, created_at, documents, event, invalid, no_text, text,
};
use crate::assembly::role::AI_ROLES;
use crate::error::Result;
use crate::schema::HUMAN_AGENT;
use crate::validate::type_name;

/// A Zendesk user as the comments need it.
struct User {
    end_user: bool,
    bot: bool,
}

type Users = HashMap<String, User>;

pub(super) fn read(file: &File<'_>, out: &mut Collected) -> Result<()> {
    for (at, doc) in documents(file)? {
        tickets_in(&doc, &at, out)?;
    }
    Ok(())
}

/// Every ticket in `doc`, whichever documented shape it has.
fn tickets_in(doc: &Value, at: &str, out: &mut Collected) -> Result<()> {
    match doc {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                tickets_in(item, &format!("{at}[{i}]"), out)?;
            }
            Ok(())
        }
        Value::Object(o) => {
            let users = users(o, at)?;
            if let Some(tickets) = o.get("tickets") {
                let Value::Array(tickets) = tickets else {
                    return Err(invalid(
                        &format!("{at}.tickets"),
                        format!("expected an array of tickets, got {}", type_name(tickets)),
                    ));
                };
                for (i, t) in tickets.iter().enumerate() {
                    let t_at = format!("{at}.tickets[{i}]");
                    let Some(t) = t.as_object() else {
                        return Err(invalid(
                            &t_at,
                            format!("expected a ticket object, got {}", type_name(t)),
                        ));
                    };
                    ticket(t, t.get("comments"), &t_at, &users, out)?;
                }
                Ok(())
            } else if let Some(t) = o.get("ticket") {
                let Some(t) = t.as_object() else {
                    return Err(invalid(
                        &format!("{at}.ticket"),
                        format!("expected a ticket object, got {}", type_name(t)),
                    ));
                };
                // The Ticket Comments API's list beside the ticket, or merged into it.
                let comments = o.get("comments").or_else(|| t.get("comments"));
                ticket(t, comments, &format!("{at}.ticket"), &users, out)
            } else if o.contains_key("comments") && o.contains_key("requester_id") {
                ticket(o, o.get("comments"), at, &users, out)
            } else {
                Err(invalid(
                    at,
                    "expected Zendesk tickets: {\"tickets\": [...]} with each ticket's \
                     `comments`, or {\"ticket\": {...}, \"comments\": [...]} (is this another \
                     export format?)",
                ))
            }
        }
        other => Err(invalid(
            at,
            format!(
                "expected Zendesk tickets (an object or an array), got {}",
                type_name(other)
            ),
        )),
    }
}

/// The sideloaded `users` of a response (`include=users`).
fn users(o: &Map<String, Value>, at: &str) -> Result<Users> {
    let mut users = Users::new();
    let Some(list) = o.get("users") else {
        return Ok(users);
    };
    let Value::Array(list) = list else {
        return Err(invalid(
            &format!("{at}.users"),
            format!("expected an array of users, got {}", type_name(list)),
        ));
    };
    for u in list {
        let Some(id) = id_text(&u["id"]) else {
            continue;
        };
        let tagged = u["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t == "bot" || t == "ai_agent");
        users.insert(
            id,
            User {
                end_user: u["role"] == "end-user",
                bot: tagged,
            },
        );
    }
    Ok(users)
}

/// A Zendesk id (a number, or a string in some exports) as text.
fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

fn ticket(
    t: &Map<String, Value>,
    comments: Option<&Value>,
    at: &str,
    users: &Users,
    out: &mut Collected,
) -> Result<()> {
    let comments = match comments {
        Some(Value::Array(c)) => c,
        Some(other) => {
            return Err(invalid(
                &format!("{at}.comments"),
                format!("expected an array of comments, got {}", type_name(other)),
            ));
        }
        None => {
            out.skip(
                at,
                "no `comments` (merge the Ticket Comments API's list into the ticket)",
            );
            return Ok(());
        }
    };
    let id = t
        .get("id")
        .and_then(id_text)
        .unwrap_or_else(|| at.to_owned());
    let requester = t.get("requester_id").and_then(id_text);
    let subject = t
        .get("subject")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty());
    for (j, c) in comments.iter().enumerate() {
        let c_at = format!("{at}.comments[{j}]");
        if c["public"] == false {
            out.skip(
                c_at,
                "an internal note (public: false), which the customer never saw",
            );
            continue;
        }
        let Some(author) = id_text(&c["author_id"]) else {
            out.skip(c_at, "no author_id");
            continue;
        };
        let attachments: Vec<Value> = c["attachments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["file_name"].as_str().map(|n| json!(n)))
            .collect();
        let Some(content) = comment_text(c) else {
            out.skip(c_at, no_text(&attachments));
            continue;
        };
        let timestamp = match created_at(c) {
            Ok(t) => t,
            Err(why) => {
                out.skip(c_at, why.to_string());
                continue;
            }
        };
        let user = users.get(&author);
        let channel = c["via"]["channel"].as_str();
        let (role, responder) = if is_bot(c, channel, user) {
            (Role::Assistant, Some("bot"))
        } else if user.map_or(requester.as_deref() == Some(author.as_str()), |u| {
            u.end_user
        }) {
            (Role::User, None)
        } else {
            (Role::Assistant, Some(HUMAN_AGENT))
        };
        let mut extra = Map::new();
        if let Some(cid) = id_text(&c["id"]) {
            extra.insert("message_id".into(), json!(cid));
        }
        if let Some(responder) = responder {
            extra.insert("responder".into(), json!(responder));
        }
        if let Some(subject) = subject {
            extra.insert("title".into(), json!(subject));
        }
        if let Some(channel) = channel {
            extra.insert("channel".into(), json!(channel));
        }
        if !attachments.is_empty() {
            extra.insert("attachments".into(), Value::Array(attachments));
        }
        out.add(
            &c_at,
            event(
                Format::Zendesk.name(),
                Message {
                    role,
                    actor_id: format!("zendesk:{author}"),
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

/// Whether the bot wrote comment `c` (see the module's documentation).
fn is_bot(c: &Value, channel: Option<&str>, user: Option<&User>) -> bool {
    let bot_channel = channel.is_some_and(|ch| ch.starts_with("answer_bot") || ch == "ai_agent");
    let custom = &c["metadata"]["custom"];
    let custom_says = custom["bot"] == true
        || custom["role"]
            .as_str()
            .is_some_and(|r| AI_ROLES.contains(&r.trim().to_ascii_lowercase().as_str()));
    bot_channel || custom_says || user.is_some_and(|u| u.bot)
}

/// `plain_body`, else `body` (HTML read as text when it is markup), else `html_body`
/// read as text.
fn comment_text(c: &Value) -> Option<String> {
    if let Some(t) = c["plain_body"].as_str().and_then(text) {
        return Some(t);
    }
    if let Some(body) = c["body"].as_str() {
        let body = if looks_like_html(body) {
            html_to_text(body)
        } else {
            body.to_owned()
        };
        if let Some(t) = text(&body) {
            return Some(t);
        }
    }
    c["html_body"].as_str().and_then(|h| text(&html_to_text(h)))
}
