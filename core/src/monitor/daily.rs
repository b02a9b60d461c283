//! A deployment's history by day: per UTC calendar day and dimension, the median score
//! of the conversations that started that day and the share of them in the broken
//! band. What the app's deployment page draws.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ConversationPoint;
use crate::score::layer_z::{Band, ByDimension, Dimension};

/// One dimension on one day.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DayValue {
    /// The median conversation score (not risk).
    pub median: f64,
    /// The share of the day's conversations whose risk is in the broken band.
    pub broken_share: f64,
}

/// One day of a deployment's history.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Day {
    /// The UTC date, e.g. `2026-11-21`.
    pub date: String,
    /// Conversations that started that day.
    pub conversations: usize,
    /// The share of them resolved.
    pub resolved_share: f64,
    /// Each dimension's median and broken share.
    pub dimensions: ByDimension<DayValue>,
}

/// The days of `points` (any order), oldest first; a day without conversations is left out.
pub fn daily(points: &[ConversationPoint]) -> Vec<Day> {
    let mut days: BTreeMap<String, Vec<&ConversationPoint>> = BTreeMap::new();
    for p in points {
        days.entry(p.started_at.format("%Y-%m-%d").to_string())
            .or_default()
            .push(p);
    }
    days.into_iter()
        .map(|(date, day)| {
            let n = day.len();
            let share = |f: &dyn Fn(&ConversationPoint) -> bool| {
                day.iter().filter(|p| f(p)).count() as f64 / n as f64
            };
            let dimensions = ByDimension::from_fn(|d: Dimension| {
                let mut scores: Vec<f64> = day.iter().map(|p| *p.scores.get(d)).collect();
                scores.sort_by(f64::total_cmp);
                let median = if n % 2 == 1 {
                    scores[n / 2]
                } else {
                    (scores[n / 2 - 1] + scores[n / 2]) / 2.0
                };
                DayValue {
                    median,
                    broken_share: share(&|p| Band::of_risk(p.risk(d)) == Band::Broken),
                }
            });
            Day {
                date,
                conversations: n,
                resolved_share: share(&|p| p.resolved),
                dimensions,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn point(day: u32, hour: u32, frustration: f64, resolved: bool) -> ConversationPoint {
        ConversationPoint {
            conversation_id: format!("c{day}-{hour}"),
            started_at: Utc.with_ymd_and_hms(2026, 11, day, hour, 0, 0).unwrap(),
            human_turns: 3,
            resolved,
            abandoned: false,
            release: None,
            scores: ByDimension::from_fn(|d| {
                if d == Dimension::FrustrationBuildup {
                    frustration
                } else {
                    0.9
                }
            }),
        }
    }

    #[test]
    fn days_hold_the_median_and_the_broken_share_of_their_conversations() {
        let points = [
            point(22, 9, 0.8, false),
            point(21, 23, 0.1, true),
            point(21, 1, 0.3, true),
            point(22, 10, 0.2, true),
            point(21, 12, 0.9, false),
        ];
        let days = daily(&points);
        assert_eq!(
            days.iter().map(|d| d.date.as_str()).collect::<Vec<_>>(),
            ["2026-11-21", "2026-11-22"]
        );
        let f = |d: &Day| d.dimensions.frustration_buildup;
        assert_eq!((days[0].conversations, f(&days[0]).median), (3, 0.3));
        assert!((f(&days[0]).broken_share - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(
            f(&days[1]).median,
            0.5,
            "even count: the mean of the middle two"
        );
        assert_eq!(f(&days[1]).broken_share, 0.5);
        assert!((days[0].resolved_share - 2.0 / 3.0).abs() < 1e-12);
        // Trust at 0.9 is healthy: its risk is 0.1.
        assert_eq!(days[0].dimensions.trust_calibration.broken_share, 0.0);
        assert!(daily(&[]).is_empty());
    }
}
