//! A Slack export, unzipped: `users.json` and `channels.json` at the top, and one
//! folder per channel holding a JSON array of messages per day
//! (`help-desk/2026-03-02.json`). File names are paths relative to the export's root
//! with `/` between folders; the channel is a daily file's folder (or, for a file on
//! its own, its name without `.json`).
//!
//! - **Conversations:** a thread (`thread_ts`) is one conversation,
//!   `<channel>/<thread_ts>`, whichever days its replies fall on; the messages of a
//!   channel outside threads make one conversation per day, `<channel>/<day>`.
//! - **Who:** a message with `bot_id`, subtype `bot_message`, or from a user whose
//!   `users.json` record has `is_bot` is the AI (`metadata.responder` `bot`); a
//!   message from any other `user` is a person.
//! - **Text:** Slack's markup is read as a person sees it: `<@U…>` becomes `@name`
//!   (from `users.json`), `<#C…|name>` `#name`, `<url|label>` the label, and `&amp;`,
//!   `&lt;`, `&gt;` their characters. File names go into `metadata.attachments`.
//! - **Left out, each reported:** joins, topic changes and other non-message
//!   subtypes, deleted messages, messages with no text (files only), with no user or
//!   no readable `ts`, and files that are not a channel's messages.

use std::collections::HashMap;

use chrono::{DateTime, Datelike, Utc};
use serde_json::{Map, Value, json};

use super::{Collected, File, Format, Message, Role, event, invalid, parse_json, text};
use crate::error::Result;
use crate::validate::type_name;

/// Files of the export's root that describe the workspace rather than hold messages.
const WORKSPACE_FILES: [&str; 8] = [
    "channels.json",
    "groups.json",
    "dms.json",
    "mpims.json",
    "integration_logs.json",
    "canvases.json",
    "org_users.json",
    "users.json",
];

/// Message subtypes that carry what a person or the bot said.
const SAID: [&str; 4] = [
    "bot_message",
    "thread_broadcast",
    "file_share",
    "me_message",
];

struct User {
    name: String,
    bot: bool,
}

pub(super) fn read(files: &[File<'_>], out: &mut Collected) -> Result<()> {
    // Names come from users.json wherever it is in the list.
    let mut users = HashMap::new();
    for file in files.iter().filter(|f| base_name(f.name) == "users.json") {
        read_users(file, &mut users)?;
    }
    let mut messages = Vec::new();
    for file in files {
        let base = base_name(file.name);
        if WORKSPACE_FILES.contains(&base) {
            continue;
        }
        let Some(stem) = base.strip_suffix(".json") else {
            out.skip(
                file.name,
                "not a channel's messages (a Slack export holds <channel>/<day>.json files)",
            );
            continue;
        };
        let channel = match file.name.rsplit_once('/') {
            Some((folder, _)) => base_name(folder),
            None => stem,
        };
        let doc = parse_json(file)?;
        let Value::Array(items) = doc else {
            return Err(invalid(
                file.name,
                format!(
                    "expected a Slack channel's messages for a day (an array), got {}",
                    type_name(&doc)
                ),
            ));
        };
        for (i, m) in items.iter().enumerate() {
            let at = format!("{}[{i}]", file.name);
            if let Some(kept) = message(m, &at, channel, stem, &users, out) {
                messages.push(kept);
            }
        }
    }
    // A conversation's events together, in order of their first appearance, each in
    // time order (a thread's replies can fall in later days' files).
    let mut first_seen: HashMap<String, usize> = HashMap::new();
    for (i, (conversation, _, _)) in messages.iter().enumerate() {
        first_seen.entry(conversation.clone()).or_insert(i);
    }
    messages.sort_by(|a, b| first_seen[&a.0].cmp(&first_seen[&b.0]).then(a.1.cmp(&b.1)));
    out.events.extend(messages.into_iter().map(|(_, _, e)| e));
    Ok(())
}

fn base_name(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

fn read_users(file: &File<'_>, users: &mut HashMap<String, User>) -> Result<()> {
    let doc = parse_json(file)?;
    let Value::Array(list) = doc else {
        return Err(invalid(
            file.name,
            format!("expected Slack's users (an array), got {}", type_name(&doc)),
        ));
    };
    for u in &list {
        let Some(id) = u["id"].as_str() else {
            continue;
        };
        let profile = &u["profile"];
        let name = [
            &profile["display_name"],
            &profile["real_name"],
            &u["real_name"],
            &u["name"],
        ]
        .into_iter()
        .filter_map(Value::as_str)
        .find(|n| !n.trim().is_empty())
        .unwrap_or(id);
        users.insert(
            id.to_owned(),
            User {
                name: name.to_owned(),
                bot: u["is_bot"] == true,
            },
        );
    }
    Ok(())
}

/// A kept message: its conversation, its time and its event.
type Kept = (String, DateTime<Utc>, Value);

/// A message's `ts` (`"1709371234.000200"`: seconds, then a sequence within the
/// second) as a time to the millisecond, cut rather than rounded so a message stays
/// in its second.
fn ts_time(ts: &str) -> Option<DateTime<Utc>> {
    let (secs, frac) = ts.split_once('.').unwrap_or((ts, ""));
    if secs.is_empty() || !secs.bytes().all(|b| b.is_ascii_digit()) || secs.len() > 11 {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let millis: i64 = format!("{:0<3}", &frac[..frac.len().min(3)]).parse().ok()?;
    let t = DateTime::from_timestamp_millis(secs.parse::<i64>().ok()? * 1000 + millis)?;
    (t.year() <= 9999).then_some(t)
}

fn message(
    m: &Value,
    at: &str,
    channel: &str,
    day: &str,
    users: &HashMap<String, User>,
    out: &mut Collected,
) -> Option<Kept> {
    if !m.is_object() {
        out.skip(at, format!("not a message object ({})", type_name(m)));
        return None;
    }
    if m["type"] != "message" {
        let kind = m["type"].as_str().unwrap_or("none");
        out.skip(at, format!("type {kind:?}, not a message"));
        return None;
    }
    let subtype = m["subtype"].as_str();
    if let Some(sub) = subtype.filter(|s| !SAID.contains(s)) {
        out.skip(at, format!("subtype {sub:?}, not something said"));
        return None;
    }
    let user = m["user"].as_str();
    let bot_id = m["bot_id"].as_str();
    let is_bot = bot_id.is_some()
        || subtype == Some("bot_message")
        || user.and_then(|u| users.get(u)).is_some_and(|u| u.bot);
    let Some(actor) = user.or(bot_id) else {
        out.skip(at, "no user or bot_id");
        return None;
    };
    let attachments: Vec<Value> = m["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["name"].as_str().map(|n| json!(n)))
        .collect();
    let Some(content) = m["text"].as_str().and_then(|t| text(&plain_text(t, users))) else {
        let what = if attachments.is_empty() {
            "no text"
        } else {
            "no text (files only)"
        };
        out.skip(at, what);
        return None;
    };
    let ts = m["ts"].as_str();
    let Some(timestamp) = ts.and_then(ts_time) else {
        out.skip(
            at,
            "no ts (epoch seconds as text, e.g. \"1709371234.000200\")",
        );
        return None;
    };
    let conversation = match m["thread_ts"].as_str() {
        Some(thread) => format!("{channel}/{thread}"),
        None => format!("{channel}/{day}"),
    };
    let mut extra = Map::new();
    if let Some(ts) = ts {
        extra.insert("message_id".into(), json!(ts));
    }
    if is_bot {
        extra.insert("responder".into(), json!("bot"));
    }
    extra.insert("channel".into(), json!(channel));
    if !attachments.is_empty() {
        extra.insert("attachments".into(), Value::Array(attachments));
    }
    let e = event(
        Format::Slack.name(),
        Message {
            role: if is_bot { Role::Assistant } else { Role::User },
            actor_id: format!("slack:{actor}"),
            content,
            timestamp,
            conversation_id: &conversation,
            extra,
        },
    );
    let e = out.checked(at, e)?;
    Some((conversation, timestamp, e))
}

/// Slack's message markup as a person reads it.
fn plain_text(s: &str, users: &HashMap<String, User>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let inner = &after[..close];
        rest = &after[close + 1..];
        let (target, label) = match inner.split_once('|') {
            Some((t, l)) => (t, Some(l)),
            None => (inner, None),
        };
        if let Some(id) = target.strip_prefix('@') {
            match (label, users.get(id)) {
                (Some(l), _) => push_prefixed(&mut out, '@', l),
                (None, Some(u)) => push_prefixed(&mut out, '@', &u.name),
                (None, None) => push_prefixed(&mut out, '@', id),
            }
        } else if let Some(id) = target.strip_prefix('#') {
            push_prefixed(&mut out, '#', label.unwrap_or(id));
        } else if let Some(special) = target.strip_prefix('!') {
            // <!here>, <!channel>, <!subteam^S…|@team>, <!date^…|fallback>.
            match label {
                Some(l) => out.push_str(l),
                None => push_prefixed(&mut out, '@', special),
            }
        } else {
            out.push_str(label.unwrap_or(target));
        }
    }
    out.push_str(rest);
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn push_prefixed(out: &mut String, prefix: char, name: &str) {
    if !name.starts_with(prefix) {
        out.push(prefix);
    }
    out.push_str(name);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::format_utc;

    #[test]
    fn ts_keeps_the_second_and_cuts_to_milliseconds() {
        let t = |s: &str| ts_time(s).map(|t| format_utc(&t));
        assert_eq!(
            t("1772450000.000500").as_deref(),
            Some("2026-03-02T11:13:20Z")
        );
        assert_eq!(
            t("1772450000.9").as_deref(),
            Some("2026-03-02T11:13:20.900Z")
        );
        assert_eq!(t("1772450000").as_deref(), Some("2026-03-02T11:13:20Z"));
        for bad in ["", ".5", "-1.0", "1e9", "17724.5x", "99999999999999.0"] {
            assert_eq!(t(bad), None, "{bad}");
        }
    }

    #[test]
    fn slack_markup_reads_as_a_person_sees_it() {
        let mut users = HashMap::new();
        users.insert(
            "U1".to_owned(),
            User {
                name: "Ana".into(),
                bot: false,
            },
        );
        let s = "<@U1> see <https://x.test/a?b=1&amp;c=2|the doc> in <#C9|help-desk> \
                 <!here> <@U2> <mailto:a@b.test|a@b.test> 1 &lt; 2 &amp;&gt; <!subteam^S1|@oncall>";
        assert_eq!(
            plain_text(s, &users),
            "@Ana see the doc in #help-desk @here @U2 a@b.test 1 < 2 &> @oncall"
        );
    }
}
