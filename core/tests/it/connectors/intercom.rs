//! Intercom conversations: who is the person, the bot or a teammate; notes and parts
//! without text or time; every documented shape.

use serde_json::{Value, json};
use undertone_core::connectors::Format;

use super::{all_healthy, assert_violations, bands, escalation_signals, pick, read, read_doc};
use super::{score_fixture, scored, violation, with};

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
fn intercom_names_skipped_parts_of_a_plain_array_by_index() {
    // Intercom parts given as a plain array are named where they are.
    let doc = json!({"type": "conversation", "id": "9", "created_at": 1,
        "conversation_parts": [{"part_type": "note", "author": {"type": "admin", "id": "1"},
            "body": "<p>n</p>", "created_at": 2}],
        "source": {"author": {"type": "user", "id": "u"}, "body": "<p>hi</p>"}});
    let out = read_doc(&Format::Intercom, &doc);
    assert_eq!(out["skipped"][0]["at"], "x.json.conversation_parts[0]");
}
