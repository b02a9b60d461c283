//! Who wrote a turn: the person (scored) or the AI (context), per DESIGN.md §2.

use serde::Serialize;
use serde_json::Value;

use crate::schema::Event;

/// Which side of the conversation wrote a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A person; only these turns are scored.
    Human,
    /// The AI (or a system/tool message); context for the human turns.
    Ai,
}

/// Which rule decided a turn's role, so the decision can be explained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleSource {
    /// `metadata.role` named a known role.
    MetadataRole,
    /// `metadata.speaker` named a known role.
    MetadataSpeaker,
    /// `actor_id` equals the deployment id.
    DeploymentId,
    /// `actor_id` starts with `ai:`, `bot:` or `assistant`.
    ActorPrefix,
    /// No rule matched, so the turn is taken as human.
    Default,
}

/// Role values in `metadata.role` / `metadata.speaker` that mean a person.
pub const HUMAN_ROLES: [&str; 4] = ["user", "human", "customer", "end_user"];
/// Role values in `metadata.role` / `metadata.speaker` that mean the AI side.
pub const AI_ROLES: [&str; 7] = [
    "assistant",
    "ai",
    "bot",
    "agent_ai",
    "model",
    "system",
    "tool",
];
/// `actor_id` prefixes that mark the AI side (compared without regard to ASCII case).
pub const AI_ACTOR_PREFIXES: [&str; 3] = ["ai:", "bot:", "assistant"];

/// Resolves the role of `event` in a request for `deployment_id`.
///
/// Order: `metadata.role`, then `metadata.speaker` (known values only, compared
/// without regard to case and surrounding space); then `actor_id` equal to the
/// deployment id or starting with an AI prefix; otherwise human.
pub fn resolve(event: &Event, deployment_id: Option<&str>) -> (Role, RoleSource) {
    if let Some(meta) = &event.metadata {
        for (key, source) in [
            ("role", RoleSource::MetadataRole),
            ("speaker", RoleSource::MetadataSpeaker),
        ] {
            if let Some(role) = meta.get(key).and_then(Value::as_str).and_then(named_role) {
                return (role, source);
            }
        }
    }
    if deployment_id == Some(event.actor_id.as_str()) {
        return (Role::Ai, RoleSource::DeploymentId);
    }
    // The prefixes are lowercase ASCII: comparing without ASCII case is comparing the
    // lowercased id, without making a lowercased copy of it for every event.
    let actor = event.actor_id.as_bytes();
    if AI_ACTOR_PREFIXES.iter().any(|p| {
        actor
            .get(..p.len())
            .is_some_and(|a| a.eq_ignore_ascii_case(p.as_bytes()))
    }) {
        return (Role::Ai, RoleSource::ActorPrefix);
    }
    (Role::Human, RoleSource::Default)
}

fn named_role(value: &str) -> Option<Role> {
    // The role names are lowercase ASCII, as for the prefixes above.
    let v = value.trim();
    let named = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(v));
    if named(&HUMAN_ROLES) {
        Some(Role::Human)
    } else if named(&AI_ROLES) {
        Some(Role::Ai)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};
    use serde_json::json;

    fn event(actor: &str, metadata: Value) -> Event {
        Event {
            actor_id: actor.into(),
            content: "hi".into(),
            timestamp: Utc.timestamp_opt(0, 0).single().unwrap_or_default(),
            context: None,
            metadata: metadata.as_object().cloned(),
            conversation_id: None,
        }
    }

    #[test]
    fn metadata_role_wins_over_actor_rules() {
        let e = event("acme-bot", json!({"role": "Customer"}));
        assert_eq!(
            resolve(&e, Some("acme-bot")),
            (Role::Human, RoleSource::MetadataRole)
        );
    }

    #[test]
    fn speaker_is_used_when_role_is_unknown() {
        let e = event("u1", json!({"role": "agent", "speaker": "bot"}));
        assert_eq!(resolve(&e, None), (Role::Ai, RoleSource::MetadataSpeaker));
    }

    #[test]
    fn names_and_prefixes_are_lowercase_ascii() {
        // What lets `resolve` compare without ASCII case instead of lowercasing.
        for name in HUMAN_ROLES
            .iter()
            .chain(&AI_ROLES)
            .chain(&AI_ACTOR_PREFIXES)
        {
            assert!(name.is_ascii(), "{name}");
            assert_eq!(name.to_ascii_lowercase(), *name);
        }
    }

    #[test]
    fn role_names_are_read_without_case_or_surrounding_space() {
        for (value, role) in [
            (" USER ", Some(Role::Human)),
            ("End_User", Some(Role::Human)),
            ("Assistant", Some(Role::Ai)),
            ("\tTOOL", Some(Role::Ai)),
            ("users", None),
            ("usér", None),
            ("", None),
        ] {
            assert_eq!(named_role(value), role, "{value:?}");
        }
        // A prefix is matched on bytes: a multi-byte character where it would end is
        // no match and no panic.
        assert_eq!(
            resolve(&event("bo\u{e9}:x", json!({})), None),
            (Role::Human, RoleSource::Default)
        );
        assert_eq!(
            resolve(&event("AI:\u{e9}", json!({})), None),
            (Role::Ai, RoleSource::ActorPrefix)
        );
    }

    #[test]
    fn actor_rules_then_default() {
        assert_eq!(
            resolve(&event("acme", json!(null)), Some("acme")),
            (Role::Ai, RoleSource::DeploymentId)
        );
        assert_eq!(
            resolve(&event("Assistant-7", json!({})), Some("acme")),
            (Role::Ai, RoleSource::ActorPrefix)
        );
        assert_eq!(
            resolve(&event("BOT:helper", json!({})), None),
            (Role::Ai, RoleSource::ActorPrefix)
        );
        assert_eq!(
            resolve(&event("aila", json!({"role": 3})), None),
            (Role::Human, RoleSource::Default)
        );
    }
}
