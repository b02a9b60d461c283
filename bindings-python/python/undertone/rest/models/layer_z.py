from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.dimension_score import DimensionScore


T = TypeVar("T", bound="LayerZ")


@_attrs_define
class LayerZ:
    """The six dimensions of one turn, conversation or request.

    Attributes:
        trust_calibration (DimensionScore): One dimension's result.
        frustration_buildup (DimensionScore): One dimension's result.
        dependency_drift (DimensionScore): One dimension's result.
        silent_abandonment_risk (DimensionScore): One dimension's result.
        escalation_friction (DimensionScore): One dimension's result.
        comprehension_gap (DimensionScore): One dimension's result.
    """

    trust_calibration: DimensionScore
    frustration_buildup: DimensionScore
    dependency_drift: DimensionScore
    silent_abandonment_risk: DimensionScore
    escalation_friction: DimensionScore
    comprehension_gap: DimensionScore
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
        from ..models.dimension_score import DimensionScore

        d = dict(src_dict)
        trust_calibration = DimensionScore.from_dict(d.pop("trust_calibration"))

        frustration_buildup = DimensionScore.from_dict(d.pop("frustration_buildup"))

        dependency_drift = DimensionScore.from_dict(d.pop("dependency_drift"))

        silent_abandonment_risk = DimensionScore.from_dict(
            d.pop("silent_abandonment_risk")
        )

        escalation_friction = DimensionScore.from_dict(d.pop("escalation_friction"))

        comprehension_gap = DimensionScore.from_dict(d.pop("comprehension_gap"))

        layer_z = cls(
            trust_calibration=trust_calibration,
            frustration_buildup=frustration_buildup,
            dependency_drift=dependency_drift,
            silent_abandonment_risk=silent_abandonment_risk,
            escalation_friction=escalation_friction,
            comprehension_gap=comprehension_gap,
        )

        layer_z.additional_properties = d
        return layer_z

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
