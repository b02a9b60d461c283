//! `layer_z_threshold_crossed`: one event per crossing core finds, never sent twice
//! for the same crossing, more than twenty per dimension summarised in one event, and
//! conversations without an id named by their automatic id.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};
use undertone_core::monitor;
use undertone_core::score::layer_z::Dimension;

use super::{
    HOSTILE, NOW_ENVELOPE, Svc, assert_json_close, at, check_envelope, conversation, envelope_time,
    example, is_uuid, keys_of, request, score, sorted,
};

/// Four conversations: over-trust after hedged answers (trust and dependency break),
/// a calm one, one that escalates to hostility (frustration breaks), and one that
/// delegates everything (dependency breaks).
fn crossing_events(start: DateTime<Utc>) -> Vec<Value> {
    let mut events = conversation(
        "trust",
        "u-trust",
        start,
        &[
            "Which port does the admin console use?",
            "I think it might be 8443, but I'm not certain.",
            "ok, I'll go with that, no need to check",
            "I believe you may also need to open 9443, but I'm not sure.",
            "fine, I'll just do it without checking, I trust you",
            "It could also be that 22 should be open, I'm not certain.",
            "ok done, I didn't verify anything, whatever you say",
        ],
        None,
    );
    events.extend(conversation(
        "calm",
        "u-calm",
        start + Duration::minutes(10),
        &[
            "What are your opening hours?",
            "We are open 9 to 5, Monday to Friday.",
            "Great, thanks!",
        ],
        None,
    ));
    events.extend(conversation(
        "angry",
        "u-angry",
        start + Duration::minutes(20),
        &[
            "Hi, how do I change my delivery address?",
            "You can change it in your account settings.",
            "That option is not there. I already looked.",
            "You can change it in your account settings.",
            "This is ridiculous, I have asked three times already!!!",
            "You can change it in your account settings.",
            "This is useless, you are a stupid bot and I am furious!!!",
        ],
        None,
    ));
    events.extend(conversation(
        "delegate",
        "u-delegate",
        start + Duration::minutes(30),
        &[
            "Can you write the whole report for me? Just do it for me.",
            "Sure, here is a draft.",
            "Do everything for me, I don't want to think about it, just do it for me.",
            "Done.",
            "Write the next one too, do it all for me, I can't do it myself.",
        ],
        None,
    ));
    events
}

/// (external conversation id, event index, dimension) of a crossing's data.
fn crossing_key(data: &Value) -> (String, u64, String) {
    (
        data["conversation_external_id"]
            .as_str()
            .expect("conversation_external_id")
            .to_owned(),
        data["event_index"].as_u64().expect("event_index"),
        data["dimension"].as_str().expect("dimension").to_owned(),
    )
}

#[tokio::test]
async fn threshold_crossings_match_core_and_fire_once_per_crossing() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let ready_only = svc.register(&["intelligence.ready"]).await;
    let body = request("crossing-bot", crossing_events(at("2026-11-17T09:00:00Z")));

    // What core says crosses, computed here.
    let (_, result) = score(&body);
    let expected = monitor::crossings(&result);
    let dims: BTreeSet<&str> = expected.iter().map(|x| x.dimension.as_str()).collect();
    assert_eq!(
        dims,
        BTreeSet::from([
            "dependency_drift",
            "frustration_buildup",
            "trust_calibration"
        ]),
        "the fixture must cross every reported dimension"
    );
    assert!(expected.len() >= 4, "{expected:#?}");

    let sid = svc.ingest_and_run(&body).await;
    let listed = svc.deliveries(&hook).await;
    assert_eq!(listed.len(), expected.len(), "{listed:#?}");
    assert!(
        listed
            .iter()
            .all(|d| d["event_type"] == "layer_z_threshold_crossed" && d["status"] == "pending")
    );
    assert_eq!(svc.deliveries(&ready_only).await.len(), 1);

    let envelopes = svc.envelopes("layer_z_threshold_crossed").await;
    assert_eq!(envelopes.len(), expected.len());
    let listed_events: BTreeSet<&str> = listed
        .iter()
        .map(|d| d["event_id"].as_str().expect("event_id"))
        .collect();
    let by_key: BTreeMap<(String, u64, String), &Value> = envelopes
        .iter()
        .map(|e| (crossing_key(&e["data"]), e))
        .collect();
    assert_eq!(by_key.len(), expected.len(), "crossings are distinct");
    let mut conversation_ids: BTreeMap<String, String> = BTreeMap::new();
    let mut signal_ids = BTreeSet::new();
    for x in &expected {
        let key = (
            x.conversation_id.clone(),
            x.event_index as u64,
            x.dimension.as_str().to_owned(),
        );
        let envelope = by_key
            .get(&key)
            .unwrap_or_else(|| panic!("no event for {key:?}: {envelopes:#?}"));
        assert!(listed_events.contains(envelope["id"].as_str().expect("id")));
        let data = check_envelope(
            envelope,
            "layer_z_threshold_crossed",
            "crossing-bot",
            NOW_ENVELOPE,
        );
        assert_eq!(
            keys_of(&data),
            sorted(&[
                "dimension",
                "score",
                "threshold",
                "band",
                "conversation_id",
                "conversation_external_id",
                "signal_id",
                "occurred_at",
                "session_id",
                "event_index",
                "signal",
                "evidence"
            ])
        );
        let score = data["score"].as_f64().expect("score");
        assert!(
            (score - (x.score * 1e4).round() / 1e4).abs() < 1e-9,
            "{score} vs {}",
            x.score
        );
        let threshold = if x.dimension == Dimension::TrustCalibration {
            0.45
        } else {
            0.55
        };
        assert_eq!(data["threshold"].as_f64(), Some(threshold), "{data}");
        if x.dimension == Dimension::TrustCalibration {
            assert!(score < 0.45, "{data}");
        } else {
            assert!(score > 0.55, "{data}");
        }
        assert_eq!(data["band"], "broken");
        assert_eq!(data["occurred_at"], envelope_time(&x.occurred_at));
        assert_eq!(data["session_id"], sid.as_str());
        assert_eq!(data["signal"], json!(x.signal));
        assert_json_close(
            &data["evidence"],
            &serde_json::to_value(&x.evidence).expect("serialisable"),
            "evidence",
        );
        assert!(is_uuid(&data["conversation_id"]), "{data}");
        assert!(is_uuid(&data["signal_id"]), "{data}");
        assert_ne!(data["conversation_id"], data["conversation_external_id"]);
        // One internal id per conversation.
        let cid = data["conversation_id"].as_str().expect("id").to_owned();
        if let Some(seen) = conversation_ids.insert(x.conversation_id.clone(), cid.clone()) {
            assert_eq!(seen, cid, "{}", x.conversation_id);
        }
        assert!(signal_ids.insert(data["signal_id"].to_string()), "{data}");
    }
    let distinct: BTreeSet<&String> = conversation_ids.values().collect();
    assert_eq!(distinct.len(), conversation_ids.len());
    assert!(!conversation_ids.contains_key("calm"));

    // The same conversations again, in a new session: no second delivery of any
    // crossing, while intelligence.ready (a new session) is queued again.
    let ids_before: BTreeSet<String> = envelopes.iter().map(|e| e["id"].to_string()).collect();
    let sid2 = svc.ingest_and_run(&body).await;
    assert_ne!(sid, sid2);
    assert_eq!(svc.deliveries(&hook).await.len(), expected.len());
    assert_eq!(
        svc.delivery_count("layer_z_threshold_crossed").await,
        expected.len() as i64
    );
    let again = svc.envelopes("layer_z_threshold_crossed").await;
    let ids_after: BTreeSet<String> = again.iter().map(|e| e["id"].to_string()).collect();
    assert_eq!(ids_after, ids_before);
    assert_eq!(svc.deliveries(&ready_only).await.len(), 2);

    // The same conversations for another deployment are other crossings.
    let other = request(
        "crossing-bot-2",
        crossing_events(at("2026-11-17T09:00:00Z")),
    );
    svc.ingest_and_run(&other).await;
    assert_eq!(svc.deliveries(&hook).await.len(), 2 * expected.len());
    let envelopes = svc.envelopes("layer_z_threshold_crossed").await;
    assert_eq!(
        envelopes
            .iter()
            .filter(|e| e["deployment_id"] == "crossing-bot-2")
            .count(),
        expected.len()
    );
}

#[tokio::test]
async fn a_crossing_seen_again_in_a_longer_conversation_is_not_sent_twice() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let texts = [
        "Hi, how do I change my delivery address?",
        "You can change it in your account settings.",
        "That option is not there. I already looked.",
        "You can change it in your account settings.",
        "This is ridiculous, I have asked three times already!!!",
        "You can change it in your account settings.",
        "This is useless, you are a stupid bot and I am furious!!!",
    ];
    let start = at("2026-11-17T10:00:00Z");
    // The first three human turns, then the whole conversation.
    let part = request(
        "grow-bot",
        conversation("c-1", "u-1", start, &texts[..5], None),
    );
    let whole = request("grow-bot", conversation("c-1", "u-1", start, &texts, None));
    let (_, part_result) = score(&part);
    let (_, whole_result) = score(&whole);
    let part_x = monitor::crossings(&part_result);
    let whole_x = monitor::crossings(&whole_result);
    assert_eq!(part_x.len(), 1, "{part_x:#?}");
    assert_eq!(whole_x.len(), 1, "{whole_x:#?}");
    assert_eq!(part_x[0].occurred_at, whole_x[0].occurred_at);

    svc.ingest_and_run(&part).await;
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
    svc.ingest_and_run(&whole).await;
    assert_eq!(svc.deliveries(&hook).await.len(), 1);
    let envelopes = svc.envelopes("layer_z_threshold_crossed").await;
    assert_eq!(envelopes.len(), 1);
    assert_eq!(envelopes[0]["data"]["dimension"], "frustration_buildup");
    assert_eq!(
        envelopes[0]["data"]["occurred_at"],
        envelope_time(&part_x[0].occurred_at)
    );
}

#[tokio::test]
async fn crossings_beyond_twenty_per_dimension_are_summarised_in_one_event() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let start = at("2026-11-17T10:00:00Z");
    // Thirty conversations that each cross frustration_buildup once.
    let events: Vec<Value> = (0..30)
        .flat_map(|i| {
            conversation(
                &format!("c-{i:02}"),
                &format!("u-{i:02}"),
                start + Duration::minutes(i),
                &HOSTILE,
                None,
            )
        })
        .collect();
    let body = request("flood-bot", events);
    let (_, result) = score(&body);
    let crossed: Vec<_> = monitor::crossings(&result)
        .into_iter()
        .filter(|x| x.dimension.as_str() == "frustration_buildup")
        .collect();
    assert_eq!(crossed.len(), 30, "the fixture must cross 30 times");
    let others = monitor::crossings(&result).len() - crossed.len();
    assert!(
        others <= 20,
        "only frustration is flooded here: {others} others"
    );

    svc.ingest_and_run(&body).await;
    // Twenty one by one and one summary, per endpoint.
    assert_eq!(svc.deliveries(&hook).await.len(), 21 + others);
    let frustration: Vec<Value> = svc
        .envelopes("layer_z_threshold_crossed")
        .await
        .into_iter()
        .filter(|e| e["data"]["dimension"] == "frustration_buildup")
        .collect();
    assert_eq!(frustration.len(), 21);
    let summaries: Vec<&Value> = frustration
        .iter()
        .filter(|e| e["data"].get("summarised").is_some())
        .collect();
    assert_eq!(summaries.len(), 1);
    let s = &summaries[0]["data"];
    assert_eq!(s["summarised"]["crossings"], 10);
    let ids: Vec<&str> = s["summarised"]["conversation_external_ids"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_str().expect("id"))
        .collect();
    let expected: Vec<String> = crossed[20..]
        .iter()
        .map(|x| x.conversation_id.clone())
        .collect();
    assert_eq!(ids, expected);
    assert_eq!(s["conversation_external_id"], json!(expected[0]));
}

#[tokio::test]
async fn crossings_of_an_implicit_conversation_use_its_auto_id() {
    let svc = Svc::new().await;
    let hook = svc.register(&["layer_z_threshold_crossed"]).await;
    let body = example("coding-assistant-goes-well");
    let (_, result) = score(&body);
    let all = monitor::crossings(&result);
    // Every crossing of this example is in a conversation without a conversation_id.
    assert!(!all.is_empty());
    assert!(
        all.iter().all(|x| x.conversation_id.starts_with("auto:")),
        "{all:#?}"
    );
    // The second conversation delegates, recovers and delegates again: two crossings of
    // dependency drift in one conversation.
    let expected: Vec<_> = all
        .iter()
        .filter(|x| x.dimension == Dimension::DependencyDrift)
        .collect();
    assert_eq!(expected.len(), 2, "{all:#?}");
    assert_eq!(expected[0].conversation_id, expected[1].conversation_id);

    svc.ingest_and_run(&body).await;
    assert_eq!(svc.deliveries(&hook).await.len(), all.len());
    let envelopes: Vec<_> = svc
        .envelopes("layer_z_threshold_crossed")
        .await
        .into_iter()
        .filter(|e| e["data"]["dimension"] == "dependency_drift")
        .collect();
    assert_eq!(envelopes.len(), 2);
    let mut got: Vec<(u64, String)> = envelopes
        .iter()
        .map(|e| {
            let d = &e["data"];
            assert_eq!(
                d["conversation_external_id"],
                expected[0].conversation_id.as_str()
            );
            (
                d["event_index"].as_u64().expect("event_index"),
                d["occurred_at"].as_str().expect("occurred_at").to_owned(),
            )
        })
        .collect();
    got.sort();
    let want: Vec<(u64, String)> = expected
        .iter()
        .map(|x| (x.event_index as u64, envelope_time(&x.occurred_at)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(
        envelopes[0]["data"]["conversation_id"],
        envelopes[1]["data"]["conversation_id"]
    );
    assert_ne!(envelopes[0]["id"], envelopes[1]["id"]);
    assert_ne!(
        envelopes[0]["data"]["signal_id"],
        envelopes[1]["data"]["signal_id"]
    );
}
