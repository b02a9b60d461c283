//! The User Health Report: one period of a deployment's conversations against the
//! period before, per dimension, with the few findings that matter most.
//!
//! # Top findings
//!
//! At most three sentences, chosen by fixed rules so every one can be traced to the
//! numbers beside it:
//!
//! 1. Each significant regression, largest |change| of the median first: "frustration_buildup
//!    regressed: median 0.41 vs 0.32 the week before (p = 0.003, Holm-adjusted), 18% of
//!    conversations in the broken band."
//! 2. Each significant improvement, in the same form and order.
//! 3. If nothing changed significantly, the dimension with the highest broken rate (if
//!    any conversation was broken; ties by output order): "18% of conversations had
//!    frustration_buildup in the broken band (median 0.41); …". If no conversation had
//!    any dimension broken, a sentence saying so with the count.
//! 4. With no conversation in the period: "No conversations in this period."
//!
//! "The week before" reads "the period before" when the previous period is not exactly
//! seven days. p-values below 0.001 print as "p < 0.001".

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::drift::{DimensionDrift, MIN_CONVERSATIONS, Verdict, compare};
use crate::schema::serialize_utc;
use crate::score::SCORER_VERSION;
use crate::score::layer_z::{Band, ByDimension, Dimension};
use crate::stats;

use super::ConversationPoint;

/// Most sentences in [`HealthReport::top_findings`].
const MAX_FINDINGS: usize = 3;

/// One dimension over the period, against the period before.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DimensionHealth {
    /// Median conversation score this period (`null` with no conversation).
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub median: Option<f64>,
    /// 90th percentile of the conversation scores this period, interpolated linearly
    /// between the closest ranks (Hyndman & Fan type 7, NumPy's default).
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub p90: Option<f64>,
    /// Share of this period's conversations whose band on this dimension is broken.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub broken_rate: Option<f64>,
    /// Median conversation score of the period before.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub previous_median: Option<f64>,
    /// Broken rate of the period before.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub previous_broken_rate: Option<f64>,
    /// `median - previous_median`, in score units.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub change: Option<f64>,
    /// Two-sided Mann-Whitney U p-value, previous vs this period (`null` when not tested).
    pub p_value: Option<f64>,
    /// `p_value` after Holm adjustment across the dimensions tested.
    pub p_adjusted: Option<f64>,
    /// Whether `p_adjusted` < 0.05.
    pub significant: bool,
    /// Improved, regressed, unchanged or insufficient data.
    pub verdict: Verdict,
}

/// A deployment's health over one period, against the period before.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthReport {
    /// Version of the scoring rules.
    pub scorer_version: &'static str,
    /// Start of the period (inclusive).
    #[serde(serialize_with = "serialize_utc")]
    pub period_start: DateTime<Utc>,
    /// End of the period (exclusive).
    #[serde(serialize_with = "serialize_utc")]
    pub period_end: DateTime<Utc>,
    /// Start of the period before (inclusive).
    #[serde(serialize_with = "serialize_utc")]
    pub previous_start: DateTime<Utc>,
    /// End of the period before (exclusive).
    #[serde(serialize_with = "serialize_utc")]
    pub previous_end: DateTime<Utc>,
    /// Conversations with human turns this period.
    pub conversations: usize,
    /// Human turns this period.
    pub human_turns: usize,
    /// Conversations with human turns in the period before.
    pub previous_conversations: usize,
    /// Share of this period's conversations that ended resolved.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub resolved_rate: Option<f64>,
    /// Share of the period before's conversations that ended resolved.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    pub previous_resolved_rate: Option<f64>,
    /// Per dimension: median, 90th percentile, broken rate and the change.
    pub dimensions: ByDimension<DimensionHealth>,
    /// At most three plain-English sentences, most important first (see the module doc).
    pub top_findings: Vec<String>,
}

/// Builds the health report of `current` (the conversations that started in
/// `[period.0, period.1)`) against `previous` (those of `previous_period`).
///
/// The caller selects the points; this function does not filter them by time, and the
/// periods are only reported. Points without human turns are ignored. Week-over-week
/// significance is [`crate::drift::compare`] (two-sided Mann-Whitney U per dimension,
/// Holm-adjusted across dimensions) of the previous vs current per-conversation scores.
pub fn health_report(
    current: &[ConversationPoint],
    previous: &[ConversationPoint],
    period: (DateTime<Utc>, DateTime<Utc>),
    previous_period: (DateTime<Utc>, DateTime<Utc>),
) -> HealthReport {
    let cur: Vec<&ConversationPoint> = current.iter().filter(|p| p.human_turns > 0).collect();
    let prev: Vec<&ConversationPoint> = previous.iter().filter(|p| p.human_turns > 0).collect();
    let scores = |v: &[&ConversationPoint], d: Dimension| -> Vec<f64> {
        v.iter().map(|p| *p.scores.get(d)).collect()
    };
    let drifts = compare(|d| scores(&prev, d), |d| scores(&cur, d));
    let dimensions = ByDimension::from_fn(|d| {
        let x: &DimensionDrift = drifts.get(d);
        let median = stats::median(&scores(&cur, d));
        let previous_median = stats::median(&scores(&prev, d));
        DimensionHealth {
            median,
            p90: percentile(&scores(&cur, d), 0.9),
            broken_rate: broken_rate(&cur, d),
            previous_median,
            previous_broken_rate: broken_rate(&prev, d),
            change: median.zip(previous_median).map(|(m, p)| m - p),
            p_value: x.p_value,
            p_adjusted: x.p_adjusted,
            significant: x.significant,
            verdict: x.verdict,
        }
    });
    let before = if previous_period.1 - previous_period.0 == TimeDelta::days(7) {
        "the week before"
    } else {
        "the period before"
    };
    HealthReport {
        scorer_version: SCORER_VERSION,
        period_start: period.0,
        period_end: period.1,
        previous_start: previous_period.0,
        previous_end: previous_period.1,
        conversations: cur.len(),
        human_turns: cur.iter().map(|p| p.human_turns).sum(),
        previous_conversations: prev.len(),
        resolved_rate: resolved_rate(&cur),
        previous_resolved_rate: resolved_rate(&prev),
        top_findings: top_findings((cur.len(), prev.len()), &dimensions, before),
        dimensions,
    }
}

/// The `q`-quantile (q in [0, 1]) with linear interpolation between the closest ranks
/// (Hyndman & Fan type 7, NumPy's default): `None` for an empty sample or a `NaN`.
fn percentile(x: &[f64], q: f64) -> Option<f64> {
    if x.is_empty() || x.iter().any(|v| v.is_nan()) || !(0.0..=1.0).contains(&q) {
        return None;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let below = *v.get(lo)?;
    let above = *v.get(lo + 1).unwrap_or(&below);
    Some(below + (h - lo as f64) * (above - below))
}

/// Share of conversations whose band on `d` is broken.
fn broken_rate(v: &[&ConversationPoint], d: Dimension) -> Option<f64> {
    share(v, |p| Band::of_risk(p.risk(d)) == Band::Broken)
}

/// Share of conversations that ended resolved.
fn resolved_rate(v: &[&ConversationPoint]) -> Option<f64> {
    share(v, |p| p.resolved)
}

fn share(v: &[&ConversationPoint], f: impl Fn(&ConversationPoint) -> bool) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().filter(|p| f(p)).count() as f64 / v.len() as f64)
}

fn fmt_p(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

fn percent(rate: Option<f64>) -> String {
    format!("{:.0}%", 100.0 * rate.unwrap_or(0.0))
}

/// The top findings, by the rules of the module doc.
fn top_findings(
    (conversations, previous): (usize, usize),
    dims: &ByDimension<DimensionHealth>,
    before: &str,
) -> Vec<String> {
    if conversations == 0 {
        return vec!["No conversations in this period.".to_owned()];
    }
    let by_change = |verdict: Verdict| -> Vec<Dimension> {
        let mut v: Vec<Dimension> = Dimension::ALL
            .into_iter()
            .filter(|&d| dims.get(d).significant && dims.get(d).verdict == verdict)
            .collect();
        // Stable sort: equal changes keep output order.
        v.sort_by(|&a, &b| {
            let c = |d: Dimension| dims.get(d).change.unwrap_or(0.0).abs();
            c(b).total_cmp(&c(a))
        });
        v
    };
    let changed = |d: Dimension, what: &str| {
        let h = dims.get(d);
        format!(
            "{} {what}: median {:.2} vs {:.2} {before} ({}, Holm-adjusted), {} of conversations in the broken band.",
            d.as_str(),
            h.median.unwrap_or(0.0),
            h.previous_median.unwrap_or(0.0),
            h.p_adjusted.map(fmt_p).unwrap_or_default(),
            percent(h.broken_rate),
        )
    };
    let mut out: Vec<String> = by_change(Verdict::Regressed)
        .into_iter()
        .map(|d| changed(d, "regressed"))
        .chain(
            by_change(Verdict::Improved)
                .into_iter()
                .map(|d| changed(d, "improved")),
        )
        .collect();
    if out.is_empty() {
        let tested = conversations >= MIN_CONVERSATIONS && previous >= MIN_CONVERSATIONS;
        let context = if tested {
            format!("no dimension changed significantly from {before}")
        } else {
            format!(
                "too few conversations to test a change from {before} (at least {MIN_CONVERSATIONS} per period are needed)"
            )
        };
        let worst = Dimension::ALL
            .into_iter()
            .filter(|&d| dims.get(d).broken_rate.unwrap_or(0.0) > 0.0)
            .fold(None::<Dimension>, |best, d| match best {
                Some(b)
                    if dims.get(b).broken_rate.unwrap_or(0.0)
                        >= dims.get(d).broken_rate.unwrap_or(0.0) =>
                {
                    Some(b)
                }
                _ => Some(d),
            });
        out.push(match worst {
            Some(d) => format!(
                "{} of conversations had {} in the broken band (median {:.2}); {context}.",
                percent(dims.get(d).broken_rate),
                d.as_str(),
                dims.get(d).median.unwrap_or(0.0),
            ),
            None => format!(
                "None of the {conversations} conversations had a dimension in the broken band; {context}."
            ),
        });
    }
    out.truncate(MAX_FINDINGS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(day: u32) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T00:00:00Z"))
            .unwrap()
            .with_timezone(&Utc)
    }

    /// A point with every dimension at a healthy 0.1 (trust 0.9) except `frustration`.
    fn point(i: usize, frustration: f64, resolved: bool) -> ConversationPoint {
        let mut scores = ByDimension::from_fn(|d| match d {
            Dimension::TrustCalibration => 0.9,
            _ => 0.1,
        });
        scores.frustration_buildup = frustration;
        ConversationPoint {
            conversation_id: format!("c{i}"),
            started_at: t(1),
            human_turns: 2,
            resolved,
            abandoned: false,
            release: None,
            scores,
        }
    }

    const WEEK: (u32, u32) = (8, 15);

    fn report(current: &[ConversationPoint], previous: &[ConversationPoint]) -> HealthReport {
        health_report(current, previous, (t(WEEK.0), t(WEEK.1)), (t(1), t(8)))
    }

    #[test]
    fn percentile_is_type_7() {
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let p90 = percentile(&x, 0.9).unwrap();
        assert!((p90 - 9.1).abs() < 1e-12, "{p90}");
        assert_eq!(percentile(&x, 0.0), Some(1.0));
        assert_eq!(percentile(&x, 1.0), Some(10.0));
        assert_eq!(percentile(&x, 0.5), Some(5.5));
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 0.25), Some(1.5));
        assert_eq!(percentile(&[0.7], 0.9), Some(0.7));
        assert_eq!(percentile(&[], 0.9), None);
        assert_eq!(percentile(&[1.0, f64::NAN], 0.9), None);
    }

    #[test]
    fn broken_rate_follows_the_band_of_the_risk() {
        // Frustration 0.2, 0.5, 0.55 (watch: the edge is inclusive), 0.56, 0.9.
        let current: Vec<ConversationPoint> = [0.2, 0.5, 0.55, 0.56, 0.9]
            .iter()
            .enumerate()
            .map(|(i, &f)| point(i, f, i % 2 == 0))
            .collect();
        let mut trust_broken = point(9, 0.1, false);
        trust_broken.scores.trust_calibration = 0.4;
        let previous = vec![trust_broken];
        let r = report(&current, &previous);
        let f = &r.dimensions.frustration_buildup;
        assert_eq!(f.broken_rate, Some(0.4));
        assert_eq!(f.median, Some(0.55));
        assert!((f.p90.unwrap() - 0.764).abs() < 1e-12, "{:?}", f.p90);
        assert_eq!(f.previous_median, Some(0.1));
        assert_eq!(f.previous_broken_rate, Some(0.0));
        assert!((f.change.unwrap() - 0.45).abs() < 1e-12);
        assert_eq!(f.verdict, Verdict::InsufficientData);
        assert_eq!(f.p_value, None);
        assert!(!f.significant);
        let tr = &r.dimensions.trust_calibration;
        assert_eq!(tr.broken_rate, Some(0.0));
        assert_eq!(tr.previous_broken_rate, Some(1.0), "trust 0.4 is risk 0.6");
        assert_eq!(r.conversations, 5);
        assert_eq!(r.human_turns, 10);
        assert_eq!(r.previous_conversations, 1);
        assert_eq!(r.resolved_rate, Some(0.6));
        assert_eq!(r.previous_resolved_rate, Some(0.0));
        assert_eq!(
            r.top_findings,
            [
                "40% of conversations had frustration_buildup in the broken band (median 0.55); too few conversations to test a change from the week before (at least 5 per period are needed)."
            ]
        );
    }

    #[test]
    fn a_clear_regression_is_found_and_explained() {
        let previous: Vec<ConversationPoint> = (0..40)
            .map(|i| point(i, 0.2 + 0.005 * i as f64, true))
            .collect();
        let current: Vec<ConversationPoint> = (0..40)
            .map(|i| point(100 + i, 0.5 + 0.005 * i as f64, i % 4 == 0))
            .collect();
        let r = report(&current, &previous);
        let f = &r.dimensions.frustration_buildup;
        assert_eq!(f.verdict, Verdict::Regressed);
        assert!(f.significant);
        assert!(f.p_adjusted.unwrap() < 0.001, "{f:?}");
        assert!((f.median.unwrap() - 0.5975).abs() < 1e-12);
        assert!((f.previous_median.unwrap() - 0.2975).abs() < 1e-12);
        assert!((f.change.unwrap() - 0.3).abs() < 1e-12);
        // 0.555 and up are broken: i = 11..39, 29 of 40.
        assert_eq!(f.broken_rate, Some(29.0 / 40.0));
        // The other dimensions are identical in both periods.
        for d in Dimension::ALL {
            if d != Dimension::FrustrationBuildup {
                assert_eq!(r.dimensions.get(d).verdict, Verdict::Unchanged, "{d:?}");
            }
        }
        assert_eq!(r.resolved_rate, Some(0.25));
        assert_eq!(r.previous_resolved_rate, Some(1.0));
        assert_eq!(
            r.top_findings,
            [
                "frustration_buildup regressed: median 0.60 vs 0.30 the week before (p < 0.001, Holm-adjusted), 72% of conversations in the broken band."
            ]
        );

        // Swapped, the same change is an improvement.
        let r = report(&previous, &current);
        assert_eq!(r.dimensions.frustration_buildup.verdict, Verdict::Improved);
        assert!(r.top_findings[0].starts_with("frustration_buildup improved: median 0.30 vs 0.60"));
    }

    #[test]
    fn regressions_come_first_largest_change_first_and_at_most_three() {
        let mk = |i: usize, shift: f64| {
            let mut p = point(i, 0.1, true);
            let jitter = 0.001 * (i % 40) as f64;
            p.scores.trust_calibration = 0.9 - shift * 0.5 + jitter;
            p.scores.frustration_buildup = 0.1 + shift * 0.3 + jitter;
            p.scores.comprehension_gap = 0.1 + shift * 0.6 + jitter;
            p.scores.escalation_friction = 0.5 - shift * 0.2 + jitter;
            p
        };
        let previous: Vec<ConversationPoint> = (0..40).map(|i| mk(i, 0.0)).collect();
        let current: Vec<ConversationPoint> = (0..40).map(|i| mk(i, 1.0)).collect();
        let r = report(&current, &previous);
        let starts: Vec<&str> = r
            .top_findings
            .iter()
            .map(|s| s.split(':').next().unwrap_or(""))
            .collect();
        assert_eq!(
            starts,
            [
                "comprehension_gap regressed",
                "trust_calibration regressed",
                "frustration_buildup regressed"
            ]
        );
        assert_eq!(r.dimensions.escalation_friction.verdict, Verdict::Improved);
    }

    #[test]
    fn no_conversations_gives_one_finding_and_no_medians() {
        let previous: Vec<ConversationPoint> = (0..6).map(|i| point(i, 0.3, true)).collect();
        let r = health_report(&[], &previous, (t(8), t(15)), (t(1), t(8)));
        assert_eq!(r.top_findings, ["No conversations in this period."]);
        assert_eq!(r.conversations, 0);
        assert_eq!(r.human_turns, 0);
        assert_eq!(r.previous_conversations, 6);
        assert_eq!(r.resolved_rate, None);
        assert_eq!(r.previous_resolved_rate, Some(1.0));
        for d in Dimension::ALL {
            let h = r.dimensions.get(d);
            assert_eq!(h.median, None);
            assert_eq!(h.p90, None);
            assert_eq!(h.broken_rate, None);
            assert_eq!(h.change, None);
            assert_eq!(h.verdict, Verdict::InsufficientData);
        }
        assert_eq!(r.dimensions.frustration_buildup.previous_median, Some(0.3));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["period_start"], "2026-11-08T00:00:00Z");
        assert_eq!(json["previous_end"], "2026-11-08T00:00:00Z");
        assert_eq!(json["scorer_version"], SCORER_VERSION);
        assert_eq!(
            json["dimensions"]["trust_calibration"]["median"],
            serde_json::Value::Null
        );
        assert_eq!(
            json["dimensions"]["trust_calibration"]["verdict"],
            "insufficient_data"
        );
    }

    #[test]
    fn a_quiet_period_says_nothing_was_broken_and_names_a_non_weekly_period() {
        let current: Vec<ConversationPoint> = (0..6).map(|i| point(i, 0.2, true)).collect();
        let previous: Vec<ConversationPoint> = (0..6).map(|i| point(i, 0.2, true)).collect();
        let r = health_report(&current, &previous, (t(2), t(3)), (t(1), t(2)));
        assert_eq!(
            r.top_findings,
            [
                "None of the 6 conversations had a dimension in the broken band; no dimension changed significantly from the period before."
            ]
        );
    }
}
