//! The OpenAPI schemas of the bounded input fields (feature `openapi`): each field's
//! type, limits and description as sent, with every number taken from [`limits`].
//!
//! utoipa's `max_length`, `min_items` and the like accept only literal numbers, so the
//! fields that carry a limit name one of these functions with `schema(schema_with =
//! ...)`; the rest of each type's schema is derived. A description here says what the
//! client sends; the field's doc comment says what the validated value holds.

use utoipa::ToSchema;
use utoipa::openapi::schema::{
    AdditionalProperties, Array, ArrayBuilder, Object, ObjectBuilder, SchemaFormat, SchemaType,
    Type,
};
use utoipa::openapi::{Ref, RefOr, Schema};

use super::{Event, limits};

/// An identifier: no control characters (C0, DEL, C1), as `validate` checks.
const ID_PATTERN: &str = r"^[^\u0000-\u001F\u007F-\u009F]+$";

/// Text with at least one character that is not whitespace, and no NUL. Whitespace as
/// Rust's `char::is_whitespace` has it (JSON Schema's `\s` lacks U+0085 and has
/// U+FEFF), so the schema and the validator agree.
const CONTENT_PATTERN: &str = r"^[^\u0000]*[^\u0000\t\n\u000B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000][^\u0000]*$";

/// A drift question: at least one character that is not whitespace.
const QUESTION_PATTERN: &str =
    r"[^\t\n\u000B\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";

/// `string`, or `[string, null]` when the field may be null.
fn string(nullable: bool) -> ObjectBuilder {
    let schema_type = if nullable {
        SchemaType::from_iter([Type::String, Type::Null])
    } else {
        SchemaType::Type(Type::String)
    };
    ObjectBuilder::new().schema_type(schema_type)
}

/// An identifier of 1 to [`limits::ID_MAX_CHARS`] characters.
fn identifier(nullable: bool, description: &str) -> Object {
    string(nullable)
        .description(Some(description))
        .min_length(Some(1))
        .max_length(Some(limits::ID_MAX_CHARS))
        .pattern(Some(ID_PATTERN))
        .build()
}

/// An array of [`Event`]s, `min` to `max` of them.
fn events(min: usize, max: usize, description: String) -> Array {
    ArrayBuilder::new()
        .items(RefOr::<Schema>::Ref(Ref::from_schema_name(Event::name())))
        .description(Some(description))
        .min_items(Some(min))
        .max_items(Some(max))
        .build()
}

/// `events[].actor_id`.
pub(super) fn actor_id() -> Object {
    identifier(
        false,
        "Who wrote the turn: a person, or the AI (`metadata.role`, `actor_id ==\n\
         deployment_id`, or an `ai:`/`bot:`/`assistant` prefix marks AI turns).",
    )
}

/// `events[].content`.
pub(super) fn content() -> Object {
    string(false)
        .description(Some(format!(
            "The message text: 1–{} bytes of UTF-8 after trimming, no NUL.",
            limits::CONTENT_MAX_BYTES
        )))
        .min_length(Some(1))
        .max_length(Some(limits::CONTENT_MAX_BYTES))
        .pattern(Some(CONTENT_PATTERN))
        .build()
}

/// `events[].context`.
pub(super) fn context() -> Object {
    identifier(true, "Channel, thread, category or topic.")
}

/// `events[].metadata`.
pub(super) fn metadata() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .description(Some(format!(
            "Arbitrary key/value pairs (≤ {} KiB serialised, depth ≤ {}), preserved in the\n\
             output. `role`/`speaker`, `conversation_id`, `resolved`, `release` and\n\
             `model_version` are read (docs/input.md).",
            limits::METADATA_MAX_BYTES / 1024,
            limits::METADATA_MAX_DEPTH
        )))
        // Any keys and values: typed clients must accept every object.
        .additional_properties(Some(AdditionalProperties::FreeForm(true)))
        .build()
}

/// `events[].conversation_id`.
pub(super) fn conversation_id() -> Object {
    identifier(true, "Groups the turns of one conversation.")
}

/// The ingest request's `deployment_id`.
pub(super) fn ingest_deployment_id() -> Object {
    identifier(false, "Stable identifier of the AI deployment.")
}

/// The ingest request's `events`.
pub(super) fn ingest_events() -> Array {
    events(
        limits::INGEST_EVENTS_MIN,
        limits::INGEST_EVENTS_MAX,
        format!(
            "The conversation turns, in order: {} to {}.",
            limits::INGEST_EVENTS_MIN,
            limits::INGEST_EVENTS_MAX
        ),
    )
}

/// The ingest request's `webhook_url`.
pub(super) fn webhook_url() -> Object {
    string(true)
        .format(Some(SchemaFormat::Custom("uri".to_owned())))
        .description(Some(
            "Where to deliver `intelligence.ready`: https, public address.",
        ))
        .max_length(Some(limits::URL_MAX_CHARS))
        .build()
}

/// A drift period's `label`.
pub(super) fn label() -> Object {
    identifier(
        true,
        "Name of the period, e.g. `model-v3`; defaults to `before`/`after`.",
    )
}

/// The label of a date range of a deployment's history (the service's drift over kept
/// history): the same rule as a period's `label`.
pub fn range_label() -> Object {
    identifier(true, "Name of the period; the range's times when omitted.")
}

/// A drift period's `events`.
pub(super) fn period_events() -> Array {
    events(
        limits::DRIFT_EVENTS_MIN,
        limits::DRIFT_EVENTS_MAX,
        format!(
            "The period's events: {} to {}.",
            limits::DRIFT_EVENTS_MIN,
            limits::DRIFT_EVENTS_MAX
        ),
    )
}

/// The drift request's `question` (also the question of a drift over a deployment's
/// history, which the service declares).
pub fn question() -> Object {
    string(true)
        .description(Some(
            "Optional question; its dimensions are reported first.",
        ))
        .min_length(Some(1))
        .max_length(Some(limits::QUESTION_MAX_CHARS))
        .pattern(Some(QUESTION_PATTERN))
        .build()
}

/// The drift request's `deployment_id`.
pub(super) fn drift_deployment_id() -> Object {
    identifier(
        true,
        "Deployment the events come from (recognises AI turns by `actor_id`).",
    )
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use utoipa::PartialSchema;

    use super::*;
    use crate::schema::{DriftRequest, IngestRequest, Period};

    fn schema_of<T: PartialSchema>() -> Value {
        serde_json::to_value(T::schema()).unwrap()
    }

    #[test]
    fn the_limits_are_those_of_the_validator() {
        let event = schema_of::<Event>();
        let props = &event["properties"];
        assert_eq!(props["actor_id"]["maxLength"], limits::ID_MAX_CHARS);
        assert_eq!(props["content"]["maxLength"], limits::CONTENT_MAX_BYTES);
        assert_eq!(
            event["required"],
            json!(["actor_id", "content", "timestamp"])
        );
        assert_eq!(event["additionalProperties"], false);
        let ingest = schema_of::<IngestRequest>();
        let events = &ingest["properties"]["events"];
        assert_eq!(events["items"]["$ref"], "#/components/schemas/BIEEvent");
        assert_eq!(events["minItems"], limits::INGEST_EVENTS_MIN);
        assert_eq!(events["maxItems"], limits::INGEST_EVENTS_MAX);
        assert_eq!(ingest["required"], json!(["deployment_id", "events"]));
        let period = schema_of::<Period>();
        assert_eq!(
            period["properties"]["events"]["minItems"],
            limits::DRIFT_EVENTS_MIN
        );
        assert_eq!(period["required"], json!(["events"]));
        let drift = schema_of::<DriftRequest>();
        assert_eq!(
            drift["properties"]["question"]["maxLength"],
            limits::QUESTION_MAX_CHARS
        );
        assert_eq!(drift["required"], json!(["before", "after"]));
    }
}
