from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionSummary")


@_attrs_define
class SessionSummary:
    """One listed session: where it is and what it holds; the result is read with
    `GET /intelligence/{session_id}`.

        Attributes:
            session_id (UUID): The session.
            status (SessionStatus): Where a session is (DESIGN.md §5).
            event_count (int): Events in the request.
            created_at (str): When the session was accepted (RFC 3339, UTC).
            deployment_id (None | str | Unset): The deployment the events came from.
            environment_type (None | str | Unset): Detected deployment archetype, once complete.
            completed_at (None | str | Unset): When scoring finished.
            error (None | str | Unset): Why processing failed.
    """

    session_id: UUID
    status: SessionStatus
    event_count: int
    created_at: str
    deployment_id: None | str | Unset = UNSET
    environment_type: None | str | Unset = UNSET
    completed_at: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = str(self.session_id)

        status = self.status.value

        event_count = self.event_count

        created_at = self.created_at

        deployment_id: None | str | Unset
        if isinstance(self.deployment_id, Unset):
            deployment_id = UNSET
        else:
            deployment_id = self.deployment_id

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
        if deployment_id is not UNSET:
            field_dict["deployment_id"] = deployment_id
        if environment_type is not UNSET:
            field_dict["environment_type"] = environment_type
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        status = SessionStatus(d.pop("status"))

        event_count = d.pop("event_count")

        created_at = d.pop("created_at")

        def _parse_deployment_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id", UNSET))

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

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        session_summary = cls(
            session_id=session_id,
            status=status,
            event_count=event_count,
            created_at=created_at,
            deployment_id=deployment_id,
            environment_type=environment_type,
            completed_at=completed_at,
            error=error,
        )

        session_summary.additional_properties = d
        return session_summary

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
