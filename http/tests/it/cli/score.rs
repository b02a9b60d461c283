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
    // A turn healthy on every dimension names no top signal; one off the healthy band
    // names what drove its worst dimension.
    for line in out.stdout.lines().filter(|l| l.starts_with("zd-")) {
        let healthy = line.contains("  healthy  ");
        assert_eq!(healthy, line.ends_with("  healthy  -"), "{line}");
    }
}

#[test]
fn table_columns_line_up_whatever_the_conversation_ids() {
    // A 27-character id made "= ID" longer than its column, cut with "…" past it, and
    // pushed every score of its row one column right.
    let short = ["a".repeat(27), "c".to_owned()];
    let long = ["b".repeat(40), "é".repeat(30), "d".to_owned()];
    for ids in [&short[..], &long[..]] {
        let events: Vec<Value> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                json!({"actor_id": format!("u{i}"), "content": "Where is my refund?",
                       "timestamp": format!("2026-01-0{}T10:00:00Z", i + 1), "conversation_id": id})
            })
            .collect();
        let body = json!({"deployment_id": "bot", "events": events}).to_string();
        let (_dir, path) = temp_file("ids.json", body.as_bytes());
        let out = run(&["score", "--format", "table"], Some(&path), None);
        assert_eq!(out.code, Some(0), "{out:?}");
        let header = out.stdout.lines().next().unwrap();
        let end = header.find("trust").unwrap() + "trust".len();
        let rows: Vec<&str> = out
            .stdout
            .lines()
            .take_while(|l| !l.is_empty())
            .skip(1)
            .collect();
        assert_eq!(rows.len(), 2 * ids.len() + 1, "{}", out.stdout);
        for line in rows {
            let chars: Vec<char> = line.chars().collect();
            let cell: String = chars.get(end - 4..end).unwrap_or_default().iter().collect();
            assert!(cell.parse::<f64>().is_ok(), "{line:?} in\n{}", out.stdout);
        }
    }
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

#[test]
fn the_html_report_carries_the_full_result_and_escapes_its_island() {
    // A turn that tries to close the data island, and the full result to compare with.
    let body = json!({"deployment_id": "bot", "events": [
        {"actor_id": "u1", "content": "</script><b>refund & now</b>", "timestamp": "2026-01-01T10:00:00Z"},
        {"actor_id": "bot", "content": "I can't help with <that>.", "timestamp": "2026-01-01T10:00:05Z"},
        {"actor_id": "u1", "content": "this is useless", "timestamp": "2026-01-01T10:01:00Z"},
    ]})
    .to_string();
    let (_dir, path) = temp_file("hostile.json", body.as_bytes());
    let full = assert_json_output(&run(&["score"], Some(&path), None));
    let page = run(&["score", "--format", "html"], Some(&path), None);
    assert_eq!(page.code, Some(0), "{}", page.stderr);
    assert!(page.stdout.ends_with("</html>\n\n"), "{}", page.stdout);
    let open = r#"<script type="application/json" id="undertone-data">"#;
    let start = page.stdout.find(open).unwrap() + open.len();
    let island = &page.stdout[start..start + page.stdout[start..].find("</script>").unwrap()];
    assert!(
        !island.contains('<') && !island.contains('>') && !island.contains('&'),
        "{island}"
    );
    let data: Value = serde_json::from_str(island).unwrap();
    assert_eq!(data["result"], full);
    let turns = data["assembly"]["conversations"][0]["turns"]
        .as_array()
        .unwrap();
    assert_eq!(turns[0]["content"], "</script><b>refund & now</b>");
}

#[test]
fn turn_rows_are_one_line_per_human_turn_with_the_full_results_scores() {
    let path = example("support-refund-goes-wrong.json");
    let full = assert_json_output(&run(&["score"], Some(&path), None));
    let out = run(&["score", "--view", "turns"], Some(&path), None);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.strip_suffix('\n').unwrap().split('\n').collect();
    let turns: Vec<(&Value, &Value)> = full["intelligence"]["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["turns"].as_array().unwrap().iter().map(move |t| (c, t)))
        .collect();
    assert_eq!(lines.len(), 11);
    assert_eq!(lines.len(), turns.len());
    for (line, (c, t)) in lines.iter().zip(&turns) {
        let row: Value = serde_json::from_str(line).unwrap();
        assert_eq!(row["conversation_id"], c["conversation_id"]);
        assert_eq!(row["timestamp"], t["timestamp"]);
        let f = &t["layer_z"]["frustration_buildup"];
        assert_eq!(row["frustration_buildup"], f["score"]);
        assert_eq!(row["frustration_buildup_band"], f["band"]);
    }
}

#[test]
fn a_view_other_than_full_with_the_html_report_is_refused_not_ignored() {
    for view in ["condensed", "turns"] {
        let out = run(
            &["score", "--format", "html", "--view", view],
            Some(&example("tutor-fractions.json")),
            None,
        );
        assert_eq!(out.code, Some(2), "{out:?}");
        assert_eq!(out.stdout, "");
        assert_eq!(
            out.stderr,
            format!(
                "error: --view {view} does not apply to --format html: the report always \
                 shows the whole result; leave out --view, or use --format json\n"
            )
        );
    }
    let full = run(
        &["score", "--format", "html", "--view", "full"],
        Some(&example("tutor-fractions.json")),
        None,
    );
    assert_eq!(full.code, Some(0), "{full:?}");
}
