//! Claude's conversations.json: content blocks and attachment names.

use serde_json::json;
use undertone_core::connectors::Format;

use super::run;

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
