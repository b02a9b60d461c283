//! Property tests of conversation assembly.

use chrono::{DateTime, TimeZone, Utc};
use proptest::prelude::*;
use serde_json::{Map, json};
use undertone_core::assembly::Grouping;
use undertone_core::{Assembly, Event, assemble};

const BASE: i64 = 1_795_000_000;

/// (actor, context, id choice, metadata role, seconds offset)
type Spec = (usize, usize, usize, usize, i64);

fn spec() -> impl Strategy<Value = Spec> {
    // Offsets within 4 hours, so 30-minute gaps both happen and don't.
    (0..5usize, 0..3usize, 0..4usize, 0..3usize, 0..14_400i64)
}

fn build(specs: &[Spec], distinct: bool) -> Vec<Event> {
    let actors = ["u1", "u2", "u3", "bot:helper", "acme"];
    let contexts = [None, Some("billing"), Some("tech")];
    specs
        .iter()
        .enumerate()
        .map(|(i, &(actor, context, id, role, secs))| {
            let mut metadata = Map::new();
            match role {
                1 => {
                    metadata.insert("role".into(), json!("user"));
                }
                2 => {
                    metadata.insert("role".into(), json!("assistant"));
                }
                _ => {}
            }
            let conversation_id = match id {
                1 => Some("c-1".to_owned()),
                2 => {
                    metadata.insert("conversation_id".into(), json!(7));
                    None
                }
                _ => None,
            };
            // Distinct mode: the millisecond part makes every timestamp unique.
            let ms = if distinct { i as i64 } else { 0 };
            Event {
                actor_id: actors[actor].to_owned(),
                content: format!("turn {i}"),
                timestamp: at(secs, ms),
                context: contexts[context].map(str::to_owned),
                metadata: (!metadata.is_empty()).then_some(metadata),
                conversation_id,
            }
        })
        .collect()
}

fn at(secs: i64, ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt((BASE + secs) * 1000 + ms)
        .single()
        .unwrap_or_default()
}

/// Conversations as (id, event indices mapped through `map`), for comparison.
fn shape(a: &Assembly, map: impl Fn(usize) -> usize) -> Vec<(String, Vec<usize>)> {
    a.conversations
        .iter()
        .map(|c| {
            (
                c.conversation_id.clone(),
                c.turns.iter().map(|t| map(t.event_index)).collect(),
            )
        })
        .collect()
}

proptest! {
    #[test]
    fn every_event_is_kept_exactly_once(specs in prop::collection::vec(spec(), 1..80)) {
        let events = build(&specs, false);
        let a = assemble(&events, Some("acme"));
        let mut seen: Vec<usize> = a.conversations.iter()
            .flat_map(|c| c.turns.iter().map(|t| t.event_index))
            .collect();
        seen.sort_unstable();
        prop_assert_eq!(seen, (0..events.len()).collect::<Vec<_>>());
        prop_assert_eq!(a.event_count, events.len());
        for c in &a.conversations {
            for t in &c.turns {
                prop_assert_eq!(t.event, &events[t.event_index]);
            }
        }
        let humans = a.conversations.iter().map(|c| c.human_turn_count).sum::<usize>();
        prop_assert_eq!(a.human_turn_count, humans);
        let empty = a.conversations.iter().filter(|c| c.human_turn_count == 0).count();
        prop_assert_eq!(a.without_human_turns.len(), empty);
    }

    #[test]
    fn turns_are_in_time_order_then_input_order(specs in prop::collection::vec(spec(), 1..80)) {
        let events = build(&specs, false);
        let a = assemble(&events, Some("acme"));
        for c in &a.conversations {
            for w in c.turns.windows(2) {
                let (x, y) = (&w[0], &w[1]);
                prop_assert!(
                    (x.event.timestamp, x.event_index) < (y.event.timestamp, y.event_index),
                    "{} then {}", x.event_index, y.event_index
                );
            }
            prop_assert_eq!(c.started_at, c.turns[0].event.timestamp);
            prop_assert_eq!(c.ended_at, c.turns[c.turns.len() - 1].event.timestamp);
        }
    }

    #[test]
    fn implicit_conversations_have_no_gap_over_thirty_minutes(
        specs in prop::collection::vec(spec(), 1..80)
    ) {
        let events = build(&specs, false);
        let a = assemble(&events, Some("acme"));
        for c in a.conversations.iter().filter(|c| c.conversation_id.starts_with("auto:")) {
            for w in c.turns.windows(2) {
                let gap = w[1].event.timestamp - w[0].event.timestamp;
                prop_assert!(gap.num_milliseconds() <= 30 * 60 * 1000);
            }
            let contexts: Vec<_> = c.turns.iter().map(|t| t.event.context.clone()).collect();
            prop_assert!(contexts.windows(2).all(|w| w[0] == w[1]));
            prop_assert!(c.human_actor_ids.len() <= 1);
        }
    }

    #[test]
    fn shuffling_distinct_timestamps_gives_the_same_conversations(
        (specs, perm) in prop::collection::vec(spec(), 1..60).prop_flat_map(|s| {
            let n = s.len();
            (Just(s), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        })
    ) {
        let events = build(&specs, true);
        let shuffled: Vec<Event> = perm.iter().map(|&i| events[i].clone()).collect();
        let a = assemble(&events, Some("acme"));
        let b = assemble(&shuffled, Some("acme"));
        prop_assert_eq!(shape(&a, |i| i), shape(&b, |j| perm[j]));
    }
}

#[test]
fn metadata_and_top_level_ids_with_the_same_text_are_one_conversation() {
    let mut events = build(&[(0, 0, 1, 0, 0), (3, 0, 0, 0, 10)], false);
    events[1].metadata = Some(
        json!({"conversation_id": "c-1"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    let a = assemble(&events, Some("acme"));
    assert_eq!(a.conversation_count, 1);
    assert_eq!(a.conversations[0].conversation_id, "c-1");
    assert_eq!(a.conversations[0].grouping, Grouping::ConversationId);
}
