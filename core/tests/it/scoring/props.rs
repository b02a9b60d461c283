//! Properties of every scoring result, on random conversations built from realistic
//! phrases and random text.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use proptest::prelude::*;
use serde_json::{Value, json};
use undertone_core::model::TABLES;
use undertone_core::model::tables::LinearDim;
use undertone_core::score::inputs::Input;
use undertone_core::score::layer_z::MAX_EVIDENCE;
use undertone_core::score::{
    Band, Dimension, DimensionScore, LayerZ, SessionIntelligence, TrustMode, score,
};
use undertone_core::validate::{self, Options};

use super::Who::{A, H};
use super::run;

/// Phrases people and bots really write: neutral, questions, grateful, hostile, capitals, emoji.
const POOL: [&str; 40] = [
    "Hi, I've been charged twice for my October invoice. Can you refund one of them?",
    "Where is my order 5512?",
    "How do I reset my password?",
    "what do you mean?",
    "?",
    "ok",
    "ok, I'll go with that",
    "Thanks, that worked!",
    "Thank you so much, you saved my day 🙏",
    "That makes sense now, thanks.",
    "that's not what I asked",
    "like I said, the parcel is missing",
    "I restarted it and it still doesn't work",
    "This is ridiculous, I have asked three times already!!!",
    "WHY IS THIS STILL BROKEN",
    "you are useless",
    "can I talk to a human",
    "Please just do it for me",
    "let me try first and you check it",
    "are you sure? source?",
    "I give up, bye",
    "this is not helpful",
    "I'm not frustrated, just curious",
    "great, thanks a lot 🙄",
    "😡😡😡",
    "Could you explain why the denominator stays the same?",
    "I'm sorry, I can't help with that.",
    "I think it might be 8443, but I'm not certain.",
    "I'll connect you with a human agent now.",
    "Your October invoice total is £49.99 and is available under Account > Billing.",
    "Payments can take 3–5 working days to appear on your statement.",
    "Glad I could help! Is there anything else?",
    "Please see our FAQ for more details.",
    "Restart the router and wait two minutes.",
    "I don't know.",
    "Here is the corrected function: fn add(a: i32, b: i32) -> i32 { a + b }",
    "Sure! Tell me about your experience and I can help you draft it.",
    "¿Dónde está mi pedido? Llevo una semana esperando.",
    "I've been waiting for 20 minutes, this is a waste of time",
    "Great, that fixed it. Have a nice day :)",
];

/// All-caps insults that saturate the frustration arc.
pub const SHOUT: &str = "YOU ARE A STUPID USELESS BOT, THIS IS RIDICULOUS, STILL NOT WORKING, TALK TO A HUMAN NOW!!! 😡😡";

/// The turn appended by the frustration property.
pub const HOSTILE: &str = "This is useless, you are a stupid bot and I am furious!!!";

/// A neutral turn of about the same length, appended in its place for comparison.
pub const NEUTRAL: &str = "Please tell me the opening hours of the Leeds branch on Saturday.";

/// One event: (human?, content, conversation choice, human actor, seconds after the previous event, rating).
type Spec = (bool, String, u8, u8, u32, Option<u8>);

fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0..POOL.len()).prop_map(|i| POOL[i].to_owned()),
        1 => "\\PC{1,60}".prop_filter("non-blank", |s| !s.trim().is_empty()),
        1 => "[a-zA-Z ,.!?']{1,80}".prop_filter("non-blank", |s| !s.trim().is_empty()),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        any::<bool>(),
        content(),
        0..3u8,
        0..2u8,
        0..3_600u32,
        prop::option::weighted(0.15, 1..=5u8),
    )
}

fn specs() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(spec(), 1..=12)
}

fn pipeline() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("auto"), Just("support"), Just("reviews")]
}

/// Events for the specs: metadata.role user/assistant, conversation c-1, c-2 or implicit.
fn events(specs: &[Spec], single_conversation: bool) -> Vec<Value> {
    let mut t = 0i64;
    specs
        .iter()
        .map(|(human, content, conv, actor, gap, rating)| {
            t += i64::from(*gap);
            let mut metadata = json!({"role": if *human { "user" } else { "assistant" }});
            if let Some(r) = rating {
                metadata["rating"] = json!(r);
            }
            let mut e = json!({
                "actor_id": if *human { format!("cust-{actor}") } else { "acme-bot".to_owned() },
                "content": content,
                "timestamp": timestamp(t),
                "metadata": metadata,
            });
            if single_conversation {
                e["conversation_id"] = json!("c-1");
            } else if *conv < 2 {
                e["conversation_id"] = json!(format!("c-{conv}"));
            }
            e
        })
        .collect()
}

fn timestamp(secs: i64) -> String {
    let t = chrono::DateTime::from_timestamp(1_795_000_000 + secs, 0).expect("in range");
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn body(events: Vec<Value>, pipeline: &str) -> Value {
    json!({"deployment_id": "acme-bot", "pipeline": pipeline, "events": events})
}

/// Every dimension result of the output, with where it sits.
fn all_scores(out: &SessionIntelligence) -> Vec<(String, Dimension, &DimensionScore)> {
    let i = &out.intelligence;
    let mut layers: Vec<(String, &LayerZ)> = vec![("request".to_owned(), &i.layer_z)];
    for c in &i.conversations {
        layers.push((format!("conversation {}", c.conversation_id), &c.layer_z));
        for t in &c.turns {
            layers.push((format!("turn {}", t.event_index), &t.layer_z));
        }
    }
    layers
        .into_iter()
        .flat_map(|(at, z)| {
            Dimension::ALL
                .into_iter()
                .map(move |d| (at.clone(), d, z.get(d)))
        })
        .collect()
}

fn in01(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

/// How far a learned turn dimension's evidence may fall short of its score: the evidence
/// list drops items that round to 0.0000 (`layer_z::sort_evidence`), each under 0.00005,
/// and at most one per part the dimension can have (an input it reads, or the carried
/// arc) that is not in the list. 0 when every possible part is listed.
/// The most parts a dimension set by design adds on one turn (trust calibration: a
/// baseline, five of one kind of trust and its carried level).
const SET_PARTS_MAX: f64 = 8.0;

pub fn dropped_bound(d: Dimension, s: &DimensionScore) -> f64 {
    let table = LinearDim::read(&TABLES, d.as_str(), "turn", &Input::NAMES).expect("learned");
    let parts = table.weights.iter().filter(|w| **w != 0.0).count() + 1;
    let listed = s.evidence.iter().filter(|e| e.signal != "baseline").count();
    5e-5 * parts.saturating_sub(listed) as f64
}

/// Scores `body`, which must be valid.
fn scored(body: &Value) -> SessionIntelligence {
    run(body).1
}

static POOLS: LazyLock<[rayon::ThreadPool; 2]> = LazyLock::new(|| {
    [1, 4].map(|n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .expect("thread pool")
    })
});

proptest! {
    // No regression files: this crate keeps its test data under tests/ folders it owns.
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_value_is_bounded_and_banded(specs in specs(), pipeline in pipeline()) {
        let out = scored(&body(events(&specs, false), pipeline));
        for (at, d, s) in all_scores(&out) {
            let name = format!("{at} {}", d.as_str());
            prop_assert!(in01(s.score), "{name}: score {}", s.score);
            prop_assert!(in01(s.risk), "{name}: risk {}", s.risk);
            prop_assert!(in01(s.confidence), "{name}: confidence {}", s.confidence);
            prop_assert!((s.risk - d.risk(s.score)).abs() < 1e-12, "{name}: risk {} of score {}", s.risk, s.score);
            match d {
                Dimension::TrustCalibration => prop_assert!((s.risk - (1.0 - s.score)).abs() < 1e-12),
                _ => prop_assert_eq!(s.risk, s.score),
            }
            prop_assert_eq!(s.band, Band::of_risk(s.risk), "{}", name);
            prop_assert_eq!(s.direction, d.direction(), "{}", name);
            prop_assert_eq!(s.mode.is_some(), d == Dimension::TrustCalibration, "{}: mode {:?}", name, s.mode);
            prop_assert!(s.evidence.len() <= MAX_EVIDENCE, "{name}: {} evidence items", s.evidence.len());
            for w in s.evidence.windows(2) {
                prop_assert!(w[0].contribution.abs() >= w[1].contribution.abs(), "{name}: evidence not strongest first");
            }
            for e in &s.evidence {
                prop_assert!(e.contribution.is_finite() && e.contribution != 0.0, "{name}: {e:?}");
                prop_assert!(!e.signal.is_empty());
            }
        }
    }

    #[test]
    fn a_dimension_off_healthy_names_its_evidence(specs in specs(), pipeline in pipeline()) {
        let out = scored(&body(events(&specs, false), pipeline));
        for (at, d, s) in all_scores(&out) {
            if s.band != Band::Healthy {
                prop_assert!(!s.evidence.is_empty(), "{at} {}: {:?} band (score {}) without evidence", d.as_str(), s.band, s.score);
            }
        }
    }

    #[test]
    fn turn_evidence_adds_up_to_the_risk(specs in specs(), pipeline in pipeline()) {
        // docs/scoring.md: on a turn, the evidence adds up to the risk (the score; for
        // trust calibration 1 − score), however many parts moved it: past five, the
        // last item holds the smaller ones together. Only items that round to 0 are
        // left out, hence the bound.
        let out = scored(&body(events(&specs, false), pipeline));
        for (at, d, s) in all_scores(&out) {
            if !at.starts_with("turn") {
                continue;
            }
            let learned = matches!(d, Dimension::FrustrationBuildup | Dimension::ComprehensionGap | Dimension::SilentAbandonmentRisk);
            let sum: f64 = s.evidence.iter().map(|e| e.contribution).sum();
            let bound = 1e-6 + if learned { dropped_bound(d, s) } else { SET_PARTS_MAX * 5e-5 };
            prop_assert!((sum - s.risk).abs() < bound, "{at} {}: evidence sums to {sum}, risk {} (bound {bound}): {:?}", d.as_str(), s.risk, s.evidence);
            prop_assert!(s.evidence.len() <= MAX_EVIDENCE, "{at} {}: {:?}", d.as_str(), s.evidence);
            let others = s.evidence.iter().filter(|e| e.signal == "other_signals").count();
            prop_assert!(others <= 1 && (others == 0 || s.evidence.len() == MAX_EVIDENCE), "{at} {}: {:?}", d.as_str(), s.evidence);
            if learned || d == Dimension::TrustCalibration {
                prop_assert!(s.evidence.iter().any(|e| e.signal == "baseline"), "{at} {}: no baseline item: {:?}", d.as_str(), s.evidence);
            }
        }
    }

    #[test]
    fn bands_are_monotone_in_risk(a in 0.0..=1.0f64, b in 0.0..=1.0f64) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(Band::of_risk(lo) <= Band::of_risk(hi), "{lo} {hi}");
    }

    #[test]
    fn bands_of_a_result_are_monotone_in_risk(specs in specs(), pipeline in pipeline()) {
        let out = scored(&body(events(&specs, false), pipeline));
        let mut pairs: Vec<(f64, Band)> = all_scores(&out).iter().map(|(_, _, s)| (s.risk, s.band)).collect();
        pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
        for w in pairs.windows(2) {
            prop_assert!(w[0].1 <= w[1].1, "risk {} is {:?} but risk {} is {:?}", w[0].0, w[0].1, w[1].0, w[1].1);
        }
    }

    #[test]
    fn evidence_points_at_scored_human_turns(specs in specs(), pipeline in pipeline()) {
        let out = scored(&body(events(&specs, false), pipeline));
        let i = &out.intelligence;
        let ids: BTreeSet<&str> = i.conversations.iter().map(|c| c.conversation_id.as_ref()).collect();
        for e in Dimension::ALL.iter().flat_map(|&d| &i.layer_z.get(d).evidence) {
            let c = e.conversation_id.as_deref();
            prop_assert!(c.is_some_and(|c| ids.contains(c)), "request evidence {e:?}");
        }
        for c in &i.conversations {
            let human: BTreeSet<usize> = c.turns.iter().map(|t| t.event_index).collect();
            for e in Dimension::ALL.iter().flat_map(|&d| &c.layer_z.get(d).evidence) {
                prop_assert_eq!(e.conversation_id.as_deref(), Some(c.conversation_id.as_ref()));
                prop_assert!(human.contains(&e.event_index), "conversation evidence {e:?}");
            }
            for t in &c.turns {
                prop_assert_eq!(&t.conversation_id, &c.conversation_id);
                for e in Dimension::ALL.iter().flat_map(|&d| &t.layer_z.get(d).evidence) {
                    prop_assert_eq!(e.event_index, t.event_index, "turn evidence {:?}", e);
                    prop_assert!(e.conversation_id.is_none(), "turn evidence {e:?}");
                }
            }
        }
    }

    #[test]
    fn every_human_event_is_one_turn(specs in specs(), pipeline in pipeline()) {
        let (req, out) = run(&body(events(&specs, false), pipeline));
        let i = &out.intelligence;
        let human: Vec<usize> = specs.iter().enumerate().filter(|(_, s)| s.0).map(|(k, _)| k).collect();
        let mut turns: Vec<usize> = i.conversations.iter().flat_map(|c| &c.turns).map(|t| t.event_index).collect();
        turns.sort_unstable();
        prop_assert_eq!(&turns, &human, "turns are exactly the human events, once each");
        prop_assert_eq!(i.event_count, req.events.len());
        prop_assert_eq!(i.human_turn_count, human.len());
        prop_assert_eq!(i.conversation_count, i.conversations.len());
        for c in &i.conversations {
            prop_assert_eq!(c.human_turn_count, c.turns.len());
            prop_assert!(c.turns.windows(2).all(|w| w[0].timestamp <= w[1].timestamp), "turns in conversation order");
            for t in &c.turns {
                prop_assert_eq!(&*t.actor_id, req.events[t.event_index].actor_id.as_str());
                prop_assert_eq!(t.timestamp, req.events[t.event_index].timestamp);
            }
            let listed = i.without_human_turns.iter().any(|w| **w == *c.conversation_id);
            prop_assert_eq!(listed, c.turns.is_empty(), "{}", c.conversation_id);
        }
    }

    #[test]
    fn a_hostile_last_turn_never_lowers_frustration(specs in specs()) {
        // The same conversation ended by a hostile turn or by a neutral one of about the
        // same length. (The stronger forms, "the hostile turn is broken" and "appending
        // it never lowers the conversation's frustration", do not hold under scorer 2.0:
        // see known_gaps.)
        let mut events = events(&specs, true);
        let without = scored(&body(events.clone(), "support"));
        let secs = specs.iter().map(|s| i64::from(s.4)).sum::<i64>() + 60;
        let last = |content: &str| json!({
            "conversation_id": "c-1",
            "actor_id": "cust-0",
            "content": content,
            "timestamp": timestamp(secs),
            "metadata": {"role": "user"},
        });
        let mut neutral_events = events.clone();
        neutral_events.push(last(NEUTRAL));
        events.push(last(HOSTILE));
        let with = scored(&body(events, "support"));
        let neutral = scored(&body(neutral_events, "support"));
        let conv = |out: &SessionIntelligence| {
            out.intelligence.conversations.iter().find(|c| *c.conversation_id == *"c-1").cloned().expect("c-1")
        };
        let (a, b, n) = (conv(&without), conv(&with), conv(&neutral));
        let hostile = b.turns.last().expect("the hostile turn");
        let calm = n.turns.last().expect("the neutral turn");
        prop_assert_eq!(hostile.event_index, specs.len());
        let (h, c) = (&hostile.layer_z.frustration_buildup, &calm.layer_z.frustration_buildup);
        prop_assert!(h.score > c.score, "hostile turn {} not above neutral turn {}: {:?} vs {:?}", h.score, c.score, h.evidence, c.evidence);
        // Annoyance moved it: its own item, or one of the smaller signals held together.
        let annoyed = h.evidence.iter().any(|e| {
            (e.signal == "annoyance" && e.contribution > 0.0)
                || (e.signal == "other_signals"
                    && e.detail.as_deref().is_some_and(|d| d.contains("annoyance")))
        });
        prop_assert!(annoyed, "{:?}", h.evidence);
        // Off the first turn (whose fitted weight pulls every opening down), a hostile
        // turn is never healthy.
        if !a.turns.is_empty() {
            prop_assert!(h.band >= Band::Watch, "hostile turn: {h:?}");
        }
        let (fb, fn_) = (b.layer_z.frustration_buildup.score, n.layer_z.frustration_buildup.score);
        prop_assert!(fb >= fn_, "conversation frustration {fb} with the hostile turn below {fn_} with the neutral one");
        // The earlier turns do not depend on what follows them.
        prop_assert_eq!(a.turns.len() + 1, b.turns.len());
        for (x, y) in a.turns.iter().zip(&b.turns) {
            prop_assert_eq!(&x.layer_z.frustration_buildup, &y.layer_z.frustration_buildup);
        }
    }

    #[test]
    fn scoring_is_deterministic_across_runs_and_threads(specs in specs(), pipeline in pipeline()) {
        let body = body(events(&specs, false), pipeline);
        let req = validate::ingest_request(&body, &Options::default()).expect("valid");
        let once = serde_json::to_string(&score(&req)).expect("serialises");
        let again = serde_json::to_string(&score(&req)).expect("serialises");
        prop_assert_eq!(&once, &again);
        let [one, four] = &*POOLS;
        let on_one = one.install(|| serde_json::to_string(&score(&req)).expect("serialises"));
        let on_four = four.install(|| serde_json::to_string(&score(&req)).expect("serialises"));
        prop_assert_eq!(&on_one, &once);
        prop_assert_eq!(&on_four, &once);
    }

    #[test]
    fn trust_mode_is_named_outside_the_healthy_band(specs in specs(), pipeline in pipeline()) {
        let out = scored(&body(events(&specs, false), pipeline));
        for (at, d, s) in all_scores(&out) {
            if d == Dimension::TrustCalibration && at.starts_with("turn") {
                // A mode says which way trust is off: only in the watch or broken band.
                let mode = s.mode.expect("trust has a mode");
                prop_assert_eq!(mode != TrustMode::Calibrated, s.band != Band::Healthy, "{}: {:?} with risk {}", at, mode, s.risk);
            }
        }
    }
}

/// The minimal case behind the ignored property above: the under-trust penalty of the
/// first turn is carried at 50% into "It is 5512.", which is then in the watch band with
/// no evidence (frustration and comprehension carry as `carried_*` evidence; trust does not).
#[test]
fn trust_penalty_carried_without_evidence() {
    use super::Who::{A, H};
    let out = super::score_turns(&[
        (H, "you are useless. I want to talk to a human"),
        (A, "Sure, what is your order number?"),
        (H, "It is 5512."),
    ]);
    let t = &super::turn(&out, 2).layer_z.trust_calibration;
    assert!(
        t.band == Band::Healthy || !t.evidence.is_empty(),
        "{:?} band (score {}) without evidence",
        t.band,
        t.score
    );
}

/// After three turns of all-caps insults the frustration level is saturated. A new,
/// clearly hostile turn still reads broken and well above a neutral turn after the same
/// arc. (It no longer keeps the level: 0.9954 → 0.8260 on the turn, 0.9954 → 0.9107 on
/// the conversation; see known_gaps::hostile_turn_after_a_saturated_arc_keeps_frustration.)
#[test]
fn hostile_turn_after_a_saturated_arc_does_not_lower_frustration() {
    use super::Who::H;
    let shout = SHOUT;
    let with = super::score_turns(&[(H, shout), (H, shout), (H, shout), (H, HOSTILE)]);
    let calm = super::score_turns(&[(H, shout), (H, shout), (H, shout), (H, NEUTRAL)]);
    let last =
        |out: &SessionIntelligence| super::last_turn(out).layer_z.frustration_buildup.clone();
    let conv = |out: &SessionIntelligence| {
        out.intelligence.conversations[0]
            .layer_z
            .frustration_buildup
            .score
    };
    assert_eq!(last(&with).band, Band::Broken, "{:?}", last(&with));
    assert!(
        last(&with).score > last(&calm).score + 0.1,
        "{} > {}",
        last(&with).score,
        last(&calm).score
    );
    assert!(
        conv(&with) > conv(&calm),
        "{} > {}",
        conv(&with),
        conv(&calm)
    );
    // The arc carries into the neutral turn when the fitted carry is not 0.
    let t = &*TABLES;
    let carries = t
        .value("frustration_buildup", "turn", "carry_rate")
        .unwrap()
        * t.value("frustration_buildup", "turn", "carry_weight")
            .unwrap()
        > 0.0;
    assert_eq!(
        super::find(&last(&calm), "carried_frustration").is_some_and(|e| e.contribution > 0.0),
        carries,
        "{:?}",
        super::names(&last(&calm))
    );
}

/// Two cases where 1.x evidence did not add up to the score (relief counted inside the
/// carried value and again on its own; relief at half in the level, at full in the
/// evidence). Under 2.0 the items are a baseline plus parts scaled onto the score, so
/// they add up, less the items too small to print (see [`dropped_bound`]).
#[test]
fn relief_is_counted_once_in_evidence() {
    use super::Who::{A, H};
    let sum = |out: &SessionIntelligence, at: usize| {
        let f = &super::turn(out, at).layer_z.frustration_buildup;
        assert!(f.evidence.len() < MAX_EVIDENCE, "{:?}", super::names(f));
        (
            f.evidence.iter().map(|e| e.contribution).sum::<f64>(),
            f.score,
            1e-6 + dropped_bound(Dimension::FrustrationBuildup, f),
        )
    };
    let out = super::score_turns(&[(H, "that's not what I asked"), (H, "L?")]);
    let (total, score, bound) = sum(&out, 1);
    assert!(
        (total - score).abs() < bound,
        "evidence {total}, score {score}"
    );
    let out = super::score_turns(&[
        (H, "Can you book a table for two tonight?"),
        (A, "Done, your table for two is booked at 8pm tonight."),
        (H, "Great, thanks a lot. This is useless."),
    ]);
    let (total, score, bound) = sum(&out, 2);
    assert!(
        (total - score).abs() < bound,
        "evidence {total}, score {score}"
    );
    // The same on every learned dimension of each turn of a longer conversation; where
    // nothing can have been dropped, exactly.
    let out = super::score_turns(&[
        (H, "My router keeps dropping the connection"),
        (A, "Restart the router and wait two minutes."),
        (H, "I restarted it and it still doesn't work"),
        (A, "I'm sorry, I can't help with that."),
        (H, "forget it"),
    ]);
    for t in &out.intelligence.conversations[0].turns {
        for d in [
            Dimension::FrustrationBuildup,
            Dimension::ComprehensionGap,
            Dimension::SilentAbandonmentRisk,
        ] {
            let s = t.layer_z.get(d);
            let total: f64 = s.evidence.iter().map(|e| e.contribution).sum();
            let bound = 1e-6 + dropped_bound(d, s);
            assert!(
                (total - s.score).abs() < bound,
                "turn {} {}: {total} vs {}",
                t.event_index,
                d.as_str(),
                s.score
            );
        }
    }
}

/// Many conversations in one request, so that the rayon pools really split the work.
#[test]
fn many_conversations_score_identically_on_one_and_four_threads() {
    let mut events = Vec::new();
    for c in 0..300usize {
        for k in 0..4usize {
            let human = k % 2 == 0;
            events.push(json!({
                "conversation_id": format!("c-{c}"),
                "actor_id": if human { format!("cust-{}", c % 17) } else { "acme-bot".to_owned() },
                "content": POOL[(c * 7 + k * 13) % POOL.len()],
                "timestamp": timestamp((c * 3_600 + k * 30) as i64),
                "metadata": {"role": if human { "user" } else { "assistant" }},
            }));
        }
    }
    let req =
        validate::ingest_request(&body(events, "support"), &Options::default()).expect("valid");
    let [one, four] = &*POOLS;
    let a = one.install(|| serde_json::to_string(&score(&req)).expect("serialises"));
    let b = four.install(|| serde_json::to_string(&score(&req)).expect("serialises"));
    assert_eq!(a, b);
    assert!(a.contains("\"conversation_id\":\"c-299\""));
}

#[test]
fn a_request_without_a_human_turn_says_nothing_was_scored() {
    // Every event reads as the AI's: one by its actor id (the deployment's), one by
    // its prefix. Nothing is scored, and the findings say so instead of calling the
    // deployment healthy and a baseline.
    let body = json!({"deployment_id": "acme-bot", "events": [
        {"actor_id": "acme-bot", "content": "Hello! How can I help?", "timestamp": "2026-11-21T09:00:00Z"},
        {"actor_id": "ai:helper", "content": "Anything else?", "timestamp": "2026-11-21T09:00:05Z"},
    ]});
    let (_, out) = run(&body);
    let i = &out.intelligence;
    assert_eq!((i.human_turn_count, i.conversation_count), (0, 2));
    assert_eq!(
        i.key_finding,
        "No human turn to score: the 2 conversations hold AI turns only."
    );
    assert!(
        i.plain_summary.starts_with(
            "Undertone found no human turn to score in the 2 conversations of deployment \
             acme-bot: every event reads as an AI turn."
        ),
        "{}",
        i.plain_summary
    );
    assert!(
        i.recommendation.contains("metadata.role"),
        "{}",
        i.recommendation
    );
    assert!(
        i.recommendation.contains("(acme-bot)"),
        "{}",
        i.recommendation
    );
    assert!(!i.falsifiable);
    assert_eq!(i.prediction, None);
    assert_eq!(i.plain_recommendations, vec![i.recommendation.clone()]);
    // One human turn is enough for the usual findings.
    let mut body = body;
    body["events"][0]["actor_id"] = json!("cust-1");
    let (_, out) = run(&body);
    assert_eq!(out.intelligence.human_turn_count, 1);
    assert!(
        out.intelligence
            .plain_summary
            .starts_with("Undertone scored 1 human turn in 1 conversation"),
        "{}",
        out.intelligence.plain_summary
    );
}

#[test]
fn a_dimension_off_healthy_on_too_little_evidence_is_named_not_passed_over() {
    // One person asking the AI to do their homework: dependency reads "watch" on one
    // conversation, too little to be a concern, and the summary once said "No
    // dimension is in the watch or broken band" beside that very number.
    let body = super::conversation(&[
        (
            H,
            "Write my essay on the causes of World War I. 1000 words.",
        ),
        (
            A,
            "I can help you plan it. What do you already know about the alliances?",
        ),
        (
            H,
            "I don't want to learn this, just write the whole thing for me. You do it, I'll hand it in as is.",
        ),
    ]);
    let (_, out) = run(&body);
    let i = &out.intelligence;
    let dep = &i.layer_z.dependency_drift;
    assert_ne!(dep.band, Band::Healthy, "{dep:?}");
    assert!(
        !i.plain_summary.contains("No dimension is in the watch"),
        "{}",
        i.plain_summary
    );
    let said = format!(
        "Dependency drift reads {:.2} ({}) at confidence {:.2}: too little evidence",
        dep.score,
        dep.band.as_str(),
        dep.confidence
    );
    assert!(i.plain_summary.contains(&said), "{}", i.plain_summary);
    assert!(
        i.key_finding
            .starts_with("All dimensions with enough evidence behind them are healthy"),
        "{}",
        i.key_finding
    );
    assert!(
        i.recommendation
            .contains("before acting on dependency drift"),
        "{}",
        i.recommendation
    );
}

#[test]
fn one_fix_is_recommended_once_whichever_dimensions_call_for_it() {
    // Confusion drives both comprehension and frustration: one recommendation.
    let body = super::conversation(&[
        (H, "How do I add fractions with different denominators?"),
        (
            A,
            "Find the least common multiple of the denominators, convert, then add the numerators.",
        ),
        (
            H,
            "I don't understand, what do you mean by least common multiple??",
        ),
        (
            A,
            "The LCM is the smallest number both denominators divide into.",
        ),
        (H, "I still don't understand what you mean. What??"),
    ]);
    let (_, out) = run(&body);
    let recs = &out.intelligence.plain_recommendations;
    let actions: Vec<&str> = recs
        .iter()
        .map(|r| r.split(" — ").next().unwrap_or(r))
        .collect();
    let mut unique = actions.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), actions.len(), "{recs:#?}");
    assert!(
        recs.iter().all(|r| r.contains(" — seen most strongly in ")),
        "{recs:#?}"
    );
}

#[test]
fn the_summary_says_which_turns_the_text_model_cannot_read() {
    // Two of three human turns in Chinese: the summary says what their scores rest on.
    let body = super::conversation(&[
        (H, "订单在哪里？"),
        (A, "It ships today."),
        (H, "还没到，我等了三天了！"),
        (A, "Sorry, it ships today."),
        (H, "Thanks, that helps."),
    ]);
    let (_, out) = run(&body);
    let said = "2 of the 3 human turns are written mostly outside the Latin alphabet: the \
                text model and lexicons read English (the phrase lists also some Chinese \
                and Japanese), so they are scored mostly on their context (repetition, AI \
                failures, punctuation, timing) and may read calmer than they are.";
    assert!(
        out.intelligence.plain_summary.contains(said),
        "{}",
        out.intelligence.plain_summary
    );
    // All of them, in the singular.
    let (_, out) = run(&super::conversation(&[
        (H, "Где мой заказ?"),
        (A, "It ships today."),
    ]));
    assert!(
        out.intelligence
            .plain_summary
            .contains("The one human turn is written mostly outside the Latin alphabet"),
        "{}",
        out.intelligence.plain_summary
    );
    // English, and Latin-script languages, are not named here.
    for text in ["Where is my order?", "¿Dónde está mi pedido?"] {
        let (_, out) = run(&super::conversation(&[(H, text), (A, "It ships today.")]));
        assert!(
            !out.intelligence.plain_summary.contains("Latin alphabet"),
            "{}",
            out.intelligence.plain_summary
        );
    }
}

/// The sentence the summary gives turns read as another language than English.
const OTHER_LANGUAGE: &str = "written in another language than English, by";

#[test]
fn the_summary_says_which_turns_read_as_another_language() {
    // Two of three human turns in Spanish and German; the Chinese one is counted as
    // outside the Latin alphabet only.
    let body = super::conversation(&[
        (
            H,
            "No funciona la aplicación y ya lo he intentado tres veces.",
        ),
        (A, "Please restart the app."),
        (
            H,
            "Ich habe das schon zweimal gesagt, es funktioniert nicht.",
        ),
        (A, "Please restart the app."),
        (H, "还没到，我等了三天了！"),
        (A, "Sorry about that."),
    ]);
    let (_, out) = run(&body);
    let summary = &out.intelligence.plain_summary;
    let said = "2 of the 3 human turns are written in another language than English, by \
                their function words (Spanish, French, German and seven more): the text \
                model, lexicons and phrase lists read English, so they are scored mostly \
                on their context (repetition, AI failures, punctuation, timing) and may \
                read calmer than they are.";
    assert!(summary.contains(said), "{summary}");
    assert!(
        summary.contains("1 of the 3 human turns is written mostly outside the Latin alphabet"),
        "{summary}"
    );
    // One turn, in the singular.
    let (_, out) = run(&super::conversation(&[
        (H, "Je vous ai déjà donné mon numéro de commande deux fois."),
        (A, "Could you give me your order number?"),
    ]));
    assert!(
        out.intelligence.plain_summary.contains(
            "The one human turn is written in another language than English, by its function words"
        ),
        "{}",
        out.intelligence.plain_summary
    );
    // English is not named, however few function words it has or however many words
    // it shares with other languages ("no", "me", "a", "in" count as English), and
    // neither is a turn too short to tell or with a single foreign word.
    for text in [
        "Where is my order? I need it by Friday.",
        "set an alarm for 7 am tomorrow please",
        "No, I told you twice already, it's not working in the app.",
        "Dave & Buster's is a great suggestion!",
        "Gracias, que bien",
        "I want to talk to a person, por favor.",
    ] {
        let (_, out) = run(&super::conversation(&[(H, text), (A, "It ships today.")]));
        assert!(
            !out.intelligence.plain_summary.contains(OTHER_LANGUAGE),
            "{text}: {}",
            out.intelligence.plain_summary
        );
    }
}

#[test]
fn the_team_sentences_in_other_languages_are_mostly_caught() {
    // tests/languages/sentences.tsv: 57 sentences in ten languages, written by the
    // team (see its header). docs/scoring.md quotes how many are caught; the figure is
    // from the word list those sentences helped write, so it is no held-out measure.
    let raw = std::fs::read_to_string(crate::root().join("tests/languages/sentences.tsv"))
        .expect("tests/languages/sentences.tsv");
    let lines: Vec<(&str, &str)> = raw
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .collect();
    assert_eq!(lines.len(), 57);
    let mut missed = Vec::new();
    for (lang, text) in &lines {
        let (_, out) = run(&super::conversation(&[(H, text), (A, "It ships today.")]));
        if !out.intelligence.plain_summary.contains(OTHER_LANGUAGE) {
            missed.push(format!("{lang}: {text}"));
        }
    }
    assert_eq!(missed.len(), 4, "missed: {missed:#?}");
}
