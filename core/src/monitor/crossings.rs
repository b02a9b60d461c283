//! Threshold crossings: the scored human turns that pushed trust calibration,
//! frustration buildup or dependency drift into the broken band (the
//! `layer_z_threshold_crossed` event).
//!
//! A turn's Layer Z already carries the arc so far, and its band follows from its risk.
//! A turn crosses when its band is broken and the previous human turn of the same
//! conversation was not (a conversation's first turn crosses when it is broken). So a
//! conversation that stays broken crosses once, and one that recovers to watch or
//! healthy and breaks again crosses again.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::schema::serialize_utc;
use crate::score::SessionIntelligence;
use crate::score::layer_z::{Band, Dimension, Evidence, ser4};

/// The dimensions whose crossings are reported: trust_calibration, frustration_buildup,
/// dependency_drift.
pub const CROSSING_DIMENSIONS: [Dimension; 3] = [
    Dimension::TrustCalibration,
    Dimension::FrustrationBuildup,
    Dimension::DependencyDrift,
];

/// One turn that pushed a dimension into the broken band.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Crossing {
    /// The dimension that crossed.
    pub dimension: Dimension,
    /// The turn's score of that dimension.
    #[serde(serialize_with = "ser4")]
    pub score: f64,
    /// The score at which the dimension enters the broken band (0.55; 0.45 for trust).
    #[serde(serialize_with = "ser4")]
    pub threshold: f64,
    /// The turn's band: always broken.
    pub band: Band,
    /// The conversation, as scored.
    pub conversation_id: String,
    /// The turn's position in the request's `events`.
    pub event_index: usize,
    /// The turn's timestamp.
    #[serde(serialize_with = "serialize_utc")]
    pub occurred_at: DateTime<Utc>,
    /// The strongest signal that pushed the dimension towards broken on this turn, if any.
    pub signal: Option<&'static str>,
    /// The turn's evidence for the dimension, strongest first.
    pub evidence: Vec<Evidence>,
}

/// Every crossing in a scored request, ordered by conversation (as in the result), then
/// event index, then dimension (as in [`CROSSING_DIMENSIONS`]).
pub fn crossings(result: &SessionIntelligence) -> Vec<Crossing> {
    let mut out: Vec<(usize, usize, Crossing)> = Vec::new();
    for (ci, c) in result.intelligence.conversations.iter().enumerate() {
        for (di, &d) in CROSSING_DIMENSIONS.iter().enumerate() {
            let bands: Vec<Band> = c.turns.iter().map(|t| t.layer_z.get(d).band).collect();
            for i in crossing_indices(&bands) {
                let Some(turn) = c.turns.get(i) else {
                    continue;
                };
                let s = turn.layer_z.get(d);
                out.push((
                    ci,
                    di,
                    Crossing {
                        dimension: d,
                        score: s.score,
                        threshold: d.broken_threshold(),
                        band: s.band,
                        conversation_id: turn.conversation_id.to_string(),
                        event_index: turn.event_index,
                        occurred_at: turn.timestamp,
                        signal: s
                            .evidence
                            .iter()
                            .find(|e| e.contribution > 0.0)
                            .map(|e| e.signal),
                        evidence: s.evidence.clone(),
                    },
                ));
            }
        }
    }
    out.sort_by_key(|(ci, di, x)| (*ci, x.event_index, *di));
    out.into_iter().map(|(_, _, x)| x).collect()
}

/// Positions in a sequence of bands where broken starts: broken, and either first or
/// after a band that is not broken.
fn crossing_indices(bands: &[Band]) -> Vec<usize> {
    bands
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == Band::Broken && (i == 0 || bands.get(i - 1) != Some(&Band::Broken)))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Options, ingest_request_bytes};

    #[test]
    fn broken_starts_are_crossings() {
        use Band::{Broken, Healthy, Watch};
        assert_eq!(
            crossing_indices(&[Healthy, Broken, Broken, Watch, Broken]),
            [1, 4]
        );
        assert_eq!(crossing_indices(&[Broken, Broken, Broken]), [0]);
        assert_eq!(
            crossing_indices(&[Healthy, Watch, Watch]),
            Vec::<usize>::new()
        );
        assert_eq!(crossing_indices(&[]), Vec::<usize>::new());
        assert_eq!(
            crossing_indices(&[Broken, Healthy, Broken, Watch, Broken]),
            [0, 2, 4]
        );
    }

    /// Two conversations: `angry` escalates from a calm question to hostility, `calm`
    /// stays polite.
    const BODY: &str = r#"{"deployment_id": "bot", "events": [
      {"actor_id": "u1", "conversation_id": "angry", "content": "Hi, how do I change my delivery address?", "timestamp": "2026-11-21T09:00:00Z"},
      {"actor_id": "bot", "conversation_id": "angry", "content": "You can change it in your account settings.", "timestamp": "2026-11-21T09:00:05Z"},
      {"actor_id": "u1", "conversation_id": "angry", "content": "That option is not there. I already looked.", "timestamp": "2026-11-21T09:01:00Z"},
      {"actor_id": "bot", "conversation_id": "angry", "content": "You can change it in your account settings.", "timestamp": "2026-11-21T09:01:05Z"},
      {"actor_id": "u1", "conversation_id": "angry", "content": "This is ridiculous, I have asked three times already!!!", "timestamp": "2026-11-21T09:02:00Z"},
      {"actor_id": "bot", "conversation_id": "angry", "content": "You can change it in your account settings.", "timestamp": "2026-11-21T09:02:05Z"},
      {"actor_id": "u1", "conversation_id": "angry", "content": "This is useless, you are a stupid bot and I am furious!!!", "timestamp": "2026-11-21T09:03:00Z"},
      {"actor_id": "u2", "conversation_id": "calm", "content": "What are your opening hours?", "timestamp": "2026-11-21T10:00:00Z"},
      {"actor_id": "bot", "conversation_id": "calm", "content": "We are open 9 to 5, Monday to Friday.", "timestamp": "2026-11-21T10:00:05Z"},
      {"actor_id": "u2", "conversation_id": "calm", "content": "Great, thanks!", "timestamp": "2026-11-21T10:01:00Z"}
    ]}"#;

    #[test]
    fn crossings_of_a_scored_request() {
        let req = ingest_request_bytes(BODY.as_bytes(), &Options::default()).unwrap();
        let result = crate::score::score(&req);
        let found = crossings(&result);
        let angry = result
            .intelligence
            .conversations
            .iter()
            .find(|c| *c.conversation_id == *"angry")
            .unwrap();
        let frustration: Vec<(usize, Band)> = angry
            .turns
            .iter()
            .map(|t| (t.event_index, t.layer_z.frustration_buildup.band))
            .collect();
        assert_eq!(frustration[0], (0, Band::Healthy), "{frustration:?}");
        // "I already looked" after a failed suggestion breaks, and the arc stays broken
        // to the end, so the conversation crosses once.
        assert!(
            frustration[1..].iter().all(|(_, b)| *b == Band::Broken),
            "{frustration:?}"
        );

        let frustrated: Vec<&Crossing> = found
            .iter()
            .filter(|x| x.dimension == Dimension::FrustrationBuildup)
            .collect();
        assert_eq!(frustrated.len(), 1, "{found:#?}");
        assert_eq!(found.len(), 1, "only frustration breaks: {found:#?}");
        let x = frustrated[0];
        assert_eq!(x.event_index, 2, "the second human turn breaks");
        assert_eq!(x.conversation_id, "angry");
        assert_eq!(x.band, Band::Broken);
        assert!((x.threshold - 0.55).abs() < 1e-12);
        assert!(x.score > 0.55);
        // The strongest push is what the person said ("I already looked"), not the
        // base rate.
        assert_eq!(x.signal, Some("repetition_claim"), "{x:?}");
        assert_eq!(
            x.evidence
                .iter()
                .find(|e| e.signal == "repetition_claim")
                .and_then(|e| e.detail.as_deref()),
            Some("\"i already\"")
        );
        let pos = angry
            .turns
            .iter()
            .position(|t| t.event_index == x.event_index)
            .unwrap();
        assert!(pos > 0);
        assert_eq!(
            angry.turns[pos].layer_z.frustration_buildup.band,
            Band::Broken
        );
        assert_ne!(
            angry.turns[pos - 1].layer_z.frustration_buildup.band,
            Band::Broken
        );
        assert_eq!(x.occurred_at, angry.turns[pos].timestamp);
        assert_eq!(
            x.evidence,
            angry.turns[pos].layer_z.frustration_buildup.evidence
        );
        assert_eq!(x.score, angry.turns[pos].layer_z.frustration_buildup.score);

        // Every crossing obeys the rule, and the calm conversation has none.
        for x in &found {
            assert!(CROSSING_DIMENSIONS.contains(&x.dimension));
            assert_eq!(x.band, Band::Broken);
            assert!((x.threshold - x.dimension.broken_threshold()).abs() < 1e-12);
            assert_ne!(x.conversation_id, "calm");
            if x.dimension == Dimension::TrustCalibration {
                assert!((x.threshold - 0.45).abs() < 1e-12);
                assert!(x.score < 0.45);
            }
        }
        let json = serde_json::to_value(x).unwrap();
        assert_eq!(json["dimension"], "frustration_buildup");
        assert_eq!(json["threshold"], 0.55);
        assert_eq!(json["band"], "broken");
        assert_eq!(json["occurred_at"], "2026-11-21T09:01:00Z");
    }

    #[test]
    fn crossings_are_ordered_by_conversation_turn_then_dimension() {
        let req = ingest_request_bytes(BODY.as_bytes(), &Options::default()).unwrap();
        let mut result = crate::score::score(&req);
        let conversations = &mut result.intelligence.conversations;
        let angry = conversations
            .iter()
            .position(|c| *c.conversation_id == *"angry")
            .unwrap();
        let calm = 1 - angry;
        // Dependency broken from the first turn on, trust broken on the calm
        // conversation's second turn, and a frustration recovery then relapse.
        for t in &mut conversations[angry].turns {
            t.layer_z.dependency_drift.band = Band::Broken;
        }
        // Frustration bands become healthy, broken, watch, broken.
        conversations[angry].turns[1]
            .layer_z
            .frustration_buildup
            .band = Band::Broken;
        conversations[angry].turns[2]
            .layer_z
            .frustration_buildup
            .band = Band::Watch;
        conversations[calm].turns[1].layer_z.trust_calibration.band = Band::Broken;
        let got: Vec<(&str, usize, Dimension)> = crossings(&result)
            .iter()
            .map(|x| (x.conversation_id.as_str(), x.event_index, x.dimension))
            .map(|(c, i, d)| (if c == "angry" { "angry" } else { "calm" }, i, d))
            .collect();
        let mut expected = vec![
            ("angry", 0, Dimension::DependencyDrift),
            ("angry", 2, Dimension::FrustrationBuildup),
            ("angry", 6, Dimension::FrustrationBuildup),
        ];
        let calm_part = vec![("calm", 9, Dimension::TrustCalibration)];
        if angry == 0 {
            expected.extend(calm_part);
        } else {
            expected.splice(0..0, calm_part);
        }
        assert_eq!(got, expected);
    }

    #[test]
    fn a_request_without_broken_turns_has_no_crossings() {
        let req = ingest_request_bytes(
            br#"{"deployment_id": "bot", "events": [
              {"actor_id": "u2", "content": "What are your opening hours?", "timestamp": "2026-11-21T10:00:00Z"},
              {"actor_id": "bot", "content": "We are open 9 to 5.", "timestamp": "2026-11-21T10:00:05Z"}
            ]}"#,
            &Options::default(),
        )
        .unwrap();
        assert_eq!(crossings(&crate::score::score(&req)), Vec::new());
    }
}
