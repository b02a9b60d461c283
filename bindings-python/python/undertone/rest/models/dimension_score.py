from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.band import Band
from ..models.direction import Direction
from ..models.trust_mode import TrustMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.evidence import Evidence


T = TypeVar("T", bound="DimensionScore")


@_attrs_define
class DimensionScore:
    """One dimension's result.

    Attributes:
        score (float): The score in [0, 1].
        risk (float): The risk in [0, 1] (`score`, or `1 - score` for trust calibration).
        band (Band): How a risk reads: healthy < 0.35 ≤ watch ≤ 0.55 < broken.
        direction (Direction): Which way a dimension's score points.
        confidence (float): How much evidence stands behind the score, in [0, 1].
        evidence (list[Evidence]): The signals that moved the score, strongest first.
        mode (None | TrustMode | Unset):
    """

    score: float
    risk: float
    band: Band
    direction: Direction
    confidence: float
    evidence: list[Evidence]
    mode: None | TrustMode | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        score = self.score

        risk = self.risk

        band = self.band.value

        direction = self.direction.value

        confidence = self.confidence

        evidence = []
        for evidence_item_data in self.evidence:
            evidence_item = evidence_item_data.to_dict()
            evidence.append(evidence_item)

        mode: None | str | Unset
        if isinstance(self.mode, Unset):
            mode = UNSET
        elif isinstance(self.mode, TrustMode):
            mode = self.mode.value
        else:
            mode = self.mode

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "score": score,
                "risk": risk,
                "band": band,
                "direction": direction,
                "confidence": confidence,
                "evidence": evidence,
            }
        )
        if mode is not UNSET:
            field_dict["mode"] = mode

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.evidence import Evidence

        d = dict(src_dict)
        score = d.pop("score")

        risk = d.pop("risk")

        band = Band(d.pop("band"))

        direction = Direction(d.pop("direction"))

        confidence = d.pop("confidence")

        evidence = []
        _evidence = d.pop("evidence")
        for evidence_item_data in _evidence:
            evidence_item = Evidence.from_dict(evidence_item_data)

            evidence.append(evidence_item)

        def _parse_mode(data: object) -> None | TrustMode | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                mode_type_0 = TrustMode(data)

                return mode_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TrustMode | Unset, data)

        mode = _parse_mode(d.pop("mode", UNSET))

        dimension_score = cls(
            score=score,
            risk=risk,
            band=band,
            direction=direction,
            confidence=confidence,
            evidence=evidence,
            mode=mode,
        )

        dimension_score.additional_properties = d
        return dimension_score

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
