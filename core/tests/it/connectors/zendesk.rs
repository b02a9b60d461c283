//! Zendesk tickets: roles from sideloaded users or the requester, bots by channel,
//! metadata and tags, every documented shape, HTML bodies, and what is left out.

use serde_json::{Value, json};
use undertone_core::connectors::Format;

use super::{all_healthy, assert_violations, bands, escalation_signals, pick, read, read_doc};
use super::{score_fixture, scored, with};

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
