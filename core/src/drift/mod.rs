//! Drift: did the human side get better or worse between two periods (two model or
//! prompt versions, two time windows), and is the change real or noise (DESIGN.md §6)?
//!
//! Each period is scored by the engine. Per dimension, the per-conversation scores of
//! the two periods are compared with a two-sided Mann-Whitney U test, an effect size
//! (rank-biserial correlation), and a Hodges–Lehmann shift with a 95% confidence
//! interval; p-values are Holm-adjusted across the dimensions tested. Methods and
//! citations: docs/drift.md.

pub mod outcome;

use serde::Serialize;

use crate::schema::{DriftRequest, IngestRequest, Period, Pipeline};
use crate::score::conversation::ConversationResult;
use crate::score::findings::capitalise;
use crate::score::findings::{plural, recommend, signal_label};
use crate::score::layer_z::{ByDimension, Dimension, Direction, Evidence, round4};
use crate::score::{SCORER_VERSION, SessionIntelligence, score};
use crate::stats::{self, Method};

pub use outcome::{DeployShift, OutcomeShift, at_deploys, outcome_shift};

/// Significance level, after Holm adjustment across dimensions.
pub const ALPHA: f64 = 0.05;

/// Fewest scored conversations per period for a dimension to be tested. With fewer,
/// even a complete separation cannot reach p < 0.05 after adjustment (5 per side gives
/// an exact two-sided p of 0.0079 at best), so the verdict is `insufficient_data`.
pub const MIN_CONVERSATIONS: usize = 5;

/// Confidence level of the shift's interval.
pub const CONFIDENCE: f64 = 0.95;

/// The deployment id used when the request names none: AI turns are then recognised
/// by `metadata.role` only.
const UNNAMED_DEPLOYMENT: &str = "unnamed-deployment";

/// What a dimension did between the periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly healthier after.
    Improved,
    /// Significantly worse after.
    Regressed,
    /// No significant change.
    Unchanged,
    /// Too few conversations in a period to test.
    InsufficientData,
}

/// The direction of the whole comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum DriftDirection {
    /// At least one dimension improved and none regressed.
    Improved,
    /// At least one dimension regressed and none improved.
    Regressed,
    /// Some dimensions improved and others regressed.
    Mixed,
    /// No dimension changed significantly.
    Stable,
}

/// One dimension's comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DimensionDrift {
    /// Conversations scored in the before period.
    pub before_n: usize,
    /// Conversations scored in the after period.
    pub after_n: usize,
    /// Median per-conversation score before (`null` with no conversation).
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub before_median: Option<f64>,
    /// Median per-conversation score after.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub after_median: Option<f64>,
    /// Hodges–Lehmann estimate of the shift, after minus before, in score units.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub shift: Option<f64>,
    /// Lower end of the 95% confidence interval of `shift`.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub ci_low: Option<f64>,
    /// Upper end of the 95% confidence interval of `shift`.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub ci_high: Option<f64>,
    /// Two-sided Mann-Whitney U p-value (`null` when not tested), to 10 significant
    /// digits.
    #[serde(serialize_with = "ser_opt_p")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub p_value: Option<f64>,
    /// `p_value` after Holm adjustment across the dimensions tested.
    #[serde(serialize_with = "ser_opt_p")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub p_adjusted: Option<f64>,
    /// Rank-biserial correlation (= Cliff's delta), after vs before, in [-1, 1]:
    /// positive when after-period scores tend to be higher.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub effect_size: Option<f64>,
    /// Whether `p_adjusted` < 0.05.
    pub significant: bool,
    /// What the dimension did.
    pub verdict: Verdict,
    /// Which p-value computation was used: `exact`, `exact_with_ties` or
    /// `asymptotic` (`null` when not tested).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub method: Option<&'static str>,
}

/// The six dimension comparisons, in output order.
pub type DimensionDrifts = ByDimension<DimensionDrift>;

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for DimensionDrifts {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
        use utoipa::ToSchema;
        crate::score::layer_z::by_dimension_schema(
            &DimensionDrift::name(),
            "The six dimension comparisons, in output order.",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for DimensionDrifts {
    fn name() -> std::borrow::Cow<'static, str> {
        "DimensionDrifts".into()
    }

    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>) {
        use utoipa::PartialSchema;
        schemas.push((DimensionDrift::name().into(), DimensionDrift::schema()));
        DimensionDrift::schemas(schemas);
    }
}

/// Counts of one period.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodSummary {
    /// The period's label.
    pub label: String,
    /// Events in the period (`null` when the period was read from a deployment's
    /// history, which keeps scores, not events).
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub event_count: Option<usize>,
    /// Conversations with at least one human turn.
    pub conversation_count: usize,
    /// Human turns scored.
    pub human_turn_count: usize,
    /// Share of those conversations that ended resolved.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub resolved_rate: Option<f64>,
}

/// The drift result (DESIGN.md §6).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DriftResult {
    /// Version of the scorer that scored both periods.
    pub scorer_version: &'static str,
    /// The question the analysis addresses first, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The baseline period.
    pub before: PeriodSummary,
    /// The compared period.
    pub after: PeriodSummary,
    /// Size of the largest significant change: the largest |effect size| among the
    /// dimensions with a significant verdict, 0 when none; in [0, 1].
    #[serde(serialize_with = "crate::score::layer_z::ser4")]
    pub overall_drift: f64,
    /// Improved, regressed, mixed or stable.
    pub direction: DriftDirection,
    /// 2–4 sentences with the numbers.
    pub plain_summary: String,
    /// What to do about each regression, tied to the after period's evidence.
    pub plain_recommendations: Vec<String>,
    /// One line per dimension, the question's dimensions and significant ones first.
    pub key_findings: Vec<String>,
    /// Per dimension: medians, shift, interval, p-values, effect size, verdict.
    pub dimension_drifts: DimensionDrifts,
    /// Resolved rate before vs after (two-proportion z-test).
    pub outcome_shift: OutcomeShift,
}

/// Scores both periods of `request` and compares them.
pub fn drift(request: &DriftRequest) -> DriftResult {
    let deployment = request
        .deployment_id
        .clone()
        .unwrap_or_else(|| UNNAMED_DEPLOYMENT.to_owned());
    let score_period = |p: &Period| {
        score(&IngestRequest {
            deployment_id: deployment.clone(),
            events: p.events.clone(),
            pipeline: Pipeline::Auto,
            webhook_url: None,
        })
    };
    let (before, after) = rayon::join(
        || score_period(&request.before),
        || score_period(&request.after),
    );
    compare_sessions(
        (&request.before.label, &before),
        (&request.after.label, &after),
        request.question.as_deref(),
    )
}

/// Compares two scored sessions (what [`drift`] does after scoring).
pub fn compare_sessions(
    (before_label, before): (&str, &SessionIntelligence),
    (after_label, after): (&str, &SessionIntelligence),
    question: Option<&str>,
) -> DriftResult {
    compare_sides(
        Side::of_session(before_label, before),
        Side::of_session(after_label, after),
        question,
    )
}

/// One period as the comparison reads it: each scored conversation's dimension scores
/// and outcome, and where evidence for advice can be found. Built from a scored
/// session ([`compare_sessions`]) or from a deployment's kept history
/// (`monitor::history_drift`).
pub struct Side<'a> {
    /// The period's label.
    pub label: &'a str,
    /// Events in the period, when known.
    pub event_count: Option<usize>,
    /// Human turns scored.
    pub human_turns: usize,
    /// Per conversation with human turns: its six scores and whether it was resolved.
    pub conversations: Vec<(ByDimension<f64>, bool)>,
    /// The scored session, whose strongest evidence the advice on a regression quotes.
    pub evidence: Option<&'a SessionIntelligence>,
}

impl<'a> Side<'a> {
    fn of_session(label: &'a str, s: &'a SessionIntelligence) -> Side<'a> {
        Side {
            label,
            event_count: Some(s.intelligence.event_count),
            human_turns: s.intelligence.human_turn_count,
            conversations: scored(s)
                .iter()
                .map(|c| (ByDimension::from_fn(|d| c.layer_z.get(d).score), c.resolved))
                .collect(),
            evidence: Some(s),
        }
    }

    fn scores(&self, d: Dimension) -> Vec<f64> {
        self.conversations.iter().map(|(s, _)| *s.get(d)).collect()
    }

    fn resolved(&self) -> usize {
        self.conversations.iter().filter(|(_, r)| *r).count()
    }

    fn summary(&self) -> PeriodSummary {
        let n = self.conversations.len();
        PeriodSummary {
            label: self.label.to_owned(),
            event_count: self.event_count,
            conversation_count: n,
            human_turn_count: self.human_turns,
            resolved_rate: (n > 0).then(|| self.resolved() as f64 / n as f64),
        }
    }
}

/// Compares two periods: what [`drift`] and [`compare_sessions`] do once scored.
pub fn compare_sides(b: Side<'_>, a: Side<'_>, question: Option<&str>) -> DriftResult {
    let dimension_drifts = compare(|d| b.scores(d), |d| a.scores(d));
    let outcome_shift = outcome::counts(
        b.resolved(),
        b.conversations.len(),
        a.resolved(),
        a.conversations.len(),
    );
    let order = dimension_order(question, &dimension_drifts);
    let significant: Vec<(Dimension, &DimensionDrift)> = Dimension::ALL
        .iter()
        .map(|&d| (d, dimension_drifts.get(d)))
        .filter(|(_, x)| x.significant)
        .collect();
    let improved = significant
        .iter()
        .filter(|(_, x)| x.verdict == Verdict::Improved)
        .count();
    let regressed = significant.len() - improved;
    let direction = match (improved > 0, regressed > 0) {
        (true, true) => DriftDirection::Mixed,
        (true, false) => DriftDirection::Improved,
        (false, true) => DriftDirection::Regressed,
        (false, false) => DriftDirection::Stable,
    };
    let overall_drift = significant
        .iter()
        .filter_map(|(_, x)| x.effect_size)
        .fold(0.0f64, |m, e| m.max(e.abs()))
        .min(1.0);

    let key_findings: Vec<String> = order
        .iter()
        .map(|&d| finding_line(d, dimension_drifts.get(d), b.label, a.label))
        .collect();
    let plain_recommendations: Vec<String> = order
        .iter()
        .filter(|&&d| dimension_drifts.get(d).verdict == Verdict::Regressed)
        .map(|&d| regression_advice(d, dimension_drifts.get(d), a.evidence))
        .collect();
    let summary = summary(
        (b.label, b.conversations.len()),
        (a.label, a.conversations.len()),
        direction,
        &order,
        &dimension_drifts,
        &outcome_shift,
        question,
    );
    DriftResult {
        scorer_version: SCORER_VERSION,
        question: question.map(str::to_owned),
        before: b.summary(),
        after: a.summary(),
        overall_drift,
        direction,
        plain_summary: summary,
        plain_recommendations,
        key_findings,
        dimension_drifts,
        outcome_shift,
    }
}

/// Compares per-conversation scores of each dimension: `before(d)` and `after(d)` give
/// the scores of one dimension. Holm adjustment runs over the dimensions tested.
pub fn compare(
    before: impl Fn(Dimension) -> Vec<f64>,
    after: impl Fn(Dimension) -> Vec<f64>,
) -> DimensionDrifts {
    // Compared at the 4 decimals a score is published with: two scores that print
    // the same are the same. Unrounded, a difference of 1e-17 from the order of
    // floating-point additions ranked as a real one, and one conversation in 5,000
    // made a dimension "significant" with both medians 0.09.
    let published = |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(round4).collect() };
    let mut drifts =
        DimensionDrifts::from_fn(|d| compare_one(&published(before(d)), &published(after(d))));
    let tested: Vec<Dimension> = Dimension::ALL
        .into_iter()
        .filter(|&d| drifts.get(d).p_value.is_some())
        .collect();
    let p: Vec<f64> = tested
        .iter()
        .filter_map(|&d| drifts.get(d).p_value)
        .collect();
    for (&d, adjusted) in tested.iter().zip(stats::holm(&p)) {
        let x = drifts.get_mut(d);
        x.p_adjusted = Some(adjusted);
        x.significant = adjusted < ALPHA;
        x.verdict = match (x.significant, healthier(d, x)) {
            (false, _) => Verdict::Unchanged,
            (true, true) => Verdict::Improved,
            (true, false) => Verdict::Regressed,
        };
    }
    drifts
}

/// Steps [`stats::exact_with_ties`] may take for one dimension (a few milliseconds);
/// past it the normal approximation stands.
const TIES_BUDGET: u64 = 2_000_000;

/// The comparison of one dimension before Holm adjustment (verdict unchanged or
/// insufficient data until adjusted).
fn compare_one(before: &[f64], after: &[f64]) -> DimensionDrift {
    let mut out = DimensionDrift {
        before_n: before.len(),
        after_n: after.len(),
        before_median: stats::median(before),
        after_median: stats::median(after),
        shift: None,
        ci_low: None,
        ci_high: None,
        p_value: None,
        p_adjusted: None,
        effect_size: None,
        significant: false,
        verdict: Verdict::InsufficientData,
        method: None,
    };
    if before.len() < MIN_CONVERSATIONS || after.len() < MIN_CONVERSATIONS {
        return out;
    }
    // U of `after` against `before`: a positive effect means higher scores after.
    let Some(test) = stats::mann_whitney_u(after, before) else {
        return out;
    };
    // With ties SciPy's rule takes the normal approximation, which is far off when
    // ties dominate; the exact distribution given the ties replaces it wherever it is
    // cheap to count (stats::exact_with_ties).
    let (p_value, method) = match test.method {
        Method::Exact => (test.p_value, "exact"),
        Method::Asymptotic => match stats::exact_with_ties(after, before, TIES_BUDGET) {
            Some(p) => (p, "exact_with_ties"),
            None => (test.p_value, "asymptotic"),
        },
    };
    out.p_value = Some(p_value);
    out.method = Some(method);
    out.effect_size = stats::rank_biserial(after, before);
    if let Some(s) = stats::hodges_lehmann(before, after, CONFIDENCE) {
        out.shift = Some(s.estimate);
        out.ci_low = Some(s.ci_low);
        out.ci_high = Some(s.ci_high);
    }
    out.verdict = Verdict::Unchanged;
    out
}

/// Whether the change of `x` is towards health: by the effect size's sign (the shift
/// can be 0 when many scores tie), read through the dimension's direction.
fn healthier(d: Dimension, x: &DimensionDrift) -> bool {
    let up = x.effect_size.unwrap_or(0.0) > 0.0;
    match d.direction() {
        Direction::HigherIsBetter => up,
        Direction::HigherIsWorse => !up,
    }
}

/// Conversations with at least one scored human turn.
fn scored(s: &SessionIntelligence) -> Vec<&ConversationResult> {
    s.intelligence
        .conversations
        .iter()
        .filter(|c| !c.turns.is_empty())
        .collect()
}

/// Words of a question that point at each dimension.
const QUESTION_WORDS: [(Dimension, &[&str]); 6] = [
    (
        Dimension::TrustCalibration,
        &[
            "trust",
            "rely",
            "verif",
            "hallucinat",
            "accurate",
            "believ",
            "overconfiden",
        ],
    ),
    (
        Dimension::FrustrationBuildup,
        &[
            "frustrat",
            "angry",
            "anger",
            "annoy",
            "upset",
            "mood",
            "sentiment",
            "tone",
            "happy",
            "happi",
        ],
    ),
    (
        Dimension::DependencyDrift,
        &[
            "depend",
            "delegat",
            "reliance",
            "learn",
            "independen",
            "crutch",
        ],
    ),
    (
        Dimension::SilentAbandonmentRisk,
        &[
            "abandon",
            "churn",
            "leave",
            "leaving",
            "drop",
            "quit",
            "retention",
            "resolv",
        ],
    ),
    (
        Dimension::EscalationFriction,
        &[
            "escalat", "human", "agent", "handoff", "hand-off", "hand off", "person",
        ],
    ),
    (
        Dimension::ComprehensionGap,
        &[
            "understand",
            "confus",
            "clear",
            "clarity",
            "explain",
            "comprehen",
        ],
    ),
];

/// The dimensions in reporting order: those the question names first, then
/// significant ones by adjusted p-value, then the rest in output order.
fn dimension_order(question: Option<&str>, drifts: &DimensionDrifts) -> Vec<Dimension> {
    let q = question.unwrap_or("").to_lowercase();
    let asked = |d: Dimension| {
        QUESTION_WORDS
            .iter()
            .any(|(k, words)| *k == d && words.iter().any(|w| q.contains(w)))
    };
    let mut order: Vec<Dimension> = Dimension::ALL.to_vec();
    order.sort_by(|&a, &b| {
        let (x, y) = (drifts.get(a), drifts.get(b));
        asked(b)
            .cmp(&asked(a))
            .then(y.significant.cmp(&x.significant))
            .then(
                x.p_adjusted
                    .unwrap_or(2.0)
                    .total_cmp(&y.p_adjusted.unwrap_or(2.0)),
            )
            .then(a.cmp(&b))
    });
    order
}

fn name(d: Dimension) -> String {
    d.as_str().replace('_', " ")
}

fn fmt_p(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".to_owned()
    } else {
        format!("p = {p:.3}")
    }
}

/// One line per dimension for `key_findings`.
fn finding_line(d: Dimension, x: &DimensionDrift, before: &str, after: &str) -> String {
    let medians = match (x.before_median, x.after_median) {
        (Some(b), Some(a)) => format!("median {b:.2} ({before}) → {a:.2} ({after})"),
        _ => "no scored conversations in one period".to_owned(),
    };
    match x.verdict {
        Verdict::InsufficientData => format!(
            "{}: not tested — {} and {} conversations, at least {MIN_CONVERSATIONS} per period are needed; {medians}.",
            capitalise(&name(d)),
            x.before_n,
            x.after_n,
        ),
        v => {
            let shift = match (x.shift, x.ci_low, x.ci_high) {
                (Some(s), Some(l), Some(h)) => {
                    format!(", shift {s:+.3} (95% CI {l:+.3} to {h:+.3})")
                }
                _ => String::new(),
            };
            let p = x.p_adjusted.map(fmt_p).unwrap_or_default();
            let what = match v {
                Verdict::Improved => "improved",
                Verdict::Regressed => "regressed",
                _ => "no significant change",
            };
            format!(
                "{}: {what} — {medians}{shift}, effect size {:+.2}, Holm-adjusted {p}.",
                capitalise(&name(d)),
                x.effect_size.unwrap_or(0.0),
            )
        }
    }
}

/// What to do about a regressed dimension: the after period's strongest evidence, when
/// the period was scored from events.
fn regression_advice(
    d: Dimension,
    x: &DimensionDrift,
    after: Option<&SessionIntelligence>,
) -> String {
    let top: Option<&Evidence> = after.and_then(|s| {
        s.intelligence
            .layer_z
            .get(d)
            .evidence
            .iter()
            .find(|e| e.contribution > 0.0 && e.names_a_signal())
    });
    let change = match (x.before_median, x.after_median) {
        (Some(b), Some(a)) => format!(" (median {b:.2} → {a:.2})"),
        _ => String::new(),
    };
    match top {
        Some(e) => format!(
            "{} regressed{change}; the strongest driver after the change is {}. {}",
            capitalise(&name(d)),
            signal_label(e.signal),
            recommend(d, e, false),
        ),
        None => format!(
            "{} regressed{change}: compare the two periods' conversations on this dimension before shipping further.",
            capitalise(&name(d)),
        ),
    }
}

fn summary(
    (before_label, b): (&str, usize),
    (after_label, a): (&str, usize),
    direction: DriftDirection,
    order: &[Dimension],
    drifts: &DimensionDrifts,
    outcome: &OutcomeShift,
    question: Option<&str>,
) -> String {
    let mut s = vec![format!(
        "Compared {b} {} of {before_label} with {a} of {after_label}, dimension by dimension (two-sided Mann-Whitney U, Holm-adjusted, α = {ALPHA}).",
        plural(b, "conversation", "conversations"),
    )];
    let list = |v: Verdict| -> Vec<String> {
        order
            .iter()
            .filter(|&&d| drifts.get(d).verdict == v)
            .map(|&d| name(d))
            .collect()
    };
    let (improved, regressed) = (list(Verdict::Improved), list(Verdict::Regressed));
    s.push(match direction {
        DriftDirection::Stable => {
            let untested = list(Verdict::InsufficientData);
            if untested.len() == Dimension::ALL.len() {
                format!(
                    "Nothing could be tested: each period needs at least {MIN_CONVERSATIONS} conversations with human turns."
                )
            } else {
                "No dimension changed significantly; differences are within noise.".to_owned()
            }
        }
        DriftDirection::Improved => format!("{after_label} improved {}.", improved.join(", ")),
        DriftDirection::Regressed => format!("{after_label} regressed on {}.", regressed.join(", ")),
        DriftDirection::Mixed => format!(
            "Mixed: {after_label} improved {} but regressed on {}.",
            improved.join(", "),
            regressed.join(", ")
        ),
    });
    if let Some(&first) = order.first()
        && question.is_some()
    {
        let x = drifts.get(first);
        s.push(format!(
            "On the question asked, {} is {}.",
            name(first),
            match x.verdict {
                Verdict::Improved => "significantly better",
                Verdict::Regressed => "significantly worse",
                Verdict::Unchanged => "not significantly different",
                Verdict::InsufficientData => "not testable with this much data",
            }
        ));
    }
    s.push(outcome.sentence(before_label, after_label));
    s.join(" ")
}

/// Serialises a p-value to 10 significant digits.
///
/// The normal tail comes from statrs' `erfc`, accurate to about 1e-10 relative, so
/// further digits carry no information; and they differ in the last bits between
/// builds whose `exp` differs (glibc natively, Rust's libm in WebAssembly), which
/// must all print the same bytes.
fn ser_opt_p<S: serde::Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => s.serialize_f64(significant(*v, 10)),
        None => s.serialize_none(),
    }
}

/// `v` rounded to `digits` significant decimal digits (through its decimal text, so
/// the result is the double nearest that decimal).
fn significant(v: f64, digits: usize) -> f64 {
    if !v.is_finite() || v == 0.0 {
        return v;
    }
    format!("{:.*e}", digits.saturating_sub(1), v)
        .parse()
        .unwrap_or(v)
}

#[cfg(test)]
mod tests {
    use super::significant;

    #[test]
    fn p_values_keep_ten_significant_digits() {
        // The native and the WebAssembly builds' p-values of one drift vector.
        assert_eq!(significant(6.879005251586114e-5, 10), 6.879005252e-5);
        assert_eq!(significant(6.879005251586112e-5, 10), 6.879005252e-5);
        assert_eq!(significant(0.5486055097971106, 10), 0.5486055098);
        assert_eq!(significant(1.0, 10), 1.0);
        assert_eq!(significant(0.0, 10), 0.0);
    }
}
