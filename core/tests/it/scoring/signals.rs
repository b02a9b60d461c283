//! One test per signal: a conversation where the signal's evidence appears on the human
//! turn with the documented sign, and a near miss where it does not.
//!
//! Frustration, comprehension gap and abandonment risk are logistic models over named
//! inputs (`score::inputs`): their evidence names the input. The text model's heads
//! (annoyance, confusion, gratitude, giving up, correction) and the AI-failure model
//! are probabilities, never exactly 0, so for them a near miss is a much smaller
//! contribution rather than none.

use undertone_core::model::text::{Head, read_text};
use undertone_core::score::{Dimension, DimensionScore, SessionIntelligence, TrustMode};
use undertone_core::validate::{self, Options};

use super::Who::{A, H};
use super::{
    assert_absent, assert_pushes, assert_relieves, find, last_turn, names, run, score_turns, turn,
};

const TRUST: Dimension = Dimension::TrustCalibration;
const FRUSTRATION: Dimension = Dimension::FrustrationBuildup;
const DEPENDENCY: Dimension = Dimension::DependencyDrift;
const ABANDONMENT: Dimension = Dimension::SilentAbandonmentRisk;
const ESCALATION: Dimension = Dimension::EscalationFriction;
const COMPREHENSION: Dimension = Dimension::ComprehensionGap;

/// A neutral opening and a good AI answer that shares the question's words.
const ASK: &str = "Can you trace my parcel 5512?";
const ANSWER: &str = "Parcel 5512 is at the Leeds depot and the trace shows delivery tomorrow.";

/// The last human turn's value of `d` after a neutral opening and a good answer.
fn after_answer(reply: &str, d: Dimension) -> (SessionIntelligence, f64) {
    let out = score_turns(&[(H, ASK), (A, ANSWER), (H, reply)]);
    let score = last_turn(&out).layer_z.get(d).score;
    (out, score)
}

#[test]
fn escalation_request_asking_for_a_person() {
    let (out, _) = after_answer("can I talk to a human", ESCALATION);
    let z = &last_turn(&out).layer_z;
    let e = assert_pushes(&z.escalation_friction, ESCALATION, "escalation_request");
    assert_eq!(e.event_index, 2);
    assert!(
        e.detail.as_deref().is_some_and(|d| d.contains("human")),
        "{e:?}"
    );
    assert_pushes(&z.frustration_buildup, FRUSTRATION, "escalation_request");

    let (out, _) = after_answer("can I change the delivery address", ESCALATION);
    let z = &last_turn(&out).layer_z;
    assert_absent(&z.escalation_friction, ESCALATION, "escalation_request");
    assert_absent(&z.frustration_buildup, FRUSTRATION, "escalation_request");
}

#[test]
fn chinese_support_phrases_are_read() {
    // Asking for a person, and thanking, in Chinese: the phrase lists hold the common
    // wordings (docs/scoring.md, "Known blind spots").
    let ask = "我的快递5512到哪里了？";
    let answer = "快递5512在北京中转站，预计明天送达。";
    let z = |reply| {
        last_turn(&score_turns(&[(H, ask), (A, answer), (H, reply)]))
            .layer_z
            .clone()
    };
    let asked = z("转人工，我要投诉");
    let e = assert_pushes(&asked.escalation_friction, ESCALATION, "escalation_request");
    assert_eq!(e.detail.as_deref(), Some("\"转人工\""));
    assert_pushes(
        &asked.frustration_buildup,
        FRUSTRATION,
        "escalation_request",
    );
    let thanked = z("好的，谢谢！");
    assert_absent(
        &thanked.escalation_friction,
        ESCALATION,
        "escalation_request",
    );
    assert_relieves(&thanked.frustration_buildup, FRUSTRATION, "gratitude");
    assert!(thanked.frustration_buildup.score < asked.frustration_buildup.score);
    // Saying it was said before.
    let again = z("我已经说过了，快递还没到");
    assert_pushes(&again.frustration_buildup, FRUSTRATION, "repetition_claim");
}

#[test]
fn correction_telling_the_ai_it_got_it_wrong() {
    let wrong = "that's not what I asked";
    let right = "that's exactly what I asked, thanks";
    // The text model's correction head reads the words.
    let correction = |t: &str| read_text(t).get(Head::Correction);
    assert!(correction(wrong) > 0.9, "{}", correction(wrong));
    assert!(correction(right) < 0.1, "{}", correction(right));

    let (out, wrong_frustration) = after_answer(wrong, FRUSTRATION);
    let z = &last_turn(&out).layer_z;
    // The learned models read the head by name, with its words in the detail. Fitted on
    // the annotated turns, a correction lowers abandonment risk and the comprehension
    // gap (the person is still engaged and knows what they wanted).
    for (d, dim) in [
        (&z.silent_abandonment_risk, ABANDONMENT),
        (&z.comprehension_gap, COMPREHENSION),
    ] {
        let e = assert_relieves(d, dim, "correction");
        assert_eq!(e.event_index, 2);
        let detail = e.detail.as_deref().unwrap_or_default();
        assert!(detail.starts_with("correction 1.00"), "{detail}");
        assert!(detail.contains("not"), "{detail}");
    }
    let (out, right_frustration) = after_answer(right, FRUSTRATION);
    let z = &last_turn(&out).layer_z;
    let relief = |d: &DimensionScore| find(d, "correction").map_or(0.0, |e| -e.contribution);
    assert!(
        relief(&z.silent_abandonment_risk) < 0.001,
        "{:?}",
        names(&z.silent_abandonment_risk)
    );
    // Telling the AI it got it wrong reads more frustrated than confirming it got it right.
    assert!(
        wrong_frustration > right_frustration,
        "{wrong_frustration} > {right_frustration}"
    );
}

/// `first`, the AI's `answer` and then `again`, scored; asserts that `again` (event 2)
/// carries the repetition of event 0 when `repeats`, and none otherwise.
fn third_turn(first: &str, answer: &str, again: &str, repeats: bool) -> SessionIntelligence {
    let out = score_turns(&[(H, first), (A, answer), (H, again)]);
    let frustration = &turn(&out, 2).layer_z.frustration_buildup;
    if repeats {
        let e = assert_pushes(frustration, FRUSTRATION, "repetition");
        assert_eq!(e.detail.as_deref(), Some("repeats the request of event 0"));
    } else {
        assert_absent(frustration, FRUSTRATION, "repetition");
    }
    out
}

#[test]
fn repetition_same_request_rephrased_two_turns_later() {
    let first = "I need to change the shipping address on my order 5512";
    let answer = "You can change it in your account under Orders.";
    let again = "I want to change the shipping address for order 5512";
    third_turn(first, answer, again, true);
    let other = "How long does delivery to Leeds usually take?";
    let out = third_turn(first, answer, other, false);
    // The first turn repeats nothing, whatever follows.
    assert_absent(
        &turn(&out, 0).layer_z.frustration_buildup,
        FRUSTRATION,
        "repetition",
    );
}

#[test]
fn repetition_in_chinese_read_by_pairs_of_characters() {
    // Written without spaces: each character is a word, and turns are compared by
    // pairs of neighbouring characters.
    let first = "我的订单还没有到，已经等了一个星期了";
    let answer = "请提供您的订单号，我们会为您查询。";
    third_turn(first, answer, "订单号是5512，我的订单还没有到", true);
    // A new question shares characters (的, 是) but no pair of them.
    third_turn(first, answer, "请问你们的营业时间是什么时候？", false);
}

#[test]
fn repetition_in_korean_reads_nouns_without_their_particles() {
    // "My order hasn't come yet. The order number is 5512 and the address is Seoul",
    // asked again with the nouns taking other particles (주문이 / 주문을, 번호는 /
    // 번호가, 배송지는 / 배송지가): four stems of the nine shared with the particles
    // left on, six without them.
    let first = "제 주문이 아직 안 왔어요. 주문 번호는 5512이고 배송지는 서울이에요";
    let answer = "확인해 드리겠습니다. 잠시만 기다려 주세요.";
    let again = "주문을 아직 못 받았어요. 주문 번호가 5512이고 배송지가 서울이에요";
    third_turn(first, answer, again, true);
    // A new question about a refund shares no noun.
    third_turn(first, answer, "환불은 언제 되나요?", false);
}

#[test]
fn repetition_claim_saying_it_was_said_before() {
    let (out, claimed) = after_answer("like I said, the parcel is missing", FRUSTRATION);
    let e = assert_pushes(
        &last_turn(&out).layer_z.frustration_buildup,
        FRUSTRATION,
        "repetition_claim",
    );
    assert!(
        e.detail
            .as_deref()
            .is_some_and(|d| d.contains("like i said")),
        "{e:?}"
    );
    let (out, plain) = after_answer("the parcel is missing", FRUSTRATION);
    assert_absent(
        &last_turn(&out).layer_z.frustration_buildup,
        FRUSTRATION,
        "repetition_claim",
    );
    assert!(claimed > plain, "{claimed} > {plain}");
}

#[test]
fn problem_persists_after_the_ai_suggestion() {
    let turns = |reply| {
        score_turns(&[
            (H, "My router keeps dropping the connection"),
            (A, "Restart the router and wait two minutes."),
            (H, reply),
        ])
    };
    let out = turns("I restarted it and it still doesn't work");
    let persists = last_turn(&out).layer_z.frustration_buildup.score;
    assert_pushes(
        &last_turn(&out).layer_z.frustration_buildup,
        FRUSTRATION,
        "problem_persists",
    );
    let out = turns("I restarted it and now it works");
    let fixed = last_turn(&out).layer_z.frustration_buildup.score;
    assert_absent(
        &last_turn(&out).layer_z.frustration_buildup,
        FRUSTRATION,
        "problem_persists",
    );
    assert!(persists > fixed, "{persists} > {fixed}");
}

#[test]
fn ai_failure_of_the_reply_before() {
    let reply = "Where else can I get my parcel traced?";
    let out = score_turns(&[
        (H, ASK),
        (A, "I'm sorry, I can't help with that."),
        (H, reply),
    ]);
    let z = &last_turn(&out).layer_z;
    let e = assert_pushes(&z.frustration_buildup, FRUSTRATION, "ai_failure");
    let detail = e.detail.as_deref().unwrap_or_default();
    // The detail names the AI turn, what it did and the model's breakdown probability.
    assert!(
        detail.starts_with("AI refused: \"can't help with\""),
        "{detail}"
    );
    assert!(detail.contains("breakdown 0."), "{detail}");
    assert!(detail.ends_with("(event 1)"), "{detail}");
    assert_pushes(&z.silent_abandonment_risk, ABANDONMENT, "ai_failure");
    assert_pushes(&z.comprehension_gap, COMPREHENSION, "ai_failure");
    // The first turn has no AI turn before it.
    let first = &turn(&out, 0).layer_z;
    assert_absent(&first.frustration_buildup, FRUSTRATION, "ai_failure");
    assert_absent(&first.silent_abandonment_risk, ABANDONMENT, "ai_failure");

    // A good answer names no failure.
    let out = score_turns(&[(H, ASK), (A, ANSWER), (H, reply)]);
    let f = &last_turn(&out).layer_z.frustration_buildup;
    let detail = find(f, "ai_failure").and_then(|e| e.detail.clone());
    assert!(
        detail
            .as_deref()
            .is_some_and(|d| d.starts_with("AI turn breakdown")),
        "{detail:?}"
    );

    // The same reply reads more frustrated the more likely the AI turn before it broke
    // the conversation down.
    let ais = [
        ANSWER,
        "I'm sorry, I can't help with that.",
        "I'm sorry, I didn't understand that. Could you rephrase?",
        "I don't know.",
        "I like turtles.",
        "Please see our FAQ for more details.",
    ];
    let mut seen: Vec<(f64, f64, f64, &str)> = ais
        .iter()
        .map(|ai| {
            let turns = [(H, ASK), (A, *ai), (H, reply)];
            let z = last_turn(&score_turns(&turns)).layer_z.clone();
            (
                prior_failure(&turns),
                z.frustration_buildup.score,
                z.comprehension_gap.score,
                *ai,
            )
        })
        .collect();
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in seen.windows(2) {
        assert!(w[0].0 < w[1].0, "{seen:?}");
        assert!(w[0].1 < w[1].1, "frustration follows the failure: {seen:?}");
        assert!(
            w[0].2 < w[1].2,
            "comprehension follows the failure: {seen:?}"
        );
    }
}

/// The AI-failure model's probability for the last AI turn of `turns`.
fn prior_failure(turns: &[(super::Who, &str)]) -> f64 {
    let body = super::conversation(turns);
    let req = validate::ingest_request(&body, &Options::default()).expect("valid");
    let a = undertone_core::assemble(&req.events, Some(&req.deployment_id));
    let failures = undertone_core::score::context::ai_failures(&a.conversations[0]);
    failures.last().expect("an AI turn").1
}

#[test]
fn gratitude_and_resolution_relieve_frustration() {
    let angry = "This is ridiculous!!! My export keeps failing and you are useless";
    let fix = "Set the export encoding to UTF-8 in the export dialog.";
    let after = |reply| {
        let out = score_turns(&[(H, angry), (A, fix), (H, reply)]);
        let z = turn(&out, 2).layer_z.clone();
        (out.intelligence.conversations[0].resolved, z)
    };
    let (resolved, asked_on) = after("and what about the PDF export?");
    assert!(!resolved);
    let relief = |d: &DimensionScore| find(d, "gratitude").map_or(0.0, |e| -e.contribution);
    assert!(
        relief(&asked_on.frustration_buildup) < 0.005,
        "{:?}",
        names(&asked_on.frustration_buildup)
    );
    for (reply, word) in [("ok, that worked", "that"), ("Thanks.", "thanks")] {
        let (resolved, z) = after(reply);
        let e = assert_relieves(&z.frustration_buildup, FRUSTRATION, "gratitude");
        let detail = e.detail.as_deref().unwrap_or_default();
        assert!(
            detail.contains(&format!("\"{word}\"")),
            "{reply:?}: {detail}"
        );
        assert!(
            relief(&z.frustration_buildup) > 4.0 * relief(&asked_on.frustration_buildup),
            "{reply:?}: {:?}",
            names(&z.frustration_buildup)
        );
        // Lower than asking on after the same answer.
        assert!(
            z.frustration_buildup.score < asked_on.frustration_buildup.score,
            "{reply:?}: {} < {}",
            z.frustration_buildup.score,
            asked_on.frustration_buildup.score
        );
        // Thanks or "that worked" also lowers the risk that the person leaves silently.
        assert_relieves(&z.silent_abandonment_risk, ABANDONMENT, "gratitude");
        assert!(z.silent_abandonment_risk.score < asked_on.silent_abandonment_risk.score);
        assert!(resolved, "{reply:?}");
    }
}

#[test]
fn comprehension_trouble_on_comprehension_gap() {
    let (out, lost) = after_answer("what do you mean?", COMPREHENSION);
    let c = &last_turn(&out).layer_z.comprehension_gap;
    let e = assert_pushes(c, COMPREHENSION, "confusion");
    let confused = e.contribution;
    assert!(
        e.detail
            .as_deref()
            .is_some_and(|d| d.contains("\"you mean\"")),
        "{e:?}"
    );
    // A short question about what the AI just said.
    assert_pushes(c, COMPREHENSION, "clarification_request");
    let (out, clear) = after_answer("how long does the trace usually take?", COMPREHENSION);
    let c = &last_turn(&out).layer_z.comprehension_gap;
    assert_absent(c, COMPREHENSION, "clarification_request");
    let e = assert_pushes(c, COMPREHENSION, "confusion");
    assert!(e.contribution < 0.1 * confused, "{:?}", names(c));
    assert!(lost > clear, "{lost} > {clear}");
    assert_eq!(c.band, undertone_core::score::Band::Healthy);
}

#[test]
fn delegation_raises_and_self_efficacy_lowers_dependency() {
    let ask = "I need a cover letter for a marketing job";
    let offer = "Sure, tell me about your experience and I can help you draft it.";
    let dependency = |reply| {
        let out = score_turns(&[(H, ask), (A, offer), (H, reply)]);
        last_turn(&out).layer_z.dependency_drift.clone()
    };
    let neutral = dependency("I have five years in retail marketing");
    assert_absent(&neutral, DEPENDENCY, "delegation");
    assert_absent(&neutral, DEPENDENCY, "self_efficacy");

    let delegating = dependency("just do it for me");
    let e = assert_pushes(&delegating, DEPENDENCY, "delegation");
    assert!(
        e.detail
            .as_deref()
            .is_some_and(|d| d.contains("do it for me")),
        "{e:?}"
    );
    assert_absent(&delegating, DEPENDENCY, "self_efficacy");
    assert!(delegating.score > neutral.score);

    let trying = dependency("let me try first and you check it");
    assert_relieves(&trying, DEPENDENCY, "self_efficacy");
    assert_absent(&trying, DEPENDENCY, "delegation");
    assert!(trying.score < neutral.score);
}

#[test]
fn acceptance_after_hedge_is_over_trust() {
    let ask = "Which port does the admin console use?";
    let trust = |ai, reply| {
        let out = score_turns(&[(H, ask), (A, ai), (H, reply)]);
        last_turn(&out).layer_z.trust_calibration.clone()
    };
    let hedge = "I think it might be 8443, but I'm not certain.";
    let accepted = trust(hedge, "ok, I'll go with that");
    let e = assert_pushes(&accepted, TRUST, "acceptance_after_hedge");
    assert_eq!(e.event_index, 2);
    let after_hedge = e.contribution;
    assert_eq!(accepted.mode, Some(TrustMode::OverTrust), "{accepted:?}");

    // The same words after a confident answer are calibrated. (The AI-failure model
    // gives every answer some doubt, so a small acceptance_after_hedge item remains:
    // see known_gaps::accepting_a_confident_answer_is_no_over_trust.)
    let confident = trust("The admin console uses port 8443.", "ok, I'll go with that");
    assert_eq!(confident.mode, Some(TrustMode::Calibrated));
    let after_confident =
        find(&confident, "acceptance_after_hedge").map_or(0.0, |e| e.contribution);
    assert!(
        after_confident < 0.5 * after_hedge,
        "{after_confident} vs {after_hedge}"
    );
    assert!(accepted.score < confident.score);

    // Checking after a hedge is not over-trust.
    let checked = trust(hedge, "are you sure? I'd rather check the docs first");
    assert_absent(&checked, TRUST, "acceptance_after_hedge");
    assert_ne!(checked.mode, Some(TrustMode::OverTrust));
}

#[test]
fn premature_escalation_is_under_trust() {
    let first = |text| {
        let out = score_turns(&[(H, text), (A, "Sure, what is your order number?")]);
        turn(&out, 0).layer_z.trust_calibration.clone()
    };
    let early = first("I want to talk to a human");
    let e = assert_pushes(&early, TRUST, "premature_escalation");
    assert_eq!(early.mode, Some(TrustMode::UnderTrust), "{early:?}");
    let early_push = e.contribution;

    let plain = first("I want to check on my order");
    assert_absent(&plain, TRUST, "premature_escalation");
    assert_eq!(plain.mode, Some(TrustMode::Calibrated));

    // After the AI failed twice, asking for a person is not distrust.
    let out = score_turns(&[
        (H, ASK),
        (A, "I'm sorry, I can't help with that."),
        (H, "Please trace parcel 5512, it is urgent"),
        (A, "I'm sorry, I can't help with that."),
        (H, "I want to talk to a human"),
    ]);
    let late = &turn(&out, 4).layer_z.trust_calibration;
    assert_ne!(late.mode, Some(TrustMode::UnderTrust), "{late:?}");
    if let Some(e) = find(late, "premature_escalation") {
        assert!(e.contribution < early_push, "{:?}", names(late));
    }
}

#[test]
fn escalation_offered_or_not() {
    let ask = "My parcel 5512 is lost, can I talk to a human?";
    let friction = |ai: Option<&str>| {
        let out = match ai {
            Some(ai) => score_turns(&[(H, ask), (A, ai)]),
            None => score_turns(&[(H, ask)]),
        };
        turn(&out, 0).layer_z.escalation_friction.clone()
    };
    let ignored = friction(Some("Sure, what is your order number?"));
    let e = assert_pushes(&ignored, ESCALATION, "escalation_not_offered");
    assert!(e.detail.is_some());
    assert_absent(&ignored, ESCALATION, "escalation_offered");

    let offered = friction(Some("I'll connect you with a human agent now."));
    assert_relieves(&offered, ESCALATION, "escalation_offered");
    assert_absent(&offered, ESCALATION, "escalation_not_offered");
    assert!(offered.score < ignored.score, "{offered:?} {ignored:?}");

    let unanswered = friction(None);
    assert_pushes(&unanswered, ESCALATION, "escalation_unanswered");
    assert_absent(&unanswered, ESCALATION, "escalation_offered");
    assert_absent(&unanswered, ESCALATION, "escalation_not_offered");
}

#[test]
fn unanswered_last_question_on_the_conversation() {
    let question = "Where exactly was it left?";
    let opening = [
        (H, "My parcel 5512 never arrived"),
        (
            A,
            "The tracking for parcel 5512 shows it was delivered yesterday.",
        ),
    ];
    let conversation = |tail: &[(super::Who, &str)]| {
        let mut turns = opening.to_vec();
        turns.extend_from_slice(tail);
        score_turns(&turns).intelligence.conversations[0].clone()
    };
    let last_abandonment = |c: &undertone_core::score::ConversationResult| -> DimensionScore {
        c.turns
            .last()
            .expect("a human turn")
            .layer_z
            .silent_abandonment_risk
            .clone()
    };
    let open = conversation(&[(H, question)]);
    let open_last = last_abandonment(&open);
    let e = assert_pushes(&open_last, ABANDONMENT, "unanswered_last_question");
    assert_eq!(e.event_index, 2);
    assert_eq!(e.detail.as_deref(), Some("the last question got no reply"));
    // The conversation's risk rolls up the turns; its evidence points at the last turn.
    let e = assert_pushes(
        &open.layer_z.silent_abandonment_risk,
        ABANDONMENT,
        "final_turn",
    );
    assert_eq!(e.event_index, 2);
    assert_eq!(e.conversation_id.as_deref(), Some("c-1"));
    assert!(!open.resolved);

    let answered = conversation(&[(H, question), (A, "It was left with your neighbour at 12.")]);
    assert_absent(
        &last_abandonment(&answered),
        ABANDONMENT,
        "unanswered_last_question",
    );
    let statement = conversation(&[(H, "It was not left at my door")]);
    assert_absent(
        &last_abandonment(&statement),
        ABANDONMENT,
        "unanswered_last_question",
    );
    let risk =
        |c: &undertone_core::score::ConversationResult| c.layer_z.silent_abandonment_risk.score;
    assert!(
        risk(&open) > risk(&answered),
        "{} > {}",
        risk(&open),
        risk(&answered)
    );
    assert!(
        risk(&open) > risk(&statement),
        "{} > {}",
        risk(&open),
        risk(&statement)
    );
    assert!(last_abandonment(&open).score > last_abandonment(&answered).score);
}

#[test]
fn negation_cancels_praise_and_frustration_words() {
    let ask = "My CSV export keeps failing";
    let fix = "Set the CSV export encoding to UTF-8 in the export dialog.";
    let reply = |text| {
        let out = score_turns(&[(H, ask), (A, fix), (H, text)]);
        (
            out.intelligence.conversations[0].resolved,
            last_turn(&out).layer_z.clone(),
        )
    };
    let gratitude = |t: &str| read_text(t).get(Head::Gratitude);
    assert!(
        gratitude("this is helpful") > 10.0 * gratitude("this is not helpful"),
        "{} vs {}",
        gratitude("this is helpful"),
        gratitude("this is not helpful")
    );
    let (resolved, helpful) = reply("this is helpful");
    assert_relieves(&helpful.frustration_buildup, FRUSTRATION, "gratitude");
    assert_relieves(&helpful.silent_abandonment_risk, ABANDONMENT, "gratitude");
    assert!(resolved);
    let (resolved, unhelpful) = reply("this is not helpful");
    let relief = |d: &DimensionScore| find(d, "gratitude").map_or(0.0, |e| -e.contribution);
    assert!(relief(&unhelpful.frustration_buildup) < 0.005);
    assert!(relief(&unhelpful.silent_abandonment_risk) < 0.001);
    assert!(!resolved);
    assert!(unhelpful.frustration_buildup.score > helpful.frustration_buildup.score);

    let (_, frustrated) = reply("I'm frustrated, how do refunds work");
    let e = assert_pushes(
        &frustrated.frustration_buildup,
        FRUSTRATION,
        "vader_negative",
    );
    assert_eq!(e.detail.as_deref(), Some("\"frustrated\""));
    assert_pushes(&frustrated.frustration_buildup, FRUSTRATION, "annoyance");
    let (_, calm) = reply("I'm not frustrated, how do refunds work");
    assert_absent(&calm.frustration_buildup, FRUSTRATION, "vader_negative");
    let annoyance = |t: &str| read_text(t).get(Head::Annoyance);
    assert!(
        annoyance("I'm frustrated, how do refunds work")
            > 2.0 * annoyance("I'm not frustrated, how do refunds work")
    );
    assert!(frustrated.frustration_buildup.score > calm.frustration_buildup.score);
}

#[test]
fn capitals_score_higher_and_show_as_shouting() {
    let text = "why is my order late again, this is ridiculous";
    let frustration = |t: &str| {
        let out = score_turns(&[(H, t), (A, "Let me check the order for you.")]);
        turn(&out, 0).layer_z.frustration_buildup.clone()
    };
    let quiet = frustration(text);
    let loud = frustration(&text.to_uppercase());
    assert!(loud.score > quiet.score, "{} > {}", loud.score, quiet.score);
    // Capitals reach frustration through the text model (its `shouting` feature raises
    // the annoyance head); the `shouting` input itself was fitted to 0 (see
    // tables::every_input_is_read_by_a_learned_turn_dimension).
    let head = |t: &str| read_text(t).get(Head::Annoyance);
    assert!(head(&text.to_uppercase()) > head(text));
    let annoyance = |d: &DimensionScore| assert_pushes(d, FRUSTRATION, "annoyance").contribution;
    assert!(
        annoyance(&loud) > annoyance(&quiet),
        "{:?} vs {:?}",
        names(&loud),
        names(&quiet)
    );
    // Short texts in capitals ("OK", "NO") are not shouting: they read as in lower case.
    for (upper, lower) in [("NO", "no"), ("OK", "ok")] {
        assert_eq!(
            frustration(upper).score,
            frustration(lower).score,
            "{upper}"
        );
    }
}

#[test]
fn thanks_after_a_failure_in_a_complaint_relieves_less() {
    let ask = "Can you book a table for two tonight?";
    let refusal = "I'm sorry, I can't help with that.";
    let booked = "Done, your table for two is booked at 8pm tonight.";
    let after = |ai, reply| {
        let out = score_turns(&[(H, ask), (A, ai), (H, reply)]);
        last_turn(&out).layer_z.clone()
    };
    for ai in [refusal, booked] {
        let thanks = after(ai, "Great, thanks a lot.");
        let complaint = after(ai, "This is useless.");
        let both = after(ai, "Great, thanks a lot. This is useless.");
        let f = |z: &undertone_core::score::LayerZ| z.frustration_buildup.score;
        // Thanks lower frustration against the same complaint without them …
        assert_relieves(&both.frustration_buildup, FRUSTRATION, "gratitude");
        assert!(
            f(&both) < f(&complaint),
            "{ai:?}: {} < {}",
            f(&both),
            f(&complaint)
        );
        // … and a complaint never lowers it against the same thanks without it.
        assert!(
            f(&both) > f(&thanks),
            "{ai:?}: {} > {}",
            f(&both),
            f(&thanks)
        );
        assert_pushes(&complaint.frustration_buildup, FRUSTRATION, "annoyance");
        assert_pushes(
            &complaint.frustration_buildup,
            FRUSTRATION,
            "vader_negative",
        );
    }
    // That the thanks should count less after a failure, when a complaint follows them,
    // no longer holds: known_gaps::sarcastic_thanks_after_a_failure_count_less.

    // Sincere thanks after a good answer, without a complaint: below the base rate.
    let z = after(booked, "Great, thanks a lot.");
    let f = &z.frustration_buildup;
    let baseline = find(f, "baseline").expect("a baseline item").contribution;
    assert!(
        f.score < baseline,
        "{} < {baseline}: {:?}",
        f.score,
        names(f)
    );
    assert_eq!(f.band, undertone_core::score::Band::Healthy);
    assert_relieves(&z.silent_abandonment_risk, ABANDONMENT, "gratitude");
}

#[test]
fn reviews_pipeline_reads_star_ratings() {
    let review = |rating: u8| {
        serde_json::json!({
            "actor_id": format!("reviewer-{rating}"),
            "content": "The app does what it says.",
            "timestamp": "2026-11-21T09:00:00Z",
            "metadata": {"rating": rating},
        })
    };
    let body = serde_json::json!({
        "deployment_id": "acme-app",
        "events": [review(1), review(5)],
    });
    let (_, out) = run(&body);
    assert_eq!(
        serde_json::to_value(out.pipeline).expect("serialises"),
        "reviews"
    );
    let one = &turn(&out, 0).layer_z.frustration_buildup;
    let five = &turn(&out, 1).layer_z.frustration_buildup;
    assert_pushes(one, FRUSTRATION, "low_rating");
    assert_absent(five, FRUSTRATION, "low_rating");
    assert!(one.score > five.score, "{} > {}", one.score, five.score);
}

#[test]
fn accepting_a_refusal_or_sympathy_is_not_over_trust() {
    let ask = "Can you refund order 5512?";
    let out = score_turns(&[
        (H, ask),
        (A, "I'm sorry, I can't issue refunds."),
        (H, "ok"),
    ]);
    let t = &last_turn(&out).layer_z.trust_calibration;
    assert_absent(t, TRUST, "acceptance_after_hedge");
    assert_eq!(t.mode, Some(TrustMode::Calibrated), "{t:?}");

    // Sympathy is not an apology for a failure: the AI-failure evidence does not call
    // it one. (That the model also gives it a lower breakdown probability than a
    // refusal does not hold: known_gaps::sympathy_reads_as_less_of_a_failure_than_a_refusal.)
    let out = score_turns(&[
        (H, "My parcel 5512 arrived broken"),
        (
            A,
            "I'm sorry to hear that. A replacement for parcel 5512 ships today.",
        ),
        (H, "great, thanks"),
    ]);
    let f = &last_turn(&out).layer_z.frustration_buildup;
    let detail = find(f, "ai_failure").and_then(|e| e.detail.clone());
    assert!(
        detail
            .as_deref()
            .is_some_and(|d| d.starts_with("AI turn breakdown")),
        "{detail:?}: {:?}",
        names(f)
    );
    assert!(out.intelligence.conversations[0].resolved);
}

#[test]
fn deferring_is_not_dismissal() {
    let out = score_turns(&[
        (H, "Should I pick the yearly or the monthly plan?"),
        (
            A,
            "The yearly plan is cheaper if you stay more than 8 months.",
        ),
        (H, "Fine, whatever you think"),
    ]);
    let t = &last_turn(&out).layer_z.trust_calibration;
    assert_absent(t, TRUST, "dismissal_without_failure");
    assert_ne!(t.mode, Some(TrustMode::UnderTrust), "{t:?}");
}

#[test]
fn thanks_taken_back_is_not_resolution() {
    let resolved = |last: &str| {
        let out = score_turns(&[
            (H, "My export to CSV crashes the app"),
            (A, "Update to version 4.2 and try the export again."),
            (H, "Thanks!"),
            (A, "Glad I could help."),
            (H, last),
        ]);
        out.intelligence.conversations[0].resolved
    };
    assert!(resolved("Perfect, that worked."));
    assert!(!resolved("But the export still fails."));
    assert!(!resolved("Actually no, it still crashes"));
}

#[test]
fn shrinking_replies_name_the_words_in_the_singular_and_plural() {
    let long = "I ordered a blue jacket three weeks ago and it still has not arrived at my flat";
    let detail = |last: &str| {
        let out = score_turns(&[
            (H, long),
            (A, "Sorry, could you give me the order number?"),
            (H, long),
            (A, "Sorry, could you give me the order number?"),
            (H, last),
        ]);
        let t = last_turn(&out);
        Dimension::ALL
            .iter()
            .flat_map(|&d| &t.layer_z.get(d).evidence)
            .find(|e| e.signal == "shrinking_replies")
            .and_then(|e| e.detail.as_deref().map(str::to_owned))
            .unwrap_or_else(|| panic!("no shrinking_replies evidence on {last:?}"))
    };
    // One word of an earlier average of 17: 6%.
    assert_eq!(detail("ok"), "1 word, 6% of this person's earlier average");
    assert_eq!(
        detail("ok fine"),
        "2 words, 12% of this person's earlier average"
    );
}
