//! Connectors: each fixture under examples/connectors/ gives exactly its golden events
//! and skipped items (tests/golden/connectors/<format>.json, rewritten with
//! `UNDERTONE_BLESS=1 cargo test -p undertone-core connectors` and reviewed), scores
//! with sensible bands, and malformed input gives the documented error.

use serde_json::{Value, json};
use undertone_core::connectors::{File, Format, import};
use undertone_core::score::score;
use undertone_core::validate;

use super::{read_json, root};

/// One golden case of tests/golden/connectors/cases.json: a format, its input files
/// (names relative to examples/connectors/<format>/, which are also the names errors
/// and skipped items use) and its mapping document. The Python, Node and wasm tests
/// read the same cases and golden files.
struct Case {
    format: Format,
    files: Vec<(String, Vec<u8>)>,
}

fn cases() -> Vec<Case> {
    let list = read_json(&root().join("tests/golden/connectors/cases.json"));
    let read = |format: &str, name: &str| {
        let path = root().join("examples/connectors").join(format).join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    list.as_array()
        .expect("cases.json is an array")
        .iter()
        .map(|c| {
            let name = c["format"].as_str().expect("format");
            let mapping = c["mapping"].as_str().map(|m| (m, read(name, m)));
            let mapping_file = mapping.as_ref().map(|(m, bytes)| File { name: m, bytes });
            let format = Format::named(name, mapping_file.as_ref(), "format")
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let files = c["files"]
                .as_array()
                .expect("files")
                .iter()
                .map(|f| {
                    let f = f.as_str().expect("file name");
                    (f.to_owned(), read(name, f))
                })
                .collect();
            Case { format, files }
        })
        .collect()
}

fn import_case(case: &Case) -> Value {
    let files: Vec<File<'_>> = case
        .files
        .iter()
        .map(|(name, bytes)| File { name, bytes })
        .collect();
    import(&case.format, &files, None)
        .unwrap_or_else(|e| panic!("{}: the fixture imports: {e}", case.format.name()))
        .to_json()
}

fn run(format: Format) -> Value {
    let case = cases()
        .into_iter()
        .find(|c| c.format.name() == format.name())
        .expect("a case for the format");
    import_case(&case)
}

#[test]
fn every_fixture_gives_its_golden_events_and_skipped_items() {
    let cases = cases();
    let names: Vec<&str> = cases.iter().map(|c| c.format.name()).collect();
    assert_eq!(names, Format::NAMES, "one case per format, in NAMES order");
    for case in &cases {
        let got = import_case(case);
        let path = root()
            .join("tests/golden/connectors")
            .join(format!("{}.json", case.format.name()));
        if std::env::var_os("UNDERTONE_BLESS").is_some() {
            let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            continue;
        }
        assert_eq!(
            got,
            read_json(&path),
            "{}: differs from {}; rerun with UNDERTONE_BLESS=1 if intended",
            case.format.name(),
            path.display()
        );
    }
}

#[test]
fn chatgpt_follows_the_current_branch_and_reports_what_it_leaves_out() {
    let out = run(Format::ChatGpt);
    let events = out["request"]["events"].as_array().unwrap();
    let ids: Vec<&str> = events
        .iter()
        .filter(|e| e["conversation_id"] == "6a1f0c2e-77b1-4d0e-9b58-1f2d3c4b5a61")
        .map(|e| e["metadata"]["message_id"].as_str().unwrap())
        .collect();
    // The edited prompt (u2b) and the regenerated answer (a2b), not the abandoned
    // branches (u2, a2, a2x); the image-only message and the tool output are left out.
    assert_eq!(ids, ["u1", "a1", "u2b", "a2b", "a3", "u4", "a4", "u5"]);
    let skipped: Vec<&str> = out["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["at"].as_str().unwrap())
        .collect();
    assert_eq!(
        skipped,
        [
            "conversations.json[0].mapping.img",
            "conversations.json[0].mapping.tool",
            "conversations.json[1].mapping.q2",
        ]
    );
    // A message without create_time takes the time of the message before it.
    let a3 = events
        .iter()
        .find(|e| e["metadata"]["message_id"] == "a3")
        .unwrap();
    let a2b = events
        .iter()
        .find(|e| e["metadata"]["message_id"] == "a2b")
        .unwrap();
    assert_eq!(a3["timestamp"], a2b["timestamp"]);
}

#[test]
fn claude_keeps_content_blocks_and_attachment_names() {
    let out = run(Format::Claude);
    let events = out["request"]["events"].as_array().unwrap();
    let m5 = events
        .iter()
        .find(|e| e["metadata"]["message_id"] == "m5")
        .unwrap();
    assert_eq!(
        m5["content"],
        "Exactly right: 11/12. You found the common denominator 12 yourself."
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": "conversations.json[0].chat_messages[2]", "reason": "no text (attachments only)"},
            {"at": "conversations.json[1].chat_messages[2]", "reason":
                "created_at: must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got \"not a time\""}
        ])
    );
}

#[test]
fn fixtures_score_with_sensible_bands() {
    // The refund conversation ends in "forget it": abandonment and frustration are
    // broken; the fractions lesson resolves ("that makes sense now") and stays healthy.
    let chatgpt = run(Format::ChatGpt);
    let request = validate::ingest_request(&chatgpt["request"], &validate::Options::default())
        .expect("connector output is a valid request");
    let out = serde_json::to_value(score(&request)).unwrap();
    let refund = &out["intelligence"]["conversations"][0];
    assert_eq!(refund["abandoned"], true);
    assert_eq!(
        refund["layer_z"]["silent_abandonment_risk"]["band"],
        "broken"
    );
    assert_eq!(refund["layer_z"]["frustration_buildup"]["band"], "broken");

    let claude = run(Format::Claude);
    let request = validate::ingest_request(&claude["request"], &validate::Options::default())
        .expect("connector output is a valid request");
    let out = serde_json::to_value(score(&request)).unwrap();
    let lesson = &out["intelligence"]["conversations"][0];
    assert_eq!(lesson["layer_z"]["frustration_buildup"]["band"], "healthy");
    assert_eq!(
        lesson["layer_z"]["silent_abandonment_risk"]["band"],
        "healthy"
    );
}

#[test]
fn malformed_inputs_name_the_file_the_position_and_what_was_expected() {
    let cases: [(Format, &str, &str, &str); 7] = [
        (Format::ChatGpt, "{", "x.json", "is not JSON"),
        (
            Format::ChatGpt,
            "{}",
            "x.json",
            "expected ChatGPT's conversations.json (an array of conversations), got object",
        ),
        (
            Format::ChatGpt,
            "[{\"title\": \"t\"}]",
            "x.json[0]",
            "expected a ChatGPT conversation with `mapping`",
        ),
        (
            Format::ChatGpt,
            "[{\"mapping\": [], \"title\": \"t\"}]",
            "x.json[0].mapping",
            "expected an object of message nodes, got array",
        ),
        (
            Format::ChatGpt,
            "[{\"mapping\": {\"a\": {\"parent\": \"zz\"}}, \"current_node\": \"a\"}]",
            "x.json[0].mapping.a.parent",
            "names node \"zz\", which is not in `mapping`",
        ),
        (
            Format::Claude,
            "[{\"chat_messages\": {}}]",
            "x.json[0].chat_messages",
            "expected an array of messages, got object",
        ),
        (
            Format::Claude,
            "[{\"mapping\": {}}]",
            "x.json[0]",
            "expected a Claude conversation with `chat_messages`",
        ),
    ];
    for (format, input, path, message) in cases {
        let file = File {
            name: "x.json",
            bytes: input.as_bytes(),
        };
        let e = import(&format, &[file], None).expect_err(input);
        let v = &e.violations()[0];
        assert_eq!(v.path, path, "{input}");
        assert!(v.message.starts_with(message), "{input}: {}", v.message);
    }
    // Valid shape, nothing usable: an error that says what was left out, not an empty
    // request.
    let file = File {
        name: "x.json",
        bytes: br#"[{"uuid": "c", "chat_messages": [{"sender": "human", "text": " ", "created_at": "2026-01-01T00:00:00Z"}]}]"#,
    };
    let e = import(&Format::Claude, &[file], None).unwrap_err();
    assert_eq!(e.violations()[0].path, "x.json");
    assert!(
        e.to_string()
            .contains("x.json[0].chat_messages[0]: no text"),
        "{e}"
    );
}
