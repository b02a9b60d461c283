from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TestQueued")


@_attrs_define
class TestQueued:
    """The answer to a test request.

    Attributes:
        event_id (str): The test event's id (the envelope's `id`).
        event_type (str): Always `webhook.test`.
        deliveries_url (str): Where its delivery shows up.
    """

    event_id: str
    event_type: str
    deliveries_url: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event_id = self.event_id

        event_type = self.event_type

        deliveries_url = self.deliveries_url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event_id": event_id,
                "event_type": event_type,
                "deliveries_url": deliveries_url,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        event_id = d.pop("event_id")

        event_type = d.pop("event_type")

        deliveries_url = d.pop("deliveries_url")

        test_queued = cls(
            event_id=event_id,
            event_type=event_type,
            deliveries_url=deliveries_url,
        )

        test_queued.additional_properties = d
        return test_queued

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
