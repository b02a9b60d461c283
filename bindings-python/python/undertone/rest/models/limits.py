from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Limits")


@_attrs_define
class Limits:
    """Rate limits of a key.

    Attributes:
        per_hour (int): Requests per UTC hour.
        per_day (int): Requests per UTC day.
        drift_per_hour (int): Drift sessions per UTC hour.
    """

    per_hour: int
    per_day: int
    drift_per_hour: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        per_hour = self.per_hour

        per_day = self.per_day

        drift_per_hour = self.drift_per_hour

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "per_hour": per_hour,
                "per_day": per_day,
                "drift_per_hour": drift_per_hour,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        per_hour = d.pop("per_hour")

        per_day = d.pop("per_day")

        drift_per_hour = d.pop("drift_per_hour")

        limits = cls(
            per_hour=per_hour,
            per_day=per_day,
            drift_per_hour=drift_per_hour,
        )

        limits.additional_properties = d
        return limits

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
