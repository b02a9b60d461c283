from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.ready_data_result_type_0 import ReadyDataResultType0


T = TypeVar("T", bound="ReadyData")


@_attrs_define
class ReadyData:
    """`data` of `intelligence.ready`.

    Attributes:
        session_id (str): The session.
        status (str): `complete` or `failed`.
        poll_url (str): Where to read the whole result.
        completed_at (datetime.datetime): When the session finished.
        event_count (int): Events in the request.
        error (None | str | Unset): Why it failed (`failed` only).
        result (None | ReadyDataResultType0 | Unset): The condensed view of the result (`complete` only): archetype,
            request-level
            layer_z with evidence, key finding, recommendation.
    """

    session_id: str
    status: str
    poll_url: str
    completed_at: datetime.datetime
    event_count: int
    error: None | str | Unset = UNSET
    result: None | ReadyDataResultType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.ready_data_result_type_0 import ReadyDataResultType0

        session_id = self.session_id

        status = self.status

        poll_url = self.poll_url

        completed_at = self.completed_at.isoformat()

        event_count = self.event_count

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, ReadyDataResultType0):
            result = self.result.to_dict()
        else:
            result = self.result

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "status": status,
                "poll_url": poll_url,
                "completed_at": completed_at,
                "event_count": event_count,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.ready_data_result_type_0 import ReadyDataResultType0

        d = dict(src_dict)
        session_id = d.pop("session_id")

        status = d.pop("status")

        poll_url = d.pop("poll_url")

        completed_at = datetime.datetime.fromisoformat(d.pop("completed_at"))

        event_count = d.pop("event_count")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_result(data: object) -> None | ReadyDataResultType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = ReadyDataResultType0.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ReadyDataResultType0 | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        ready_data = cls(
            session_id=session_id,
            status=status,
            poll_url=poll_url,
            completed_at=completed_at,
            event_count=event_count,
            error=error,
            result=result,
        )

        ready_data.additional_properties = d
        return ready_data

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
