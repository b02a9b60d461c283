//! Webhooks (DESIGN.md §7 "Webhooks"): event kinds and their envelope, the outbox
//! fed when a session finishes ([`emit`]), the delivery worker ([`deliver`]) with its
//! retry schedule and SSRF-safe resolver, and weekly health reports ([`reports`]).
//!
//! Event ids are derived from what the event is about (the session, the conversation
//! and turn that crossed, the deployment and day of an anomaly, the deploy), so the
//! same event computed twice has one id, and the outbox's unique (event, endpoint)
//! delivers it once per endpoint.

pub mod deliver;
pub mod emit;
pub mod reports;
pub mod schedule;

use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The envelope's `version`.
pub const ENVELOPE_VERSION: &str = "webhooks-v1.0";

/// Kinds of event an endpoint can subscribe to.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
)]
pub enum EventKind {
    /// A session finished (complete or failed).
    #[serde(rename = "intelligence.ready")]
    IntelligenceReady,
    /// A scored human turn took a primary dimension into the broken band.
    #[serde(rename = "layer_z_threshold_crossed")]
    LayerZThresholdCrossed,
    /// A deployment's daily dimension risk left its control limits.
    #[serde(rename = "anomaly_detected")]
    AnomalyDetected,
    /// A User Health Report was generated.
    #[serde(rename = "uhr_generated")]
    UhrGenerated,
    /// A deploy moved the resolved rate significantly.
    #[serde(rename = "outcome_shift_detected")]
    OutcomeShiftDetected,
}

impl EventKind {
    /// Every kind, in documentation order.
    pub const ALL: [EventKind; 5] = [
        EventKind::IntelligenceReady,
        EventKind::LayerZThresholdCrossed,
        EventKind::AnomalyDetected,
        EventKind::UhrGenerated,
        EventKind::OutcomeShiftDetected,
    ];

    /// The kind's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::IntelligenceReady => "intelligence.ready",
            EventKind::LayerZThresholdCrossed => "layer_z_threshold_crossed",
            EventKind::AnomalyDetected => "anomaly_detected",
            EventKind::UhrGenerated => "uhr_generated",
            EventKind::OutcomeShiftDetected => "outcome_shift_detected",
        }
    }

    /// Parses a kind's wire name.
    pub fn parse(s: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// The kind of the event `POST /webhooks/{id}/test` sends (not subscribable).
pub const TEST_KIND: &str = "webhook.test";

/// The delivery envelope (SPEC.md §2.7), serialised in this field order.
#[derive(Debug, Serialize)]
pub struct Envelope<'a, T: Serialize> {
    /// Stable event id.
    pub id: &'a str,
    /// The event kind.
    pub event_type: &'a str,
    /// [`ENVELOPE_VERSION`].
    pub version: &'static str,
    /// When the event was created.
    #[serde(serialize_with = "undertone_core::schema::serialize_utc")]
    pub created_at: DateTime<Utc>,
    /// The organisation.
    pub org_id: &'a str,
    /// The deployment.
    pub deployment_id: &'a str,
    /// Kind-specific data.
    pub data: &'a T,
}

/// The body of every webhook delivery (SPEC.md §2.7). Headers: `X-Undertone-Event`
/// (the kind), `X-Undertone-Delivery` (the delivery id, the same on every retry),
/// `X-Undertone-Signature: sha256=<hex HMAC-SHA256(secret, raw body)>`, and the
/// Standard Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>`
/// (docs/webhooks.md).
#[derive(Debug, utoipa::ToSchema)]
#[schema(as = WebhookEnvelope, example = json!({"id": "5b0e7c1a-2f3d-8e4b-9a6c-7d8e9f0a1b2c",
    "event_type": "layer_z_threshold_crossed", "version": "webhooks-v1.0",
    "created_at": "2026-11-21T09:31:00.161Z", "org_id": "org_3f6c1e0b9a7d4c2e",
    "deployment_id": "acme-support-bot", "data": {"dimension": "frustration_buildup",
        "score": 0.7495, "threshold": 0.55, "band": "broken",
        "conversation_id": "9c1d2e3f-4a5b-8c6d-9e7f-0a1b2c3d4e5f", "conversation_external_id": "c-1",
        "signal_id": "1a2b3c4d-5e6f-8a7b-8c9d-0e1f2a3b4c5d", "occurred_at": "2026-11-21T09:30:40Z",
        "session_id": "0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c", "event_index": 4,
        "signal": "repeated_question", "evidence": []}}))]
// [`Envelope`] is generic over its data and borrows every field: this is its shape as
// the OpenAPI document shows it, field for field.
#[allow(dead_code)] // documents the delivery body
pub struct EnvelopeDoc {
    /// Stable event id: the same event computed twice has the same id.
    id: String,
    /// The event kind (or `webhook.test`).
    event_type: String,
    /// `webhooks-v1.0`.
    version: String,
    /// When the event was created.
    #[schema(format = DateTime)]
    created_at: String,
    /// The organisation.
    org_id: String,
    /// The deployment (`webhook-test` for test events).
    deployment_id: String,
    /// Per kind: ReadyData, CrossingData, AnomalyData, ReportData, OutcomeShiftData or
    /// TestData.
    #[schema(value_type = Object)]
    data: serde_json::Value,
}

/// Serialises an envelope; the bytes are stored once and sent on every attempt.
pub fn envelope_bytes<T: Serialize>(
    id: &str,
    kind: &str,
    created_at: DateTime<Utc>,
    org_id: &str,
    deployment_id: &str,
    data: &T,
) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(&Envelope {
        id,
        event_type: kind,
        version: ENVELOPE_VERSION,
        created_at,
        org_id,
        deployment_id,
        data,
    })
}

/// `s` as one percent-encoded URL path segment.
pub fn path_segment(s: &str) -> String {
    /// Everything but RFC 3986's unreserved characters.
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'.')
        .remove(b'_')
        .remove(b'~');
    percent_encoding::utf8_percent_encode(s, SEGMENT).to_string()
}

/// An endpoint URL as stored errors and operator listings show it: without its query
/// string and fragment, which may hold a credential (`…?…` where there was one).
pub fn shown_url(url: &str) -> String {
    let hidden = |has: bool| if has { "?…" } else { "" };
    match url::Url::parse(url) {
        Ok(u) => format!(
            "{}{}{}",
            u.origin().ascii_serialization(),
            u.path(),
            hidden(u.query().is_some() || u.fragment().is_some())
        ),
        Err(_) => match url.find(['?', '#']) {
            Some(at) => format!("{}{}", &url[..at], hidden(true)),
            None => url.to_owned(),
        },
    }
}

/// A UUID derived from `parts` (SHA-256, shaped as a version-8 UUID): the same
/// parts give the same id, in every process.
pub fn derived_id(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    let digest = h.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes)
        .into_uuid()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_hide_query_strings_and_fragments() {
        assert_eq!(
            shown_url("https://h.example/in?token=s3cret#x"),
            "https://h.example/in?…"
        );
        assert_eq!(shown_url("https://h.example/in"), "https://h.example/in");
        assert_eq!(shown_url("not a url?token=s3cret"), "not a url?…");
    }

    #[test]
    fn kinds_round_trip_through_their_wire_names() {
        for k in EventKind::ALL {
            assert_eq!(EventKind::parse(k.as_str()), Some(k));
            assert_eq!(
                serde_json::to_value(k).ok(),
                Some(serde_json::Value::String(k.as_str().to_owned()))
            );
        }
        assert_eq!(EventKind::parse("webhook.test"), None);
    }

    #[test]
    fn path_segments_are_percent_encoded() {
        assert_eq!(path_segment("acme-bot_1.2~x"), "acme-bot_1.2~x");
        assert_eq!(path_segment("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(path_segment("été"), "%C3%A9t%C3%A9");
    }

    #[test]
    fn derived_ids_are_stable_uuids_that_depend_on_every_part() {
        let a = derived_id(&["intelligence.ready", "s1"]);
        assert_eq!(a, derived_id(&["intelligence.ready", "s1"]));
        assert_ne!(a, derived_id(&["intelligence.ready", "s2"]));
        assert_ne!(derived_id(&["ab", "c"]), derived_id(&["a", "bc"]));
        let u = uuid::Uuid::parse_str(&a).ok();
        assert_eq!(u.map(|u| u.get_version_num()), Some(8));
    }

    #[test]
    fn the_envelope_has_the_documented_fields_in_order() {
        let at = DateTime::from_timestamp(1_795_000_000, 0).unwrap_or_default();
        let bytes = envelope_bytes("e1", "anomaly_detected", at, "org", "dep", &[1, 2]);
        let text = bytes.map(|b| String::from_utf8_lossy(&b).into_owned());
        assert_eq!(
            text.ok().as_deref(),
            Some(
                r#"{"id":"e1","event_type":"anomaly_detected","version":"webhooks-v1.0","created_at":"2026-11-18T11:06:40Z","org_id":"org","deployment_id":"dep","data":[1,2]}"#
            )
        );
    }
}
