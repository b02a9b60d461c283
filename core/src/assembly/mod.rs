//! Conversation assembly: events grouped into ordered conversations (DESIGN.md §2).
//!
//! Every input event ends up in exactly one conversation and keeps its input
//! position as `event_index`. Conversations without a human turn are kept and
//! listed in [`Assembly::without_human_turns`], never dropped.

pub mod role;

use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::Value;

pub use role::{Role, RoleSource};

use crate::schema::{Event, limits, serialize_utc};
use crate::validate::AUTO_ID_PREFIX;

/// How a conversation's turns were found to belong together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Grouping {
    /// The events' `conversation_id`.
    ConversationId,
    /// The events' `metadata.conversation_id`.
    MetadataConversationId,
    /// Same human `actor_id` and `context`, no gap over 30 minutes.
    ActorContextGap,
}

/// One event placed in its conversation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn<'e> {
    /// Position of the event in the request's `events` array.
    pub event_index: usize,
    /// Who wrote the turn.
    pub role: Role,
    /// Which rule decided `role`.
    pub role_source: RoleSource,
    /// The event itself.
    #[serde(flatten)]
    pub event: &'e Event,
}

/// The turns of one conversation, ordered by timestamp, ties by input order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conversation<'e> {
    /// The caller's id, or for implicit groups `auto:<actor>/<context or ->/<start>`, where
    /// `%`, `/` and a context of exactly `-` are percent-escaped so ids never collide.
    pub conversation_id: String,
    /// How the turns were grouped.
    pub grouping: Grouping,
    /// Distinct human actor ids, in order of first appearance.
    pub human_actor_ids: Vec<String>,
    /// Timestamp of the first turn.
    #[serde(serialize_with = "serialize_utc")]
    pub started_at: DateTime<Utc>,
    /// Timestamp of the last turn.
    #[serde(serialize_with = "serialize_utc")]
    pub ended_at: DateTime<Utc>,
    /// Number of human turns (the scored ones).
    pub human_turn_count: usize,
    /// Number of AI turns.
    pub ai_turn_count: usize,
    /// The turns in conversation order.
    pub turns: Vec<Turn<'e>>,
}

/// Every conversation found in a set of events.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assembly<'e> {
    /// The deployment the events came from, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployment_id: Option<String>,
    /// Number of input events (always the sum of the conversations' turns).
    pub event_count: usize,
    /// Number of conversations.
    pub conversation_count: usize,
    /// Number of human turns across all conversations.
    pub human_turn_count: usize,
    /// Ids of conversations that hold no human turn: kept, but nothing in them is scored.
    pub without_human_turns: Vec<String>,
    /// The conversations, ordered by start time, ties by first input position.
    pub conversations: Vec<Conversation<'e>>,
}

/// Groups `events` into conversations. `deployment_id` lets AI turns be recognised by `actor_id`.
pub fn assemble<'e>(events: &'e [Event], deployment_id: Option<&str>) -> Assembly<'e> {
    let roles: Vec<(Role, RoleSource)> = events
        .iter()
        .map(|e| role::resolve(e, deployment_id))
        .collect();

    // Explicit ids first; the rest waits for implicit grouping, per context. The ids
    // are borrowed from the events and hashed, not kept in order: the conversations
    // are put in order at the end, by start time and first event.
    let mut explicit: FxHashMap<Cow<'e, str>, (Grouping, Vec<usize>)> = FxHashMap::default();
    let mut implicit: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        match explicit_id(e) {
            Some((id, grouping)) => {
                let entry = explicit.entry(id).or_insert((grouping, Vec::new()));
                if grouping == Grouping::ConversationId {
                    entry.0 = grouping;
                }
                entry.1.push(i);
            }
            None => implicit.entry(e.context.as_deref()).or_default().push(i),
        }
    }

    let by_time =
        |a: &usize, b: &usize| (events[*a].timestamp, *a).cmp(&(events[*b].timestamp, *b));
    let mut conversations = Vec::new();
    for (id, (grouping, mut idx)) in explicit {
        idx.sort_by(by_time);
        conversations.push(build(id.into_owned(), grouping, &idx, events, &roles));
    }
    for (context, mut idx) in implicit {
        idx.sort_by(by_time);
        for (owner, thread) in threads_by_owner(&idx, events, &roles) {
            for part in split_on_gaps(&thread, events) {
                let start = crate::schema::format_utc(&events[part[0]].timestamp);
                let context = context.map_or_else(|| "-".to_owned(), escape_id_part);
                let id = format!(
                    "{AUTO_ID_PREFIX}{}/{context}/{start}",
                    escape_id_part(owner)
                );
                conversations.push(build(id, Grouping::ActorContextGap, part, events, &roles));
            }
        }
    }
    conversations.sort_by(|a, b| {
        (a.started_at, a.turns[0].event_index).cmp(&(b.started_at, b.turns[0].event_index))
    });

    Assembly {
        deployment_id: deployment_id.map(str::to_owned),
        event_count: events.len(),
        conversation_count: conversations.len(),
        human_turn_count: conversations.iter().map(|c| c.human_turn_count).sum(),
        without_human_turns: conversations
            .iter()
            .filter(|c| c.human_turn_count == 0)
            .map(|c| c.conversation_id.clone())
            .collect(),
        conversations,
    }
}

/// Escapes `%`, `/` and a lone `-` so that the parts of an implicit id cannot run together.
fn escape_id_part(part: &str) -> String {
    if part == "-" {
        return "%2D".to_owned();
    }
    part.replace('%', "%25").replace('/', "%2F")
}

/// The caller-given conversation id of an event, if any: top level first, then metadata.
fn explicit_id(e: &Event) -> Option<(Cow<'_, str>, Grouping)> {
    if let Some(id) = &e.conversation_id {
        return Some((Cow::Borrowed(id), Grouping::ConversationId));
    }
    let id = match e.metadata.as_ref()?.get("conversation_id")? {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        Value::Number(n) => Cow::Owned(n.to_string()),
        _ => return None,
    };
    Some((id, Grouping::MetadataConversationId))
}

/// Splits one context's time-ordered events into threads, one per human actor.
///
/// An AI turn joins the thread of the latest earlier human turn in the context; an AI
/// turn before any human turn joins the first human who speaks after it. A context with
/// no human turn at all keeps its AI turns in one thread per AI actor.
fn threads_by_owner<'e>(
    idx: &[usize],
    events: &'e [Event],
    roles: &[(Role, RoleSource)],
) -> BTreeMap<&'e str, Vec<usize>> {
    let first_human = idx
        .iter()
        .find(|&&i| roles[i].0 == Role::Human)
        .map(|&i| events[i].actor_id.as_str());
    let mut threads: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut current = first_human;
    for &i in idx {
        let owner = match roles[i].0 {
            Role::Human => {
                current = Some(events[i].actor_id.as_str());
                events[i].actor_id.as_str()
            }
            Role::Ai => current.unwrap_or(events[i].actor_id.as_str()),
        };
        threads.entry(owner).or_default().push(i);
    }
    // Each thread was filled in time order, so it stays sorted.
    threads
}

/// Splits a time-ordered thread where consecutive turns are more than 30 minutes apart.
fn split_on_gaps<'a>(thread: &'a [usize], events: &[Event]) -> Vec<&'a [usize]> {
    let mut parts = Vec::new();
    let mut start = 0;
    for k in 1..thread.len() {
        let gap = events[thread[k]].timestamp - events[thread[k - 1]].timestamp;
        if gap.num_seconds() > limits::CONVERSATION_GAP_SECS
            || (gap.num_seconds() == limits::CONVERSATION_GAP_SECS && gap.subsec_nanos() > 0)
        {
            parts.push(&thread[start..k]);
            start = k;
        }
    }
    if !thread.is_empty() {
        parts.push(&thread[start..]);
    }
    parts
}

fn build<'e>(
    conversation_id: String,
    grouping: Grouping,
    idx: &[usize],
    events: &'e [Event],
    roles: &[(Role, RoleSource)],
) -> Conversation<'e> {
    let turns: Vec<Turn<'e>> = idx
        .iter()
        .map(|&i| Turn {
            event_index: i,
            role: roles[i].0,
            role_source: roles[i].1,
            event: &events[i],
        })
        .collect();
    let mut human_actor_ids: Vec<String> = Vec::new();
    for t in turns.iter().filter(|t| t.role == Role::Human) {
        if !human_actor_ids.contains(&t.event.actor_id) {
            human_actor_ids.push(t.event.actor_id.clone());
        }
    }
    let human_turn_count = turns.iter().filter(|t| t.role == Role::Human).count();
    Conversation {
        conversation_id,
        grouping,
        human_actor_ids,
        started_at: events[idx[0]].timestamp,
        ended_at: events[idx[idx.len() - 1]].timestamp,
        human_turn_count,
        ai_turn_count: turns.len() - human_turn_count,
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn ev(actor: &str, secs: i64, context: Option<&str>) -> Event {
        Event {
            actor_id: actor.into(),
            content: format!("{actor} at {secs}"),
            timestamp: Utc
                .timestamp_opt(1_800_000_000 + secs, 0)
                .single()
                .unwrap_or_default(),
            context: context.map(Into::into),
            metadata: None,
            conversation_id: None,
        }
    }

    fn indices(c: &Conversation) -> Vec<usize> {
        c.turns.iter().map(|t| t.event_index).collect()
    }

    #[test]
    fn gap_of_exactly_thirty_minutes_does_not_split() {
        let events = [ev("u", 0, None), ev("u", 1800, None), ev("u", 3601, None)];
        let a = assemble(&events, None);
        assert_eq!(a.conversation_count, 2);
        assert_eq!(indices(&a.conversations[0]), vec![0, 1]);
        assert_eq!(indices(&a.conversations[1]), vec![2]);
    }

    #[test]
    fn one_millisecond_over_thirty_minutes_splits() {
        let mut late = ev("u", 1800, None);
        late.timestamp += chrono::Duration::milliseconds(1);
        let events = [ev("u", 0, None), late];
        assert_eq!(assemble(&events, None).conversation_count, 2);
    }

    #[test]
    fn implicit_ids_escape_their_parts_and_never_collide() {
        let events = [
            ev("u", 0, None),
            ev("u", 0, Some("-")),
            ev("a/b", 0, Some("c")),
            ev("a", 0, Some("b/c")),
        ];
        let a = assemble(&events, None);
        let ids: Vec<&str> = a
            .conversations
            .iter()
            .map(|c| c.conversation_id.as_str())
            .collect();
        assert_eq!(
            ids,
            vec![
                "auto:u/-/2027-01-15T08:00:00Z",
                "auto:u/%2D/2027-01-15T08:00:00Z",
                "auto:a%2Fb/c/2027-01-15T08:00:00Z",
                "auto:a/b%2Fc/2027-01-15T08:00:00Z",
            ]
        );
    }

    #[test]
    fn ai_greeting_joins_the_next_human_and_replies_join_the_last_human() {
        let events = [
            ev("bot:x", 0, Some("c")),
            ev("alice", 10, Some("c")),
            ev("bot:x", 20, Some("c")),
            ev("bob", 30, Some("c")),
            ev("bot:x", 40, Some("c")),
        ];
        let a = assemble(&events, None);
        assert_eq!(a.conversation_count, 2);
        assert_eq!(indices(&a.conversations[0]), vec![0, 1, 2]);
        assert_eq!(indices(&a.conversations[1]), vec![3, 4]);
        assert_eq!(
            a.conversations[1].conversation_id,
            "auto:bob/c/2027-01-15T08:00:30Z"
        );
    }

    #[test]
    fn conversation_without_human_is_kept_and_reported() {
        let events = [ev("acme", 0, None), ev("u", 5000, Some("x"))];
        let a = assemble(&events, Some("acme"));
        assert_eq!(a.event_count, 2);
        assert_eq!(
            a.without_human_turns,
            vec!["auto:acme/-/2027-01-15T08:00:00Z"]
        );
        assert_eq!(a.conversations[0].ai_turn_count, 1);
    }
}
