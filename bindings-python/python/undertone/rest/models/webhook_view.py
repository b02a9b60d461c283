from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.event_kind import EventKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.disabled_view import DisabledView


T = TypeVar("T", bound="WebhookView")


@_attrs_define
class WebhookView:
    """A registered endpoint, as listed.

    Attributes:
        id (str): The endpoint.
        url (str): Where deliveries go.
        events (list[EventKind]): Subscribed kinds.
        created_at (str): Registration time.
        failure_count (int): Failed attempts since its last successful one.
        last_delivery_at (None | str | Unset): When an attempt to it last finished.
        disabled (DisabledView | None | Unset):
    """

    id: str
    url: str
    events: list[EventKind]
    created_at: str
    failure_count: int
    last_delivery_at: None | str | Unset = UNSET
    disabled: DisabledView | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.disabled_view import DisabledView

        id = self.id

        url = self.url

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.value
            events.append(events_item)

        created_at = self.created_at

        failure_count = self.failure_count

        last_delivery_at: None | str | Unset
        if isinstance(self.last_delivery_at, Unset):
            last_delivery_at = UNSET
        else:
            last_delivery_at = self.last_delivery_at

        disabled: dict[str, Any] | None | Unset
        if isinstance(self.disabled, Unset):
            disabled = UNSET
        elif isinstance(self.disabled, DisabledView):
            disabled = self.disabled.to_dict()
        else:
            disabled = self.disabled

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "events": events,
                "created_at": created_at,
                "failure_count": failure_count,
            }
        )
        if last_delivery_at is not UNSET:
            field_dict["last_delivery_at"] = last_delivery_at
        if disabled is not UNSET:
            field_dict["disabled"] = disabled

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.disabled_view import DisabledView

        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = EventKind(events_item_data)

            events.append(events_item)

        created_at = d.pop("created_at")

        failure_count = d.pop("failure_count")

        def _parse_last_delivery_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_delivery_at = _parse_last_delivery_at(d.pop("last_delivery_at", UNSET))

        def _parse_disabled(data: object) -> DisabledView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                disabled_type_0 = DisabledView.from_dict(data)

                return disabled_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DisabledView | None | Unset, data)

        disabled = _parse_disabled(d.pop("disabled", UNSET))

        webhook_view = cls(
            id=id,
            url=url,
            events=events,
            created_at=created_at,
            failure_count=failure_count,
            last_delivery_at=last_delivery_at,
            disabled=disabled,
        )

        webhook_view.additional_properties = d
        return webhook_view

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
