use serde_json::{json, Value};
use undertone_core::score::{score, SessionIntelligence, DimensionScore};
use undertone_core::validate::{self, Options};

fn conv(turns: &[(bool, &str)]) -> SessionIntelligence {
    let events: Vec<Value> = turns.iter().enumerate().map(|(i, &(h, c))| json!({
        "conversation_id": "c-1", "actor_id": if h {"cust-1"} else {"acme-bot"}, "content": c,
        "timestamp": format!("2026-11-21T09:{:02}:00Z", i), "metadata": {"role": if h {"user"} else {"assistant"}}})).collect();
    let body = json!({"deployment_id": "acme-bot", "pipeline": "support", "events": events});
    let req = validate::ingest_request(&body, &Options::default()).unwrap();
    score(&req)
}
fn show(d: &DimensionScore) -> String {
    format!("{:.4} {:?} [{}]", d.score, d.band, d.evidence.iter().map(|e| format!("{}={:.4}{}", e.signal, e.contribution, e.detail.as_ref().map(|d| format!("({d})")).unwrap_or_default())).collect::<Vec<_>>().join(", "))
}
fn dump(label: &str, turns: &[(bool, &str)]) {
    let out = conv(turns);
    println!("=== {label}");
    let c = &out.intelligence.conversations[0];
    for t in &c.turns {
        println!(" turn {}: F {}", t.event_index, show(&t.layer_z.frustration_buildup));
        println!("         C {}", show(&t.layer_z.comprehension_gap));
        println!("         A {}", show(&t.layer_z.silent_abandonment_risk));
        println!("         T {} {:?}", show(&t.layer_z.trust_calibration), t.layer_z.trust_calibration.mode);
    }
    println!(" conv F {}", show(&c.layer_z.frustration_buildup));
    println!(" conv A {} resolved={} abandoned={}", show(&c.layer_z.silent_abandonment_risk), c.resolved, c.abandoned);
}

#[test]
fn scratch() {
    let h = true; let a = false;
    let ask = "Can you trace my parcel 5512?";
    let ans = "Parcel 5512 is at the Leeds depot and the trace shows delivery tomorrow.";
    for r in ["that's not what I asked", "that's exactly what I asked, thanks", "the parcel is missing", "ok", "what do you mean?", "how long does the trace usually take?", "Thanks.", "ok, that worked", "This is useless, you are a stupid bot and I am furious!!!", "I want to talk to a human"] {
        dump(r, &[(h, ask), (a, ans), (h, r)]);
    }
    let hostile = "This is useless, you are a stupid bot and I am furious!!!";
    dump("hostile first", &[(h, hostile)]);
    dump("hostile first w/ reply", &[(h, hostile), (a, "Let me check.")]);
    dump("neutral first", &[(h, "Where is my order 5512?")]);
    let text = "why is my order late again, this is ridiculous";
    dump("quiet", &[(h, text), (a, "Let me check the order for you.")]);
    dump("loud", &[(h, &text.to_uppercase()), (a, "Let me check the order for you.")]);
    dump("quiet2", &[(h, ask), (a, ans), (h, text)]);
    dump("loud2", &[(h, ask), (a, ans), (h, &text.to_uppercase())]);
}
