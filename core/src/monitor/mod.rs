//! Monitoring a deployment over time: threshold crossings of scored turns, a compact
//! per-conversation history, weekly health reports.
//!
//! A scored request is reduced to one [`ConversationPoint`] per conversation with human
//! turns ([`points`]); a store keeps those points, and [`health_report`] and
//! [`anomaly::detect_points`] read them back without rescoring.
//! [`crossings()`] lists the turns where a dimension entered the broken band;
//! [`release_changes`] and [`settled_shift`] find deploys in the history and test them.

pub mod anomaly;
pub mod crossings;
mod daily;
pub mod deploys;
pub mod history_drift;
pub mod report;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use crate::assembly::assemble;
use crate::drift::outcome::release_of;
use crate::schema::{IngestRequest, serialize_utc};
use crate::score::SessionIntelligence;
use crate::score::conversation::ConversationResult;
use crate::score::layer_z::{ByDimension, Dimension};

pub use crossings::{CROSSING_DIMENSIONS, Crossing, crossings};
pub use daily::{Day, DayValue, daily};
pub use deploys::{DEPLOY_BASELINE, ReleaseChange, release_changes, settled_shift};
pub use history_drift::{HistoryDriftRequest, HistoryPeriod, compare_points, drift_history};
pub use report::{DimensionHealth, HealthReport, health_report};

/// One scored conversation as a deployment's history keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationPoint {
    /// The conversation id as scored: the given id or the implicit `auto:…` one.
    pub conversation_id: String,
    /// When the conversation's first turn was written.
    #[serde(serialize_with = "serialize_utc", deserialize_with = "deserialize_utc")]
    pub started_at: DateTime<Utc>,
    /// Human turns scored.
    pub human_turns: usize,
    /// Whether the person's need was met.
    pub resolved: bool,
    /// Whether the person left unresolved with high abandonment risk.
    pub abandoned: bool,
    /// The release the conversation ran on: the first `metadata.release`, else
    /// `metadata.model_version`, among its events.
    pub release: Option<String>,
    /// Each dimension's conversation-level score (not risk), unrounded.
    pub scores: ByDimension<f64>,
}

impl ConversationPoint {
    /// The risk of dimension `d`: its score, or `1 - score` for trust calibration.
    pub fn risk(&self, d: Dimension) -> f64 {
        d.risk(*self.scores.get(d))
    }

    /// The point of one scored conversation, with the release given.
    pub(crate) fn of(c: &ConversationResult, release: Option<String>) -> ConversationPoint {
        ConversationPoint {
            conversation_id: c.conversation_id.to_string(),
            started_at: c.started_at,
            human_turns: c.turns.len(),
            resolved: c.resolved,
            abandoned: c.abandoned,
            release,
            scores: ByDimension::from_fn(|d| c.layer_z.get(d).score),
        }
    }
}

/// The history points of one scored request: one per conversation with at least one
/// human turn, in the order of `result.intelligence.conversations`, each with the
/// release read from the request's events of that conversation.
pub fn points(request: &IngestRequest, result: &SessionIntelligence) -> Vec<ConversationPoint> {
    let assembly = assemble(&request.events, Some(&request.deployment_id));
    let releases: BTreeMap<&str, Option<String>> = assembly
        .conversations
        .iter()
        .map(|c| {
            let meta: Vec<_> = c.turns.iter().map(|t| t.event.metadata.as_ref()).collect();
            (c.conversation_id.as_str(), release_of(&meta))
        })
        .collect();
    result
        .intelligence
        .conversations
        .iter()
        .filter(|c| !c.turns.is_empty())
        .map(|c| {
            let release = releases.get(&*c.conversation_id).cloned().flatten();
            ConversationPoint::of(c, release)
        })
        .collect()
}

/// Reads an RFC 3339 time (any offset) as UTC; the inverse of [`serialize_utc`].
fn deserialize_utc<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let s = String::deserialize(d)?;
    DateTime::parse_from_rfc3339(&s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Options, ingest_request_bytes};

    fn request(body: &str) -> IngestRequest {
        ingest_request_bytes(body.as_bytes(), &Options::default()).unwrap()
    }

    #[test]
    fn points_keep_scores_releases_and_skip_conversations_without_humans() {
        let req = request(
            r#"{"deployment_id": "bot", "events": [
              {"actor_id": "u1", "conversation_id": "c1", "content": "How do I reset my password?", "timestamp": "2026-11-21T09:00:00Z"},
              {"actor_id": "bot", "conversation_id": "c1", "content": "Use the reset link.", "timestamp": "2026-11-21T09:00:05Z", "metadata": {"model_version": "v1", "release": "r7"}},
              {"actor_id": "u2", "conversation_id": "c2", "content": "Where is my order?", "timestamp": "2026-11-21T10:00:00+01:00"},
              {"actor_id": "bot", "conversation_id": "c2", "content": "It ships today.", "timestamp": "2026-11-21T09:00:09Z", "metadata": {"model_version": "v2"}},
              {"actor_id": "bot", "conversation_id": "c3", "content": "Hello?", "timestamp": "2026-11-21T11:00:00Z"}
            ]}"#,
        );
        let result = crate::score::score(&req);
        let pts = points(&req, &result);
        assert_eq!(pts.len(), 2, "c3 has no human turn");
        let ids: Vec<&str> = pts.iter().map(|p| p.conversation_id.as_str()).collect();
        let expected: Vec<&str> = result
            .intelligence
            .conversations
            .iter()
            .filter(|c| *c.conversation_id != *"c3")
            .map(|c| c.conversation_id.as_ref())
            .collect();
        assert_eq!(ids, expected);
        let c1 = pts.iter().find(|p| p.conversation_id == "c1").unwrap();
        let c2 = pts.iter().find(|p| p.conversation_id == "c2").unwrap();
        assert_eq!(
            c1.release.as_deref(),
            Some("r7"),
            "release wins over model_version"
        );
        assert_eq!(c2.release.as_deref(), Some("v2"));
        assert_eq!(c2.started_at.to_rfc3339(), "2026-11-21T09:00:00+00:00");
        assert_eq!(c1.human_turns, 1);
        let conv = result
            .intelligence
            .conversations
            .iter()
            .find(|c| *c.conversation_id == *"c1")
            .unwrap();
        for d in Dimension::ALL {
            assert_eq!(*c1.scores.get(d), conv.layer_z.get(d).score);
            assert_eq!(c1.risk(d), conv.layer_z.get(d).risk);
        }
        assert_eq!(c1.resolved, conv.resolved);
        assert_eq!(c1.abandoned, conv.abandoned);
    }

    #[test]
    fn a_point_round_trips_through_json() {
        let p = ConversationPoint {
            conversation_id: "auto:u1/-/2026-11-21T09:00:00Z".to_owned(),
            started_at: DateTime::parse_from_rfc3339("2026-11-21T09:00:00.5Z")
                .unwrap()
                .with_timezone(&Utc),
            human_turns: 3,
            resolved: true,
            abandoned: false,
            release: None,
            scores: ByDimension::from_fn(|d| 0.125 * (d as usize) as f64),
        };
        let json = serde_json::to_string(&p).unwrap();
        assert!(
            json.contains(r#""started_at":"2026-11-21T09:00:00.500Z""#),
            "{json}"
        );
        assert!(json.contains(r#""frustration_buildup":0.125"#), "{json}");
        let back: ConversationPoint = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.risk(Dimension::TrustCalibration), 1.0);
        assert_eq!(back.risk(Dimension::DependencyDrift), 0.25);
    }

    #[test]
    fn a_bad_time_is_a_deserialisation_error() {
        let json = r#"{"conversation_id":"c","started_at":"yesterday","human_turns":1,
            "resolved":false,"abandoned":false,"release":null,"scores":{"trust_calibration":0.5,
            "frustration_buildup":0.5,"dependency_drift":0.5,"silent_abandonment_risk":0.5,
            "escalation_friction":0.5,"comprehension_gap":0.5}}"#;
        assert!(serde_json::from_str::<ConversationPoint>(json).is_err());
    }
}
