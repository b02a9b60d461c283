from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_kind import EventKind

T = TypeVar("T", bound="WebhookCreated")


@_attrs_define
class WebhookCreated:
    """A registered endpoint, as created (with its secret, shown this once).

    Example:
        {'id': 'wh_3f6c1e0b9a7d4c2e8f1a5b6c7d8e9f0a', 'url': 'https://hooks.example.com/undertone', 'secret':
            'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=', 'events': ['intelligence.ready'], 'created_at':
            '2026-11-21T09:30:00.000Z'}

    Attributes:
        id (str): The endpoint.
        url (str): Where deliveries go.
        secret (str): Signing secret: `whsec_` + base64 of 32 random bytes. Shown only here; a lost
            secret means deleting the endpoint and registering it again.
        events (list[EventKind]): Subscribed kinds.
        created_at (str): Registration time.
    """

    id: str
    url: str
    secret: str
    events: list[EventKind]
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        url = self.url

        secret = self.secret

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "secret": secret,
                "events": events,
                "created_at": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        secret = d.pop("secret")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventKind(events_item_data)

            events.append(events_item)

        created_at = d.pop("created_at")

        webhook_created = cls(
            id=id,
            url=url,
            secret=secret,
            events=events,
            created_at=created_at,
        )

        webhook_created.additional_properties = d
        return webhook_created

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
