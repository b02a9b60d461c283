//! Outcome shift: did the share of resolved conversations move between two periods
//! (before and after a deploy), beyond noise (DESIGN.md §6)?

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::assembly::assemble;
use crate::schema::{IngestRequest, serialize_utc};
use crate::score::SessionIntelligence;
use crate::score::conversation::ConversationResult;
use crate::stats;

/// Fewest conversations per side before an outcome shift can fire.
pub const MIN_CONVERSATIONS: usize = 30;
/// Smallest change of the resolved rate that can fire, in percentage points.
pub const MIN_POINTS: f64 = 3.0;
/// Significance level of the two-proportion z-test.
pub const ALPHA: f64 = 0.05;

/// The resolved rate before and after, and whether the change counts as a shift.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OutcomeShift {
    /// Conversations (with human turns) before.
    pub before_n: usize,
    /// Of those, resolved.
    pub before_resolved: usize,
    /// Conversations after.
    pub after_n: usize,
    /// Of those, resolved.
    pub after_resolved: usize,
    /// Resolved rate before, in [0, 1] (`null` with no conversation).
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub before_rate: Option<f64>,
    /// Resolved rate after.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub after_rate: Option<f64>,
    /// After minus before, in percentage points.
    #[serde(serialize_with = "crate::score::layer_z::ser_opt4")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub change_points: Option<f64>,
    /// Two-sided p-value of the pooled two-proportion z-test (`null` when not computable:
    /// an empty side, or every conversation resolved or none), to 10 significant digits.
    #[serde(serialize_with = "super::ser_opt_p")]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub p_value: Option<f64>,
    /// Whether the shift fires: ≥ 30 conversations per side, |change| ≥ 3 points and
    /// p < 0.05.
    pub outcome_shift_detected: bool,
}

impl OutcomeShift {
    /// One sentence for a summary.
    pub fn sentence(&self, before: &str, after: &str) -> String {
        match (self.before_rate, self.after_rate) {
            (Some(b), Some(a)) => {
                let verdict = if self.outcome_shift_detected {
                    "a significant outcome shift".to_owned()
                } else if self.before_n < MIN_CONVERSATIONS || self.after_n < MIN_CONVERSATIONS {
                    format!(
                        "too few conversations to call an outcome shift (at least {MIN_CONVERSATIONS} per period)"
                    )
                } else {
                    "not a significant outcome shift".to_owned()
                };
                format!(
                    "Resolved rate went from {:.0}% ({before}) to {:.0}% ({after}): {verdict}.",
                    100.0 * b,
                    100.0 * a
                )
            }
            _ => {
                "Resolved rate cannot be compared: a period has no scored conversation.".to_owned()
            }
        }
    }
}

/// Compares the resolved rates of two sets of conversations.
pub fn outcome_shift(
    before: &[&ConversationResult],
    after: &[&ConversationResult],
) -> OutcomeShift {
    let resolved = |v: &[&ConversationResult]| v.iter().filter(|c| c.resolved).count();
    let (bn, an) = (before.len(), after.len());
    let (br, ar) = (resolved(before), resolved(after));
    counts(br, bn, ar, an)
}

/// [`outcome_shift`] from counts: `br` of `bn` resolved before, `ar` of `an` after.
pub fn counts(br: usize, bn: usize, ar: usize, an: usize) -> OutcomeShift {
    let rate = |k: usize, n: usize| (n > 0).then(|| k as f64 / n as f64);
    let (before_rate, after_rate) = (rate(br, bn), rate(ar, an));
    let change_points = before_rate.zip(after_rate).map(|(b, a)| 100.0 * (a - b));
    let p_value =
        stats::two_proportion_z(br as u64, bn as u64, ar as u64, an as u64).map(|t| t.p_value);
    let outcome_shift_detected = bn >= MIN_CONVERSATIONS
        && an >= MIN_CONVERSATIONS
        && change_points.is_some_and(|c| c.abs() >= MIN_POINTS)
        && p_value.is_some_and(|p| p < ALPHA);
    OutcomeShift {
        before_n: bn,
        before_resolved: br,
        after_n: an,
        after_resolved: ar,
        before_rate,
        after_rate,
        change_points,
        p_value,
        outcome_shift_detected,
    }
}

/// An outcome shift at one deploy inside a deployment's events.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeployShift {
    /// The release before the deploy (`metadata.release` or `metadata.model_version`).
    pub from_release: String,
    /// The release after it.
    pub to_release: String,
    /// Start of the first conversation on the new release.
    #[serde(serialize_with = "serialize_utc")]
    pub at: DateTime<Utc>,
    /// Resolved rate of the previous release's conversations vs the new release's.
    pub shift: OutcomeShift,
}

/// The release a conversation ran on: the first `metadata.release`, else
/// `metadata.model_version`, among its events (AI turns usually carry it). A value
/// with a NUL character is not a release name (and no database could store it), nor
/// is one longer than a deploy marker's release may be
/// ([`limits::RELEASE_MAX_CHARS`](crate::schema::limits::RELEASE_MAX_CHARS)).
pub(crate) fn release_of(
    event_metadata: &[Option<&serde_json::Map<String, Value>>],
) -> Option<String> {
    event_metadata.iter().flatten().find_map(|m| {
        ["release", "model_version"]
            .iter()
            .find_map(|k| match m.get(*k) {
                Some(Value::String(s))
                    if !s.trim().is_empty()
                        && !s.contains('\0')
                        && s.trim().chars().count() <= crate::schema::limits::RELEASE_MAX_CHARS =>
                {
                    Some(s.trim().to_owned())
                }
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            })
    })
}

/// Finds deploys in one scored request — a change of release between consecutive
/// conversations in time order (a conversation without a release keeps the previous
/// one) — and tests the resolved rate of each release segment against the next.
pub fn at_deploys(request: &IngestRequest, result: &SessionIntelligence) -> Vec<DeployShift> {
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    let releases: BTreeMap<&str, Option<String>> = assembly
        .conversations
        .iter()
        .map(|c| {
            let meta: Vec<_> = c.turns.iter().map(|t| t.event.metadata.as_ref()).collect();
            (c.conversation_id.as_str(), release_of(&meta))
        })
        .collect();
    let mut scored: Vec<&ConversationResult> = result
        .intelligence
        .conversations
        .iter()
        .filter(|c| !c.turns.is_empty())
        .collect();
    scored.sort_by(|a, b| {
        (a.started_at, &a.conversation_id).cmp(&(b.started_at, &b.conversation_id))
    });
    // Segments of consecutive conversations on one release.
    let mut segments: Vec<(String, Vec<&ConversationResult>)> = Vec::new();
    for c in scored {
        let release = releases
            .get(&*c.conversation_id)
            .cloned()
            .flatten()
            .or_else(|| segments.last().map(|(r, _)| r.clone()));
        let Some(release) = release else {
            continue;
        };
        match segments.last_mut() {
            Some((r, v)) if *r == release => v.push(c),
            _ => segments.push((release, vec![c])),
        }
    }
    segments
        .windows(2)
        .map(|w| DeployShift {
            from_release: w[0].0.clone(),
            to_release: w[1].0.clone(),
            at: w[1].1[0].started_at,
            shift: outcome_shift(&w[0].1, &w[1].1),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_is_the_first_usable_release_or_model_version() {
        let meta = |v: Value| v.as_object().cloned();
        let with_nul = meta(serde_json::json!({"release": "v1\u{0}"}));
        let model = meta(serde_json::json!({"model_version": 7}));
        let named = meta(serde_json::json!({"release": "  v2 "}));
        // A NUL makes a value unusable; the next event's model_version is taken.
        assert_eq!(
            release_of(&[with_nul.as_ref(), model.as_ref()]),
            Some("7".to_owned())
        );
        assert_eq!(release_of(&[named.as_ref()]), Some("v2".to_owned()));
        assert_eq!(release_of(&[with_nul.as_ref()]), None);
        // As long as a marker's release may be, and no longer (spaces around not counted).
        let longest = "r".repeat(256);
        let at_most = meta(serde_json::json!({"release": format!(" {longest} ")}));
        assert_eq!(release_of(&[at_most.as_ref()]), Some(longest));
        let over = meta(serde_json::json!({"release": "r".repeat(257)}));
        assert_eq!(
            release_of(&[over.as_ref(), model.as_ref()]),
            Some("7".to_owned())
        );
    }

    #[test]
    fn fires_only_with_enough_data_a_large_change_and_significance() {
        // 60% → 80% of 100 each: z ≈ 3.09, p ≈ 0.002.
        let s = counts(60, 100, 80, 100);
        assert!(s.outcome_shift_detected, "{s:?}");
        assert!((s.change_points.unwrap() - 20.0).abs() < 1e-9);
        // Same rates, 20 per side: too few conversations.
        assert!(!counts(12, 20, 16, 20).outcome_shift_detected);
        // Large samples, significant but under 3 points.
        let s = counts(50_000, 100_000, 52_000, 100_000);
        assert!(s.p_value.unwrap() < 0.05);
        assert!(!s.outcome_shift_detected);
        // Not significant.
        assert!(!counts(15, 30, 17, 30).outcome_shift_detected);
    }

    #[test]
    fn empty_or_degenerate_sides_have_no_p_value() {
        let s = counts(0, 0, 5, 10);
        assert_eq!(s.before_rate, None);
        assert_eq!(s.p_value, None);
        assert!(!s.outcome_shift_detected);
        let s = counts(40, 40, 40, 40);
        assert_eq!(s.p_value, None);
        assert!(!s.outcome_shift_detected);
    }
}
