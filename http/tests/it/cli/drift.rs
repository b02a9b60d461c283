//! `undertone drift BEFORE AFTER`: JSON and table output, labels, question, errors.

use serde_json::Value;

use super::{assert_json_output, example, run};

fn drift(extra: &[&str]) -> super::Run {
    let (v1, v2) = (example("drift-v1.json"), example("drift-v2.json"));
    let mut args = vec!["drift", v1.to_str().unwrap(), v2.to_str().unwrap()];
    args.extend_from_slice(extra);
    run(&args, None, None)
}

#[test]
fn the_worse_model_version_regresses_frustration() {
    let out: Value =
        assert_json_output(&drift(&["--question", "Did v2 frustrate customers more?"]));
    assert_eq!(out["question"], "Did v2 frustrate customers more?");
    assert_eq!(out["before"]["label"], "drift-v1");
    assert_eq!(out["after"]["label"], "drift-v2");
    assert_eq!(out["before"]["conversation_count"], 40);
    assert_eq!(out["after"]["conversation_count"], 40);
    let f = &out["dimension_drifts"]["frustration_buildup"];
    assert_eq!(f["verdict"], "regressed", "{f}");
    assert_eq!(f["significant"], true);
    assert!(f["p_adjusted"].as_f64().unwrap() < 0.05);
    assert!(f["p_adjusted"].as_f64().unwrap() >= f["p_value"].as_f64().unwrap());
    assert!(f["effect_size"].as_f64().unwrap() > 0.0);
    assert!(f["ci_low"].as_f64().unwrap() <= f["shift"].as_f64().unwrap());
    assert_eq!(out["direction"], "regressed");
    assert!(
        out["key_findings"][0]
            .as_str()
            .unwrap()
            .starts_with("Frustration buildup: regressed")
    );
    // 40 per side, resolved rate fell by tens of points: an outcome shift.
    let o = &out["outcome_shift"];
    assert!(o["change_points"].as_f64().unwrap() <= -3.0, "{o}");
    assert_eq!(o["outcome_shift_detected"], true);
}

#[test]
fn table_names_every_dimension_and_the_verdicts() {
    let out = drift(&[
        "--format",
        "table",
        "--before-label",
        "v1",
        "--after-label",
        "v2",
    ]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("dimension"));
    let row = lines
        .iter()
        .find(|l| l.starts_with("frustration_buildup"))
        .expect("a frustration row");
    assert!(row.ends_with("REGRESSED"), "{row}");
    assert!(
        out.stdout
            .contains("v1 (40 conversations) → v2 (40 conversations): regressed")
    );
}

#[test]
fn small_periods_are_not_tested() {
    let a = example("support-refund-goes-wrong.json");
    let b = example("support-refund-goes-wrong.json");
    let out = run(
        &["drift", a.to_str().unwrap(), b.to_str().unwrap()],
        None,
        None,
    );
    let v = assert_json_output(&out);
    for (_, d) in v["dimension_drifts"].as_object().unwrap() {
        assert_eq!(d["verdict"], "insufficient_data", "{d}");
        assert_eq!(d["p_value"], Value::Null);
    }
    assert_eq!(v["direction"], "stable");
    assert_eq!(v["overall_drift"], 0.0);
}

#[test]
fn an_empty_question_is_rejected() {
    let out = drift(&["--question", "   "]);
    assert_eq!(out.code, Some(2), "{out:?}");
    assert!(out.stderr.contains("question"), "{out:?}");
    assert_eq!(out.stdout, "");
}

#[test]
fn a_label_given_is_checked_as_an_identifier_like_in_a_drift_request() {
    let long = "l".repeat(257);
    for (flag, label, message) in [
        ("--before-label", "", "before.label: must not be empty"),
        (
            "--after-label",
            "a\tb",
            "after.label: must not contain control characters",
        ),
        (
            "--before-label",
            long.as_str(),
            "before.label: must be at most 256 characters, got 257",
        ),
    ] {
        let out = drift(&[flag, label]);
        assert_eq!(out.code, Some(2), "{label:?}: {out:?}");
        assert!(out.stderr.contains(message), "{label:?}: {}", out.stderr);
        assert_eq!(out.stdout, "");
    }
    // A good label names its period.
    let out = drift(&["--before-label", "v1 (June)"]);
    assert_eq!(out.code, Some(0), "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["before"]["label"], "v1 (June)");
}
