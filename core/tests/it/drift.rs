//! Drift: calibration under the null (A/A), power against a known shift, symmetry, and
//! the end-to-end comparison of two scored periods.
//!
//! The population is real engine output: every conversation of `tests/labelled/`
//! scored on its own, giving one score per conversation and dimension.

use std::sync::LazyLock;

use serde_json::{Value, json};
use undertone_core::drift::{self, DriftDirection, Verdict};
use undertone_core::score::{Dimension, score};
use undertone_core::validate::{self, Options};

/// A small seeded generator (SplitMix64) so that runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Per conversation of the labelled set: its six dimension scores.
static POPULATION: LazyLock<Vec<[f64; 6]>> = LazyLock::new(|| {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/labelled");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/labelled exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let conv: Value = serde_json::from_str(line).expect("JSON");
            let body = json!({"deployment_id": conv["deployment_id"], "events": conv["events"]});
            let req = validate::ingest_request(&body, &Options::default()).expect("valid");
            for c in &score(&req).intelligence.conversations {
                if !c.turns.is_empty() {
                    out.push(Dimension::ALL.map(|d| c.layer_z.get(d).score));
                }
            }
        }
    }
    out
});

fn column(rows: &[[f64; 6]], d: Dimension) -> Vec<f64> {
    let k = Dimension::ALL.iter().position(|&x| x == d).unwrap_or(0);
    rows.iter().map(|r| r[k]).collect()
}

/// The 99% two-sided binomial interval of the count of successes in `n` trials at `p`,
/// from the normal approximation with continuity (n·p = 50 here, so it is close).
fn binomial_99(n: usize, p: f64) -> (f64, f64) {
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    (mean - 2.576 * sd - 0.5, mean + 2.576 * sd + 0.5)
}

#[test]
fn aa_splits_are_significant_at_the_nominal_rate() {
    let pop = &*POPULATION;
    assert!(pop.len() >= 60, "population of {}", pop.len());
    let runs = 1000;
    let mut rng = Rng(42);
    let mut raw = [0usize; 6];
    let mut adjusted = [0usize; 6];
    let mut any_adjusted = 0;
    let mut idx: Vec<usize> = (0..pop.len()).collect();
    for _ in 0..runs {
        rng.shuffle(&mut idx);
        let half = idx.len() / 2;
        let a: Vec<[f64; 6]> = idx[..half].iter().map(|&i| pop[i]).collect();
        let b: Vec<[f64; 6]> = idx[half..].iter().map(|&i| pop[i]).collect();
        let r = drift::compare(|d| column(&a, d), |d| column(&b, d));
        let mut any = false;
        for (k, d) in Dimension::ALL.iter().enumerate() {
            let x = r.get(*d);
            if x.p_value.is_some_and(|p| p < drift::ALPHA) {
                raw[k] += 1;
            }
            if x.significant {
                adjusted[k] += 1;
                any = true;
            }
        }
        any_adjusted += usize::from(any);
    }
    let (lo, hi) = binomial_99(runs, drift::ALPHA);
    eprintln!(
        "AA raw {raw:?} adjusted {adjusted:?} any {any_adjusted} interval {lo:.1}-{hi:.1} pop {}",
        pop.len()
    );
    for (k, d) in Dimension::ALL.iter().enumerate() {
        // Dimensions with almost no spread (every conversation at one value) cannot
        // reject at all; the rest must reject at about α.
        let spread = column(pop, *d).windows(2).any(|w| w[0] != w[1]);
        if spread {
            assert!(
                (raw[k] as f64) <= hi,
                "{}: {} of {runs} raw rejections, above the 99% interval [{lo:.0}, {hi:.0}]",
                d.as_str(),
                raw[k]
            );
        }
        assert!(
            adjusted[k] <= raw[k],
            "{}: Holm cannot add rejections",
            d.as_str()
        );
    }
    // Holm controls the family-wise rate: any rejection at all, at or below α.
    assert!(
        (any_adjusted as f64) <= hi,
        "{any_adjusted} of {runs} A/A runs had a significant dimension after Holm"
    );
    // And the test is not simply dead: frustration, with the most spread, rejects at
    // about α (inside the interval).
    let f = raw[1] as f64;
    assert!(
        f >= lo && f <= hi,
        "frustration: {f} raw rejections, outside [{lo:.0}, {hi:.0}]"
    );
}

#[test]
fn a_known_shift_is_detected_at_n_200() {
    let pop = &*POPULATION;
    let runs = 200;
    let n = 200;
    let shift = 0.15;
    let mut rng = Rng(7);
    let mut detected = 0;
    for _ in 0..runs {
        let draw = |rng: &mut Rng| -> Vec<[f64; 6]> {
            (0..n).map(|_| pop[rng.below(pop.len())]).collect()
        };
        let a = draw(&mut rng);
        let mut b = draw(&mut rng);
        for r in &mut b {
            r[1] += shift; // frustration_buildup, in score units
        }
        let r = drift::compare(|d| column(&a, d), |d| column(&b, d));
        let f = r.get(Dimension::FrustrationBuildup);
        if f.verdict == Verdict::Regressed {
            detected += 1;
            let s = f.shift.expect("tested");
            let (l, h) = (f.ci_low.expect("ci"), f.ci_high.expect("ci"));
            assert!(l <= s && s <= h, "estimate inside its interval");
        }
    }
    assert!(
        detected as f64 >= 0.9 * runs as f64,
        "a +{shift} frustration shift was detected in {detected} of {runs} runs"
    );
}

#[test]
fn swapping_periods_flips_direction_and_shift_but_not_p() {
    let pop = &*POPULATION;
    let mut rng = Rng(3);
    let a: Vec<[f64; 6]> = (0..60).map(|_| pop[rng.below(pop.len())]).collect();
    let mut b: Vec<[f64; 6]> = (0..50).map(|_| pop[rng.below(pop.len())]).collect();
    for r in &mut b {
        r[0] = (r[0] - 0.2).max(0.0); // trust falls: a regression
    }
    let fwd = drift::compare(|d| column(&a, d), |d| column(&b, d));
    let back = drift::compare(|d| column(&b, d), |d| column(&a, d));
    for d in Dimension::ALL {
        let (x, y) = (fwd.get(d), back.get(d));
        assert_eq!(x.p_value, y.p_value, "{}", d.as_str());
        assert_eq!(x.p_adjusted, y.p_adjusted, "{}", d.as_str());
        assert_eq!(x.effect_size.map(|e| -e), y.effect_size, "{}", d.as_str());
        assert_eq!(x.shift.map(|s| -s), y.shift, "{}", d.as_str());
        let flipped = match x.verdict {
            Verdict::Improved => Verdict::Regressed,
            Verdict::Regressed => Verdict::Improved,
            v => v,
        };
        assert_eq!(flipped, y.verdict, "{}", d.as_str());
    }
    assert_eq!(
        fwd.get(Dimension::TrustCalibration).verdict,
        Verdict::Regressed
    );
}

#[test]
fn too_few_conversations_are_not_tested() {
    let r = drift::compare(
        |_| vec![0.1, 0.2, 0.3, 0.4],
        |_| vec![0.9, 0.8, 0.7, 0.6, 0.95, 0.85],
    );
    for d in Dimension::ALL {
        let x = r.get(d);
        assert_eq!(x.verdict, Verdict::InsufficientData);
        assert_eq!(x.p_value, None);
        assert_eq!(x.p_adjusted, None);
        assert!(!x.significant);
        assert_eq!(x.before_n, 4);
        assert_eq!(x.before_median, Some(0.25));
    }
}

fn period(label: &str, convs: &[&[(&str, &str)]], start_day: u32) -> Value {
    let mut events = Vec::new();
    for (k, turns) in convs.iter().enumerate() {
        for (i, (who, text)) in turns.iter().enumerate() {
            let (actor, role) = if *who == "h" {
                (format!("cust-{k}"), "user")
            } else {
                ("acme-bot".to_owned(), "assistant")
            };
            events.push(json!({
                "conversation_id": format!("{label}-{k}"),
                "actor_id": actor,
                "content": text,
                "timestamp": format!("2026-11-{:02}T{:02}:{:02}:00Z", start_day + (k / 20) as u32, 8 + (k % 10), i),
                "metadata": {"role": role},
            }));
        }
    }
    json!({"label": label, "events": events})
}

#[test]
fn one_conversation_a_side_is_counted_in_the_singular() {
    // A period holds at least five events: one conversation of six turns.
    let turns: &[(&str, &str)] = &[
        ("h", "Where is my order?"),
        ("a", "It ships today."),
        ("h", "Which carrier?"),
        ("a", "The courier named in your email."),
        ("h", "Thanks."),
        ("a", "You're welcome."),
    ];
    let body = json!({
        "before": period("v1", &[turns], 1),
        "after": period("v2", &[turns], 10),
        "deployment_id": "acme-bot",
    });
    let r = drift::drift(&validate::drift_request(&body).expect("valid drift request"));
    assert!(
        r.plain_summary
            .starts_with("Compared 1 conversation of v1 with 1 of v2, dimension by dimension"),
        "{}",
        r.plain_summary
    );
}

#[test]
fn a_worse_model_version_regresses_frustration_end_to_end() {
    let good: &[(&str, &str)] = &[
        ("h", "Where is my order 5512?"),
        ("a", "Order 5512 ships today and arrives Friday."),
        ("h", "Great, thanks!"),
    ];
    let bad: &[(&str, &str)] = &[
        ("h", "Where is my order 5512?"),
        ("a", "I'm sorry, I can't help with that."),
        ("h", "That's not what I asked. Where is order 5512??"),
        ("a", "I'm sorry, I can't help with that."),
        ("h", "This is useless. I want a human."),
    ];
    let before: Vec<&[(&str, &str)]> = (0..12)
        .map(|k| if k % 6 == 0 { bad } else { good })
        .collect();
    let after: Vec<&[(&str, &str)]> = (0..12)
        .map(|k| if k % 6 == 0 { good } else { bad })
        .collect();
    let body = json!({
        "before": period("v1", &before, 1),
        "after": period("v2", &after, 10),
        "question": "Did v2 frustrate people more?",
        "deployment_id": "acme-bot",
    });
    let req = validate::drift_request(&body).expect("valid drift request");
    let r = drift::drift(&req);
    let f = r.dimension_drifts.get(Dimension::FrustrationBuildup);
    assert_eq!(f.verdict, Verdict::Regressed, "{f:?}");
    assert!(f.shift.expect("tested") > 0.2, "{f:?}");
    assert!(matches!(
        r.direction,
        DriftDirection::Regressed | DriftDirection::Mixed
    ));
    assert!(r.overall_drift > 0.5 && r.overall_drift <= 1.0);
    assert_eq!(r.question.as_deref(), Some("Did v2 frustrate people more?"));
    assert!(
        r.key_findings[0].starts_with("Frustration buildup: regressed"),
        "the question's dimension comes first: {:?}",
        r.key_findings
    );
    assert!(!r.plain_recommendations.is_empty());
    assert_eq!(r.before.conversation_count, 12);
    assert_eq!(r.after.conversation_count, 12);
    assert!(
        r.plain_summary
            .starts_with("Compared 12 conversations of v1 with 12 of v2, dimension by dimension"),
        "{}",
        r.plain_summary
    );
    // Resolved rate fell, but 12 per side is under the 30 needed for an outcome shift.
    assert!(r.outcome_shift.change_points.expect("rates") < 0.0);
    assert!(!r.outcome_shift.outcome_shift_detected);
}

#[test]
fn a_deploy_inside_one_request_is_found_and_its_outcome_shift_fires() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(name)).expect("example"))
            .expect("JSON")
    };
    let (v1, v2) = (read("drift-v1.json"), read("drift-v2.json"));
    let mut events = v1["events"].as_array().expect("events").clone();
    events.extend(v2["events"].as_array().expect("events").iter().cloned());
    let body = json!({"deployment_id": v1["deployment_id"], "events": events});
    let req = validate::ingest_request(&body, &Options::default()).expect("valid");
    let result = score(&req);
    let deploys = drift::at_deploys(&req, &result);
    assert_eq!(deploys.len(), 1, "{deploys:?}");
    let d = &deploys[0];
    assert_eq!(
        (d.from_release.as_str(), d.to_release.as_str()),
        ("v1", "v2")
    );
    assert_eq!((d.shift.before_n, d.shift.after_n), (40, 40));
    assert!(d.shift.change_points.expect("rates") <= -3.0);
    assert!(d.shift.outcome_shift_detected, "{d:?}");
    // The same events without release metadata have no deploy.
    let plain: Vec<Value> = events
        .iter()
        .map(|e| {
            let mut e = e.clone();
            e["metadata"]
                .as_object_mut()
                .expect("metadata")
                .remove("model_version");
            e
        })
        .collect();
    let body = json!({"deployment_id": v1["deployment_id"], "events": plain});
    let req = validate::ingest_request(&body, &Options::default()).expect("valid");
    assert!(drift::at_deploys(&req, &score(&req)).is_empty());
}

#[test]
fn scores_that_print_the_same_are_not_a_change() {
    // A user's history: 0.09 once and 0.08999999999999998 (the same score, summed in
    // another order) in every other conversation, on both sides. Ranked unrounded,
    // the one difference of 1e-17 made every dimension "significant".
    let (same, noise) = (0.09, 0.089_999_999_999_999_98);
    assert_ne!(same, noise);
    let side = |n: usize| -> Vec<f64> {
        std::iter::once(same)
            .chain(std::iter::repeat_n(noise, n))
            .collect()
    };
    let r = drift::compare(|_| side(360), |_| side(5040));
    for d in Dimension::ALL {
        let x = r.get(d);
        assert_eq!(x.p_value, Some(1.0), "{}", d.as_str());
        assert_eq!(x.verdict, Verdict::Unchanged, "{}", d.as_str());
        assert_eq!((x.before_median, x.after_median), (Some(0.09), Some(0.09)));
    }
}

#[test]
fn when_ties_dominate_the_p_value_is_the_exact_one_given_the_ties() {
    // Five conversations before, one of them different; a thousand after, all alike.
    // The normal approximation says p = 2.6e-45; the chance that the one different
    // score falls among the five is 5/1005.
    let before = || {
        let mut v = vec![0.1314; 4];
        v.push(0.5);
        v
    };
    let r = drift::compare(|_| before(), |_| vec![0.1314; 1000]);
    for d in Dimension::ALL {
        let x = r.get(d);
        assert_eq!(x.method, Some("exact_with_ties"), "{}", d.as_str());
        let p = x.p_value.expect("tested");
        assert!((p - 5.0 / 1005.0).abs() < 1e-12, "{}: {p}", d.as_str());
    }
}
