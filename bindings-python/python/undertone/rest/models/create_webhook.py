from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.event_kind import EventKind

T = TypeVar("T", bound="CreateWebhook")


@_attrs_define
class CreateWebhook:
    """The body of `POST /webhooks`.

    Example:
        {'url': 'https://hooks.example.com/undertone', 'events': ['intelligence.ready', 'layer_z_threshold_crossed']}

    Attributes:
        url (str): Where deliveries go: https, resolving to public addresses only.
        events (list[EventKind]): 1 to 5 distinct event kinds.
    """

    url: str
    events: list[EventKind]

    def to_dict(self) -> dict[str, Any]:
        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "url": url,
                "events": events,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventKind(events_item_data)

            events.append(events_item)

        create_webhook = cls(
            url=url,
            events=events,
        )

        return create_webhook
