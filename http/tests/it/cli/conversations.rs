//! `conversations` on the examples: how events are grouped into conversations.

use serde_json::Value;

use super::{assert_json_output, assert_ok_line, events_of, example, example_json, run};

/// Runs `conversations` on an example and checks what holds for every input.
fn conversations_of(name: &str) -> (Value, Value) {
    let request = example_json(name);
    let file = example(name);
    let assembly = assert_json_output(&run(&["conversations"], Some(&file), None));

    let events = events_of(&request);
    assert_eq!(assembly["deployment_id"], request["deployment_id"]);
    assert_eq!(assembly["event_count"], events.len());
    let conversations = assembly["conversations"].as_array().expect("conversations");
    assert_eq!(assembly["conversation_count"], conversations.len());
    assert_eq!(assembly["without_human_turns"], Value::Array(Vec::new()));

    let mut seen = vec![0_usize; events.len()];
    let mut human_total = 0;
    for c in conversations {
        let turns = c["turns"].as_array().expect("turns");
        let humans = turns.iter().filter(|t| t["role"] == "human").count();
        let ais = turns.iter().filter(|t| t["role"] == "ai").count();
        assert_eq!(c["human_turn_count"], humans, "{}", c["conversation_id"]);
        assert_eq!(c["ai_turn_count"], ais, "{}", c["conversation_id"]);
        human_total += humans;
        for t in turns {
            let i = t["event_index"].as_u64().expect("event_index") as usize;
            assert!(i < events.len(), "event_index {i} out of range");
            seen[i] += 1;
            assert_eq!(t["actor_id"], events[i]["actor_id"], "turn {i}");
            // Content is kept with surrounding whitespace trimmed.
            let content = events[i]["content"].as_str().expect("content").trim();
            assert_eq!(t["content"], content, "turn {i}");
        }
        assert_eq!(c["started_at"], turns[0]["timestamp"]);
        assert_eq!(c["ended_at"], turns[turns.len() - 1]["timestamp"]);
    }
    assert!(
        seen.iter().all(|&n| n == 1),
        "each event must be in exactly one turn: {seen:?}"
    );
    assert_eq!(assembly["human_turn_count"], human_total);

    // `validate` reports the same numbers.
    let ok = format!(
        "ok: {} events, {} conversation{} ({} human turns)",
        events.len(),
        conversations.len(),
        if conversations.len() == 1 { "" } else { "s" },
        human_total
    );
    assert_ok_line(&run(&["validate"], Some(&file), None), &ok);
    (request, assembly)
}

/// Each conversation's id, grouping and event indices.
fn ids_and_indices(assembly: &Value) -> Vec<(&str, &str, Vec<u64>)> {
    assembly["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .map(|c| {
            (
                c["conversation_id"].as_str().expect("id"),
                c["grouping"].as_str().expect("grouping"),
                c["turns"]
                    .as_array()
                    .expect("turns")
                    .iter()
                    .map(|t| t["event_index"].as_u64().expect("event_index"))
                    .collect(),
            )
        })
        .collect()
}

/// Seconds since midnight of a `2026-11-18THH:MM:SSZ` timestamp.
fn seconds_of_day(ts: &str) -> u32 {
    let time = ts
        .strip_prefix("2026-11-18T")
        .and_then(|t| t.strip_suffix('Z'))
        .unwrap_or_else(|| panic!("unexpected timestamp {ts}"));
    time.split(':')
        .map(|p| p.parse::<u32>().expect("number"))
        .fold(0, |acc, n| acc * 60 + n)
}

#[test]
fn conversations_split_coding_session_at_the_gap() {
    let (request, assembly) = conversations_of("coding-assistant-goes-well.json");
    assert_eq!(assembly["event_count"], 19);
    assert_eq!(assembly["conversation_count"], 2);
    assert_eq!(assembly["human_turn_count"], 11);

    // Independently: the only gap over 30 minutes is before event 13.
    let events = events_of(&request);
    let times: Vec<u32> = events
        .iter()
        .map(|e| seconds_of_day(e["timestamp"].as_str().expect("timestamp")))
        .collect();
    let gaps: Vec<usize> = (1..times.len())
        .filter(|&i| times[i] - times[i - 1] > 30 * 60)
        .collect();
    assert_eq!(gaps, [13]);

    assert_eq!(
        ids_and_indices(&assembly),
        [
            (
                "auto:dev:maria.k/repo:payments-service/2026-11-18T14:02:10Z",
                "actor_context_gap",
                (0..13).collect::<Vec<u64>>(),
            ),
            (
                "auto:dev:maria.k/repo:payments-service/2026-11-18T15:41:30Z",
                "actor_context_gap",
                (13..19).collect(),
            ),
        ]
    );
    let second = &assembly["conversations"][1];
    assert_eq!(second["started_at"], events[13]["timestamp"]);
    assert_eq!(
        assembly["conversations"][0]["ended_at"],
        events[12]["timestamp"]
    );
    assert_eq!(
        second["human_actor_ids"],
        serde_json::json!(["dev:maria.k"])
    );
}

#[test]
fn conversations_of_support_example_follow_conversation_ids() {
    let (_, assembly) = conversations_of("support-refund-goes-wrong.json");
    assert_eq!(assembly["human_turn_count"], 11);
    assert_eq!(
        ids_and_indices(&assembly),
        [
            ("zd-48213", "conversation_id", (0..17).collect::<Vec<u64>>()),
            ("zd-48230", "conversation_id", (17..20).collect()),
        ]
    );
}

#[test]
fn conversations_of_tutor_example_follow_metadata_conversation_id() {
    let (_, assembly) = conversations_of("tutor-fractions.json");
    assert_eq!(assembly["human_turn_count"], 8);
    assert_eq!(
        ids_and_indices(&assembly),
        [(
            "lesson-2291",
            "metadata_conversation_id",
            (0..15).collect::<Vec<u64>>(),
        )]
    );
}
