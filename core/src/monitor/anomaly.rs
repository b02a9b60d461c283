//! Anomaly detection over a deployment's time series of dimension scores: an EWMA
//! control chart against a trailing baseline (Roberts 1959; Lucas & Saccucci 1990).
//!
//! Conversations are grouped into buckets (by UTC day of their start, or every N
//! conversations in time order); a bucket's value is the mean per-conversation risk
//! of a dimension. For each bucket with at least [`MIN_BASELINE`] earlier buckets, the
//! baseline is the mean μ and standard deviation σ of up to [`BASELINE_WINDOW`]
//! earlier bucket values; the EWMA `e = λ·x + (1 − λ)·e_prev` (λ = 0.3, started at the
//! first bucket) is standardised with the asymptotic EWMA standard deviation,
//! `z = (e − μ) / (σ·√(λ / (2 − λ)))`, and fires at |z| ≥ 3. Severity: `low` below 4,
//! `medium` below 5, `high` from 5.

use std::collections::BTreeMap;

use serde::Serialize;

use super::ConversationPoint;
use crate::score::conversation::ConversationResult;
use crate::score::layer_z::Dimension;

/// EWMA smoothing weight of the newest bucket.
pub const LAMBDA: f64 = 0.3;
/// Control limit, in EWMA standard deviations.
pub const LIMIT: f64 = 3.0;
/// Earlier buckets needed before a bucket is judged.
pub const MIN_BASELINE: usize = 5;
/// Earlier buckets used as the baseline, at most.
pub const BASELINE_WINDOW: usize = 14;
/// Floor of the baseline standard deviation, so a perfectly flat baseline does not
/// turn a 0.001 wobble into an alarm.
pub const MIN_SD: f64 = 0.02;

/// How conversations are grouped into points of the series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucketing {
    /// By the UTC calendar day the conversation started.
    Daily,
    /// Every `n` conversations in start order (the last bucket may be smaller).
    Conversations(usize),
}

/// How far outside the control limits a bucket fell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// |z| from 3 to 4.
    Low,
    /// |z| from 4 to 5.
    Medium,
    /// |z| of 5 or more.
    High,
}

/// Which way a dimension moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Movement {
    /// Risk went up.
    Worse,
    /// Risk went down.
    Better,
}

/// One bucket that fell outside the control limits on one dimension.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Anomaly {
    /// The dimension.
    pub dimension: Dimension,
    /// The bucket: a UTC date (`2026-11-21`) or a conversation range (`conversations 40-59`).
    pub bucket: String,
    /// Conversations in the bucket.
    pub conversations: usize,
    /// The bucket's mean risk.
    pub value: f64,
    /// Baseline mean risk.
    pub baseline_mean: f64,
    /// Baseline standard deviation (at least [`MIN_SD`]).
    pub baseline_sd: f64,
    /// The EWMA statistic at this bucket.
    pub ewma: f64,
    /// The standardised EWMA that fired.
    pub z: f64,
    /// The statistic that fired: always `ewma` here.
    pub statistic: &'static str,
    /// Rating from |z|.
    pub severity: Severity,
    /// Risk up or down.
    pub direction: Movement,
}

/// A point of the control chart that fired: index, z, EWMA, baseline mean and sd.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alarm {
    /// Position in the series.
    pub index: usize,
    /// The standardised EWMA.
    pub z: f64,
    /// The EWMA value.
    pub ewma: f64,
    /// Baseline mean.
    pub mean: f64,
    /// Baseline standard deviation (floored at [`MIN_SD`]).
    pub sd: f64,
}

/// Runs the EWMA chart over `series` (non-finite values are skipped as if absent).
pub fn ewma_alarms(series: &[f64]) -> Vec<Alarm> {
    let mut out = Vec::new();
    let mut ewma: Option<f64> = None;
    // The finite values before the current bucket, in order.
    let mut earlier: Vec<f64> = Vec::with_capacity(series.len());
    for (t, &x) in series.iter().enumerate() {
        if !x.is_finite() {
            continue;
        }
        let e = match ewma {
            None => x,
            Some(prev) => LAMBDA * x + (1.0 - LAMBDA) * prev,
        };
        ewma = Some(e);
        let enough = earlier.len() >= MIN_BASELINE;
        let base = &earlier[earlier.len().saturating_sub(BASELINE_WINDOW)..];
        if !enough {
            earlier.push(x);
            continue;
        }
        let n = base.len() as f64;
        let mean = base.iter().sum::<f64>() / n;
        let var = base.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let sd = var.sqrt().max(MIN_SD);
        let z = (e - mean) / (sd * (LAMBDA / (2.0 - LAMBDA)).sqrt());
        if z.abs() >= LIMIT {
            out.push(Alarm {
                index: t,
                z,
                ewma: e,
                mean,
                sd,
            });
        }
        earlier.push(x);
    }
    out
}

/// Finds anomalies in every dimension of a deployment's scored conversations.
pub fn detect(conversations: &[ConversationResult], bucketing: Bucketing) -> Vec<Anomaly> {
    let points: Vec<ConversationPoint> = conversations
        .iter()
        .map(|c| ConversationPoint::of(c, None))
        .collect();
    detect_points(&points, bucketing)
}

/// Finds anomalies in every dimension of a deployment's history points: those with no
/// human turn are skipped, the rest ordered by start time then id, and a bucket's value
/// is the mean risk of its conversations.
pub fn detect_points(points: &[ConversationPoint], bucketing: Bucketing) -> Vec<Anomaly> {
    let mut scored: Vec<&ConversationPoint> = points.iter().filter(|p| p.human_turns > 0).collect();
    scored.sort_by(|a, b| {
        (a.started_at, &a.conversation_id).cmp(&(b.started_at, &b.conversation_id))
    });
    let buckets: Vec<(String, Vec<&ConversationPoint>)> = match bucketing {
        Bucketing::Daily => {
            let mut by_day: BTreeMap<String, Vec<&ConversationPoint>> = BTreeMap::new();
            for p in scored {
                by_day
                    .entry(p.started_at.format("%Y-%m-%d").to_string())
                    .or_default()
                    .push(p);
            }
            by_day.into_iter().collect()
        }
        Bucketing::Conversations(n) => {
            let n = n.max(1);
            scored
                .chunks(n)
                .enumerate()
                .map(|(k, chunk)| {
                    (
                        format!("conversations {}-{}", k * n, k * n + chunk.len() - 1),
                        chunk.to_vec(),
                    )
                })
                .collect()
        }
    };
    let mut out = Vec::new();
    for d in Dimension::ALL {
        let series: Vec<f64> = buckets
            .iter()
            .map(|(_, ps)| ps.iter().map(|p| p.risk(d)).sum::<f64>() / ps.len() as f64)
            .collect();
        for a in ewma_alarms(&series) {
            let (label, cs) = &buckets[a.index];
            let abs = a.z.abs();
            out.push(Anomaly {
                dimension: d,
                bucket: label.clone(),
                conversations: cs.len(),
                value: series[a.index],
                baseline_mean: a.mean,
                baseline_sd: a.sd,
                ewma: a.ewma,
                z: a.z,
                statistic: "ewma",
                severity: if abs >= 5.0 {
                    Severity::High
                } else if abs >= 4.0 {
                    Severity::Medium
                } else {
                    Severity::Low
                },
                direction: if a.z > 0.0 {
                    Movement::Worse
                } else {
                    Movement::Better
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_series_with_noise_does_not_fire() {
        let series: Vec<f64> = (0..40)
            .map(|i| 0.3 + 0.01 * ((i * 7 % 5) as f64 - 2.0))
            .collect();
        assert!(ewma_alarms(&series).is_empty());
    }

    #[test]
    fn a_step_up_fires_worse_and_grows_in_severity() {
        let mut series = vec![0.30, 0.31, 0.29, 0.30, 0.32, 0.28, 0.30, 0.31];
        series.extend([0.60, 0.62, 0.61]);
        let alarms = ewma_alarms(&series);
        assert!(!alarms.is_empty());
        assert_eq!(
            alarms[0].index, 8,
            "fires on the first bucket after the step"
        );
        assert!(alarms[0].z >= LIMIT);
        // Hand check of the first alarm: EWMA of the series, baseline of 8 buckets.
        let mut e = series[0];
        for &x in &series[1..=8] {
            e = LAMBDA * x + (1.0 - LAMBDA) * e;
        }
        assert!((alarms[0].ewma - e).abs() < 1e-12);
        let mean = series[..8].iter().sum::<f64>() / 8.0;
        assert!((alarms[0].mean - mean).abs() < 1e-12);
    }

    #[test]
    fn too_short_a_baseline_never_fires() {
        assert!(ewma_alarms(&[0.1, 0.1, 0.1, 0.1, 0.9]).is_empty());
        assert!(ewma_alarms(&[]).is_empty());
    }

    /// Twelve days of one conversation each, after a conversation with no human turn:
    /// the same question and answer every day, then thanks for eight days and
    /// hostility for four.
    fn scored_days() -> Vec<ConversationResult> {
        let mut events = Vec::new();
        for day in 1..=12 {
            let reply = if day <= 8 {
                "Thanks!"
            } else {
                "This is useless, you are a stupid bot and I am furious!!!"
            };
            for (who, at, content) in [
                (
                    format!("u{day}"),
                    "09:00:00",
                    "What are your opening hours?",
                ),
                ("bot".to_owned(), "09:00:05", "We are open 9 to 5."),
                (format!("u{day}"), "09:01:00", reply),
            ] {
                events.push(format!(
                    r#"{{"actor_id": "{who}", "conversation_id": "c{day}", "content": "{content}", "timestamp": "2026-11-{day:02}T{at}Z"}}"#
                ));
            }
        }
        events.push(
            r#"{"actor_id": "bot", "conversation_id": "bot-only", "content": "Hello?", "timestamp": "2026-11-01T08:00:00Z"}"#
                .to_owned(),
        );
        let body = format!(
            r#"{{"deployment_id": "bot", "events": [{}]}}"#,
            events.join(",")
        );
        let request = crate::validate::ingest_request_bytes(
            body.as_bytes(),
            &crate::validate::Options::default(),
        )
        .unwrap();
        crate::score::score(&request).intelligence.conversations
    }

    #[test]
    fn detect_points_equals_detect() {
        let conversations = scored_days();
        assert_eq!(conversations.len(), 13);
        let mut points: Vec<ConversationPoint> = conversations
            .iter()
            .map(|c| ConversationPoint::of(c, Some("r1".to_owned())))
            .collect();
        // Order does not matter: both sort by start time.
        points.reverse();
        for (bucketing, first_hostile) in [
            (Bucketing::Daily, "2026-11-09"),
            (Bucketing::Conversations(1), "conversations 8-8"),
        ] {
            let from_results = detect(&conversations, bucketing);
            let frustration: Vec<(&str, Movement)> = from_results
                .iter()
                .filter(|a| a.dimension == Dimension::FrustrationBuildup)
                .map(|a| (a.bucket.as_str(), a.direction))
                .collect();
            assert_eq!(frustration, [(first_hostile, Movement::Worse)]);
            assert_eq!(detect_points(&points, bucketing), from_results);
        }
        // The earliest conversation has no human turn: skipped, or the first hostile
        // conversation would be number 9.
        assert_eq!(points.iter().filter(|p| p.human_turns == 0).count(), 1);
    }

    #[test]
    fn a_drop_fires_better() {
        let mut series = vec![0.5; 10];
        series.push(0.1);
        let a = ewma_alarms(&series);
        assert_eq!(a.len(), 1);
        assert!(a[0].z < -LIMIT);
    }
}
