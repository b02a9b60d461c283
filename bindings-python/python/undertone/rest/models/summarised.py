from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Summarised")


@_attrs_define
class Summarised:
    """Crossings of one dimension in one session beyond [`MAX_CROSSINGS_PER_DIMENSION`],
    summarised in one event instead of one event each.

        Attributes:
            crossings (int): Crossings summarised (this event's and the ones not sent).
            conversation_external_ids (list[str]): Their conversations as sent, the first [`SUMMARISED_IDS`] of them.
    """

    crossings: int
    conversation_external_ids: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        crossings = self.crossings

        conversation_external_ids = self.conversation_external_ids

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "crossings": crossings,
                "conversation_external_ids": conversation_external_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        crossings = d.pop("crossings")

        conversation_external_ids = cast(list[str], d.pop("conversation_external_ids"))

        summarised = cls(
            crossings=crossings,
            conversation_external_ids=conversation_external_ids,
        )

        summarised.additional_properties = d
        return summarised

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
