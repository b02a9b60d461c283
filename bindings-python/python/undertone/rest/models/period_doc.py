from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bie_event import BIEEvent


T = TypeVar("T", bound="PeriodDoc")


@_attrs_define
class PeriodDoc:
    """One period of a drift comparison.

    Attributes:
        events (list[BIEEvent]): The period's events: 5 to 2000.
        label (None | str | Unset): Name of the period, e.g. `model-v3`; defaults to `before`/`after`.
    """

    events: list[BIEEvent]
    label: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        events = []
        for events_item_data in self.events:
            events_item = events_item_data.to_dict()
            events.append(events_item)

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "events": events,
            }
        )
        if label is not UNSET:
            field_dict["label"] = label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bie_event import BIEEvent

        d = dict(src_dict)
        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = BIEEvent.from_dict(events_item_data)

            events.append(events_item)

        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))

        period_doc = cls(
            events=events,
            label=label,
        )

        return period_doc
