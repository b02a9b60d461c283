//! `validate` on good input (the ok line) and on input that breaks the contract
//! (the list of violations, and the `--json` error envelope).

use std::collections::BTreeSet;
use std::fs;

use super::{
    assert_error_envelope, assert_ok_line, assert_violations, events_of, example, example_json,
    run, temp_file,
};

// ---------------------------------------------------------------------------
// the examples

fn assert_validate_example(name: &str, ok_line: &str) {
    let events = events_of(&example_json(name)).len();
    assert!(
        ok_line.starts_with(&format!("ok: {events} events, ")),
        "{ok_line} does not count the {events} events of {name}"
    );
    assert_ok_line(&run(&["validate"], Some(&example(name)), None), ok_line);
}

#[test]
fn validate_support_refund_example() {
    assert_validate_example(
        "support-refund-goes-wrong.json",
        "ok: 20 events, 2 conversations (11 human turns)",
    );
    // Two conversations because the file names two conversation ids.
    let request = example_json("support-refund-goes-wrong.json");
    let ids: BTreeSet<&str> = events_of(&request)
        .iter()
        .map(|e| e["conversation_id"].as_str().expect("conversation_id"))
        .collect();
    assert_eq!(ids, BTreeSet::from(["zd-48213", "zd-48230"]));
}

#[test]
fn validate_coding_assistant_example() {
    assert_validate_example(
        "coding-assistant-goes-well.json",
        "ok: 19 events, 2 conversations (11 human turns)",
    );
}

#[test]
fn validate_tutor_example() {
    assert_validate_example(
        "tutor-fractions.json",
        "ok: 15 events, 1 conversation (8 human turns)",
    );
}

#[test]
fn validate_uses_singular_words_and_notes_conversations_without_humans() {
    let body = r#"{"deployment_id":"d","events":[{"actor_id":"bot","content":"hello",
        "timestamp":"2026-01-01T00:00:00Z","conversation_id":"c1","metadata":{"role":"assistant"}}]}"#;
    let (_dir, path) = temp_file("ai-only.json", body.as_bytes());
    let out = run(&["validate"], Some(&path), None);
    assert_eq!(out.stdout, "ok: 1 event, 1 conversation (0 human turns)\n");
    assert_eq!(
        out.stderr,
        "note: conversation c1 has no human turn; it is kept but nothing in it is scored\n"
    );
    assert_eq!(out.code, Some(0));
}

#[test]
fn validate_reads_standard_input() {
    let bytes = fs::read(example("support-refund-goes-wrong.json")).expect("example");
    let out = run(&["validate", "-"], None, Some(bytes));
    assert_ok_line(&out, "ok: 20 events, 2 conversations (11 human turns)");
}

// ---------------------------------------------------------------------------
// contract violations

const SEVERAL_VIOLATIONS: [(&str, &str); 7] = [
    (
        "customer_tier",
        "unknown field; allowed fields are deployment_id, events, pipeline, webhook_url",
    ),
    (
        "pipeline",
        "must be one of auto, support, reviews; got \"chat\"",
    ),
    ("events[1].timestamp", "is required"),
    (
        "events[2].timestamp",
        "\"2026-11-18 09:15:00\" has no UTC offset; add Z or an offset such as +01:00, e.g. 2026-11-21T09:30:00Z",
    ),
    ("events[3].content", "must not be empty or only whitespace"),
    (
        "events[4].timestamp",
        "\"2026-02-30T10:00:00Z\" is not a real date and time",
    ),
    ("events[5].actor_id", "must not be empty"),
];

/// Runs `subcommand` on the example with several violations and checks it lists them all.
fn assert_lists_several_violations(subcommand: &str) {
    let file = example("invalid-several-violations.json");
    let out = run(&[subcommand], Some(&file), None);
    let lines: Vec<String> = SEVERAL_VIOLATIONS
        .iter()
        .map(|(p, m)| format!("{p}: {m}"))
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_violations(&out, &file, &lines);
}

#[test]
fn validate_lists_every_violation() {
    assert_lists_several_violations("validate");
}

#[test]
fn conversations_reports_violations_like_validate() {
    assert_lists_several_violations("conversations");
}

#[test]
fn validate_json_prints_the_error_envelope() {
    let file = example("invalid-several-violations.json");
    let out = run(&["validate", "--json"], Some(&file), None);
    let envelope = assert_error_envelope(&out);
    assert!(out.stdout.ends_with("}\n"), "{:?}", out.stdout);
    assert_eq!(out.stdout.lines().count(), 1, "{:?}", out.stdout);
    let error = envelope["error"].as_object().expect("error object");
    assert_eq!(error.len(), 3, "{error:?}");
    assert_eq!(
        error["message"],
        "7 problems in the input; first: customer_tier: unknown field; allowed fields are \
         deployment_id, events, pipeline, webhook_url (and 6 more)"
    );
    let details: Vec<(&str, &str)> = error["details"]
        .as_array()
        .expect("details array")
        .iter()
        .map(|d| {
            assert_eq!(d.as_object().map(|o| o.len()), Some(2), "{d}");
            (
                d["path"].as_str().expect("path"),
                d["message"].as_str().expect("message"),
            )
        })
        .collect();
    assert_eq!(details, SEVERAL_VIOLATIONS);
}

#[test]
fn validate_json_envelope_for_a_body_problem() {
    let (_dir, path) = temp_file("empty.json", b"");
    let out = run(&["validate", "--json"], Some(&path), None);
    assert_eq!(
        out.stdout,
        "{\"error\":{\"code\":\"VALIDATION_ERROR\",\"message\":\"body: is empty; expected a JSON \
         object\",\"details\":[{\"path\":\"body\",\"message\":\"is empty; expected a JSON object\"}]}}\n"
    );
    assert_eq!(out.stderr, "");
    assert_eq!(out.code, Some(2));
}
