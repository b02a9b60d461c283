from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="OutcomeShift")


@_attrs_define
class OutcomeShift:
    """The resolved rate before and after, and whether the change counts as a shift.

    Attributes:
        before_n (int): Conversations (with human turns) before.
        before_resolved (int): Of those, resolved.
        after_n (int): Conversations after.
        after_resolved (int): Of those, resolved.
        before_rate (float | None): Resolved rate before, in [0, 1] (`null` with no conversation).
        after_rate (float | None): Resolved rate after.
        change_points (float | None): After minus before, in percentage points.
        p_value (float | None): Two-sided p-value of the pooled two-proportion z-test (`null` when not computable:
            an empty side, or every conversation resolved or none), to 10 significant digits.
        outcome_shift_detected (bool): Whether the shift fires: ≥ 30 conversations per side, |change| ≥ 3 points and
            p < 0.05.
    """

    before_n: int
    before_resolved: int
    after_n: int
    after_resolved: int
    before_rate: float | None
    after_rate: float | None
    change_points: float | None
    p_value: float | None
    outcome_shift_detected: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        before_n = self.before_n

        before_resolved = self.before_resolved

        after_n = self.after_n

        after_resolved = self.after_resolved

        before_rate: float | None
        before_rate = self.before_rate

        after_rate: float | None
        after_rate = self.after_rate

        change_points: float | None
        change_points = self.change_points

        p_value: float | None
        p_value = self.p_value

        outcome_shift_detected = self.outcome_shift_detected

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "before_n": before_n,
                "before_resolved": before_resolved,
                "after_n": after_n,
                "after_resolved": after_resolved,
                "before_rate": before_rate,
                "after_rate": after_rate,
                "change_points": change_points,
                "p_value": p_value,
                "outcome_shift_detected": outcome_shift_detected,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        before_n = d.pop("before_n")

        before_resolved = d.pop("before_resolved")

        after_n = d.pop("after_n")

        after_resolved = d.pop("after_resolved")

        def _parse_before_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        before_rate = _parse_before_rate(d.pop("before_rate"))

        def _parse_after_rate(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        after_rate = _parse_after_rate(d.pop("after_rate"))

        def _parse_change_points(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        change_points = _parse_change_points(d.pop("change_points"))

        def _parse_p_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_value = _parse_p_value(d.pop("p_value"))

        outcome_shift_detected = d.pop("outcome_shift_detected")

        outcome_shift = cls(
            before_n=before_n,
            before_resolved=before_resolved,
            after_n=after_n,
            after_resolved=after_resolved,
            before_rate=before_rate,
            after_rate=after_rate,
            change_points=change_points,
            p_value=p_value,
            outcome_shift_detected=outcome_shift_detected,
        )

        outcome_shift.additional_properties = d
        return outcome_shift

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
