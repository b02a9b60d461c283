from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.session_view_full_output_type_0 import SessionViewFullOutputType0


T = TypeVar("T", bound="SessionView")


@_attrs_define
class SessionView:
    """A session (SPEC.md §2.3). Result fields are `null` until `status` is `complete`.

    Example:
        {'session_id': '0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c', 'status': 'complete', 'event_count': 20,
            'environment_type': 'cx_chatbot', 'created_at': '2026-11-21T09:31:00.120Z', 'completed_at':
            '2026-11-21T09:31:00.161Z', 'plain_summary': 'Undertone scored 11 human turns in 2 conversations of deployment
            acme-support-bot.', 'plain_recommendations': ['Offer a human handoff when a customer asks twice.'],
            'full_output': {'pipeline': 'support', 'intelligence': {'scorer_version': '1.1.0'}}, 'error': None}

    Attributes:
        session_id (UUID): The session.
        status (SessionStatus): Where a session is (DESIGN.md §5).
        event_count (int): Events in the request.
        created_at (str): When the session was accepted (RFC 3339, UTC).
        environment_type (None | str | Unset): Detected deployment archetype (e.g. `cx_chatbot`).
        completed_at (None | str | Unset): When scoring finished.
        plain_summary (None | str | Unset): 3–5 sentences for a product manager.
        plain_recommendations (list[str] | None | Unset): Actions tied to evidence.
        full_output (None | SessionViewFullOutputType0 | Unset): `{pipeline, intelligence}`: every conversation, turn
            and dimension with its
            evidence (docs/scoring.md).
        error (None | str | Unset): Why processing failed.
    """

    session_id: UUID
    status: SessionStatus
    event_count: int
    created_at: str
    environment_type: None | str | Unset = UNSET
    completed_at: None | str | Unset = UNSET
    plain_summary: None | str | Unset = UNSET
    plain_recommendations: list[str] | None | Unset = UNSET
    full_output: None | SessionViewFullOutputType0 | Unset = UNSET
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.session_view_full_output_type_0 import SessionViewFullOutputType0

        session_id = str(self.session_id)

        status = self.status.value

        event_count = self.event_count

        created_at = self.created_at

        environment_type: None | str | Unset
        if isinstance(self.environment_type, Unset):
            environment_type = UNSET
        else:
            environment_type = self.environment_type

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        plain_summary: None | str | Unset
        if isinstance(self.plain_summary, Unset):
            plain_summary = UNSET
        else:
            plain_summary = self.plain_summary

        plain_recommendations: list[str] | None | Unset
        if isinstance(self.plain_recommendations, Unset):
            plain_recommendations = UNSET
        elif isinstance(self.plain_recommendations, list):
            plain_recommendations = self.plain_recommendations

        else:
            plain_recommendations = self.plain_recommendations

        full_output: dict[str, Any] | None | Unset
        if isinstance(self.full_output, Unset):
            full_output = UNSET
        elif isinstance(self.full_output, SessionViewFullOutputType0):
            full_output = self.full_output.to_dict()
        else:
            full_output = self.full_output

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "status": status,
                "event_count": event_count,
                "created_at": created_at,
            }
        )
        if environment_type is not UNSET:
            field_dict["environment_type"] = environment_type
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if plain_summary is not UNSET:
            field_dict["plain_summary"] = plain_summary
        if plain_recommendations is not UNSET:
            field_dict["plain_recommendations"] = plain_recommendations
        if full_output is not UNSET:
            field_dict["full_output"] = full_output
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.session_view_full_output_type_0 import SessionViewFullOutputType0

        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        status = SessionStatus(d.pop("status"))

        event_count = d.pop("event_count")

        created_at = d.pop("created_at")

        def _parse_environment_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        environment_type = _parse_environment_type(d.pop("environment_type", UNSET))

        def _parse_completed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_plain_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plain_summary = _parse_plain_summary(d.pop("plain_summary", UNSET))

        def _parse_plain_recommendations(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                plain_recommendations_type_0 = cast(list[str], data)

                return plain_recommendations_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        plain_recommendations = _parse_plain_recommendations(
            d.pop("plain_recommendations", UNSET)
        )

        def _parse_full_output(
            data: object,
        ) -> None | SessionViewFullOutputType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                full_output_type_0 = SessionViewFullOutputType0.from_dict(data)

                return full_output_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SessionViewFullOutputType0 | Unset, data)

        full_output = _parse_full_output(d.pop("full_output", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        session_view = cls(
            session_id=session_id,
            status=status,
            event_count=event_count,
            created_at=created_at,
            environment_type=environment_type,
            completed_at=completed_at,
            plain_summary=plain_summary,
            plain_recommendations=plain_recommendations,
            full_output=full_output,
            error=error,
        )

        session_view.additional_properties = d
        return session_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
