//! Product behaviour that held under scorer 1.x and does not under 2.0, kept in its
//! strict form so that the scorer can be fixed against it. Each test is ignored with the
//! reason and the numbers of the scorer named in it (with those of 2.0, when it was
//! written, in brackets); each failure message prints the numbers again; run them with
//! `cargo test -p undertone-core --test it known_gaps -- --ignored`. The looser form
//! that still holds is tested where the behaviour lives (signals, props, vectors,
//! connectors). When a scorer change makes one of these pass, drop its `#[ignore]`.

use undertone_core::score::{Band, LayerZ, SessionIntelligence};

use super::Who::{A, H};
use super::props::{HOSTILE, SHOUT};
use super::{find, last_turn, names, run, score_turns, turn};

fn frustration(out: &SessionIntelligence) -> f64 {
    last_turn(out).layer_z.frustration_buildup.score
}

#[test]
#[ignore = "scorer 2.3.0: a hostile opening reads 0.5017 (watch): baseline 0.2169, vader_negative 0.1681, annoyance 0.1340 (scorer 2.0: 0.076)"]
fn a_hostile_opening_turn_is_broken() {
    let out = score_turns(&[(H, HOSTILE)]);
    let f = &last_turn(&out).layer_z.frustration_buildup;
    assert_eq!(f.band, Band::Broken, "{}: {:?}", f.score, names(f));
}

#[test]
#[ignore = "scorer 2.3.0: after three shouted turns (0.9866) the hostile turn reads 0.6670; the conversation falls to 0.8268 (scorer 2.0: 0.9954, 0.8260, 0.9107)"]
fn hostile_turn_after_a_saturated_arc_keeps_frustration() {
    let without = score_turns(&[(H, SHOUT), (H, SHOUT), (H, SHOUT)]);
    let with = score_turns(&[(H, SHOUT), (H, SHOUT), (H, SHOUT), (H, HOSTILE)]);
    let conv = |out: &SessionIntelligence| {
        out.intelligence.conversations[0]
            .layer_z
            .frustration_buildup
            .score
    };
    let turns = (frustration(&without), frustration(&with));
    let conversations = (conv(&without), conv(&with));
    assert!(
        turns.1 >= turns.0,
        "last turn {turns:?}, conversation {conversations:?}"
    );
    assert!(
        conversations.1 >= conversations.0,
        "conversation {conversations:?}"
    );
}

#[test]
// Fixed in scorer 2.0 (second pass): kept as a regression test.
fn thanks_after_an_angry_opening_read_below_it() {
    let angry = "This is ridiculous!!! My export keeps failing and you are useless";
    let fix = "Set the export encoding to UTF-8 in the export dialog.";
    let out = score_turns(&[(H, angry), (A, fix), (H, "Thanks.")]);
    let before = turn(&out, 0).layer_z.frustration_buildup.score;
    assert!(
        frustration(&out) < before,
        "{} < {before}",
        frustration(&out)
    );
}

/// The AI-failure model's probability for each AI reply to `ask`.
fn failures(ask: &str, replies: &[&str]) -> Vec<f64> {
    replies
        .iter()
        .map(|ai| {
            let body = super::conversation(&[(H, ask), (A, ai)]);
            let (req, _) = run(&body);
            let a = undertone_core::assemble(&req.events, Some(&req.deployment_id));
            undertone_core::score::context::ai_failures(&a.conversations[0])[0].1
        })
        .collect()
}

#[test]
#[ignore = "scorer 2.3.0: the AI-failure model gives a good parcel answer 0.256, a refusal 0.532, \"I don't know.\" 0.180, an off-topic \"I like turtles.\" 0.185 (scorer 2.0: 0.241, 0.227, 0.146, 0.168)"]
fn a_failed_reply_reads_as_more_of_a_failure_than_a_good_answer() {
    let ask = "Can you trace my parcel 5512?";
    let good = "Parcel 5512 is at the Leeds depot and the trace shows delivery tomorrow.";
    let p = failures(
        ask,
        &[
            good,
            "I'm sorry, I can't help with that.",
            "I don't know.",
            "I like turtles.",
        ],
    );
    for (k, f) in p.iter().enumerate().skip(1) {
        assert!(
            *f > p[0],
            "reply {k}: {f} vs the good answer's {} (all: {p:?})",
            p[0]
        );
    }
    // And the person's next turn reads accordingly.
    let reply = "Where else can I get my parcel traced?";
    let failed = score_turns(&[
        (H, ask),
        (A, "I'm sorry, I can't help with that."),
        (H, reply),
    ]);
    let answered = score_turns(&[(H, ask), (A, good), (H, reply)]);
    let (failed, answered) = (frustration(&failed), frustration(&answered));
    assert!(failed > answered, "{failed} > {answered}");
}

#[test]
// Fixed in scorer 2.0 (second pass): kept as a regression test.
fn sympathy_reads_as_less_of_a_failure_than_a_refusal() {
    let p = failures(
        "My parcel 5512 arrived broken",
        &[
            "I'm sorry to hear that. A replacement for parcel 5512 ships today.",
            "I'm sorry, I can't help with that.",
        ],
    );
    assert!(p[0] < p[1], "{p:?}");
}

#[test]
#[ignore = "scorer 2.3.0: \"Great, thanks a lot. This is useless.\" after a refusal reads 0.1621 (healthy), above the booking now, but gratitude (-0.1376) outweighs the complaint (annoyance 0.0019) (scorer 2.0: 0.1410 and 0.1448)"]
fn sarcastic_thanks_after_a_failure_count_less() {
    let ask = "Can you book a table for two tonight?";
    let reply = "Great, thanks a lot. This is useless.";
    let after = |ai| {
        let out = score_turns(&[(H, ask), (A, ai), (H, reply)]);
        last_turn(&out).layer_z.clone()
    };
    let failed = after("I'm sorry, I can't help with that.");
    let served = after("Done, your table for two is booked at 8pm tonight.");
    let f = |z: &LayerZ| z.frustration_buildup.score;
    assert!(f(&failed) > f(&served), "{} > {}", f(&failed), f(&served));
    // The complaint is read: the turn is not healthy after a failure.
    assert_ne!(
        failed.frustration_buildup.band,
        Band::Healthy,
        "{}: {:?}",
        f(&failed),
        names(&failed.frustration_buildup)
    );
}

#[test]
#[ignore = "scorer 2.3.0: every AI answer gets some breakdown probability, so accepting a confident answer adds acceptance_after_hedge 0.1633 (scorer 2.0: 0.15)"]
fn accepting_a_confident_answer_is_no_over_trust() {
    let out = score_turns(&[
        (H, "Which port does the admin console use?"),
        (A, "The admin console uses port 8443."),
        (H, "ok, I'll go with that"),
    ]);
    let t = &last_turn(&out).layer_z.trust_calibration;
    assert!(
        find(t, "acceptance_after_hedge").is_none(),
        "{:?}",
        names(t)
    );
}

#[test]
#[ignore = "scorer 2.3.0: correction has weight 0 on frustration (fitted): \"that's not what I asked\" reads 0.3061, \"the parcel is missing\" 0.3229 (scorer 2.0: 0.3564, 0.3699)"]
fn telling_the_ai_it_got_it_wrong_raises_frustration() {
    let ask = "Can you trace my parcel 5512?";
    let answer = "Parcel 5512 is at the Leeds depot and the trace shows delivery tomorrow.";
    let f = |reply| frustration(&score_turns(&[(H, ask), (A, answer), (H, reply)]));
    let wrong = f("that's not what I asked");
    let plain = f("the parcel is missing");
    assert!(wrong > plain, "{wrong} > {plain}");
}

fn vector(name: &str) -> SessionIntelligence {
    run(&crate::read_json(
        &crate::root().join("examples").join(name),
    ))
    .1
}

#[test]
#[ignore = "scorer 2.3.0: \"forget it\" after seven failed AI turns: conversation abandonment 0.1196 (healthy), from final_turn alone, not abandoned (scorer 2.0: 0.161)"]
fn forget_it_after_repeated_failures_is_abandoned() {
    let out = vector("support-refund-goes-wrong.json");
    let c = out
        .intelligence
        .conversations
        .iter()
        .find(|c| *c.conversation_id == *"zd-48213")
        .expect("zd-48213");
    assert_eq!(
        c.layer_z.silent_abandonment_risk.band,
        Band::Broken,
        "{}: {:?}",
        c.layer_z.silent_abandonment_risk.score,
        names(&c.layer_z.silent_abandonment_risk)
    );
    assert!(c.abandoned);
}

#[test]
#[ignore = "scorer 2.3.0: request frustration 0.4685 (watch), its evidence four ai_failure_history items of 0.07-0.09 from good answers; event 9 reads 0.60 (broken) from repeated AI failures (scorer 2.0: 0.474, a turn at 0.60)"]
fn a_coding_session_that_goes_well_is_healthy() {
    let out = vector("coding-assistant-goes-well.json");
    let f = &out.intelligence.layer_z.frustration_buildup;
    assert_eq!(f.band, Band::Healthy, "{}: {:?}", f.score, names(f));
    for c in &out.intelligence.conversations {
        for t in &c.turns {
            let turn = &t.layer_z.frustration_buildup;
            assert_ne!(
                turn.band,
                Band::Broken,
                "event {}: {}: {:?}",
                t.event_index,
                turn.score,
                names(turn)
            );
        }
    }
}

#[test]
#[ignore = "scorer 2.3.0: \"I said just give me the answer. this is useless\" reads 0.3669 (watch), and the conversation the same (scorer 2.0: 0.418, 0.515)"]
fn demanding_the_answer_again_is_broken() {
    let out = score_turns(&[
        (
            H,
            "just give me the answer to question 2, I don't have time",
        ),
        (
            A,
            "Let's work through it together. What is the first step when solving 2x + 5 = 13?",
        ),
        (H, "I said just give me the answer. this is useless"),
    ]);
    let f = &last_turn(&out).layer_z.frustration_buildup;
    let conversation = out.intelligence.conversations[0]
        .layer_z
        .frustration_buildup
        .score;
    assert_eq!(
        f.band,
        Band::Broken,
        "{} (conversation {conversation}): {:?}",
        f.score,
        names(f)
    );
}

#[test]
// Fixed in scorer 2.0 (second pass): kept as a regression test.
fn an_unanswered_last_question_is_named_on_the_conversation() {
    let out = score_turns(&[
        (H, "My parcel 5512 never arrived"),
        (
            A,
            "The tracking for parcel 5512 shows it was delivered yesterday.",
        ),
        (H, "Where exactly was it left?"),
    ]);
    let a = &out.intelligence.conversations[0]
        .layer_z
        .silent_abandonment_risk;
    assert!(
        find(a, "unanswered_last_question").is_some(),
        "{:?}",
        names(a)
    );
}

#[test]
#[ignore = "scorer 2.3.0: evidence items that round to 0.0000 are dropped (layer_z::sort_evidence), so a short list sums to 0.035441 for a score of 0.035430 (scorer 2.0: 0.019090, 0.019075)"]
fn turn_evidence_adds_up_to_the_score_exactly() {
    let out = score_turns(&[(
        H,
        "Hi, I've been charged twice for my October invoice. Can you refund one of them?",
    )]);
    let a = &last_turn(&out).layer_z.silent_abandonment_risk;
    assert!(a.evidence.len() < undertone_core::score::layer_z::MAX_EVIDENCE);
    let sum: f64 = a.evidence.iter().map(|e| e.contribution).sum();
    assert!((sum - a.score).abs() < 1e-6, "{sum} vs {}", a.score);
}

#[test]
// Fixed in scorer 2.0 (second pass): kept as a regression test.
fn drift_never_names_the_base_rate_as_a_driver() {
    let v = crate::read_json(&crate::root().join("tests/vectors/drift/v1-to-v2.json"));
    let text = v["output"]["plain_recommendations"].to_string();
    assert!(!text.contains("base rate"), "{text}");
}
