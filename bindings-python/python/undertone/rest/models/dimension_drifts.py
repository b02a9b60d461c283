from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.dimension_drift import DimensionDrift


T = TypeVar("T", bound="DimensionDrifts")


@_attrs_define
class DimensionDrifts:
    """The six dimension comparisons, in output order.

    Attributes:
        trust_calibration (DimensionDrift): One dimension's comparison.
        frustration_buildup (DimensionDrift): One dimension's comparison.
        dependency_drift (DimensionDrift): One dimension's comparison.
        silent_abandonment_risk (DimensionDrift): One dimension's comparison.
        escalation_friction (DimensionDrift): One dimension's comparison.
        comprehension_gap (DimensionDrift): One dimension's comparison.
    """

    trust_calibration: DimensionDrift
    frustration_buildup: DimensionDrift
    dependency_drift: DimensionDrift
    silent_abandonment_risk: DimensionDrift
    escalation_friction: DimensionDrift
    comprehension_gap: DimensionDrift
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        trust_calibration = self.trust_calibration.to_dict()

        frustration_buildup = self.frustration_buildup.to_dict()

        dependency_drift = self.dependency_drift.to_dict()

        silent_abandonment_risk = self.silent_abandonment_risk.to_dict()

        escalation_friction = self.escalation_friction.to_dict()

        comprehension_gap = self.comprehension_gap.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "trust_calibration": trust_calibration,
                "frustration_buildup": frustration_buildup,
                "dependency_drift": dependency_drift,
                "silent_abandonment_risk": silent_abandonment_risk,
                "escalation_friction": escalation_friction,
                "comprehension_gap": comprehension_gap,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dimension_drift import DimensionDrift

        d = dict(src_dict)
        trust_calibration = DimensionDrift.from_dict(d.pop("trust_calibration"))

        frustration_buildup = DimensionDrift.from_dict(d.pop("frustration_buildup"))

        dependency_drift = DimensionDrift.from_dict(d.pop("dependency_drift"))

        silent_abandonment_risk = DimensionDrift.from_dict(
            d.pop("silent_abandonment_risk")
        )

        escalation_friction = DimensionDrift.from_dict(d.pop("escalation_friction"))

        comprehension_gap = DimensionDrift.from_dict(d.pop("comprehension_gap"))

        dimension_drifts = cls(
            trust_calibration=trust_calibration,
            frustration_buildup=frustration_buildup,
            dependency_drift=dependency_drift,
            silent_abandonment_risk=silent_abandonment_risk,
            escalation_friction=escalation_friction,
            comprehension_gap=comprehension_gap,
        )

        dimension_drifts.additional_properties = d
        return dimension_drifts

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
