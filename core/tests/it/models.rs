//! The compiled-in models and tables cover what the code reads, and nothing else: every
//! table entry is read by some scoring code, every turn input the code computes is
//! weighed by a learned dimension (or listed here as deliberately unread, with why), and
//! the text and AI-failure models load with exactly the code's dense features.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use undertone_core::model::tables::LinearDim;
use undertone_core::model::{AI_FAILURE, TABLES, TEXT, ai_turn, text};
use undertone_core::score::inputs::{ConversationInput, Input};
use undertone_core::score::{Dimension, score};
use undertone_core::validate::{self, Options};

/// The learned dimensions (logistic models over named inputs).
const LEARNED: [Dimension; 3] = [
    Dimension::FrustrationBuildup,
    Dimension::ComprehensionGap,
    Dimension::SilentAbandonmentRisk,
];

/// Turn inputs the code computes that no learned turn dimension weighs, and why.
const UNREAD_INPUTS: [(Input, &str); 2] = [
    (
        Input::Shouting,
        "fitted to 0 for frustration under its sign constraint: the annotated DBDC3 turns \
         have almost no capitals (mean 0.003); capitals reach frustration through the text \
         model's `shouting` feature and its annoyance head",
    ),
    (
        Input::Exclamation,
        "fitted to 0 for frustration under its sign constraint (mean 0.02 on the annotated \
         turns); exclamation marks reach frustration through the text model's \
         `exclamation` feature",
    ),
];

/// Conversation inputs the code computes that no learned conversation value weighs, and why.
const UNREAD_CONVERSATION_INPUTS: [(ConversationInput, &str); 6] = [
    (
        ConversationInput::FinalFrustration,
        "not offered to any conversation fit (scripts/train_scorer.py); kept for the feature dump",
    ),
    (
        ConversationInput::PeakFrustration,
        "not offered to any conversation fit (scripts/train_scorer.py); kept for the feature dump",
    ),
    (
        ConversationInput::MeanAiFailure,
        "offered to the frustration roll-up, whose fit found no signal: the roll-up is set by \
         design to half peak, half final turn",
    ),
    (
        ConversationInput::Unresolved,
        "offered to the abandonment fit, which found no signal (out-of-fold AUROC under 0.6): \
         the fallback roll-up reads the final turn, an unanswered last question and the \
         deployment context",
    ),
    (
        ConversationInput::LeftAfterAiFailure,
        "offered to the abandonment fit, which found no signal; the fallback roll-up does not \
         read it (the final turn's risk already weighs the AI's last failure)",
    ),
    (
        ConversationInput::LastGivingUp,
        "offered to the abandonment fit, which found no signal; the final turn's risk reads the \
         giving-up head already",
    ),
];

fn learned(d: Dimension, scope: &str, names: &[&str]) -> LinearDim {
    LinearDim::read(&TABLES, d.as_str(), scope, names)
        .unwrap_or_else(|e| panic!("{} {scope}: {e}", d.as_str()))
}

#[test]
fn every_input_is_read_by_a_learned_turn_dimension() {
    let tables: Vec<(Dimension, LinearDim)> = LEARNED
        .iter()
        .map(|&d| (d, learned(d, "turn", &Input::NAMES)))
        .collect();
    let unread: BTreeSet<Input> = UNREAD_INPUTS.iter().map(|(i, _)| *i).collect();
    for (k, input) in Input::ALL.iter().enumerate() {
        let readers: Vec<&str> = tables
            .iter()
            .filter(|(_, t)| t.weights[k] != 0.0)
            .map(|(d, _)| d.as_str())
            .collect();
        if unread.contains(input) {
            // The list stays honest: an input a dimension now reads leaves it.
            assert!(
                readers.is_empty(),
                "{} is listed as unread but {readers:?} read it",
                input.as_str()
            );
        } else {
            assert!(
                !readers.is_empty(),
                "no learned turn dimension reads {}: weigh it or list it in UNREAD_INPUTS with why",
                input.as_str()
            );
        }
    }
    for (input, why) in UNREAD_INPUTS {
        assert!(why.len() > 20, "{}: give a reason", input.as_str());
    }
    // Every learned turn dimension reads the text model's heads it was fitted on, and
    // each arc and calibration is a real number.
    for (d, t) in &tables {
        assert!(
            t.weights.iter().filter(|w| **w != 0.0).count() >= 5,
            "{}",
            d.as_str()
        );
        assert!(t.calibrated, "{}", d.as_str());
        assert!(t.platt_a > 0.0, "{}", d.as_str());
        assert!((0.0..1.0).contains(&t.baseline()), "{}", d.as_str());
    }
}

#[test]
fn every_conversation_input_is_read_or_listed() {
    let unread: BTreeSet<ConversationInput> =
        UNREAD_CONVERSATION_INPUTS.iter().map(|(i, _)| *i).collect();
    let tables: Vec<LinearDim> = LEARNED
        .iter()
        .map(|&d| learned(d, "conversation", &ConversationInput::NAMES))
        .collect();
    for (k, input) in ConversationInput::ALL.iter().enumerate() {
        let read = tables.iter().any(|t| t.weights[k] != 0.0);
        assert_eq!(
            read,
            !unread.contains(input),
            "{}: read {read}, listed as unread {}",
            input.as_str(),
            unread.contains(input)
        );
    }
}

#[test]
fn compiled_models_load_with_the_codes_features() {
    let t = &*TEXT;
    let heads: Vec<&str> = text::Head::ALL.iter().map(|h| h.as_str()).collect();
    assert_eq!(t.heads(), heads);
    assert!(t.kept_buckets() > 1000, "{}", t.kept_buckets());
    let ai = &*AI_FAILURE;
    assert_eq!(ai.heads().len(), 1);
    assert!(ai.kept_buckets() > 100, "{}", ai.kept_buckets());
    // Parsing fails on a dense feature missing from the file or unknown to the code
    // (model::linear's tests), so loading means each file has exactly the code's list.
    // Each of them also weighs some of those features.
    let weighed = |m: &undertone_core::model::linear::Linear, n: usize, heads: usize| {
        (0..n)
            .filter(|&i| (0..heads).any(|h| m.dense_weight(i, h) != 0.0))
            .count()
    };
    assert!(weighed(t, text::DENSE.len(), heads.len()) > text::DENSE.len() / 2);
    assert!(weighed(ai, ai_turn::DENSE.len(), 1) > ai_turn::DENSE.len() / 2);
    // Each head reads what it is named for.
    let p = |s: &str, h: text::Head| text::read_text(s).get(h);
    assert!(p("this is ridiculous, you are useless", text::Head::Annoyance) > 0.5);
    assert!(p("what do you mean?", text::Head::Confusion) > 0.5);
    assert!(p("thank you so much", text::Head::Gratitude) > 0.5);
    assert!(p("forget it", text::Head::GivingUp) > 0.5);
    assert!(p("no, that's wrong", text::Head::Correction) > 0.5);
    assert!(p("where is my order?", text::Head::Annoyance) < 0.2);
}

/// One event.
fn event(conversation: &str, actor: &str, human: bool, content: &str, at: &str) -> Value {
    let mut e = json!({
        "actor_id": actor,
        "content": content,
        "timestamp": at,
        "metadata": {"role": if human { "user" } else { "assistant" }},
    });
    if !conversation.is_empty() {
        e["conversation_id"] = json!(conversation);
    }
    e
}

#[test]
fn scoring_reads_every_table_entry() {
    let mut events = Vec::new();
    // One person over four conversations, visits slowing, more and more delegation; plus
    // other people so the deployment has a median length.
    let days = ["01", "02", "04", "10"];
    for (k, day) in days.iter().enumerate() {
        let c = format!("p-{k}");
        let at = |m: u32| format!("2026-11-{day}T09:{m:02}:00Z");
        let asks = [
            "Can you help me draft a reply to my landlord?",
            "I think it might be the wrong form, can you check?",
            "Just do it for me, whatever you think",
            "just write it for me, I don't need to review it",
        ];
        events.push(event(&c, "person", true, asks[k], &at(0)));
        events.push(event(
            &c,
            "bot",
            false,
            "I think it might be section 21, but I'm not certain.",
            &at(1),
        ));
        events.push(event(&c, "person", true, "ok, I'll go with that", &at(2)));
    }
    for k in 0..6 {
        let c = format!("o-{k}");
        let at = |m: u32| format!("2026-11-05T1{k}:{m:02}:00Z");
        let actor = format!("other-{k}");
        let turns = [
            (true, "My parcel 5512 never arrived"),
            (false, "I'm sorry, I can't help with that."),
            (true, "That's not what I asked. Can I talk to a human?"),
            (false, "Please see our FAQ for more details."),
            (
                true,
                "like I said, it still doesn't work!!! what do you mean??",
            ),
            (false, "I'll connect you with a human agent now."),
            (true, "Thanks, let me try that first and you check it"),
        ];
        for (m, (human, text)) in turns.iter().enumerate() {
            let who = if *human { actor.as_str() } else { "bot" };
            events.push(event(&c, who, *human, text, &at(m as u32)));
        }
    }
    let support = json!({"deployment_id": "bot", "pipeline": "support", "events": events});
    let reviews = json!({"deployment_id": "app", "pipeline": "reviews", "events": [
        {"actor_id": "r1", "content": "Crashes every time. Useless, I give up.", "timestamp": "2026-11-21T09:00:00Z", "metadata": {"rating": 1}},
        {"actor_id": "r2", "content": "Does what it says, thanks!", "timestamp": "2026-11-21T10:00:00Z", "metadata": {"rating": 5}},
    ]});
    for body in [&support, &reviews] {
        let req = validate::ingest_request(body, &Options::default()).expect("valid request");
        let out = score(&req);
        assert!(out.intelligence.human_turn_count > 0);
    }
    // The person's dependency is read across their conversations.
    let req = validate::ingest_request(&support, &Options::default()).expect("valid");
    let out = score(&req);
    let last = out
        .intelligence
        .conversations
        .iter()
        .find(|c| *c.conversation_id == *"p-3")
        .expect("p-3");
    assert!(
        last.layer_z
            .dependency_drift
            .evidence
            .iter()
            .any(|e| e.signal == "dependency_trend"),
        "{:?}",
        last.layer_z.dependency_drift.evidence
    );
    TABLES
        .check_all_read()
        .unwrap_or_else(|e| panic!("{}", e.message));
}
