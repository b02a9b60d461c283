//! The Layer Z value: one dimension's score with its risk, band, direction, confidence
//! and the evidence that moved it (DESIGN.md §3).

use std::sync::Arc;

use serde::{Deserialize, Serialize, Serializer};

/// One of the six scored dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Whether the person's trust matches how reliable the AI was; higher is healthier.
    TrustCalibration,
    /// Frustration that compounds across the conversation; higher is worse.
    FrustrationBuildup,
    /// Handing thinking and work to the AI, growing over time; higher is worse.
    DependencyDrift,
    /// Risk that the person leaves without their need met and without saying so.
    SilentAbandonmentRisk,
    /// How hard it is to reach a person when the AI is not enough; higher is worse.
    EscalationFriction,
    /// How much of the AI's answer the person did not understand; higher is worse.
    ComprehensionGap,
}

impl Dimension {
    /// Every dimension, in output order.
    pub const ALL: [Dimension; 6] = [
        Dimension::TrustCalibration,
        Dimension::FrustrationBuildup,
        Dimension::DependencyDrift,
        Dimension::SilentAbandonmentRisk,
        Dimension::EscalationFriction,
        Dimension::ComprehensionGap,
    ];

    /// The dimension's name in output.
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::TrustCalibration => "trust_calibration",
            Dimension::FrustrationBuildup => "frustration_buildup",
            Dimension::DependencyDrift => "dependency_drift",
            Dimension::SilentAbandonmentRisk => "silent_abandonment_risk",
            Dimension::EscalationFriction => "escalation_friction",
            Dimension::ComprehensionGap => "comprehension_gap",
        }
    }

    /// Which way the score points.
    pub fn direction(self) -> Direction {
        match self {
            Dimension::TrustCalibration => Direction::HigherIsBetter,
            _ => Direction::HigherIsWorse,
        }
    }

    /// Risk of a score: the score itself, or `1 - score` where higher is better.
    pub fn risk(self, score: f64) -> f64 {
        match self.direction() {
            Direction::HigherIsBetter => 1.0 - score,
            Direction::HigherIsWorse => score,
        }
    }

    /// The score at which the dimension enters the broken band (0.55, or 0.45 for trust).
    pub fn broken_threshold(self) -> f64 {
        match self.direction() {
            Direction::HigherIsBetter => 1.0 - WATCH_MAX,
            Direction::HigherIsWorse => WATCH_MAX,
        }
    }
}

/// Which way a dimension's score points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Higher scores are healthier (trust calibration).
    HigherIsBetter,
    /// Higher scores are worse.
    HigherIsWorse,
}

/// Risk below this is healthy.
pub const HEALTHY_MAX: f64 = 0.35;
/// Risk above this is broken.
pub const WATCH_MAX: f64 = 0.55;

/// How a risk reads: healthy < 0.35 ≤ watch ≤ 0.55 < broken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Band {
    /// Risk below 0.35.
    Healthy,
    /// Risk from 0.35 to 0.55.
    Watch,
    /// Risk above 0.55.
    Broken,
}

impl Band {
    /// The band of a risk in [0, 1] (after rounding to the 4 decimals that are emitted,
    /// so the band always agrees with the printed number).
    pub fn of_risk(risk: f64) -> Band {
        let r = round4(risk);
        if r < HEALTHY_MAX {
            Band::Healthy
        } else if r <= WATCH_MAX {
            Band::Watch
        } else {
            Band::Broken
        }
    }

    /// The band's name in output.
    pub fn as_str(self) -> &'static str {
        match self {
            Band::Healthy => "healthy",
            Band::Watch => "watch",
            Band::Broken => "broken",
        }
    }
}

/// Which way trust is off, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TrustMode {
    /// Accepting unverified or wrong output; deferring after the AI hedged or erred.
    OverTrust,
    /// Dismissing output that showed no sign of failure; escalating before the AI had a chance.
    UnderTrust,
    /// Neither.
    Calibrated,
}

/// One piece of evidence: which signal, on which turn, moved the score by how much.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Evidence {
    /// Signal name, as documented in docs/scoring.md.
    pub signal: &'static str,
    /// The human turn (its position in the request's `events`) the signal was read on.
    pub event_index: usize,
    /// The conversation of that turn, in conversation and request-level evidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<Arc<str>>,
    /// Signed contribution to the dimension's risk-side value (positive = towards broken).
    #[serde(serialize_with = "ser4")]
    pub contribution: f64,
    /// What was seen: the matched phrase or word, or a short description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Arc<str>>,
}

/// The signal of the item that holds a turn's smaller parts together, when more moved
/// the score than [`MAX_EVIDENCE`] items can show: with it the items still add up.
pub const OTHER_SIGNALS: &str = "other_signals";

impl Evidence {
    /// Whether the item names something seen in the conversation: not the `baseline`
    /// (where every turn starts) nor [`OTHER_SIGNALS`] (several together).
    pub fn names_a_signal(&self) -> bool {
        self.signal != "baseline" && self.signal != OTHER_SIGNALS
    }
}

/// One dimension's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DimensionScore {
    /// The score in [0, 1].
    #[serde(serialize_with = "ser4")]
    pub score: f64,
    /// The risk in [0, 1] (`score`, or `1 - score` for trust calibration).
    #[serde(serialize_with = "ser4")]
    pub risk: f64,
    /// The band of `risk`.
    pub band: Band,
    /// Which way the score points.
    pub direction: Direction,
    /// How much evidence stands behind the score, in [0, 1].
    #[serde(serialize_with = "ser4")]
    pub confidence: f64,
    /// For trust calibration: which way trust is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<TrustMode>,
    /// The signals that moved the score, strongest first.
    pub evidence: Vec<Evidence>,
}

impl DimensionScore {
    /// Builds a result from a score; risk and band follow from the dimension.
    pub fn new(
        dimension: Dimension,
        score: f64,
        confidence: f64,
        mut evidence: Vec<Evidence>,
    ) -> DimensionScore {
        sort_evidence(&mut evidence);
        DimensionScore::from_selected(dimension, score, confidence, evidence)
    }

    /// [`DimensionScore::new`] for evidence already selected and ordered as
    /// [`sort_evidence`] would leave it (as `score::parts` writes a turn's), so it is
    /// not selected again. Debug builds check the claim.
    pub fn from_selected(
        dimension: Dimension,
        score: f64,
        confidence: f64,
        evidence: Vec<Evidence>,
    ) -> DimensionScore {
        debug_assert!(
            evidence.len() <= MAX_EVIDENCE
                && evidence.iter().all(|e| !emits_zero(e.contribution))
                && evidence
                    .windows(2)
                    .all(|w| evidence_order(&w[0], &w[1]) == std::cmp::Ordering::Less),
            "evidence not as sort_evidence leaves it"
        );
        let score = clamp01(score);
        let risk = dimension.risk(score);
        DimensionScore {
            score,
            risk,
            band: Band::of_risk(risk),
            direction: dimension.direction(),
            confidence: clamp01(confidence),
            mode: None,
            evidence,
        }
    }
}

/// One value per dimension, serialised as an object keyed by dimension name in
/// output order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ByDimension<T> {
    /// See [`Dimension::TrustCalibration`].
    pub trust_calibration: T,
    /// See [`Dimension::FrustrationBuildup`].
    pub frustration_buildup: T,
    /// See [`Dimension::DependencyDrift`].
    pub dependency_drift: T,
    /// See [`Dimension::SilentAbandonmentRisk`].
    pub silent_abandonment_risk: T,
    /// See [`Dimension::EscalationFriction`].
    pub escalation_friction: T,
    /// See [`Dimension::ComprehensionGap`].
    pub comprehension_gap: T,
}

/// The six dimensions of one turn, conversation or request.
pub type LayerZ = ByDimension<DimensionScore>;

/// The schema of a [`ByDimension`]: an object with one `item` per dimension, named as
/// [`Dimension::as_str`] writes them, in output order. (utoipa would name a derived
/// generic schema after its type arguments; each use is named here instead.)
#[cfg(feature = "openapi")]
pub(crate) fn by_dimension_schema(
    item: &str,
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::{ObjectBuilder, Ref};
    let mut object = ObjectBuilder::new().description(Some(description));
    for d in Dimension::ALL {
        object = object
            .property(d.as_str(), Ref::from_schema_name(item))
            .required(d.as_str());
    }
    object.build().into()
}

#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for LayerZ {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
        use utoipa::ToSchema;
        by_dimension_schema(
            &DimensionScore::name(),
            "The six dimensions of one turn, conversation or request.",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for LayerZ {
    fn name() -> std::borrow::Cow<'static, str> {
        "LayerZ".into()
    }

    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::Schema>)>) {
        use utoipa::PartialSchema;
        schemas.push((DimensionScore::name().into(), DimensionScore::schema()));
        DimensionScore::schemas(schemas);
    }
}

impl<T> ByDimension<T> {
    /// The value of one dimension.
    pub fn get(&self, d: Dimension) -> &T {
        match d {
            Dimension::TrustCalibration => &self.trust_calibration,
            Dimension::FrustrationBuildup => &self.frustration_buildup,
            Dimension::DependencyDrift => &self.dependency_drift,
            Dimension::SilentAbandonmentRisk => &self.silent_abandonment_risk,
            Dimension::EscalationFriction => &self.escalation_friction,
            Dimension::ComprehensionGap => &self.comprehension_gap,
        }
    }

    /// The value of one dimension, to change it.
    pub fn get_mut(&mut self, d: Dimension) -> &mut T {
        match d {
            Dimension::TrustCalibration => &mut self.trust_calibration,
            Dimension::FrustrationBuildup => &mut self.frustration_buildup,
            Dimension::DependencyDrift => &mut self.dependency_drift,
            Dimension::SilentAbandonmentRisk => &mut self.silent_abandonment_risk,
            Dimension::EscalationFriction => &mut self.escalation_friction,
            Dimension::ComprehensionGap => &mut self.comprehension_gap,
        }
    }

    /// Builds the six values from one constructor per dimension, in output order.
    pub fn from_fn(mut f: impl FnMut(Dimension) -> T) -> ByDimension<T> {
        ByDimension {
            trust_calibration: f(Dimension::TrustCalibration),
            frustration_buildup: f(Dimension::FrustrationBuildup),
            dependency_drift: f(Dimension::DependencyDrift),
            silent_abandonment_risk: f(Dimension::SilentAbandonmentRisk),
            escalation_friction: f(Dimension::EscalationFriction),
            comprehension_gap: f(Dimension::ComprehensionGap),
        }
    }
}

/// At most this many evidence items are kept per dimension result.
pub const MAX_EVIDENCE: usize = 5;

/// Strongest first (by absolute contribution), ties by turn then signal; at most [`MAX_EVIDENCE`].
pub fn sort_evidence(evidence: &mut Vec<Evidence>) {
    let kept = select_evidence(evidence);
    evidence.truncate(kept);
    // A turn keeps at most five items for as long as the result lives: give back the
    // room its parts took (most of a large request's memory otherwise).
    evidence.shrink_to_fit();
}

/// Puts the items that are kept ([`sort_evidence`]'s rule: not rounding to 0, the
/// strongest [`MAX_EVIDENCE`], in [`evidence_order`]) first, in order, and returns
/// how many they are.
pub fn select_evidence(evidence: &mut [Evidence]) -> usize {
    let mut kept = 0;
    for i in 0..evidence.len() {
        if !emits_zero(evidence[i].contribution) {
            evidence.swap(kept, i);
            kept += 1;
        }
    }
    let items = &mut evidence[..kept];
    if items.len() > MAX_EVIDENCE {
        // Only the strongest few are kept: select them, then sort only those.
        items.select_nth_unstable_by(MAX_EVIDENCE - 1, evidence_order);
        kept = MAX_EVIDENCE;
    }
    evidence[..kept].sort_by(evidence_order);
    kept
}

/// The order of evidence: strongest first (by absolute contribution), ties by turn,
/// conversation, then signal.
pub fn evidence_order(a: &Evidence, b: &Evidence) -> std::cmp::Ordering {
    b.contribution
        .abs()
        .total_cmp(&a.contribution.abs())
        .then_with(|| a.event_index.cmp(&b.event_index))
        .then_with(|| a.conversation_id.cmp(&b.conversation_id))
        .then_with(|| a.signal.cmp(b.signal))
}

/// Clamps to [0, 1]; NaN becomes 0.
pub fn clamp01(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// Rounds to the 4 decimals that are emitted.
pub fn round4(x: f64) -> f64 {
    let r = crate::decimal::round(x * 10_000.0) / 10_000.0;
    // -0.0 prints as "-0.0"; emit 0.
    if r == 0.0 { 0.0 } else { r }
}

/// Whether `x` is emitted as 0 (`round4(x) == 0.0`), without rounding it.
pub fn emits_zero(x: f64) -> bool {
    crate::decimal::rounds_to_zero(x * 10_000.0)
}

/// Serialises a number with 4 decimals.
pub fn ser4<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round4(*x))
}

/// Serialises an optional number with 4 decimals, `null` when absent.
pub fn ser_opt4<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(v) => ser4(v, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_follow_risk_edges() {
        assert_eq!(Band::of_risk(0.0), Band::Healthy);
        assert_eq!(Band::of_risk(0.34994), Band::Healthy);
        assert_eq!(Band::of_risk(0.34996), Band::Watch);
        assert_eq!(Band::of_risk(0.35), Band::Watch);
        assert_eq!(Band::of_risk(0.55), Band::Watch);
        assert_eq!(Band::of_risk(0.55004), Band::Watch);
        assert_eq!(Band::of_risk(0.5501), Band::Broken);
        assert_eq!(Band::of_risk(1.0), Band::Broken);
    }

    #[test]
    fn trust_risk_is_inverted() {
        let d = DimensionScore::new(Dimension::TrustCalibration, 0.3, 1.0, vec![]);
        assert!((d.risk - 0.7).abs() < 1e-12);
        assert_eq!(d.band, Band::Broken);
        assert_eq!(d.direction, Direction::HigherIsBetter);
        assert!((Dimension::TrustCalibration.broken_threshold() - 0.45).abs() < 1e-12);
        let f = DimensionScore::new(Dimension::FrustrationBuildup, 0.3, 1.0, vec![]);
        assert_eq!(f.band, Band::Healthy);
    }

    #[test]
    fn scores_are_clamped_and_emitted_with_four_decimals() {
        let d = DimensionScore::new(Dimension::ComprehensionGap, 1.7, f64::NAN, vec![]);
        assert_eq!(d.score, 1.0);
        assert_eq!(d.confidence, 0.0);
        let json = serde_json::to_string(&DimensionScore::new(
            Dimension::ComprehensionGap,
            0.123_456,
            0.5,
            vec![],
        ))
        .unwrap();
        assert!(
            json.starts_with(r#"{"score":0.1235,"risk":0.1235,"band":"healthy""#),
            "{json}"
        );
        assert_eq!(round4(-0.00001), 0.0);
        assert_eq!(serde_json::to_string(&round4(-0.00001)).unwrap(), "0.0");
    }

    #[test]
    fn evidence_is_sorted_and_capped() {
        let e = |signal, i, c| Evidence {
            signal,
            event_index: i,
            conversation_id: None,
            contribution: c,
            detail: None,
        };
        let mut v = vec![
            e("a", 3, 0.1),
            e("b", 1, -0.4),
            e("c", 2, 0.4),
            e("d", 0, 0.00001),
            e("e", 0, 0.2),
            e("f", 0, 0.3),
            e("g", 0, 0.05),
        ];
        sort_evidence(&mut v);
        let names: Vec<_> = v.iter().map(|e| e.signal).collect();
        assert_eq!(names, ["b", "c", "f", "e", "a"]);
    }
}
