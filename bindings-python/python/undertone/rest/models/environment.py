from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.archetype import Archetype

if TYPE_CHECKING:
    from ..models.archetype_evidence import ArchetypeEvidence


T = TypeVar("T", bound="Environment")


@_attrs_define
class Environment:
    """Detected environment: archetype, confidence in `[0, 1]`, and the terms that decided it.

    Attributes:
        archetype (Archetype): A kind of AI deployment.
        confidence (float): How sure the detection is, in `[0, 1]` (see the module docs), with 4 decimals.
        evidence (list[ArchetypeEvidence]): Hints, then the strongest terms (at most five) of the winning archetype; for
            a
            `custom` fallback, first a `fallback` item with the reason, then the evidence of
            the best candidate.
    """

    archetype: Archetype
    confidence: float
    evidence: list[ArchetypeEvidence]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        archetype = self.archetype.value

        confidence = self.confidence

        evidence = []
        for evidence_item_data in self.evidence:
            evidence_item = evidence_item_data.to_dict()
            evidence.append(evidence_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "archetype": archetype,
                "confidence": confidence,
                "evidence": evidence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.archetype_evidence import ArchetypeEvidence

        d = dict(src_dict)
        archetype = Archetype(d.pop("archetype"))

        confidence = d.pop("confidence")

        evidence = []
        _evidence = d.pop("evidence")
        for evidence_item_data in _evidence:
            evidence_item = ArchetypeEvidence.from_dict(evidence_item_data)

            evidence.append(evidence_item)

        environment = cls(
            archetype=archetype,
            confidence=confidence,
            evidence=evidence,
        )

        environment.additional_properties = d
        return environment

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
