from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ArchetypeEvidence")


@_attrs_define
class ArchetypeEvidence:
    """One piece of evidence for the detected archetype.

    Attributes:
        signal (str): Kind of evidence: `term`, `metadata_hint` or `fallback`.
        detail (str): The term as listed in the lexicon, the normalised hint, or the fallback reason
            (`insufficient_evidence`, or `near_tie:<top>,<runner-up>`).
        count (int): Matches of the term, or times the hint was given (0 for a fallback).
        contribution (float): What it added to the archetype's score (for a fallback: the best score), with 4
            decimals.
    """

    signal: str
    detail: str
    count: int
    contribution: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        signal = self.signal

        detail = self.detail

        count = self.count

        contribution = self.contribution

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "signal": signal,
                "detail": detail,
                "count": count,
                "contribution": contribution,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        signal = d.pop("signal")

        detail = d.pop("detail")

        count = d.pop("count")

        contribution = d.pop("contribution")

        archetype_evidence = cls(
            signal=signal,
            detail=detail,
            count=count,
            contribution=contribution,
        )

        archetype_evidence.additional_properties = d
        return archetype_evidence

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
