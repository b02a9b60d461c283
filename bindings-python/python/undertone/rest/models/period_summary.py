from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PeriodSummary")


@_attrs_define
class PeriodSummary:
    """Counts of one period.

    Attributes:
        label (str): The period's label.
        event_count (int | None): Events in the period (`null` when the period was read from a deployment's
            history, which keeps scores, not events).
        conversation_count (int): Conversations with at least one human turn.
        human_turn_count (int): Human turns scored.
        resolved_rate (float | None): Share of those conversations that ended resolved.
    """

    label: str
    event_count: int | None
    conversation_count: int
    human_turn_count: int
    resolved_rate: float | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        label = self.label

        event_count: int | None
        event_count = self.event_count

        conversation_count = self.conversation_count

        human_turn_count = self.human_turn_count

        resolved_rate: float | None
        resolved_rate = self.resolved_rate

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "label": label,
                "event_count": event_count,
                "conversation_count": conversation_count,
                "human_turn_count": human_turn_count,
                "resolved_rate": resolved_rate,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        label = d.pop("label")

        def _parse_event_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        event_count = _parse_event_count(d.pop("event_count"))

        conversation_count = d.pop("conversation_count")

        human_turn_count = d.pop("human_turn_count")

        def _parse_resolved_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        resolved_rate = _parse_resolved_rate(d.pop("resolved_rate"))

        period_summary = cls(
            label=label,
            event_count=event_count,
            conversation_count=conversation_count,
            human_turn_count=human_turn_count,
            resolved_rate=resolved_rate,
        )

        period_summary.additional_properties = d
        return period_summary

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
