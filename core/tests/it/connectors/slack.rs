//! Slack exports: threads and channel days as conversations, bots, and what is not
//! something said.

use serde_json::{Value, json};
use undertone_core::connectors::Format;

use super::{all_healthy, bands, escalation_signals, pick, read, score_fixture, scored, with};

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
