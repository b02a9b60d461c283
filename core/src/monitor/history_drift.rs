//! Drift between two periods of a deployment's kept history (`POST
//! /deployments/{id}/drift`): the conversation points of each period, as the history
//! kept them when the drift was requested, compared as [`crate::drift::drift`]
//! compares scored events.

use serde::{Deserialize, Serialize};

use super::ConversationPoint;
use crate::drift::{DriftResult, Side, compare_sides};

/// One period read from the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryPeriod {
    /// The period's label.
    pub label: String,
    /// The conversations that started in the period, oldest first.
    pub points: Vec<ConversationPoint>,
}

/// A drift over a deployment's history, as stored with its session: the points are a
/// snapshot taken when the drift was requested, so the result does not change with
/// retention or later ingests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryDriftRequest {
    /// The deployment.
    pub deployment_id: String,
    /// The baseline period.
    pub before: HistoryPeriod,
    /// The compared period.
    pub after: HistoryPeriod,
    /// The question the analysis addresses first.
    pub question: Option<String>,
}

/// Compares the two periods of `request`.
pub fn drift_history(request: &HistoryDriftRequest) -> DriftResult {
    compare_points(
        (&request.before.label, &request.before.points),
        (&request.after.label, &request.after.points),
        request.question.as_deref(),
    )
}

/// Compares two sets of kept conversation points. History keeps scores, not events, so
/// the periods' `event_count` is `null` and the recommendations cannot quote evidence.
pub fn compare_points(
    (before_label, before): (&str, &[ConversationPoint]),
    (after_label, after): (&str, &[ConversationPoint]),
    question: Option<&str>,
) -> DriftResult {
    compare_sides(
        side(before_label, before),
        side(after_label, after),
        question,
    )
}

fn side<'a>(label: &'a str, points: &[ConversationPoint]) -> Side<'a> {
    Side {
        label,
        event_count: None,
        human_turns: points.iter().map(|p| p.human_turns).sum(),
        conversations: points
            .iter()
            .filter(|p| p.human_turns > 0)
            .map(|p| (p.scores.clone(), p.resolved))
            .collect(),
        evidence: None,
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::drift::{DriftDirection, Verdict};
    use crate::score::layer_z::{ByDimension, Dimension};

    fn point(i: usize, frustration: f64, resolved: bool) -> ConversationPoint {
        ConversationPoint {
            conversation_id: format!("c{i}"),
            started_at: Utc.with_ymd_and_hms(2026, 11, 1, 9, 0, 0).unwrap(),
            human_turns: 3,
            resolved,
            abandoned: false,
            release: None,
            scores: ByDimension::from_fn(|d| match d {
                Dimension::FrustrationBuildup => frustration,
                Dimension::TrustCalibration => 0.7,
                _ => 0.2,
            }),
        }
    }

    #[test]
    fn a_rise_in_frustration_between_periods_is_a_regression() {
        let before: Vec<_> = (0..12)
            .map(|i| point(i, 0.10 + 0.01 * i as f64, true))
            .collect();
        let after: Vec<_> = (0..12)
            .map(|i| point(i, 0.60 + 0.01 * i as f64, i % 2 == 0))
            .collect();
        let request = HistoryDriftRequest {
            deployment_id: "bot".into(),
            before: HistoryPeriod {
                label: "week 1".into(),
                points: before,
            },
            after: HistoryPeriod {
                label: "week 2".into(),
                points: after,
            },
            question: Some("Are people more frustrated?".into()),
        };
        let r = drift_history(&request);
        let f = r.dimension_drifts.get(Dimension::FrustrationBuildup);
        assert_eq!(f.verdict, Verdict::Regressed);
        assert_eq!((f.before_n, f.after_n), (12, 12));
        // Every after score exceeds every before score by 0.50: the shift is exact.
        assert_eq!(f.shift, Some(0.5));
        assert_eq!(f.effect_size, Some(1.0));
        // Constant dimensions tie completely and are not significant.
        let t = r.dimension_drifts.get(Dimension::TrustCalibration);
        assert_eq!(t.verdict, Verdict::Unchanged);
        assert_eq!(r.direction, DriftDirection::Regressed);
        assert_eq!(r.before.event_count, None);
        assert_eq!(r.before.human_turn_count, 36);
        assert_eq!(r.after.resolved_rate, Some(0.5));
        assert!(r.key_findings[0].starts_with("Frustration buildup: regressed"));
        assert!(
            r.plain_recommendations[0].contains("compare the two periods"),
            "{:?}",
            r.plain_recommendations
        );
    }

    #[test]
    fn the_stored_form_round_trips_and_refuses_an_events_body() {
        let request = HistoryDriftRequest {
            deployment_id: "bot".into(),
            before: HistoryPeriod {
                label: "a".into(),
                points: vec![point(0, 0.1, true)],
            },
            after: HistoryPeriod {
                label: "b".into(),
                points: vec![],
            },
            question: None,
        };
        let text = serde_json::to_string(&request).unwrap();
        assert_eq!(
            serde_json::from_str::<HistoryDriftRequest>(&text).unwrap(),
            request
        );
        let events_body = r#"{"deployment_id":"bot","before":{"label":"a","events":[]},"after":{"label":"b","events":[]}}"#;
        assert!(serde_json::from_str::<HistoryDriftRequest>(events_body).is_err());
    }
}
