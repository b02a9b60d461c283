//! A declarative mapping: JSON pointers (RFC 6901) saying where a message's
//! conversation, role, content, time and author are in any JSON or JSON Lines payload.
//!
//! ```json
//! {
//!   "records": "/data",
//!   "messages": "/turns",
//!   "conversation": "/session/id",
//!   "role": "/speaker",
//!   "content": "/text",
//!   "timestamp": "/sent_at",
//!   "actor": "/user_id",
//!   "roles": {"user": ["customer"], "assistant": ["bot"], "human_agent": ["agent"]},
//!   "metadata": {"channel": "/channel"}
//! }
//! ```
//!
//! - `records` (optional): where the array of records is in each document (each JSON
//!   Lines line is a document). Without it, a document that is an array is its
//!   records, and any other document is one record.
//! - `messages` (optional): where a record's array of messages is. With it, a record
//!   is a conversation: `conversation` is read from the record and everything else
//!   from each message. Without it, every record is one message.
//! - `conversation`, `role`, `content`, `timestamp` (required) and `actor` (optional;
//!   default the role's value) are read from the message. A conversation or actor may
//!   be a string or a number; a time an RFC 3339 string or epoch seconds (milliseconds
//!   with `"timestamp_unit": "milliseconds"`).
//! - `roles` (optional): which role values mean the person (`user`), the AI
//!   (`assistant`) and a human agent (`human_agent`, on the answering side like the
//!   helpdesk connectors). Values compare without regard to case. Default: `user`,
//!   `human`, `customer`, `end_user` are the person and `assistant`, `ai`, `bot`,
//!   `agent_ai`, `model` the AI.
//! - `metadata` (optional): more fields, name → pointer, copied into `metadata`.
//!
//! A message whose role is not listed, or whose field is missing or of the wrong
//! type, is left out and reported with its pointer (`file:line#/turns/3`) and why.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Collected, File, Message, Role, documents, event, invalid, text};
use crate::error::Result;
use crate::schema::HUMAN_AGENT;
use crate::validate::wording::{self, Reworded};
use crate::validate::{parse_timestamp, type_name};

/// How a JSON payload maps onto events; see the module documentation.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    records: Option<String>,
    messages: Option<String>,
    conversation: String,
    role: String,
    content: String,
    timestamp: String,
    actor: Option<String>,
    millis: bool,
    /// Lower-cased role value → the role and, for agents, the responder.
    roles: BTreeMap<String, (Role, Option<&'static str>)>,
    metadata: BTreeMap<String, String>,
}

/// The mapping document as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    records: Option<String>,
    messages: Option<String>,
    conversation: String,
    role: String,
    content: String,
    timestamp: String,
    actor: Option<String>,
    #[serde(default)]
    timestamp_unit: Unit,
    roles: Option<BTreeMap<String, Vec<String>>>,
    #[serde(default)]
    metadata: BTreeMap<String, String>,
}

#[derive(Deserialize, Default, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Unit {
    #[default]
    Seconds,
    Milliseconds,
}

const DEFAULT_USER: [&str; 4] = ["user", "human", "customer", "end_user"];
const DEFAULT_ASSISTANT: [&str; 5] = ["assistant", "ai", "bot", "agent_ai", "model"];

impl Mapping {
    /// Reads a mapping document; errors name the file and the field.
    pub fn parse(file: &File<'_>) -> Result<Self> {
        let doc: Document = serde_json::from_slice(file.content()).map_err(|e| {
            // A key that is unknown or missing is named as a field of the file, in the
            // words core uses for a request's fields; anything else is serde's.
            let said = e.to_string();
            let said = said
                .strip_suffix(&format!(" at line {} column {}", e.line(), e.column()))
                .unwrap_or(&said);
            match wording::reword(said, "field") {
                Some(Reworded {
                    unknown: Some(key),
                    message,
                    ..
                })
                | Some(Reworded {
                    field: Some(key),
                    message,
                    ..
                }) => invalid(
                    &format!("{}.{key}", file.name),
                    format!("{message}; see docs/connectors.md"),
                ),
                _ => invalid(
                    file.name,
                    format!("is not a mapping document: {e}; see docs/connectors.md"),
                ),
            }
        })?;
        let field = |key: &str| format!("{}.{key}", file.name);
        let pointers = [
            ("records", doc.records.as_deref()),
            ("messages", doc.messages.as_deref()),
            ("conversation", Some(doc.conversation.as_str())),
            ("role", Some(doc.role.as_str())),
            ("content", Some(doc.content.as_str())),
            ("timestamp", Some(doc.timestamp.as_str())),
            ("actor", doc.actor.as_deref()),
        ]
        .into_iter()
        .map(|(key, p)| (field(key), p));
        let extra = doc
            .metadata
            .iter()
            .map(|(k, p)| (field(&format!("metadata.{k}")), Some(p.as_str())));
        for (at, pointer) in pointers.chain(extra) {
            if let Some(p) = pointer
                && !(p.is_empty() || p.starts_with('/'))
            {
                return Err(invalid(
                    &at,
                    format!(
                        "must be a JSON pointer: empty for the whole value, or starting with \
                         \"/\" (e.g. \"/{p}\"); got {p:?}"
                    ),
                ));
            }
        }
        for reserved in ["role", "source"] {
            if doc.metadata.contains_key(reserved) {
                return Err(invalid(
                    &field(&format!("metadata.{reserved}")),
                    "is written by the connector; name the field differently",
                ));
            }
        }
        let mut roles = BTreeMap::new();
        match &doc.roles {
            None => {
                for v in DEFAULT_USER {
                    roles.insert(v.to_owned(), (Role::User, None));
                }
                for v in DEFAULT_ASSISTANT {
                    roles.insert(v.to_owned(), (Role::Assistant, Some("bot")));
                }
            }
            Some(given) => {
                for (side, values) in given {
                    let meaning = match side.as_str() {
                        "user" => (Role::User, None),
                        "assistant" => (Role::Assistant, Some("bot")),
                        "human_agent" => (Role::Assistant, Some(HUMAN_AGENT)),
                        other => {
                            return Err(invalid(
                                &field(&format!("roles.{other}")),
                                "must be one of user, assistant, human_agent",
                            ));
                        }
                    };
                    for v in values {
                        let key = v.trim().to_lowercase();
                        if roles.insert(key, meaning).is_some() {
                            return Err(invalid(
                                &field("roles"),
                                format!("lists the role value {v:?} twice"),
                            ));
                        }
                    }
                }
                if !roles.values().any(|(r, _)| *r == Role::User) {
                    return Err(invalid(
                        &field("roles.user"),
                        "must list at least one role value: only people's turns are scored",
                    ));
                }
            }
        }
        Ok(Self {
            records: doc.records,
            messages: doc.messages,
            conversation: doc.conversation,
            role: doc.role,
            content: doc.content,
            timestamp: doc.timestamp,
            actor: doc.actor,
            millis: doc.timestamp_unit == Unit::Milliseconds,
            roles,
            metadata: doc.metadata,
        })
    }

    pub(super) fn read(&self, file: &File<'_>, out: &mut Collected) -> Result<()> {
        for (at, doc) in documents(file)? {
            // The records, and the pointer to their array (`None`: the document is the
            // one record, at the empty pointer).
            let (records, base) = match &self.records {
                Some(p) => match doc.pointer(p) {
                    Some(Value::Array(r)) => (r.as_slice(), Some(p.as_str())),
                    Some(other) => {
                        return Err(invalid(
                            &format!("{at}#{p}"),
                            format!(
                                "expected the array of records (`records`), got {}",
                                type_name(other)
                            ),
                        ));
                    }
                    None => {
                        return Err(invalid(
                            &at,
                            format!("has nothing at `records` ({p}); is this the mapped format?"),
                        ));
                    }
                },
                None => match &doc {
                    Value::Array(r) => (r.as_slice(), Some("")),
                    one => (std::slice::from_ref(one), None),
                },
            };
            for (i, record) in records.iter().enumerate() {
                let r_at = base.map(|b| format!("{b}/{i}")).unwrap_or_default();
                self.record(record, &at, &r_at, out);
            }
        }
        Ok(())
    }

    fn record(&self, record: &Value, doc_at: &str, r_at: &str, out: &mut Collected) {
        let Some(messages) = &self.messages else {
            let conversation = self.conversation_of(record);
            self.message(record, conversation, doc_at, r_at, out);
            return;
        };
        let here = position(doc_at, r_at);
        let conversation = self.conversation_of(record);
        match record.pointer(messages) {
            Some(Value::Array(list)) => {
                for (j, m) in list.iter().enumerate() {
                    let m_at = format!("{r_at}{messages}/{j}");
                    self.message(m, conversation.clone(), doc_at, &m_at, out);
                }
            }
            Some(other) => out.skip(
                position(doc_at, &format!("{r_at}{messages}")),
                format!(
                    "`messages` is of type {}, not an array of messages",
                    type_name(other)
                ),
            ),
            None => out.skip(here, format!("no `messages` ({messages})")),
        }
    }

    fn conversation_of(&self, v: &Value) -> std::result::Result<String, NoConversation> {
        let at = || self.conversation.clone();
        match v.pointer(&self.conversation) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(NoConversation::Empty(at())),
            Some(Value::Number(n)) => Ok(n.to_string()),
            Some(other) => Err(NoConversation::WrongType(at(), type_name(other))),
            None => Err(NoConversation::Missing(at())),
        }
    }

    fn message(
        &self,
        m: &Value,
        conversation: std::result::Result<String, NoConversation>,
        doc_at: &str,
        m_at: &str,
        out: &mut Collected,
    ) {
        let at = position(doc_at, m_at);
        let conversation = match conversation {
            Ok(c) => c,
            Err(why) => return out.skip(at, why.to_string()),
        };
        let (role, responder, role_value) = match m.pointer(&self.role) {
            Some(Value::String(v)) => match self.roles.get(&v.trim().to_lowercase()) {
                Some((role, responder)) => (*role, *responder, v.trim()),
                None => {
                    return out.skip(
                        at,
                        format!("role {v:?} is not listed in the mapping's `roles`"),
                    );
                }
            },
            Some(other) => {
                return out.skip(
                    at,
                    format!(
                        "`role` ({}) is of type {}, not a string",
                        self.role,
                        type_name(other)
                    ),
                );
            }
            None => return out.skip(at, format!("no `role` ({})", self.role)),
        };
        let content = match m.pointer(&self.content) {
            Some(Value::String(s)) => match text(s) {
                Some(t) => t,
                None => return out.skip(at, "no text"),
            },
            Some(Value::Null) | None => {
                return out.skip(at, format!("no `content` ({})", self.content));
            }
            Some(other) => {
                return out.skip(
                    at,
                    format!(
                        "`content` ({}) is of type {}, not text",
                        self.content,
                        type_name(other)
                    ),
                );
            }
        };
        let timestamp = match self.time(m.pointer(&self.timestamp)) {
            Ok(t) => t,
            Err(why) => return out.skip(at, why.to_string()),
        };
        let actor = match &self.actor {
            None => role_value.to_owned(),
            Some(p) => match m.pointer(p) {
                Some(Value::String(s)) if !s.is_empty() => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return out.skip(at, format!("no `actor` ({p}) as a string or number")),
            },
        };
        let mut extra = Map::new();
        if let Some(responder) = responder {
            extra.insert("responder".into(), json!(responder));
        }
        for (key, p) in &self.metadata {
            if let Some(v) = m.pointer(p).filter(|v| !v.is_null()) {
                extra.insert(key.clone(), v.clone());
            }
        }
        out.add(
            &at,
            event(
                "mapping",
                Message {
                    role,
                    actor_id: actor,
                    content,
                    timestamp,
                    conversation_id: &conversation,
                    extra,
                },
            ),
        );
    }

    fn time(&self, v: Option<&Value>) -> std::result::Result<DateTime<Utc>, BadTime> {
        let field = self.timestamp.clone();
        match v {
            Some(Value::String(s)) => {
                parse_timestamp(s).map_err(|why| BadTime::Invalid { field, why })
            }
            Some(Value::Number(n)) => {
                let seconds = n.as_f64().map(|s| if self.millis { s / 1000.0 } else { s });
                let unit = if self.millis {
                    "milliseconds"
                } else {
                    "seconds"
                };
                seconds
                    .map(|s| json!(s))
                    .as_ref()
                    .and_then(super::epoch_seconds)
                    .ok_or_else(|| BadTime::NotEpoch {
                        field,
                        unit,
                        value: n.to_string(),
                    })
            }
            Some(other) => Err(BadTime::WrongType {
                field,
                got: type_name(other),
            }),
            None => Err(BadTime::Missing(field)),
        }
    }
}

/// Why an item's mapped `timestamp` cannot be kept; each names the mapped field.
#[derive(Debug, thiserror::Error)]
enum BadTime {
    /// Text that is not a timestamp of the input contract.
    #[error("`timestamp` ({field}): {why}")]
    Invalid {
        /// The mapped field.
        field: String,
        /// What is wrong with the text.
        why: crate::validate::TimestampError,
    },
    /// A number that is no time in the mapping's epoch unit.
    #[error("`timestamp` ({field}) is not a time in epoch {unit}: {value}")]
    NotEpoch {
        /// The mapped field.
        field: String,
        /// `seconds` or `milliseconds`.
        unit: &'static str,
        /// The number as written.
        value: String,
    },
    /// Neither text nor a number.
    #[error("`timestamp` ({field}) is of type {got}, not a time")]
    WrongType {
        /// The mapped field.
        field: String,
        /// The JSON type found.
        got: &'static str,
    },
    /// The field is absent.
    #[error("no `timestamp` ({0})")]
    Missing(String),
}

/// Where an item is: the document's position and the JSON pointer within it
/// (`events.jsonl:3#/data/turns/2`), or the document alone when it is the item.
fn position(doc_at: &str, pointer: &str) -> String {
    if pointer.is_empty() {
        doc_at.to_owned()
    } else {
        format!("{doc_at}#{pointer}")
    }
}
/// Why a message has no conversation id (the message is skipped, saying so).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum NoConversation {
    /// The pointer names an empty string.
    #[error("`conversation` ({0}) is an empty string")]
    Empty(String),
    /// The pointer names a value that is neither a string nor a number.
    #[error("`conversation` ({0}) is of type {1}, not a string or number")]
    WrongType(String, &'static str),
    /// The pointer names nothing.
    #[error("no `conversation` ({0})")]
    Missing(String),
}
