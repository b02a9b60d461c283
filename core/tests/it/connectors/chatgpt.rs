//! ChatGPT's conversations.json: the current branch of each conversation's tree.

use undertone_core::connectors::Format;

use super::run;

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
