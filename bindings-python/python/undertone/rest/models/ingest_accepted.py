from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_status import SessionStatus

T = TypeVar("T", bound="IngestAccepted")


@_attrs_define
class IngestAccepted:
    """The 202 answer to an ingest.

    Example:
        {'session_id': '0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c', 'event_count': 12, 'status': 'received', 'poll_url':
            '/api/v1/intelligence/0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c'}

    Attributes:
        session_id (UUID): The new session.
        event_count (int): Events accepted.
        status (SessionStatus): Where a session is (DESIGN.md §5).
        poll_url (str): Where to poll for the result.
    """

    session_id: UUID
    event_count: int
    status: SessionStatus
    poll_url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id = str(self.session_id)

        event_count = self.event_count

        status = self.status.value

        poll_url = self.poll_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "event_count": event_count,
                "status": status,
                "poll_url": poll_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        event_count = d.pop("event_count")

        status = SessionStatus(d.pop("status"))

        poll_url = d.pop("poll_url")

        ingest_accepted = cls(
            session_id=session_id,
            event_count=event_count,
            status=status,
            poll_url=poll_url,
        )

        ingest_accepted.additional_properties = d
        return ingest_accepted

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
