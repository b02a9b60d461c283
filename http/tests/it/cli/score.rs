//! `undertone score`: JSON and table output, views, pipeline override, no API count limit.

use serde_json::{Value, json};

use super::{assert_json_output, example, example_json, run, temp_file};

fn score_json(args: &[&str], name: &str) -> Value {
    let mut all = vec!["score"];
    all.extend_from_slice(args);
    assert_json_output(&run(&all, Some(&example(name)), None))
}

#[test]
fn support_chat_scores_every_human_turn_and_ends_broken() {
    let out = score_json(&[], "support-refund-goes-wrong.json");
    assert_eq!(out["pipeline"], "support");
    let i = &out["intelligence"];
    assert_eq!(i["scorer_version"], undertone_core::score::SCORER_VERSION);
    assert_eq!(i["archetype"], "cx_chatbot");
    assert_eq!(i["event_count"], 20);
    assert_eq!(i["human_turn_count"], 11);
    let convs = i["conversations"].as_array().unwrap();
    let turns: usize = convs
        .iter()
        .map(|c| c["turns"].as_array().unwrap().len())
        .sum();
    assert_eq!(turns, 11);
    let request = example_json("support-refund-goes-wrong.json");
    for c in convs {
        for t in c["turns"].as_array().unwrap() {
            let idx = t["event_index"].as_u64().unwrap() as usize;
            let event = &request["events"][idx];
            assert_eq!(t["timestamp"].as_str().unwrap().len(), 20, "{t}");
            assert_eq!(t["actor_id"], event["actor_id"]);
            assert_eq!(t["conversation_id"], c["conversation_id"]);
        }
    }
    let bad = convs
        .iter()
        .find(|c| c["conversation_id"] == "zd-48213")
        .unwrap();
    assert_eq!(bad["layer_z"]["frustration_buildup"]["band"], "broken");
    assert_eq!(bad["resolved"], false);
    assert_eq!(i["falsifiable"], true);
    assert!(
        i["prediction"]
            .as_str()
            .unwrap()
            .contains("drift comparison")
    );
    let summary = i["plain_summary"].as_str().unwrap();
    assert!(
        summary.contains("11 human turns in 2 conversations"),
        "{summary}"
    );
}

#[test]
fn output_is_byte_identical_across_runs() {
    let a = run(
        &["score"],
        Some(&example("coding-assistant-goes-well.json")),
        None,
    );
    let b = run(
        &["score"],
        Some(&example("coding-assistant-goes-well.json")),
        None,
    );
    assert_eq!(a.code, Some(0));
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn condensed_view_has_the_spec_fields_only() {
    let out = score_json(&["--view", "condensed"], "tutor-fractions.json");
    let keys: Vec<&str> = out
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "session_id",
            "archetype",
            "layer_z",
            "key_finding",
            "falsifiable",
            "recommendation"
        ]
    );
    assert_eq!(out["session_id"], Value::Null);
    let dims: Vec<&str> = out["layer_z"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        dims,
        [
            "trust_calibration",
            "frustration_buildup",
            "dependency_drift",
            "silent_abandonment_risk",
            "escalation_friction",
            "comprehension_gap"
        ]
    );
}

#[test]
fn table_has_one_row_per_human_turn_and_the_key_finding() {
    let out = run(
        &["score", "--format", "table"],
        Some(&example("support-refund-goes-wrong.json")),
        None,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let rows = out.stdout.lines().filter(|l| l.starts_with("zd-")).count();
    assert_eq!(rows, 11);
    assert!(
        out.stdout
            .lines()
            .next()
            .unwrap()
            .starts_with("conversation")
    );
    assert!(out.stdout.contains("\nkey finding: "));
    let summary_row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("= zd-48213"))
        .unwrap();
    assert!(summary_row.contains("broken"), "{summary_row}");
    // Every row's trust score starts where the header's column ends (right-aligned
    // under "trust"), the request's row included.
    let header = out.stdout.lines().next().unwrap();
    let column_end = header.find("trust").unwrap() + "trust".len();
    let scored: Vec<&str> = out
        .stdout
        .lines()
        .take_while(|l| !l.is_empty())
        .skip(1)
        .collect();
    assert_eq!(scored.len(), 11 + 2 + 1, "{}", out.stdout);
    for line in scored {
        let trust = line.get(column_end - 4..column_end).unwrap_or_default();
        assert!(trust.parse::<f64>().is_ok(), "{line:?} in\n{}", out.stdout);
    }
    assert!(
        out.stdout.contains("\n= all conversations "),
        "{}",
        out.stdout
    );
}

#[test]
fn pipeline_flag_overrides_and_auto_detects_reviews() {
    let out = score_json(&["--pipeline", "reviews"], "support-refund-goes-wrong.json");
    assert_eq!(out["pipeline"], "reviews");
    assert_eq!(out["intelligence"]["pipeline_source"], "requested");
    let events: Vec<Value> = (0..3)
        .map(|i| {
            json!({"actor_id": format!("r{i}"), "content": "The app keeps crashing, uninstalled.",
                   "timestamp": format!("2026-01-0{}T10:00:00Z", i + 1), "metadata": {"rating": 1}})
        })
        .collect();
    let body = json!({"deployment_id": "app", "events": events}).to_string();
    let (_dir, path) = temp_file("reviews.json", body.as_bytes());
    let out = assert_json_output(&run(&["score"], Some(&path), None));
    assert_eq!(out["pipeline"], "reviews");
    assert_eq!(out["intelligence"]["pipeline_source"], "detected");
    assert_eq!(
        out["intelligence"]["layer_z"]["frustration_buildup"]["band"],
        "broken"
    );
}

#[test]
fn no_api_event_limit_on_the_command_line() {
    let mut lines = String::new();
    for i in 0..5001 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let e = json!({"actor_id": "u1", "content": format!("message number {i}"),
                       "timestamp": format!("2026-01-01T00:00:{:02}Z", i % 60),
                       "conversation_id": format!("c{}", i / 10), "metadata": {"role": role}});
        lines.push_str(&e.to_string());
        lines.push('\n');
    }
    let (_dir, path) = temp_file("big.jsonl", lines.as_bytes());
    let validate = run(&["validate", "--deployment-id", "bot"], Some(&path), None);
    assert_eq!(validate.code, Some(2), "validate keeps the API limit");
    let out = run(
        &["score", "--deployment-id", "bot", "--view", "condensed"],
        Some(&path),
        None,
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stderr, "", "no progress below 100k events");
}

#[test]
fn invalid_input_exits_2_with_the_violations() {
    let out = run(
        &["score"],
        Some(&example("invalid-several-violations.json")),
        None,
    );
    assert_eq!(out.code, Some(2));
    assert_eq!(out.stdout, "");
    assert!(
        out.stderr
            .contains("breaks the input contract (VALIDATION_ERROR, 7 problems)"),
        "{}",
        out.stderr
    );
}
