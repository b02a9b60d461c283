//! What a finished session causes (written in the transaction that finishes it):
//! its conversations join the deployment's history, and events are queued —
//! `intelligence.ready`, one `layer_z_threshold_crossed` per crossing, an
//! `anomaly_detected` per day and dimension outside its control limits, deploy markers
//! seen in metadata, and an `outcome_shift_detected` per deploy whose settled
//! post-deploy window moved the resolved rate.
//!
//! Everything here is pure: the worker loads the history and deploy markers, calls
//! [`ingest_effects`] and hands the result to the store.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::Value;
use undertone_core::IngestRequest;
use undertone_core::drift::outcome::OutcomeShift;
use undertone_core::monitor::anomaly::{self, Anomaly, Bucketing};
use undertone_core::monitor::{self, ConversationPoint, Crossing};
use undertone_core::schema::serialize_utc;
use undertone_core::score::SessionIntelligence;
use undertone_core::score::layer_z::{Band, Dimension, Evidence};

use super::{EventKind, derived_id, envelope_bytes};
use crate::store::{
    DeployRecord, DirectTarget, Effects, Job, Measured, NewDeploy, NewEvent, Targets,
};

/// Days of history before a session's first conversation the anomaly chart needs:
/// the baseline window plus the buckets before it.
pub const ANOMALY_HISTORY_DAYS: i64 = (anomaly::BASELINE_WINDOW + anomaly::MIN_BASELINE) as i64;
/// Deploys older than this (before the newest conversation) are no longer measured.
pub const DEPLOY_WINDOW_DAYS: i64 = 30;

/// `data` of `intelligence.ready`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ReadyData {
    /// The session.
    pub session_id: String,
    /// `complete` or `failed`.
    pub status: String,
    /// Where to read the whole result.
    pub poll_url: String,
    /// When the session finished.
    #[serde(serialize_with = "serialize_utc")]
    pub completed_at: DateTime<Utc>,
    /// Events in the request.
    pub event_count: usize,
    /// Why it failed (`failed` only).
    pub error: Option<String>,
    /// The condensed view of the result (`complete` only): archetype, request-level
    /// layer_z with evidence, key finding, recommendation.
    #[schema(value_type = Option<Object>)]
    pub result: Option<Value>,
}

/// `data` of `layer_z_threshold_crossed` (SPEC.md §6, plus where to find the turn).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct CrossingData {
    /// The dimension that crossed.
    #[schema(value_type = String)]
    pub dimension: Dimension,
    /// The turn's score of that dimension.
    #[serde(serialize_with = "undertone_core::score::layer_z::ser4")]
    pub score: f64,
    /// The score at which the dimension enters the broken band (0.45 for
    /// trust_calibration, whose broken end is low; 0.55 for the others).
    #[serde(serialize_with = "undertone_core::score::layer_z::ser4")]
    pub threshold: f64,
    /// Always `broken`.
    #[schema(value_type = String)]
    pub band: Band,
    /// Undertone's id of the conversation: stable for the deployment and the
    /// conversation's own id.
    pub conversation_id: String,
    /// The conversation id as sent (`conversation_id` of the events, or the implicit
    /// `auto:…` grouping).
    pub conversation_external_id: String,
    /// The crossing signal: stable for the session, turn and dimension.
    pub signal_id: String,
    /// When the turn was written.
    #[serde(serialize_with = "serialize_utc")]
    pub occurred_at: DateTime<Utc>,
    /// The session whose result holds the turn.
    pub session_id: String,
    /// The turn's position in the request's `events`.
    pub event_index: usize,
    /// The strongest signal that pushed the score, when one did.
    pub signal: Option<&'static str>,
    /// The turn's evidence for the dimension, strongest first.
    #[schema(value_type = Vec<Object>)]
    pub evidence: Vec<Evidence>,
    /// On the last crossing event of a dimension in a session that crossed in more
    /// conversations than are sent one by one: this crossing and the ones not sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summarised: Option<Summarised>,
}

/// Crossings of one dimension in one session beyond [`MAX_CROSSINGS_PER_DIMENSION`],
/// summarised in one event instead of one event each.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Summarised {
    /// Crossings summarised (this event's and the ones not sent).
    pub crossings: usize,
    /// Their conversations as sent, the first [`SUMMARISED_IDS`] of them.
    pub conversation_external_ids: Vec<String>,
}

/// Crossing events sent one by one per dimension and session; the rest go in one
/// summarising event, so a batch of thousands of conversations cannot queue thousands
/// of deliveries per endpoint.
pub const MAX_CROSSINGS_PER_DIMENSION: usize = 20;

/// Conversation ids a summarising event lists at most.
pub const SUMMARISED_IDS: usize = 100;

/// `data` of `anomaly_detected`: the core detector's finding (docs/drift.md).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AnomalyData {
    /// The anomaly: dimension, bucket (a UTC day), conversations, value, baseline mean
    /// and sd, EWMA, z, statistic, severity, direction.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub anomaly: Anomaly,
    /// The session whose conversations completed the day's picture.
    pub session_id: String,
}

/// `data` of `outcome_shift_detected`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OutcomeShiftData {
    /// The deploy marker.
    pub deploy_id: String,
    /// `api` or `metadata`.
    pub source: String,
    /// The release deployed, when known.
    pub release: Option<String>,
    /// When it was deployed.
    #[serde(serialize_with = "serialize_utc")]
    pub deployed_at: DateTime<Utc>,
    /// Resolved rate before and after, counts, change in points and p-value.
    #[schema(value_type = Object)]
    pub shift: OutcomeShift,
    /// One sentence for a person.
    pub summary: String,
}

/// The `intelligence.ready` event of a finished session.
pub fn ready_event(job: &Job, data: &ReadyData, at: DateTime<Utc>) -> Option<NewEvent> {
    let deployment = job.deployment_id.as_deref()?;
    let kind = EventKind::IntelligenceReady.as_str();
    let id = derived_id(&[kind, &job.session_id]);
    let mut ready = event(&job.org_id, deployment, kind, id, data, at)?;
    ready.targets = Targets::Subscribers(job.webhook_url.as_ref().map(|url| DirectTarget {
        endpoint: format!("ingest:{}", job.session_id),
        key_id: job.key_id.clone(),
        url: url.clone(),
    }));
    Some(ready)
}

/// The poll URL of a session.
pub fn poll_url(session_id: &str) -> String {
    format!("/api/v1/intelligence/{session_id}")
}

/// Effects of an ingest session that failed: only `intelligence.ready`.
pub fn failure_effects(job: &Job, error: &str, at: DateTime<Utc>) -> Effects {
    let data = ReadyData {
        session_id: job.session_id.clone(),
        status: "failed".into(),
        poll_url: poll_url(&job.session_id),
        completed_at: at,
        event_count: job.event_count,
        error: Some(error.to_owned()),
        result: None,
    };
    Effects {
        events: ready_event(job, &data, at).into_iter().collect(),
        ..Effects::default()
    }
}

/// Where [`ingest_effects`] needs history from (unix ms): far enough back for the
/// anomaly chart of the session's days and for the unmeasured deploys it may settle.
pub fn history_from(points: &[ConversationPoint], deploys: &[DeployRecord]) -> i64 {
    let first = points.iter().map(|p| p.started_at).min();
    let last = points.iter().map(|p| p.started_at).max();
    let (Some(first), Some(last)) = (first, last) else {
        return i64::MAX;
    };
    let mut from = first - Duration::days(ANOMALY_HISTORY_DAYS + 1);
    for d in deploys.iter().filter(|d| d.measured_at.is_none()) {
        if d.deploy.at >= last - Duration::days(DEPLOY_WINDOW_DAYS) {
            // The baseline of a deploy reaches back at most this far.
            from = from.min(d.deploy.at - Duration::days(DEPLOY_WINDOW_DAYS));
        }
    }
    from.timestamp_millis()
}

/// Everything a completed ingest session causes. `points` are the session's own
/// history points (`monitor::points` of the request and result); `prior` is the
/// deployment's stored history from [`history_from`] on; `deploys` its stored deploy
/// markers.
pub fn ingest_effects(
    job: &Job,
    request: &IngestRequest,
    result: &SessionIntelligence,
    points: Vec<ConversationPoint>,
    prior: &[ConversationPoint],
    deploys: &[DeployRecord],
    at: DateTime<Utc>,
) -> Effects {
    let deployment = request.deployment_id.as_str();
    let mut events = Vec::new();

    let data = ReadyData {
        session_id: job.session_id.clone(),
        status: "complete".into(),
        poll_url: poll_url(&job.session_id),
        completed_at: at,
        event_count: request.events.len(),
        error: None,
        result: serde_json::to_value(result.condensed(Some(&job.session_id))).ok(),
    };
    events.extend(ready_event(job, &data, at));

    // Per dimension, the first crossings one by one, then one event for the rest.
    let mut by_dimension: BTreeMap<&'static str, Vec<Crossing>> = BTreeMap::new();
    for c in monitor::crossings(result) {
        by_dimension
            .entry(c.dimension.as_str())
            .or_default()
            .push(c);
    }
    for crossings in by_dimension.into_values() {
        let (each, rest) = crossings.split_at(crossings.len().min(MAX_CROSSINGS_PER_DIMENSION));
        for c in each {
            events.extend(crossing_event(job, deployment, c, None, at));
        }
        if let Some(first) = rest.first() {
            let summary = Summarised {
                crossings: rest.len(),
                conversation_external_ids: rest
                    .iter()
                    .take(SUMMARISED_IDS)
                    .map(|c| c.conversation_id.clone())
                    .collect(),
            };
            events.extend(crossing_event(job, deployment, first, Some(summary), at));
        }
    }

    // The history as it is now: stored rows, replaced by this session's where the
    // same conversation came again.
    let mut all: BTreeMap<&str, &ConversationPoint> = prior
        .iter()
        .map(|p| (p.conversation_id.as_str(), p))
        .collect();
    for p in &points {
        all.insert(p.conversation_id.as_str(), p);
    }
    let mut history: Vec<ConversationPoint> = all.into_values().cloned().collect();
    history.sort_by(|a, b| {
        (a.started_at, &a.conversation_id).cmp(&(b.started_at, &b.conversation_id))
    });

    let days: BTreeSet<String> = points
        .iter()
        .filter(|p| p.human_turns > 0)
        .map(|p| p.started_at.format("%Y-%m-%d").to_string())
        .collect();
    for a in anomaly::detect_points(&history, Bucketing::Daily) {
        if days.contains(&a.bucket) {
            events.extend(anomaly_event(job, deployment, a, at));
        }
    }

    let new_deploys = metadata_deploys(&job.org_id, deployment, &history, deploys, at);
    let mut markers: Vec<NewDeploy> = deploys
        .iter()
        .filter(|d| d.measured_at.is_none())
        .map(|d| d.deploy.clone())
        .collect();
    markers.extend(new_deploys.iter().cloned());
    let all_at: Vec<DateTime<Utc>> = deploys
        .iter()
        .map(|d| d.deploy.at)
        .chain(new_deploys.iter().map(|d| d.at))
        .collect();
    let mut measured = Vec::new();
    for d in &markers {
        let Some(shift) = monitor::settled_shift(d.at, &all_at, &history) else {
            continue;
        };
        if let Ok(result) = serde_json::to_string(&shift) {
            measured.push(Measured {
                deploy_id: d.id.clone(),
                result,
            });
        }
        if shift.outcome_shift_detected {
            events.extend(shift_event(job, d, shift, at));
        }
    }

    Effects {
        history: points,
        events,
        deploys: new_deploys,
        measured,
    }
}

fn crossing_event(
    job: &Job,
    deployment: &str,
    c: &Crossing,
    summarised: Option<Summarised>,
    at: DateTime<Utc>,
) -> Option<NewEvent> {
    let kind = EventKind::LayerZThresholdCrossed.as_str();
    let occurred = undertone_core::schema::format_utc(&c.occurred_at);
    let dim = c.dimension.as_str();
    let id = derived_id(&[
        kind,
        &job.org_id,
        deployment,
        &c.conversation_id,
        dim,
        &occurred,
    ]);
    let data = CrossingData {
        dimension: c.dimension,
        score: undertone_core::score::layer_z::round4(c.score),
        threshold: c.threshold,
        band: c.band,
        conversation_id: derived_id(&["conversation", &job.org_id, deployment, &c.conversation_id]),
        conversation_external_id: c.conversation_id.clone(),
        signal_id: derived_id(&["signal", &job.session_id, &c.event_index.to_string(), dim]),
        occurred_at: c.occurred_at,
        session_id: job.session_id.clone(),
        event_index: c.event_index,
        signal: c.signal,
        evidence: c.evidence.clone(),
        summarised,
    };
    event(&job.org_id, deployment, kind, id, &data, at)
}

fn anomaly_event(job: &Job, deployment: &str, a: Anomaly, at: DateTime<Utc>) -> Option<NewEvent> {
    let kind = EventKind::AnomalyDetected.as_str();
    let id = derived_id(&[
        kind,
        &job.org_id,
        deployment,
        a.dimension.as_str(),
        &a.bucket,
    ]);
    let data = AnomalyData {
        anomaly: a,
        session_id: job.session_id.clone(),
    };
    event(&job.org_id, deployment, kind, id, &data, at)
}

fn shift_event(
    job: &Job,
    d: &NewDeploy,
    shift: OutcomeShift,
    at: DateTime<Utc>,
) -> Option<NewEvent> {
    let kind = EventKind::OutcomeShiftDetected.as_str();
    let id = derived_id(&[kind, &d.id]);
    let label = d.release.clone().unwrap_or_else(|| "the deploy".into());
    let data = OutcomeShiftData {
        deploy_id: d.id.clone(),
        source: d.source.to_owned(),
        release: d.release.clone(),
        deployed_at: d.at,
        summary: shift.sentence("before", &format!("after {label}")),
        shift,
    };
    event(&job.org_id, &d.deployment_id, kind, id, &data, at)
}

fn event<T: Serialize>(
    org: &str,
    deployment: &str,
    kind: &str,
    id: String,
    data: &T,
    at: DateTime<Utc>,
) -> Option<NewEvent> {
    let body = envelope_bytes(&id, kind, at, org, deployment, data).ok()?;
    Some(NewEvent {
        id,
        kind: kind.to_owned(),
        org_id: org.to_owned(),
        deployment_id: deployment.to_owned(),
        created_at: at,
        body,
        targets: Targets::Subscribers(None),
    })
}

/// The id of a deploy marker seen in metadata: one per deployment, release and time
/// (a release rolled back and deployed again is a second deploy).
pub fn metadata_deploy_id(org: &str, deployment: &str, release: &str, at: DateTime<Utc>) -> String {
    let at = at.timestamp_millis().to_string();
    let u = derived_id(&["deploy", org, deployment, "metadata", release, &at]);
    format!("dep_{}", u.replace('-', ""))
}

/// Deploy markers for the release changes in the history that are not stored yet.
fn metadata_deploys(
    org: &str,
    deployment: &str,
    history: &[ConversationPoint],
    known: &[DeployRecord],
    at: DateTime<Utc>,
) -> Vec<NewDeploy> {
    let known: BTreeSet<&str> = known.iter().map(|d| d.deploy.id.as_str()).collect();
    let mut out: Vec<NewDeploy> = Vec::new();
    for change in monitor::release_changes(history) {
        let id = metadata_deploy_id(org, deployment, &change.to, change.at);
        if known.contains(id.as_str()) || out.iter().any(|d| d.id == id) {
            continue;
        }
        out.push(NewDeploy {
            id,
            org_id: org.to_owned(),
            deployment_id: deployment.to_owned(),
            description: Some(format!(
                "release changed from {} to {} in event metadata",
                change.from, change.to
            )),
            release: Some(change.to),
            source: "metadata",
            at: change.at,
            created_at: at,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use undertone_core::score::layer_z::ByDimension;

    fn point(id: &str, minute: i64, resolved: bool, release: Option<&str>) -> ConversationPoint {
        ConversationPoint {
            conversation_id: id.to_owned(),
            started_at: DateTime::from_timestamp(1_795_000_000 + 60 * minute, 0)
                .unwrap_or_default(),
            human_turns: 2,
            resolved,
            abandoned: false,
            release: release.map(str::to_owned),
            scores: ByDimension::from_fn(|_| 0.3),
        }
    }

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_796_000_000, 0).unwrap_or_default()
    }

    #[test]
    fn a_release_change_is_one_deploy_marker_and_the_first_release_is_none() {
        let history = vec![
            point("a", 0, true, Some("v1")),
            point("b", 1, true, None),
            point("c", 2, true, Some("v2")),
            point("d", 3, true, Some("v2")),
            point("e", 4, true, Some("v3")),
        ];
        let d = metadata_deploys("org", "bot", &history, &[], now());
        let releases: Vec<_> = d.iter().map(|d| (d.release.clone(), d.at)).collect();
        assert_eq!(
            releases,
            vec![
                (Some("v2".to_owned()), history[2].started_at),
                (Some("v3".to_owned()), history[4].started_at)
            ]
        );
        assert_eq!(
            d[0].id,
            metadata_deploy_id("org", "bot", "v2", history[2].started_at)
        );
        assert!(d[0].id.starts_with("dep_") && d[0].id.len() == 36);
    }
}
