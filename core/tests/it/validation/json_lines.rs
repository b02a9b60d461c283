//! JSON Lines input.

use super::*;

#[test]
fn lines_become_events_and_bad_lines_are_named() {
    let text = format!("{}\n\nnot json\n{}\n", event(), event());
    let err = validate::ingest_request_json_lines(text.as_bytes(), "acme", &Options::default())
        .expect_err("invalid");
    let got: Vec<_> = err
        .violations()
        .iter()
        .map(|v| (v.path.as_str(), v.message.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![(
            "events[1]",
            "line 3 is not valid JSON: expected ident at line 1 column 2"
        )]
    );
    let ok = format!("{}\n{}", event(), event());
    let req = validate::ingest_request_json_lines(ok.as_bytes(), "acme", &Options::default())
        .expect("valid");
    assert_eq!(req.events.len(), 2);
    assert_eq!(req.deployment_id, "acme");
}
