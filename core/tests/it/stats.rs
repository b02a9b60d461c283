//! `undertone_core::stats` against reference vectors written by SciPy, NumPy and
//! statsmodels (`tests/reference/`, produced by `tests/reference/gen_reference.py`; CI
//! does not rerun the script).
//!
//! U statistics and Hodges–Lehmann estimates must match exactly; p-values, z statistics
//! and adjusted p-values to 1e-9 relative (absolute below 1e-300, where relative error
//! stops meaning anything).

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use undertone_core::stats::{
    self, MannWhitney, Method, benjamini_hochberg, hodges_lehmann, holm, mann_whitney_u,
    mann_whitney_u_with, two_proportion_z,
};

const RELATIVE: f64 = 1e-9;
const TINY: f64 = 1e-300;

fn reference(name: &str) -> Value {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/reference")
        .join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

fn cases(file: &Value) -> &[Value] {
    file["cases"].as_array().expect("cases array")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// `actual` agrees with `expected` to [`RELATIVE`], or both are below [`TINY`].
fn close(actual: f64, expected: f64) -> bool {
    if expected.abs() < TINY {
        return (actual - expected).abs() < TINY;
    }
    ((actual - expected) / expected).abs() <= RELATIVE
}

fn check_p(failures: &mut Vec<String>, name: &str, what: &str, got: &MannWhitney, p: f64) {
    if !close(got.p_value, p) {
        failures.push(format!(
            "{name} [{what}]: p {} vs scipy {p} (rel {:e})",
            got.p_value,
            ((got.p_value - p) / p).abs()
        ));
    }
}

#[test]
fn mann_whitney_matches_scipy() {
    let file = reference("mannwhitney.json");
    let mut failures = Vec::new();
    let (mut auto_exact, mut auto_asymptotic, mut forced_exact) = (0, 0, 0);
    for case in cases(&file) {
        let name = case["name"].as_str().expect("name");
        let x = floats(&case["x"]);
        let y = floats(&case["y"]);
        let u1 = num(&case["u1"]);

        let auto = mann_whitney_u(&x, &y).expect("valid samples");
        let expected_method = match case["auto_method"].as_str() {
            Some("exact") => Method::Exact,
            Some("asymptotic") => Method::Asymptotic,
            other => panic!("{name}: auto_method {other:?}"),
        };
        if auto.method == Method::Exact {
            auto_exact += 1;
        } else {
            auto_asymptotic += 1;
        }
        if auto.u1 != u1 {
            failures.push(format!("{name}: U {} vs scipy {u1}", auto.u1));
        }
        if auto.method != expected_method {
            failures.push(format!(
                "{name}: method {:?} vs scipy {expected_method:?}",
                auto.method
            ));
        }
        check_p(&mut failures, name, "auto", &auto, num(&case["auto_p"]));

        let asym = mann_whitney_u_with(&x, &y, Method::Asymptotic).expect("valid samples");
        assert_eq!(asym.method, Method::Asymptotic);
        assert_eq!(asym.u1, auto.u1);
        check_p(
            &mut failures,
            name,
            "asymptotic",
            &asym,
            num(&case["asymptotic_p"]),
        );

        if let Some(p) = case.get("exact_p") {
            forced_exact += 1;
            let exact = mann_whitney_u_with(&x, &y, Method::Exact).expect("valid samples");
            assert_eq!(exact.method, Method::Exact, "{name}: exact fell back");
            check_p(&mut failures, name, "exact", &exact, num(p));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The file exercises both automatic paths and the forced exact path.
    assert!(
        auto_exact >= 150 && auto_asymptotic >= 150,
        "{auto_exact} {auto_asymptotic}"
    );
    assert!(forced_exact >= 300, "{forced_exact}");
}

#[test]
fn effect_sizes_follow_u() {
    let file = reference("mannwhitney.json");
    for case in cases(&file) {
        let x = floats(&case["x"]);
        let y = floats(&case["y"]);
        let pairs = (x.len() * y.len()) as f64;
        let expected = 2.0 * num(&case["u1"]) / pairs - 1.0;
        let rb = stats::rank_biserial(&x, &y).expect("valid");
        assert!(
            (rb - expected).abs() <= 1e-15,
            "{}: {rb} vs {expected}",
            case["name"]
        );
        assert_eq!(stats::cliffs_delta(&x, &y), Some(rb), "{}", case["name"]);
    }
}

#[test]
fn hodges_lehmann_estimate_matches_numpy_exactly() {
    let file = reference("mannwhitney.json");
    let mut failures = Vec::new();
    for case in cases(&file) {
        let name = case["name"].as_str().expect("name");
        let x = floats(&case["x"]);
        let y = floats(&case["y"]);
        let expected: f64 = case["hl_estimate"]
            .as_str()
            .expect("hl_estimate string")
            .parse()
            .expect("float repr");
        let shift = hodges_lehmann(&x, &y, 0.95).expect("valid samples");
        if shift.estimate != expected {
            failures.push(format!("{name}: HL {} vs numpy {expected}", shift.estimate));
        }
        if !(shift.ci_low <= shift.estimate && shift.estimate <= shift.ci_high) {
            failures.push(format!("{name}: estimate outside its interval {shift:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn two_proportion_z_matches_statsmodels() {
    let file = reference("proportions.json");
    let mut checked = 0;
    for case in cases(&file) {
        let count = |key: &str| case[key].as_u64().expect("count");
        let got = two_proportion_z(
            count("success1"),
            count("n1"),
            count("success2"),
            count("n2"),
        );
        let expected = &case["expected"];
        if expected.is_null() {
            assert_eq!(got, None, "{case}");
            continue;
        }
        let got = got.unwrap_or_else(|| panic!("None for {case}"));
        checked += 1;
        for (field, value) in [
            ("p1", got.p1),
            ("p2", got.p2),
            ("diff", got.diff),
            ("z", got.z),
            ("p_value", got.p_value),
        ] {
            let e = num(&expected[field]);
            // diff and z are 0 when the rates are equal.
            let ok = if e == 0.0 {
                value.abs() < 1e-15
            } else {
                close(value, e)
            };
            assert!(ok, "{field}: {value} vs {e} in {case}");
        }
    }
    assert!(checked >= 60, "{checked}");
}

#[test]
fn multiple_testing_matches_statsmodels() {
    let file = reference("multitest.json");
    for case in cases(&file) {
        let p = floats(&case["p"]);
        for (label, got, key) in [
            ("holm", holm(&p), "holm"),
            ("bh", benjamini_hochberg(&p), "bh"),
        ] {
            let expected = floats(&case[key]);
            assert_eq!(got.len(), expected.len());
            for (i, (&g, &e)) in got.iter().zip(&expected).enumerate() {
                assert!(close(g, e), "{label}[{i}]: {g} vs {e} for p = {p:?}");
            }
        }
    }
}
