//! JSON Lines input.

use super::*;

/// Asserts that `text`, read as JSON Lines, is refused with exactly the violations
/// `expected` (path, message).
fn assert_line_violations(text: &str, expected: &[(&str, &str)]) {
    let err = validate::ingest_request_json_lines(text.as_bytes(), "acme", &Options::default())
        .expect_err("invalid");
    let got: Vec<_> = err
        .violations()
        .iter()
        .map(|v| (v.path.as_str(), v.message.as_str()))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn lines_become_events_and_bad_lines_are_named() {
    let text = format!("{}\n\nnot json\n{}\n", event(), event());
    assert_line_violations(
        &text,
        &[(
            "events[1]",
            "line 3 is not valid JSON: expected ident at line 1 column 2",
        )],
    );
    let ok = format!("{}\n{}", event(), event());
    let req = validate::ingest_request_json_lines(ok.as_bytes(), "acme", &Options::default())
        .expect("valid");
    assert_eq!(req.events.len(), 2);
    assert_eq!(req.deployment_id, "acme");
}

#[test]
fn a_key_given_twice_on_a_line_names_the_line() {
    let twice = r#"{"actor_id": "cust-1", "content": "Where is my refund?", "timestamp": "2026-11-21T09:30:00Z", "content": ""}"#;
    let unknown_twice = r#"{"actor_id": "cust-1", "content": "hi", "timestamp": "2026-11-21T09:30:00Z", "tier": 1, "tier": 2}"#;
    let nested = r#"{"actor_id": "cust-1", "content": "hi", "timestamp": "2026-11-21T09:30:00Z", "metadata": {"a": 1, "a": 2}}"#;
    let text = format!("{}\n{twice}\n{unknown_twice}\n{nested}\n", event());
    assert_line_violations(
        &text,
        &[
            (
                "events[1]",
                "line 2 is not valid JSON: the key \"content\" is given twice in one object at line 1 column 103",
            ),
            (
                "events[2]",
                "line 3 is not valid JSON: the key \"tier\" is given twice in one object at line 1 column 94",
            ),
            (
                "events[3]",
                "line 4 is not valid JSON: the key \"a\" is given twice in one object at line 1 column 101",
            ),
        ],
    );
}

#[test]
fn lines_split_at_a_bare_carriage_return_are_said_to_be() {
    // Old Mac line endings: the two events read as one line with trailing characters.
    let one = event().to_string();
    let text = format!("{one}\r{one}\r");
    let column = one.len() + 2;
    assert_line_violations(
        &text,
        &[(
            "events[0]",
            &format!(
                "line 1 is not valid JSON: trailing characters at line 1 column {column} (the \
                 line holds a carriage return without a line feed: JSON Lines ends each line \
                 with LF or CRLF)"
            ),
        )],
    );
}
