//! Connectors: each fixture under examples/connectors/ gives exactly its golden events
//! and skipped items (tests/golden/connectors/<format>.json, rewritten with
//! `UNDERTONE_BLESS=1 cargo test -p undertone-core connectors` and reviewed), scores
//! with sensible bands, and malformed input gives the documented error.

use serde_json::{Value, json};
use undertone_core::connectors::{File, Format, import};
use undertone_core::score::score;
use undertone_core::sdk::DeploymentId;
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
    import(&case.format, &files, DeploymentId::default())
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
    assert_eq!(refund["layer_z"]["frustration_buildup"]["band"], "broken");
    assert_eq!(refund["resolved"], false);
    // "forget it" pushes the last turn's abandonment risk, and the refund conversation's
    // risk is above the resolved one's. (That it reaches the broken band and the
    // conversation is flagged abandoned does not hold under scorer 2.0:
    // known_gaps::forget_it_after_repeated_failures_is_abandoned.)
    let last = refund["turns"].as_array().unwrap().last().unwrap();
    let giving_up = last["layer_z"]["silent_abandonment_risk"]["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["signal"] == "giving_up")
        .cloned()
        .unwrap_or_else(|| panic!("{last:#}"));
    assert!(giving_up["contribution"].as_f64().unwrap() > 0.0);
    assert!(giving_up["detail"].as_str().unwrap().contains("\"forget\""));
    let roth = &out["intelligence"]["conversations"][1];
    assert_eq!(roth["resolved"], true);
    let risk = |c: &Value| {
        c["layer_z"]["silent_abandonment_risk"]["score"]
            .as_f64()
            .unwrap()
    };
    assert!(
        risk(refund) > risk(roth),
        "{} > {}",
        risk(refund),
        risk(roth)
    );

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
        let e = import(&format, &[file], DeploymentId::default()).expect_err(input);
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
    let e = import(&Format::Claude, &[file], DeploymentId::default()).unwrap_err();
    assert_eq!(e.violations()[0].path, "x.json");
    assert!(
        e.to_string()
            .contains("x.json[0].chat_messages[0]: no text"),
        "{e}"
    );
}

/// Reads inline `files` (name, text) in `format`, as `{request, skipped}`.
fn read(format: &Format, files: &[(&str, &str)]) -> undertone_core::Result<Value> {
    let files: Vec<File<'_>> = files
        .iter()
        .map(|(name, text)| File {
            name,
            bytes: text.as_bytes(),
        })
        .collect();
    import(format, &files, DeploymentId::default()).map(|i| i.to_json())
}

/// One inline JSON document read as `x.json`, which must import.
fn read_doc(format: &Format, doc: &Value) -> Value {
    read(format, &[("x.json", &doc.to_string())]).unwrap_or_else(|e| panic!("{doc}: {e}"))
}

/// The only violation of reading `text` as `name`, as (path, message).
fn violation(format: &Format, name: &str, text: &str) -> (String, String) {
    let e = read(format, &[(name, text)]).expect_err(text);
    assert_eq!(e.violations().len(), 1, "{text}: {e}");
    let v = &e.violations()[0];
    (v.path.clone(), v.message.clone())
}

/// The values at `pointers` in each event, one array per event (`null` when absent).
fn pick(out: &Value, pointers: &[&str]) -> Value {
    out["request"]["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            pointers
                .iter()
                .map(|p| e.pointer(p).cloned().unwrap_or(Value::Null))
                .collect::<Value>()
        })
        .collect()
}

/// Asserts each `(input, path, start of message)` fails with exactly that violation.
fn assert_violations(format: &Format, name: &str, cases: &[(&str, &str, &str)]) {
    for (input, path, message) in cases {
        let (got_path, got_message) = violation(format, name, input);
        assert_eq!(got_path, *path, "{input}");
        assert!(got_message.starts_with(message), "{input}: {got_message}");
    }
}

/// A public Zendesk comment with plain text, written at second `id` of 09:00.
fn zendesk_comment(id: u64, author: u64, text: &str) -> Value {
    json!({
        "id": id,
        "author_id": author,
        "plain_body": text,
        "public": true,
        "created_at": format!("2026-03-02T09:00:{id:02}Z"),
    })
}

/// `base` with the fields of `extra` set (or, when `null`, removed).
fn with(mut base: Value, extra: Value) -> Value {
    let fields = base.as_object_mut().expect("an object");
    for (k, v) in extra.as_object().expect("an object") {
        if v.is_null() {
            fields.remove(k);
        } else {
            fields.insert(k.clone(), v.clone());
        }
    }
    base
}

#[test]
fn zendesk_roles_follow_the_sideloaded_users() {
    let doc = json!({
        "tickets": [{"id": 1, "subject": "Charged twice", "requester_id": 10, "comments": [
            zendesk_comment(1, 10, "I was charged twice."),
            zendesk_comment(2, 20, "I have refunded one charge."),
            // A second customer on the ticket (cc'd): an end-user, so a person too.
            zendesk_comment(3, 30, "Same for me."),
        ]}],
        "users": [
            {"id": 10, "role": "end-user"},
            {"id": 20, "role": "agent"},
            {"id": 30, "role": "end-user"},
        ],
    });
    let out = read_doc(&Format::Zendesk, &doc);
    assert_eq!(
        out,
        json!({"request": {"deployment_id": "zendesk", "events": [
            {"actor_id": "zendesk:10", "content": "I was charged twice.",
             "timestamp": "2026-03-02T09:00:01Z", "conversation_id": "1",
             "metadata": {"role": "user", "source": "zendesk", "message_id": "1",
                          "title": "Charged twice"}},
            {"actor_id": "zendesk:20", "content": "I have refunded one charge.",
             "timestamp": "2026-03-02T09:00:02Z", "conversation_id": "1",
             "metadata": {"role": "assistant", "source": "zendesk", "message_id": "2",
                          "responder": "human_agent", "title": "Charged twice"}},
            {"actor_id": "zendesk:30", "content": "Same for me.",
             "timestamp": "2026-03-02T09:00:03Z", "conversation_id": "1",
             "metadata": {"role": "user", "source": "zendesk", "message_id": "3",
                          "title": "Charged twice"}},
        ]}, "skipped": []})
    );
}

#[test]
fn zendesk_without_users_the_requester_is_the_person_and_anyone_else_an_agent() {
    let doc = json!({"tickets": [
        {"id": 1, "requester_id": 10, "comments": [
            zendesk_comment(1, 10, "Where is my order?"),
            zendesk_comment(2, 20, "It ships today."),
            zendesk_comment(3, 30, "Adding the warehouse here."),
        ]},
        // Ids as strings, as some exports write them.
        {"id": "2", "requester_id": "11", "comments": [
            zendesk_comment(4, 11, "Can I change my address?"),
            zendesk_comment(5, 10, "Done."),
        ]},
    ]});
    let out = read_doc(&Format::Zendesk, &doc);
    assert_eq!(
        pick(
            &out,
            &[
                "/conversation_id",
                "/actor_id",
                "/metadata/role",
                "/metadata/responder"
            ]
        ),
        json!([
            ["1", "zendesk:10", "user", null],
            ["1", "zendesk:20", "assistant", "human_agent"],
            ["1", "zendesk:30", "assistant", "human_agent"],
            ["2", "zendesk:11", "user", null],
            // The requester of ticket 1 answers on ticket 2: there, an agent.
            ["2", "zendesk:10", "assistant", "human_agent"],
        ])
    );
}

#[test]
fn zendesk_finds_the_bot_by_channel_metadata_and_user_tags() {
    let c = zendesk_comment;
    let doc = json!({
        "tickets": [{"id": 7, "requester_id": 10, "comments": [
            c(1, 10, "Question"),
            with(c(2, 20, "By the answer bot channel"),
                 json!({"via": {"channel": "answer_bot_for_web_widget"}})),
            with(c(3, 20, "By the AI agent channel"), json!({"via": {"channel": "ai_agent"}})),
            with(c(4, 20, "Custom bot flag"), json!({"metadata": {"custom": {"bot": true}}})),
            with(c(5, 20, "Custom role AI"), json!({"metadata": {"custom": {"role": "AI"}}})),
            with(c(6, 20, "Custom role model"), json!({"metadata": {"custom": {"role": " model "}}})),
            c(7, 21, "Author tagged bot"),
            c(8, 22, "Author tagged ai_agent"),
            // None of the routes: a person on the answering side.
            with(c(9, 20, "Web, no bot flag, a human role"),
                 json!({"via": {"channel": "web"},
                        "metadata": {"custom": {"bot": false, "role": "agent"}}})),
            c(10, 23, "Author tagged vip"),
        ]}],
        "users": [
            {"id": 10, "role": "end-user"},
            {"id": 20, "role": "agent"},
            {"id": 21, "role": "agent", "tags": ["bot"]},
            {"id": 22, "role": "agent", "tags": ["support", "ai_agent"]},
            {"id": 23, "role": "agent", "tags": ["vip"]},
        ],
    });
    let out = read_doc(&Format::Zendesk, &doc);
    assert_eq!(
        pick(
            &out,
            &[
                "/metadata/message_id",
                "/metadata/role",
                "/metadata/responder",
                "/metadata/channel"
            ]
        ),
        json!([
            ["1", "user", null, null],
            ["2", "assistant", "bot", "answer_bot_for_web_widget"],
            ["3", "assistant", "bot", "ai_agent"],
            ["4", "assistant", "bot", null],
            ["5", "assistant", "bot", null],
            ["6", "assistant", "bot", null],
            ["7", "assistant", "bot", null],
            ["8", "assistant", "bot", null],
            ["9", "assistant", "human_agent", "web"],
            ["10", "assistant", "human_agent", null],
        ])
    );
}

#[test]
fn zendesk_reads_every_documented_shape_and_names_positions_in_it() {
    let users = json!([{"id": 10, "role": "end-user"}, {"id": 20, "role": "agent"}]);
    let note = with(zendesk_comment(3, 20, "internal"), json!({"public": false}));
    // One ticket with the Ticket Comments API's list beside it.
    let single = json!({
        "ticket": {"id": 1, "requester_id": 10},
        "comments": [zendesk_comment(1, 10, "Hi"), zendesk_comment(2, 20, "Hello"), note],
        "users": users,
    });
    let out = read_doc(&Format::Zendesk, &single);
    assert_eq!(
        pick(&out, &["/conversation_id", "/metadata/role", "/content"]),
        json!([["1", "user", "Hi"], ["1", "assistant", "Hello"]])
    );
    let note_reason = "an internal note (public: false), which the customer never saw";
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.json.ticket.comments[2]", "reason": note_reason}])
    );

    // One ticket with its comments merged in.
    let merged = json!({"ticket": {"id": 2, "requester_id": 10, "comments": [
        zendesk_comment(1, 10, "Merged"),
    ]}});
    let out = read_doc(&Format::Zendesk, &merged);
    assert_eq!(
        pick(&out, &["/conversation_id", "/metadata/role", "/content"]),
        json!([["2", "user", "Merged"]])
    );

    // A list response: {"tickets": [...]}.
    let list = json!({"tickets": [
        {"id": 3, "requester_id": 10, "comments": [zendesk_comment(4, 10, "Listed")]},
        {"id": 4, "requester_id": 10},
    ]});
    let no_comments = "no `comments` (merge the Ticket Comments API's list into the ticket)";

    // A top-level array of either shape.
    let out = read_doc(&Format::Zendesk, &json!([single, list]));
    assert_eq!(
        pick(&out, &["/conversation_id", "/content"]),
        json!([["1", "Hi"], ["1", "Hello"], ["3", "Listed"]])
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": "x.json[0].ticket.comments[2]", "reason": note_reason},
            {"at": "x.json[1].tickets[1]", "reason": no_comments},
        ])
    );

    // JSON Lines: positions are `name:LINE`, blank lines counted.
    let lines = format!("{single}\n\n{list}\n");
    let out = read(&Format::Zendesk, &[("x.jsonl", &lines)]).unwrap();
    assert_eq!(
        pick(&out, &["/conversation_id", "/content"]),
        json!([["1", "Hi"], ["1", "Hello"], ["3", "Listed"]])
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": "x.jsonl:1.ticket.comments[2]", "reason": note_reason},
            {"at": "x.jsonl:3.tickets[1]", "reason": no_comments},
        ])
    );
    assert_violations(
        &Format::Zendesk,
        "x.jsonl",
        &[
            (
                &format!("{single}\n42\n"),
                "x.jsonl:2",
                "expected Zendesk tickets (an object or an array), got number",
            ),
            (
                &format!("{single}\n{list}\n{{\"tickets\": \n"),
                "x.jsonl:3",
                "is not JSON (JSON Lines: one value per line)",
            ),
            (
                &format!("{single}\n{{\"tickets\": [7]}}\n"),
                "x.jsonl:2.tickets[0]",
                "expected a ticket object, got number",
            ),
        ],
    );
}

#[test]
fn zendesk_reads_html_as_text_and_prefers_plain_body() {
    let c = |id: u64, body: Value| {
        with(
            json!({"id": id, "author_id": 10, "public": true,
                   "created_at": format!("2026-03-02T09:00:{id:02}Z")}),
            body,
        )
    };
    let doc = json!({"tickets": [{"id": 1, "requester_id": 10, "comments": [
        c(1, json!({"html_body": "<div class=\"zd-comment\"><p>Hi Tom,</p><p>A refund of &euro;49.00 &amp; a note: 3&ndash;5 days, I&#39;m told.</p></div>"})),
        c(2, json!({"plain_body": "the plain text", "body": "<p>the <b>body</b></p>",
                    "html_body": "<p>the html</p>"})),
        c(3, json!({"body": "Wrap the title in the <b> tag, then check 1 < 2."})),
        c(4, json!({"body": "<p>First</p><p>Second &gt; third</p>"})),
        c(5, json!({"plain_body": "  ", "body": "from the body", "html_body": "<p>html</p>"})),
    ]}]});
    let out = read_doc(&Format::Zendesk, &doc);
    assert_eq!(
        pick(&out, &["/content"]),
        json!([
            ["Hi Tom,\nA refund of €49.00 & a note: 3–5 days, I'm told."],
            ["the plain text"],
            ["Wrap the title in the <b> tag, then check 1 < 2."],
            ["First\nSecond > third"],
            ["from the body"],
        ])
    );
}

#[test]
fn zendesk_reports_every_comment_and_ticket_it_leaves_out() {
    let c = zendesk_comment;
    let doc = json!({"tickets": [
        {"id": 1, "requester_id": 10, "comments": [
            c(1, 10, "Kept"),
            with(c(2, 20, "A note"), json!({"public": false})),
            with(c(3, 20, "Nobody"), json!({"author_id": null})),
            c(4, 10, "   "),
            with(c(5, 10, ""), json!({"attachments": [{"file_name": "receipt.pdf"}]})),
            with(c(6, 10, "When?"), json!({"created_at": "yesterday"})),
            with(c(7, 10, "Never"), json!({"created_at": null})),
            with(c(8, 10, "See attached"), json!({"attachments": [{"file_name": "shot.png"}]})),
        ]},
        {"id": 2, "requester_id": 10, "subject": "No comments merged"},
    ]});
    let out = read_doc(&Format::Zendesk, &doc);
    assert_eq!(
        pick(
            &out,
            &["/metadata/message_id", "/content", "/metadata/attachments"]
        ),
        json!([["1", "Kept", null], ["8", "See attached", ["shot.png"]]])
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": "x.json.tickets[0].comments[1]",
             "reason": "an internal note (public: false), which the customer never saw"},
            {"at": "x.json.tickets[0].comments[2]", "reason": "no author_id"},
            {"at": "x.json.tickets[0].comments[3]", "reason": "no text"},
            {"at": "x.json.tickets[0].comments[4]", "reason": "no text (attachments only)"},
            {"at": "x.json.tickets[0].comments[5]", "reason":
                "created_at: must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got \"yesterday\""},
            {"at": "x.json.tickets[0].comments[6]", "reason": "no created_at"},
            {"at": "x.json.tickets[1]",
             "reason": "no `comments` (merge the Ticket Comments API's list into the ticket)"},
        ])
    );
}

#[test]
fn zendesk_malformed_input_names_the_position() {
    assert_violations(
        &Format::Zendesk,
        "x.json",
        &[
            ("{\"tickets\": [", "x.json", "is not JSON"),
            (
                "42",
                "x.json",
                "expected Zendesk tickets (an object or an array), got number",
            ),
            (
                "{\"tickets\": {}}",
                "x.json.tickets",
                "expected an array of tickets, got object",
            ),
            (
                "{\"tickets\": [{\"id\": 1, \"comments\": []}, \"t\"]}",
                "x.json.tickets[1]",
                "expected a ticket object, got string",
            ),
            (
                "{\"ticket\": [1]}",
                "x.json.ticket",
                "expected a ticket object, got array",
            ),
            (
                "{\"tickets\": [{\"id\": 1, \"comments\": {\"a\": 1}}]}",
                "x.json.tickets[0].comments",
                "expected an array of comments, got object",
            ),
            (
                "{\"ticket\": {\"id\": 1}, \"comments\": \"none\"}",
                "x.json.ticket.comments",
                "expected an array of comments, got string",
            ),
            (
                "{\"tickets\": [], \"users\": {}}",
                "x.json.users",
                "expected an array of users, got object",
            ),
            (
                "{\"conversations\": []}",
                "x.json",
                "expected Zendesk tickets: {\"tickets\": [...]} with each ticket's `comments`, \
                 or {\"ticket\": {...}, \"comments\": [...]}",
            ),
            (
                "[{\"tickets\": []}, {\"type\": \"conversation\"}]",
                "x.json[1]",
                "expected Zendesk tickets: {\"tickets\": [...]}",
            ),
            // The right shape with nothing in it is not an empty request.
            (
                "{\"tickets\": [{\"id\": 1}]}",
                "x.json",
                "no zendesk conversation with a text message was found; 1 items were left out, \
                 first: x.json.tickets[0]: no `comments`",
            ),
        ],
    );
}

/// An Intercom part: `kind` by an author of `author_type`, `seconds` after the
/// conversation opened (2026-03-03T10:20:00Z).
fn intercom_part(id: &str, kind: &str, author_type: &str, body: Value, seconds: u64) -> Value {
    json!({
        "type": "conversation_part",
        "id": id,
        "part_type": kind,
        "body": body,
        "created_at": 1_772_533_200 + seconds,
        "author": {"type": author_type, "id": format!("{author_type}-1")},
        "attachments": [],
    })
}

/// An Intercom conversation opened by a user, with `parts`.
fn intercom_conversation(id: &str, parts: Value) -> Value {
    json!({
        "type": "conversation",
        "id": id,
        "title": "Adding a teammate",
        "created_at": 1_772_533_200,
        "source": {
            "type": "conversation",
            "id": format!("{id}-source"),
            "body": "<p>How do I add a teammate &amp; an admin?</p>",
            "author": {"type": "user", "id": "u-1"},
            "attachments": [],
        },
        "conversation_parts": {"type": "conversation_part.list", "conversation_parts": parts},
    })
}

#[test]
fn intercom_author_types_decide_who_is_the_person_the_bot_or_a_teammate() {
    let p = intercom_part;
    let doc = intercom_conversation(
        "215",
        json!([
            p(
                "p1",
                "comment",
                "bot",
                json!("<p>Open <b>Settings &rarr; Teammates</b>.</p>"),
                6
            ),
            p("p2", "comment", "lead", json!("I am a lead"), 7),
            p("p3", "comment", "contact", json!("I am a contact"), 8),
            p(
                "p4",
                "comment",
                "admin",
                json!("<p>Hi, I'm Maren.</p><p>Done.</p>"),
                9
            ),
            p("p5", "comment", "team", json!("A team wrote this"), 10),
            with(
                p("p6", "comment", "user", json!("No author type"), 11),
                json!({"author": {"id": "x"}})
            ),
        ]),
    );
    let out = read_doc(&Format::Intercom, &doc);
    assert_eq!(
        out["request"]["events"][0],
        json!({
            "actor_id": "intercom:u-1",
            "content": "How do I add a teammate & an admin?",
            // The opening message has no time of its own: the conversation's.
            "timestamp": "2026-03-03T10:20:00Z",
            "conversation_id": "215",
            "metadata": {"role": "user", "source": "intercom", "message_id": "215-source",
                         "title": "Adding a teammate"},
        })
    );
    assert_eq!(
        pick(
            &out,
            &[
                "/metadata/message_id",
                "/actor_id",
                "/metadata/role",
                "/metadata/responder",
                "/timestamp",
                "/content"
            ]
        ),
        json!([
            [
                "215-source",
                "intercom:u-1",
                "user",
                null,
                "2026-03-03T10:20:00Z",
                "How do I add a teammate & an admin?"
            ],
            [
                "p1",
                "intercom:bot-1",
                "assistant",
                "bot",
                "2026-03-03T10:20:06Z",
                "Open Settings → Teammates."
            ],
            [
                "p2",
                "intercom:lead-1",
                "user",
                null,
                "2026-03-03T10:20:07Z",
                "I am a lead"
            ],
            [
                "p3",
                "intercom:contact-1",
                "user",
                null,
                "2026-03-03T10:20:08Z",
                "I am a contact"
            ],
            [
                "p4",
                "intercom:admin-1",
                "assistant",
                "human_agent",
                "2026-03-03T10:20:09Z",
                "Hi, I'm Maren.\nDone."
            ],
        ])
    );
    let at = "x.json.conversation_parts.conversation_parts";
    assert_eq!(
        out["skipped"],
        json!([
            {"at": format!("{at}[4]"),
             "reason": "author type \"team\" is neither user, lead, contact, bot nor admin"},
            {"at": format!("{at}[5]"), "reason": "no author.type"},
        ])
    );
}

#[test]
fn intercom_reports_notes_bodiless_events_and_parts_without_text_or_time() {
    let p = intercom_part;
    let doc = intercom_conversation(
        "216",
        json!([
            p("p1", "comment", "bot", json!("<p>Try Settings.</p>"), 5),
            p(
                "p2",
                "note",
                "admin",
                json!("<p>Check the invoices first.</p>"),
                6
            ),
            p(
                "p3",
                "note_and_reopen",
                "admin",
                json!("<p>Reopening.</p>"),
                7
            ),
            p("p4", "assignment", "bot", Value::Null, 8),
            p("p5", "close", "admin", Value::Null, 9),
            p("p6", "open", "user", json!(""), 10),
            with(
                p("p7", "comment", "user", json!(""), 11),
                json!({"attachments": [{"type": "upload", "name": "request.pdf"}]})
            ),
            p("p8", "comment", "user", json!("<p> </p>"), 12),
            with(
                p("p9", "comment", "user", json!("When?"), 13),
                json!({"created_at": null})
            ),
            with(
                p("p10", "comment", "user", json!("<p>Here it is</p>"), 14),
                json!({"attachments": [{"type": "upload", "name": "shot.png"}]})
            ),
        ]),
    );
    let out = read_doc(&Format::Intercom, &doc);
    assert_eq!(
        pick(
            &out,
            &["/metadata/message_id", "/content", "/metadata/attachments"]
        ),
        json!([
            ["216-source", "How do I add a teammate & an admin?", null],
            ["p1", "Try Settings.", null],
            ["p10", "Here it is", ["shot.png"]],
        ])
    );
    let at = |j: usize| format!("x.json.conversation_parts.conversation_parts[{j}]");
    assert_eq!(
        out["skipped"],
        json!([
            {"at": at(1), "reason": "an internal note (part_type note), which the customer never saw"},
            {"at": at(2), "reason":
                "an internal note (part_type note_and_reopen), which the customer never saw"},
            {"at": at(3), "reason": "no text (part_type assignment)"},
            {"at": at(4), "reason": "no text (part_type close)"},
            {"at": at(5), "reason": "no text (part_type open)"},
            {"at": at(6), "reason": "no text (attachments only)"},
            {"at": at(7), "reason": "no text"},
            {"at": at(8), "reason": "no created_at (epoch seconds)"},
        ])
    );
}

#[test]
fn intercom_reads_every_documented_shape_and_plain_part_arrays() {
    let note = intercom_part("n", "note", "admin", json!("internal"), 3);
    let reply = intercom_part("r", "comment", "bot", json!("An answer"), 4);
    let one = intercom_conversation("1", json!([note, reply]));
    let two = with(
        intercom_conversation("2", json!([reply, note])),
        json!({"id": 2}),
    );
    let note_reason = "an internal note (part_type note), which the customer never saw";
    let parts = "conversation_parts.conversation_parts";

    // One conversation.
    let out = read_doc(&Format::Intercom, &one);
    assert_eq!(
        pick(&out, &["/conversation_id", "/metadata/message_id"]),
        json!([["1", "1-source"], ["1", "r"]])
    );
    assert_eq!(
        out["skipped"],
        json!([{"at": format!("x.json.{parts}[0]"), "reason": note_reason}])
    );

    // An array of them (a numeric id is kept as text).
    let out = read_doc(&Format::Intercom, &json!([one, two]));
    assert_eq!(
        pick(&out, &["/conversation_id", "/metadata/message_id"]),
        json!([["1", "1-source"], ["1", "r"], ["2", "2-source"], ["2", "r"]])
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": format!("x.json[0].{parts}[0]"), "reason": note_reason},
            {"at": format!("x.json[1].{parts}[1]"), "reason": note_reason},
        ])
    );

    // A list response.
    let out = read_doc(
        &Format::Intercom,
        &json!({"type": "conversation.list",
                                                  "conversations": [two]}),
    );
    assert_eq!(
        out["skipped"],
        json!([{"at": format!("x.json.conversations[0].{parts}[1]"), "reason": note_reason}])
    );

    // JSON Lines.
    let lines = format!("{one}\n{two}\n");
    let out = read(&Format::Intercom, &[("x.jsonl", &lines)]).unwrap();
    assert_eq!(
        pick(&out, &["/conversation_id", "/metadata/message_id"]),
        json!([["1", "1-source"], ["1", "r"], ["2", "2-source"], ["2", "r"]])
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": format!("x.jsonl:1.{parts}[0]"), "reason": note_reason},
            {"at": format!("x.jsonl:2.{parts}[1]"), "reason": note_reason},
        ])
    );

    // `conversation_parts` as a plain array of parts.
    let plain = with(one.clone(), json!({"conversation_parts": [reply, reply]}));
    let out = read_doc(&Format::Intercom, &plain);
    assert_eq!(
        pick(
            &out,
            &["/metadata/message_id", "/metadata/responder", "/content"]
        ),
        json!([
            ["1-source", null, "How do I add a teammate & an admin?"],
            ["r", "bot", "An answer"],
            ["r", "bot", "An answer"],
        ])
    );

    // No parts at all: the opening message alone.
    let out = read_doc(
        &Format::Intercom,
        &with(one, json!({"conversation_parts": null})),
    );
    assert_eq!(pick(&out, &["/metadata/message_id"]), json!([["1-source"]]));
}

#[test]
fn intercom_malformed_input_names_the_position() {
    let shapes = "expected an Intercom conversation (an object with \"type\": \"conversation\"), \
                  an array of them or {\"conversations\": [...]}; got";
    assert_violations(
        &Format::Intercom,
        "x.json",
        &[
            ("{\"type\": \"conversation\"", "x.json", "is not JSON"),
            ("7", "x.json", &format!("{shapes} number")),
            (
                "{\"id\": \"1\", \"tickets\": []}",
                "x.json",
                &format!(
                    "{shapes} an object without \"type\": \"conversation\" (is this another \
                     export format?)"
                ),
            ),
            (
                "[{\"type\": \"conversation\"}, \"c\"]",
                "x.json[1]",
                &format!("{shapes} string"),
            ),
            (
                "{\"conversations\": {}}",
                "x.json.conversations",
                "expected an array of conversations, got object",
            ),
            (
                "{\"type\": \"conversation\", \"conversation_parts\": {\"conversation_parts\": {}}}",
                "x.json.conversation_parts",
                "expected {\"conversation_parts\": [...]}, got object",
            ),
            (
                "{\"conversations\": [{\"type\": \"conversation\", \"conversation_parts\": 3}]}",
                "x.json.conversations[0].conversation_parts",
                "expected {\"conversation_parts\": [...]}, got number",
            ),
        ],
    );
    let (path, message) = violation(
        &Format::Intercom,
        "x.jsonl",
        "{\"type\": \"conversation\"}\n[1]\n",
    );
    assert_eq!(path, "x.jsonl:2[0]");
    assert!(
        message.starts_with(&format!("{shapes} number")),
        "{message}"
    );
}

/// A Slack message by `user` at `ts`, in the thread `thread` when given.
fn slack_message(user: &str, ts: &str, text: &str, thread: Option<&str>) -> Value {
    let m = json!({"type": "message", "user": user, "ts": ts, "text": text});
    match thread {
        Some(t) => with(m, json!({"thread_ts": t})),
        None => m,
    }
}

#[test]
fn slack_threads_and_channel_days_are_conversations_in_time_order() {
    let m = slack_message;
    let thread = Some("1772443800.000100");
    let day2 = json!([
        m("U1", "1772443800.000100", "<@UB> my VPN drops", thread),
        with(
            m("U9", "1772443812.000200", "Try reinstalling it.", thread),
            json!({"bot_id": "B1"})
        ),
        // Outside any thread: the channel's conversation of the day; ts cut to the
        // millisecond (.9999 would round up into the next second).
        m("U2", "1772450000.999900", "is the printer fixed?", None),
    ]);
    let day3 = json!([
        m(
            "U1",
            "1772529900.000100",
            "still dropping &amp; I need a human",
            thread
        ),
        m("U3", "1772529905.000200", "yes, fixed this morning", None),
    ]);
    let users = json!([{"id": "U1", "name": "ana", "profile": {"display_name": "Ana"}}]);
    // The later day first: a thread's events still end up together and in time order.
    let out = read(
        &Format::Slack,
        &[
            ("help/2026-03-03.json", &day3.to_string()),
            ("help/2026-03-02.json", &day2.to_string()),
            ("users.json", &users.to_string()),
        ],
    )
    .unwrap();
    assert_eq!(
        pick(
            &out,
            &["/conversation_id", "/actor_id", "/timestamp", "/content"]
        ),
        json!([
            [
                "help/1772443800.000100",
                "slack:U1",
                "2026-03-02T09:30:00Z",
                "@UB my VPN drops"
            ],
            [
                "help/1772443800.000100",
                "slack:U9",
                "2026-03-02T09:30:12Z",
                "Try reinstalling it."
            ],
            [
                "help/1772443800.000100",
                "slack:U1",
                "2026-03-03T09:25:00Z",
                "still dropping & I need a human"
            ],
            [
                "help/2026-03-03",
                "slack:U3",
                "2026-03-03T09:25:05Z",
                "yes, fixed this morning"
            ],
            [
                "help/2026-03-02",
                "slack:U2",
                "2026-03-02T11:13:20.999Z",
                "is the printer fixed?"
            ],
        ])
    );
    assert_eq!(
        out["request"]["events"][1],
        json!({
            "actor_id": "slack:U9",
            "content": "Try reinstalling it.",
            "timestamp": "2026-03-02T09:30:12Z",
            "conversation_id": "help/1772443800.000100",
            "metadata": {"role": "assistant", "source": "slack", "message_id": "1772443812.000200",
                         "responder": "bot", "channel": "help"},
        })
    );
    assert_eq!(out["skipped"], json!([]));
}

#[test]
fn slack_finds_the_bot_by_bot_id_subtype_and_users_is_bot() {
    let m = slack_message;
    let day = json!([
        m(
            "U1",
            "1772460000.000100",
            "<@UH> how do I get a laptop? ask <@U2>",
            None
        ),
        with(
            m("UX", "1772460001.000100", "by bot_id", None),
            json!({"bot_id": "B7"})
        ),
        json!({"type": "message", "subtype": "bot_message", "bot_id": "B8", "username": "digest",
               "ts": "1772460002.000100", "text": "by subtype"}),
        m(
            "UH",
            "1772460003.000100",
            "Welcome <@U1>! Use <https://it.test/laptop|the form> in <#C1|it-help> or <https://it.test>; 1 &lt; 2",
            None
        ),
        m(
            "U2",
            "1772460004.000100",
            "<!here> <@U1|ana.s> thanks",
            None
        ),
    ]);
    // users.json comes last; its names and is_bot still apply to every message.
    let users = json!([
        {"id": "U1", "name": "ana", "real_name": "Ana Souza",
         "profile": {"display_name": "", "real_name": "Ana Souza"}},
        {"id": "U2", "name": "ben"},
        {"id": "UH", "name": "helix", "is_bot": true, "profile": {"display_name": "Helix"}},
    ]);
    let out = read(
        &Format::Slack,
        &[
            ("onboarding/2026-03-02.json", &day.to_string()),
            ("users.json", &users.to_string()),
        ],
    )
    .unwrap();
    assert_eq!(
        pick(
            &out,
            &[
                "/actor_id",
                "/metadata/role",
                "/metadata/responder",
                "/content"
            ]
        ),
        json!([
            [
                "slack:U1",
                "user",
                null,
                "@Helix how do I get a laptop? ask @ben"
            ],
            ["slack:UX", "assistant", "bot", "by bot_id"],
            ["slack:B8", "assistant", "bot", "by subtype"],
            [
                "slack:UH",
                "assistant",
                "bot",
                "Welcome @Ana Souza! Use the form in #it-help or https://it.test; 1 < 2"
            ],
            ["slack:U2", "user", null, "@here @ana.s thanks"],
        ])
    );
}

#[test]
fn slack_reports_what_is_not_something_said() {
    let m = slack_message;
    let day = json!([
        m("U1", "1772460000.000100", "kept", None),
        with(
            m(
                "U2",
                "1772460001.000100",
                "<@U2> has joined the channel",
                None
            ),
            json!({"subtype": "channel_join"})
        ),
        with(
            m("U2", "1772460002.000100", "set the topic", None),
            json!({"subtype": "channel_topic"})
        ),
        with(
            m("U1", "1772460003.000100", "", None),
            json!({"files": [{"id": "F1", "name": "vpn-error.png"}]})
        ),
        m("U1", "1772460004.000100", "  ", None),
        with(m("U1", "x", "no ts", None), json!({"ts": null})),
        m("U1", "17724.5x", "bad ts", None),
        json!({"type": "message", "ts": "1772460007.000100", "text": "nobody"}),
        json!({"type": "channel_marker", "ts": "1772460008.000100"}),
        json!(3),
        with(
            m("U1", "1772460009.000100", "see the file", None),
            json!({"subtype": "file_share", "files": [{"name": "a.pdf"}]})
        ),
    ]);
    let out = read(
        &Format::Slack,
        &[
            ("help/2026-03-02.json", &day.to_string()),
            ("channels.json", "[]"),
            ("help/README.md", "# notes"),
        ],
    )
    .unwrap();
    assert_eq!(
        pick(&out, &["/content", "/metadata/attachments"]),
        json!([["kept", null], ["see the file", ["a.pdf"]]])
    );
    let at = |i: usize| format!("help/2026-03-02.json[{i}]");
    let no_ts = "no ts (epoch seconds as text, e.g. \"1709371234.000200\")";
    assert_eq!(
        out["skipped"],
        json!([
            {"at": at(1), "reason": "subtype \"channel_join\", not something said"},
            {"at": at(2), "reason": "subtype \"channel_topic\", not something said"},
            {"at": at(3), "reason": "no text (files only)"},
            {"at": at(4), "reason": "no text"},
            {"at": at(5), "reason": no_ts},
            {"at": at(6), "reason": no_ts},
            {"at": at(7), "reason": "no user or bot_id"},
            {"at": at(8), "reason": "type \"channel_marker\", not a message"},
            {"at": at(9), "reason": "not a message object (number)"},
            {"at": "help/README.md", "reason":
                "not a channel's messages (a Slack export holds <channel>/<day>.json files)"},
        ])
    );
}

#[test]
fn slack_malformed_files_name_the_file() {
    let day =
        "[{\"type\": \"message\", \"user\": \"U1\", \"ts\": \"1772460000.1\", \"text\": \"hi\"}]";
    let fails = |files: &[(&str, &str)], path: &str, message: &str| {
        let e = read(&Format::Slack, files).expect_err(path);
        let v = &e.violations()[0];
        assert_eq!(v.path, path, "{files:?}");
        assert!(v.message.starts_with(message), "{files:?}: {}", v.message);
    };
    fails(
        &[("help/2026-03-02.json", "{\"messages\": []}")],
        "help/2026-03-02.json",
        "expected a Slack channel's messages for a day (an array), got object",
    );
    fails(
        &[
            ("help/2026-03-02.json", day),
            ("users.json", "{\"members\": []}"),
        ],
        "users.json",
        "expected Slack's users (an array), got object",
    );
    fails(
        &[
            ("help/2026-03-02.json", day),
            ("help/2026-03-03.json", "[{"),
        ],
        "help/2026-03-03.json",
        "is not JSON",
    );
    fails(
        &[("help/2026-03-02.json", "[]")],
        "help/2026-03-02.json",
        "no slack conversation with a text message was found",
    );
}

/// The mapping format with the mapping document `doc`, read as `m.json`.
fn mapping(doc: &str) -> undertone_core::Result<Format> {
    let file = File {
        name: "m.json",
        bytes: doc.as_bytes(),
    };
    Format::named("mapping", Some(&file), "format")
}

/// A mapping of flat records: `/c`, `/r`, `/t`, `/ts` and `/a`, with `extra` keys.
fn flat_mapping(extra: Value) -> Format {
    let doc = with(
        json!({"conversation": "/c", "role": "/r", "content": "/t", "timestamp": "/ts",
               "actor": "/a"}),
        extra,
    );
    mapping(&doc.to_string()).unwrap_or_else(|e| panic!("{doc}: {e}"))
}

#[test]
fn mapping_documents_that_cannot_work_are_refused_naming_the_field() {
    let base = json!({"conversation": "/c", "role": "/r", "content": "/t", "timestamp": "/ts"});
    let cases: Vec<(String, &str, &str)> = vec![
        (
            "{\"conversation\": ".into(),
            "m.json",
            "is not a mapping document: ",
        ),
        (
            with(base.clone(), json!({"content": null, "contnet": "/t"})).to_string(),
            "m.json",
            "is not a mapping document: unknown field `contnet`",
        ),
        (
            with(base.clone(), json!({"timestamp": null})).to_string(),
            "m.json",
            "is not a mapping document: missing field `timestamp`",
        ),
        (
            with(base.clone(), json!({"content": "text"})).to_string(),
            "m.json.content",
            "must be a JSON pointer: empty for the whole value, or starting with \"/\" \
             (e.g. \"/text\"); got \"text\"",
        ),
        (
            with(base.clone(), json!({"records": "data"})).to_string(),
            "m.json.records",
            "must be a JSON pointer",
        ),
        (
            with(base.clone(), json!({"metadata": {"channel": "channel"}})).to_string(),
            "m.json.metadata.channel",
            "must be a JSON pointer",
        ),
        (
            with(
                base.clone(),
                json!({"roles": {"user": ["u"], "customer": ["c"]}}),
            )
            .to_string(),
            "m.json.roles.customer",
            "must be one of user, assistant, human_agent",
        ),
        (
            with(
                base.clone(),
                json!({"roles": {"user": ["u", "x"], "human_agent": ["X"]}}),
            )
            .to_string(),
            "m.json.roles",
            "lists the role value \"x\" twice",
        ),
        (
            with(
                base.clone(),
                json!({"roles": {"assistant": ["bot"], "human_agent": ["agent"]}}),
            )
            .to_string(),
            "m.json.roles.user",
            "must list at least one role value: only people's turns are scored",
        ),
        (
            with(
                base.clone(),
                json!({"roles": {"user": [], "assistant": ["bot"]}}),
            )
            .to_string(),
            "m.json.roles.user",
            "must list at least one role value",
        ),
        (
            with(base.clone(), json!({"metadata": {"role": "/kind"}})).to_string(),
            "m.json.metadata.role",
            "is written by the connector; name the field differently",
        ),
        (
            with(base.clone(), json!({"metadata": {"source": "/origin"}})).to_string(),
            "m.json.metadata.source",
            "is written by the connector",
        ),
        (
            with(base.clone(), json!({"timestamp_unit": "hours"})).to_string(),
            "m.json",
            "is not a mapping document: unknown variant `hours`",
        ),
    ];
    for (doc, path, message) in &cases {
        let e = mapping(doc).expect_err(doc);
        let v = &e.violations()[0];
        assert_eq!(v.path, *path, "{doc}");
        assert!(v.message.starts_with(message), "{doc}: {}", v.message);
    }
    assert_eq!(mapping(&base.to_string()).unwrap().name(), "mapping");
}

#[test]
fn format_named_refuses_a_mapping_with_another_format_and_mapping_without_one() {
    let file = File {
        name: "m.json",
        bytes: br#"{"conversation": "/c", "role": "/r", "content": "/t", "timestamp": "/ts"}"#,
    };
    let e = Format::named("zendesk", Some(&file), "--from").unwrap_err();
    assert_eq!(e.violations()[0].path, "m.json");
    assert_eq!(
        e.violations()[0].message,
        "a mapping is only read with the mapping format, not zendesk"
    );
    let e = Format::named("mapping", None, "--from").unwrap_err();
    assert_eq!(e.violations()[0].path, "--from");
    assert!(
        e.violations()[0]
            .message
            .starts_with("the mapping format needs its mapping document"),
        "{e}"
    );
    // An unknown format is named as such before the mapping is looked at.
    let e = Format::named("zip", Some(&file), "--from").unwrap_err();
    assert_eq!(e.violations()[0].path, "--from");
    assert_eq!(
        Format::named("slack", None, "--from").unwrap(),
        Format::Slack
    );
}

#[test]
fn mapping_default_roles_times_and_ids() {
    let format = flat_mapping(json!({}));
    let doc = json!([
        {"c": "k1", "r": "Customer", "t": " hi ", "ts": 1_772_619_000, "a": "u1"},
        {"c": "k1", "r": " BOT ", "t": "hello", "ts": 1_772_619_000.5, "a": "b1"},
        {"c": "k1", "r": "system", "t": "session started", "ts": 1_772_619_001, "a": "p"},
        {"c": 42, "r": "human", "t": "a number id", "ts": "2026-03-04T12:10:00+02:00", "a": 7},
        {"c": 42, "r": "Model", "t": "answer", "ts": "2026-03-04T10:10:01.250Z", "a": "m"},
    ]);
    let out = read_doc(&format, &doc);
    assert_eq!(
        out["request"]["events"][0],
        json!({"actor_id": "u1", "content": "hi", "timestamp": "2026-03-04T10:10:00Z",
               "conversation_id": "k1", "metadata": {"role": "user", "source": "mapping"}})
    );
    assert_eq!(
        pick(
            &out,
            &[
                "/conversation_id",
                "/actor_id",
                "/metadata/role",
                "/metadata/responder",
                "/timestamp"
            ]
        ),
        json!([
            ["k1", "u1", "user", null, "2026-03-04T10:10:00Z"],
            ["k1", "b1", "assistant", "bot", "2026-03-04T10:10:00.500Z"],
            ["42", "7", "user", null, "2026-03-04T10:10:00Z"],
            ["42", "m", "assistant", "bot", "2026-03-04T10:10:01.250Z"],
        ])
    );
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.json#/2",
                "reason": "role \"system\" is not listed in the mapping's `roles`"}])
    );
}

#[test]
fn mapping_roles_compare_without_case_and_human_agents_answer() {
    let format = flat_mapping(json!({
        "roles": {"user": ["Student"], "assistant": ["tutor_bot"], "human_agent": ["TEACHER"]},
        "timestamp_unit": "milliseconds",
    }));
    let doc = json!([
        {"c": "s", "r": "STUDENT", "t": "x?", "ts": 1_772_619_000_123_u64, "a": "stu"},
        {"c": "s", "r": "Tutor_Bot", "t": "y", "ts": 1_772_619_004_500_u64, "a": "bot"},
        {"c": "s", "r": "teacher", "t": "z", "ts": "2026-03-04T12:05:00Z", "a": "t"},
        // A default role value is not listed once `roles` is given.
        {"c": "s", "r": "user", "t": "w", "ts": 1_772_619_005_000_u64, "a": "stu"},
    ]);
    let out = read_doc(&format, &doc);
    assert_eq!(
        pick(
            &out,
            &[
                "/actor_id",
                "/metadata/role",
                "/metadata/responder",
                "/timestamp"
            ]
        ),
        json!([
            ["stu", "user", null, "2026-03-04T10:10:00.123Z"],
            ["bot", "assistant", "bot", "2026-03-04T10:10:04.500Z"],
            ["t", "assistant", "human_agent", "2026-03-04T12:05:00Z"],
        ])
    );
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.json#/3",
                "reason": "role \"user\" is not listed in the mapping's `roles`"}])
    );
}

#[test]
fn mapping_reads_records_lone_objects_json_lines_and_messages() {
    let record = json!({"c": "k", "r": "user", "t": "hi", "ts": 1_772_619_000, "a": "u"});
    let bad = with(record.clone(), json!({"r": "system"}));
    let reason = "role \"system\" is not listed in the mapping's `roles`";

    // A lone object is one record, at the document's own position.
    let flat = flat_mapping(json!({}));
    let out = read(
        &flat,
        &[
            ("x.json", &record.to_string()),
            ("y.json", &bad.to_string()),
        ],
    )
    .unwrap();
    assert_eq!(pick(&out, &["/content"]), json!([["hi"]]));
    assert_eq!(out["skipped"], json!([{"at": "y.json", "reason": reason}]));

    // JSON Lines of lone objects: `file:LINE`.
    let lines = format!("{record}\n{bad}\n");
    let out = read(&flat, &[("x.jsonl", &lines)]).unwrap();
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.jsonl:2", "reason": reason}])
    );

    // `records` points at the array in each document: `file#/pointer`.
    let with_records = flat_mapping(json!({"records": "/data/items"}));
    let doc = json!({"data": {"items": [record, bad]}});
    let out = read_doc(&with_records, &doc);
    assert_eq!(pick(&out, &["/content"]), json!([["hi"]]));
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.json#/data/items/1", "reason": reason}])
    );
    let lines = format!("{doc}\n{doc}\n");
    let out = read(&with_records, &[("x.jsonl", &lines)]).unwrap();
    assert_eq!(
        out["skipped"],
        json!([
            {"at": "x.jsonl:1#/data/items/1", "reason": reason},
            {"at": "x.jsonl:2#/data/items/1", "reason": reason},
        ])
    );

    // `messages`: a record is a conversation, its id read from the record.
    let conversations = mapping(
        &json!({"records": "/data", "messages": "/turns", "conversation": "/session/id",
                "role": "/speaker", "content": "/text", "timestamp": "/at", "actor": "/by"})
        .to_string(),
    )
    .unwrap();
    let turn = |speaker: &str, text: &str, at: u64| json!({"speaker": speaker, "text": text, "at": at, "by": speaker});
    let doc = json!({"data": [
        {"session": {"id": 901}, "turns": [
            turn("user", "why?", 1_772_619_000),
            turn("system", "started", 1_772_619_001),
            turn("assistant", "because", 1_772_619_002),
        ]},
        {"session": {"id": "s-2"}, "turns": {"a": 1}},
        {"session": {"id": "s-3"}},
        {"turns": [turn("user", "orphan", 1_772_619_003)]},
    ]});
    let out = read_doc(&conversations, &doc);
    assert_eq!(
        pick(&out, &["/conversation_id", "/actor_id", "/content"]),
        json!([["901", "user", "why?"], ["901", "assistant", "because"]])
    );
    assert_eq!(
        out["skipped"],
        json!([
            {"at": "x.json#/data/0/turns/1", "reason": reason},
            {"at": "x.json#/data/1/turns",
             "reason": "`messages` is of type object, not an array of messages"},
            {"at": "x.json#/data/2", "reason": "no `messages` (/turns)"},
            {"at": "x.json#/data/3/turns/0", "reason": "no `conversation` (/session/id)"},
        ])
    );

    // A top-level array, with `messages` and no `records`: `file#/INDEX/pointer`.
    let no_records = mapping(
        &json!({"messages": "/turns", "conversation": "/id", "role": "/speaker",
                "content": "/text", "timestamp": "/at"})
        .to_string(),
    )
    .unwrap();
    let doc = json!([{"id": "c", "turns": [turn("user", "hi", 1_772_619_000),
                                          turn("bot", "", 1_772_619_001)]}]);
    let out = read_doc(&no_records, &doc);
    // Without `actor`, the actor is the role value (`user`, which is also the role).
    assert_eq!(
        pick(&out, &["/conversation_id", "/actor_id"]),
        json!([["c", "user"]])
    );
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.json#/0/turns/1", "reason": "no text"}])
    );
}

#[test]
fn mapping_copies_metadata_and_reports_each_unreadable_field() {
    let format = flat_mapping(json!({
        "metadata": {"channel": "/meta/channel", "score": "/meta/score", "tags": "/tags"},
    }));
    let good = json!({"c": "k", "r": "user", "t": "hi", "ts": 1_772_619_000, "a": "u",
                      "meta": {"channel": "web", "score": 4.5}, "tags": ["a", "b"]});
    let bad = |fields: Value| with(good.clone(), fields);
    let doc = json!([
        good,
        bad(json!({"meta": {"channel": null, "score": 4.5}, "tags": null})),
        bad(json!({"a": null})),
        bad(json!({"c": null})),
        bad(json!({"c": true})),
        bad(json!({"r": 3})),
        bad(json!({"r": null})),
        bad(json!({"t": 3})),
        bad(json!({"t": null})),
        bad(json!({"ts": "yesterday"})),
        bad(json!({"ts": -5})),
        bad(json!({"ts": false})),
        bad(json!({"ts": null})),
    ]);
    let out = read_doc(&format, &doc);
    assert_eq!(
        out["request"]["events"][0]["metadata"],
        json!({"role": "user", "source": "mapping", "channel": "web", "score": 4.5,
               "tags": ["a", "b"]})
    );
    // Null or missing metadata is left out, not written as null.
    assert_eq!(
        out["request"]["events"][1]["metadata"],
        json!({"role": "user", "source": "mapping", "score": 4.5})
    );
    let at = |i: usize| format!("x.json#/{i}");
    assert_eq!(
        out["skipped"],
        json!([
            {"at": at(2), "reason": "no `actor` (/a) as a string or number"},
            {"at": at(3), "reason": "no `conversation` (/c)"},
            {"at": at(4), "reason": "`conversation` (/c) is of type boolean, not a string or number"},
            {"at": at(5), "reason": "`role` (/r) is of type number, not a string"},
            {"at": at(6), "reason": "no `role` (/r)"},
            {"at": at(7), "reason": "`content` (/t) is of type number, not text"},
            {"at": at(8), "reason": "no `content` (/t)"},
            {"at": at(9), "reason":
                "`timestamp` (/ts): must be an RFC 3339 timestamp with a UTC offset, e.g. 2026-11-21T09:30:00Z; got \"yesterday\""},
            {"at": at(10), "reason": "`timestamp` (/ts) is not a time in epoch seconds: -5"},
            {"at": at(11), "reason": "`timestamp` (/ts) is of type boolean, not a time"},
            {"at": at(12), "reason": "no `timestamp` (/ts)"},
        ])
    );
}

#[test]
fn mapping_records_that_are_missing_or_not_an_array_fail_naming_the_document() {
    let format = flat_mapping(json!({"records": "/data"}));
    let record = json!({"c": "k", "r": "user", "t": "hi", "ts": 1_772_619_000, "a": "u"});
    assert_violations(
        &format,
        "x.json",
        &[
            (
                "{\"items\": []}",
                "x.json",
                "has nothing at `records` (/data); is this the mapped format?",
            ),
            (
                "{\"data\": {\"a\": 1}}",
                "x.json#/data",
                "expected the array of records (`records`), got object",
            ),
            ("{\"data\": [", "x.json", "is not JSON"),
        ],
    );
    assert_violations(
        &format,
        "x.jsonl",
        &[
            (
                &format!("{}\n{{\"other\": 1}}\n", json!({"data": [record]})),
                "x.jsonl:2",
                "has nothing at `records` (/data)",
            ),
            (
                &format!("{}\n{{\"data\": \"x\"}}\n", json!({"data": [record]})),
                "x.jsonl:2#/data",
                "expected the array of records (`records`), got string",
            ),
        ],
    );
}

/// The fixture case of `format` imported, validated and scored: the full output.
fn score_fixture(format: &str) -> Value {
    let case = cases()
        .into_iter()
        .find(|c| c.format.name() == format)
        .expect("a case for the format");
    let out = import_case(&case);
    let request = validate::ingest_request(&out["request"], &validate::Options::default())
        .expect("connector output is a valid request");
    serde_json::to_value(score(&request)).unwrap()
}

/// The scored conversation `id`.
fn scored<'a>(out: &'a Value, id: &str) -> &'a Value {
    out["intelligence"]["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .find(|c| c["conversation_id"] == id)
        .unwrap_or_else(|| panic!("conversation {id} is scored"))
}

/// Every dimension's band in `conversation`, by dimension.
fn bands(conversation: &Value) -> Value {
    conversation["layer_z"]
        .as_object()
        .expect("layer_z")
        .iter()
        .map(|(d, s)| (d.clone(), s["band"].clone()))
        .collect()
}

/// Six healthy dimensions.
fn all_healthy() -> Value {
    json!({
        "trust_calibration": "healthy",
        "frustration_buildup": "healthy",
        "dependency_drift": "healthy",
        "silent_abandonment_risk": "healthy",
        "escalation_friction": "healthy",
        "comprehension_gap": "healthy",
    })
}

/// The escalation signals (`escalation_…`) on the human turn at `event_index`, sorted.
fn escalation_signals(conversation: &Value, event_index: u64) -> Vec<String> {
    let turn = conversation["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .find(|t| t["event_index"] == event_index)
        .unwrap_or_else(|| panic!("a human turn at event {event_index}"));
    let mut signals: Vec<String> = turn["layer_z"]["escalation_friction"]["evidence"]
        .as_array()
        .expect("evidence")
        .iter()
        .filter_map(|e| e["signal"].as_str())
        .filter(|s| s.starts_with("escalation_"))
        .map(str::to_owned)
        .collect();
    signals.sort();
    signals
}

/// The events a dimension's conversation-level evidence names for `signal`.
fn evidence_events(conversation: &Value, dimension: &str, signal: &str) -> Vec<u64> {
    conversation["layer_z"][dimension]["evidence"]
        .as_array()
        .expect("evidence")
        .iter()
        .filter(|e| e["signal"] == signal)
        .filter_map(|e| e["event_index"].as_u64())
        .collect()
}

#[test]
fn zendesk_fixture_scores_the_bot_loop_broken_and_counts_the_agent_as_the_handoff() {
    let out = score_fixture("zendesk");
    // 48213: the customer corrected the bot twice and asked for a person.
    let loop_ticket = scored(&out, "48213");
    assert_eq!(
        loop_ticket["layer_z"]["frustration_buildup"]["band"],
        "broken"
    );
    assert_eq!(
        loop_ticket["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["event_index"].clone())
            .collect::<Vec<_>>(),
        [json!(0), json!(2), json!(4), json!(6)]
    );
    // Event 4 ("Let me talk to a real person please!!") is answered by Tom, a human
    // agent (the internal note between them is left out): the person was given.
    assert_eq!(
        escalation_signals(loop_ticket, 4),
        ["escalation_offered", "escalation_request"]
    );
    let signals = escalation_signals(loop_ticket, 4);
    assert!(
        !signals.iter().any(|s| s == "escalation_not_offered"),
        "{signals:?}"
    );
    // 48240: answered by the bot, confirmed working, thanked.
    let export_ticket = scored(&out, "48240");
    assert_eq!(bands(export_ticket), all_healthy());
    assert_eq!(export_ticket["resolved"], true);
}

#[test]
fn intercom_fixture_scores_with_sensible_bands() {
    let out = score_fixture("intercom");
    // "Found it, that worked. Thank you!"
    let teammate = scored(&out, "215468931");
    assert_eq!(bands(teammate), all_healthy());
    assert_eq!(teammate["resolved"], true);
    // Asked for a human (event 5), was passed to the team, and Maren (a teammate)
    // did the deletion: "that's what I needed".
    let deletion = scored(&out, "215468977");
    assert_eq!(
        escalation_signals(deletion, 5),
        ["escalation_offered", "escalation_request"]
    );
    assert_eq!(
        deletion["layer_z"]["escalation_friction"]["band"],
        "healthy"
    );
    assert_eq!(
        deletion["layer_z"]["silent_abandonment_risk"]["band"],
        "healthy"
    );
    assert_eq!(deletion["resolved"], true);
    // The bot answered another question and the customer's last word corrects it.
    assert_eq!(scored(&out, "215469020")["resolved"], false);
}

#[test]
fn slack_fixture_scores_with_sensible_bands() {
    let out = score_fixture("slack");
    // Asked three times over two days, the same steps repeated, "nobody has looked".
    let vpn = scored(&out, "it-help/1772443800.000100");
    assert_eq!(vpn["layer_z"]["frustration_buildup"]["band"], "broken");
    assert_eq!(vpn["resolved"], false);
    // "I need a human … can you open a ticket?" is answered with a ticket and a person.
    assert_eq!(
        escalation_signals(vpn, 4),
        ["escalation_offered", "escalation_request"]
    );
    // "got it, thanks! that was easy".
    let onboarding = scored(&out, "onboarding/1772460000.000100");
    assert_eq!(bands(onboarding), all_healthy());
    assert_eq!(onboarding["resolved"], true);
}

#[test]
fn mapping_fixture_scores_with_sensible_bands() {
    let out = score_fixture("mapping");
    // "that makes sense now, thanks!": resolved and healthy, except that the student's
    // "why…?" questions on the way there read as some confusion (watch, not broken).
    let resolved = scored(&out, "s-901");
    let mut want = all_healthy();
    want["comprehension_gap"] = json!("watch");
    assert_eq!(bands(resolved), want);
    assert_eq!(resolved["resolved"], true);
    // "just give me the answer … I said just give me the answer. this is useless": off
    // healthy and above the resolved lesson. (Broken under scorer 1.x; 2.0 reads it in
    // the watch band: known_gaps::demanding_the_answer_again_is_broken.)
    let demanding = scored(&out, "s-907");
    assert_ne!(
        demanding["layer_z"]["frustration_buildup"]["band"],
        "healthy"
    );
    let frustration = |c: &Value| {
        c["layer_z"]["frustration_buildup"]["score"]
            .as_f64()
            .unwrap()
    };
    assert!(frustration(demanding) > frustration(resolved) + 0.1);
    assert_eq!(
        evidence_events(demanding, "dependency_drift", "delegation"),
        [5, 7]
    );
    let risk = |c: &Value| c["layer_z"]["dependency_drift"]["risk"].as_f64().unwrap();
    assert!(
        risk(demanding) > risk(resolved),
        "{} vs {}",
        risk(demanding),
        risk(resolved)
    );
}

#[test]
fn review_fixes_positions_actor_default_and_messages() {
    // A metadata field sharing a top-level key's name does not take its error path.
    let e = mapping(
        r#"{"conversation":"/c","role":"/r","content":"text","timestamp":"/ts","metadata":{"content":"/x"}}"#,
    )
    .unwrap_err();
    assert_eq!(e.violations()[0].path, "m.json.content");
    assert!(e.violations()[0].message.contains("\"text\""), "{e}");

    // Without `actor`, the actor is the role's own value, so a teacher and a bot differ.
    let format = mapping(
        r#"{"conversation":"/c","role":"/r","content":"/t","timestamp":"/ts",
            "roles":{"user":["customer"],"human_agent":["Teacher"],"assistant":["bot"]}}"#,
    )
    .unwrap();
    let lines = [
        json!({"c": "k", "r": "customer", "t": "hi", "ts": 1}),
        json!({"c": "k", "r": "bot", "t": "hello", "ts": 2}),
        json!({"c": "k", "r": " Teacher ", "t": "I'm here", "ts": 3}),
        json!({"c": "", "r": "customer", "t": "x", "ts": 4}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let out = read(&format, &[("x.jsonl", &text)]).unwrap();
    assert_eq!(
        pick(&out, &["/actor_id", "/metadata/responder"]),
        json!([
            ["customer", null],
            ["bot", "bot"],
            ["Teacher", "human_agent"]
        ])
    );
    // An empty conversation id says so.
    assert_eq!(
        out["skipped"],
        json!([{"at": "x.jsonl:4", "reason": "`conversation` (/c) is an empty string"}])
    );

    // Intercom parts given as a plain array are named where they are.
    let doc = json!({"type": "conversation", "id": "9", "created_at": 1,
        "conversation_parts": [{"part_type": "note", "author": {"type": "admin", "id": "1"},
            "body": "<p>n</p>", "created_at": 2}],
        "source": {"author": {"type": "user", "id": "u"}, "body": "<p>hi</p>"}});
    let out = read_doc(&Format::Intercom, &doc);
    assert_eq!(out["skipped"][0]["at"], "x.json.conversation_parts[0]");
}
