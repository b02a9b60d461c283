//! One test per signal: a conversation where the signal's evidence appears on the human
//! turn with the documented sign, and a near miss where it does not.

use undertone_core::score::{Dimension, SessionIntelligence, TrustMode};

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
fn correction_telling_the_ai_it_got_it_wrong() {
    let (out, wrong) = after_answer("that's not what I asked", FRUSTRATION);
    let e = assert_pushes(
        &last_turn(&out).layer_z.frustration_buildup,
        FRUSTRATION,
        "correction",
    );
    assert!(
        e.detail
            .as_deref()
            .is_some_and(|d| d.contains("not what i asked")),
        "{e:?}"
    );
    let (out, right) = after_answer("that's exactly what I asked, thanks", FRUSTRATION);
    assert_absent(
        &last_turn(&out).layer_z.frustration_buildup,
        FRUSTRATION,
        "correction",
    );
    assert!(wrong > right, "{wrong} > {right}");
}

#[test]
fn repetition_same_request_rephrased_two_turns_later() {
    let first = "I need to change the shipping address on my order 5512";
    let answer = "You can change it in your account under Orders.";
    let out = score_turns(&[
        (H, first),
        (A, answer),
        (H, "I want to change the shipping address for order 5512"),
    ]);
    let e = assert_pushes(
        &turn(&out, 2).layer_z.frustration_buildup,
        FRUSTRATION,
        "repetition",
    );
    assert_eq!(e.detail.as_deref(), Some("repeats the request of event 0"));

    let out = score_turns(&[
        (H, first),
        (A, answer),
        (H, "How long does delivery to Leeds usually take?"),
    ]);
    assert_absent(
        &turn(&out, 2).layer_z.frustration_buildup,
        FRUSTRATION,
        "repetition",
    );
    // The first turn repeats nothing, whatever follows.
    assert_absent(
        &turn(&out, 0).layer_z.frustration_buildup,
        FRUSTRATION,
        "repetition",
    );
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
    assert!(detail.contains("(event 1)"), "{detail}");
    assert!(detail.contains("can't"), "{detail}");
    assert_pushes(&z.silent_abandonment_risk, ABANDONMENT, "ai_failure");
    let failed = z.frustration_buildup.score;

    let out = score_turns(&[(H, ASK), (A, ANSWER), (H, reply)]);
    let z = &last_turn(&out).layer_z;
    assert_absent(&z.frustration_buildup, FRUSTRATION, "ai_failure");
    assert_absent(&z.silent_abandonment_risk, ABANDONMENT, "ai_failure");
    assert!(failed > z.frustration_buildup.score);
}

#[test]
fn gratitude_and_resolution_relieve_frustration() {
    let angry = "This is ridiculous!!! My export keeps failing and you are useless";
    let fix = "Set the export encoding to UTF-8 in the export dialog.";
    for (reply, signal) in [("ok, that worked", "resolution"), ("Thanks.", "gratitude")] {
        let out = score_turns(&[(H, angry), (A, fix), (H, reply)]);
        let before = turn(&out, 0).layer_z.frustration_buildup.score;
        let z = &turn(&out, 2).layer_z;
        assert_relieves(&z.frustration_buildup, FRUSTRATION, signal);
        assert!(
            z.frustration_buildup.score < before,
            "{reply:?}: {} < {before}",
            z.frustration_buildup.score
        );
        // Thanks or "that worked" also lowers the risk that the person leaves silently.
        assert_relieves(&z.silent_abandonment_risk, ABANDONMENT, "resolution");
        assert!(out.intelligence.conversations[0].resolved, "{reply:?}");
    }

    let out = score_turns(&[(H, angry), (A, fix), (H, "and what about the PDF export?")]);
    let z = &turn(&out, 2).layer_z;
    for signal in ["gratitude", "resolution", "positive_affect"] {
        assert_absent(&z.frustration_buildup, FRUSTRATION, signal);
    }
    assert_absent(&z.silent_abandonment_risk, ABANDONMENT, "resolution");
    assert!(!out.intelligence.conversations[0].resolved);
}

#[test]
fn comprehension_trouble_on_comprehension_gap() {
    let (out, lost) = after_answer("what do you mean?", COMPREHENSION);
    let e = assert_pushes(
        &last_turn(&out).layer_z.comprehension_gap,
        COMPREHENSION,
        "comprehension_trouble",
    );
    assert!(
        e.detail
            .as_deref()
            .is_some_and(|d| d.contains("what do you mean")),
        "{e:?}"
    );
    let (out, clear) = after_answer("how long does the trace usually take?", COMPREHENSION);
    assert_absent(
        &last_turn(&out).layer_z.comprehension_gap,
        COMPREHENSION,
        "comprehension_trouble",
    );
    assert!(lost > clear, "{lost} > {clear}");
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
    assert_eq!(accepted.mode, Some(TrustMode::OverTrust), "{accepted:?}");

    // The same words after a confident answer are calibrated.
    let confident = trust("The admin console uses port 8443.", "ok, I'll go with that");
    assert_absent(&confident, TRUST, "acceptance_after_hedge");
    assert_eq!(confident.mode, Some(TrustMode::Calibrated));
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
    let open = conversation(&[(H, question)]);
    let e = assert_pushes(
        &open.layer_z.silent_abandonment_risk,
        ABANDONMENT,
        "unanswered_last_question",
    );
    assert_eq!(e.event_index, 2);
    assert_eq!(e.conversation_id.as_deref(), Some("c-1"));
    assert!(!open.resolved);

    let answered = conversation(&[(H, question), (A, "It was left with your neighbour at 12.")]);
    assert_absent(
        &answered.layer_z.silent_abandonment_risk,
        ABANDONMENT,
        "unanswered_last_question",
    );
    let statement = conversation(&[(H, "It was not left at my door")]);
    assert_absent(
        &statement.layer_z.silent_abandonment_risk,
        ABANDONMENT,
        "unanswered_last_question",
    );
    assert!(
        open.layer_z.silent_abandonment_risk.score > answered.layer_z.silent_abandonment_risk.score
    );
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
    let (resolved, z) = reply("this is helpful");
    assert_relieves(&z.silent_abandonment_risk, ABANDONMENT, "resolution");
    assert!(resolved);
    let (resolved, z) = reply("this is not helpful");
    assert_absent(&z.frustration_buildup, FRUSTRATION, "resolution");
    assert_absent(&z.silent_abandonment_risk, ABANDONMENT, "resolution");
    assert!(!resolved);

    let (_, z) = reply("I'm frustrated, how do refunds work");
    assert_pushes(&z.frustration_buildup, FRUSTRATION, "frustration_markers");
    let (_, z) = reply("I'm not frustrated, how do refunds work");
    assert_absent(&z.frustration_buildup, FRUSTRATION, "frustration_markers");
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
    assert_absent(&quiet, FRUSTRATION, "shouting");
    let e = assert_pushes(&loud, FRUSTRATION, "shouting");
    assert!(
        e.detail.as_deref().is_some_and(|d| d.contains("capitals")),
        "{e:?}"
    );
    assert!(loud.score > quiet.score, "{} > {}", loud.score, quiet.score);
    // Short texts in capitals ("OK", "NO") are not shouting.
    assert_absent(&frustration("NO"), FRUSTRATION, "shouting");
}

#[test]
fn thanks_after_a_failure_in_a_complaint_relieves_less() {
    let reply = "Great, thanks a lot. This is useless.";
    let ask = "Can you book a table for two tonight?";
    let after = |ai| {
        let out = score_turns(&[(H, ask), (A, ai), (H, reply)]);
        last_turn(&out).layer_z.clone()
    };
    let failed = after("I'm sorry, I can't help with that.");
    let served = after("Done, your table for two is booked at 8pm tonight.");
    // Within one turn the contributions share one scale, so the share of relief against
    // the complaint compares how much the thanks counted.
    let share = |z: &undertone_core::score::LayerZ| {
        let f = &z.frustration_buildup;
        let thanks = find(f, "gratitude").map_or(0.0, |e| -e.contribution);
        let complaint = assert_pushes(f, FRUSTRATION, "frustration_markers").contribution;
        thanks / complaint
    };
    assert_relieves(&failed.frustration_buildup, FRUSTRATION, "gratitude");
    assert_relieves(&served.frustration_buildup, FRUSTRATION, "gratitude");
    assert!(
        share(&failed) < share(&served),
        "sarcastic thanks {:?} vs sincere {:?}",
        names(&failed.frustration_buildup),
        names(&served.frustration_buildup)
    );
    assert!(failed.frustration_buildup.score > served.frustration_buildup.score);
    // On abandonment the thanks count less after a failure, too.
    let relief = |z: &undertone_core::score::LayerZ| {
        find(&z.silent_abandonment_risk, "resolution").map_or(0.0, |e| -e.contribution)
    };
    assert!(relief(&failed) < relief(&served));

    // Sincere thanks after a good answer, without a complaint: no frustration at all.
    let out = score_turns(&[
        (H, ask),
        (A, "Done, your table for two is booked at 8pm tonight."),
        (H, "Great, thanks a lot."),
    ]);
    let z = &last_turn(&out).layer_z;
    assert_eq!(
        z.frustration_buildup.score,
        0.0,
        "{:?}",
        names(&z.frustration_buildup)
    );
    assert!(relief(z) >= relief(&served));
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

    // Sympathy is not an apology for a failure.
    let out = score_turns(&[
        (H, "My parcel 5512 arrived broken"),
        (
            A,
            "I'm sorry to hear that. A replacement for parcel 5512 ships today.",
        ),
        (H, "great, thanks"),
    ]);
    let f = &last_turn(&out).layer_z.frustration_buildup;
    assert!(find(f, "ai_failure").is_none(), "{:?}", names(f));
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
