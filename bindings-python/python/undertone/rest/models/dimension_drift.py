from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.verdict import Verdict

T = TypeVar("T", bound="DimensionDrift")


@_attrs_define
class DimensionDrift:
    """One dimension's comparison.

    Attributes:
        before_n (int): Conversations scored in the before period.
        after_n (int): Conversations scored in the after period.
        before_median (float | None): Median per-conversation score before (`null` with no conversation).
        after_median (float | None): Median per-conversation score after.
        shift (float | None): Hodges–Lehmann estimate of the shift, after minus before, in score units.
        ci_low (float | None): Lower end of the 95% confidence interval of `shift`.
        ci_high (float | None): Upper end of the 95% confidence interval of `shift`.
        p_value (float | None): Two-sided Mann-Whitney U p-value (`null` when not tested), to 10 significant
            digits.
        p_adjusted (float | None): `p_value` after Holm adjustment across the dimensions tested.
        effect_size (float | None): Rank-biserial correlation (= Cliff's delta), after vs before, in [-1, 1]:
            positive when after-period scores tend to be higher.
        significant (bool): Whether `p_adjusted` < 0.05.
        verdict (Verdict): What a dimension did between the periods.
        method (None | str): Which p-value computation was used: `exact`, `exact_with_ties` or
            `asymptotic` (`null` when not tested).
    """

    before_n: int
    after_n: int
    before_median: float | None
    after_median: float | None
    shift: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_adjusted: float | None
    effect_size: float | None
    significant: bool
    verdict: Verdict
    method: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        before_n = self.before_n

        after_n = self.after_n

        before_median: float | None
        before_median = self.before_median

        after_median: float | None
        after_median = self.after_median

        shift: float | None
        shift = self.shift

        ci_low: float | None
        ci_low = self.ci_low

        ci_high: float | None
        ci_high = self.ci_high

        p_value: float | None
        p_value = self.p_value

        p_adjusted: float | None
        p_adjusted = self.p_adjusted

        effect_size: float | None
        effect_size = self.effect_size

        significant = self.significant

        verdict = self.verdict.value

        method: None | str
        method = self.method

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "before_n": before_n,
                "after_n": after_n,
                "before_median": before_median,
                "after_median": after_median,
                "shift": shift,
                "ci_low": ci_low,
                "ci_high": ci_high,
                "p_value": p_value,
                "p_adjusted": p_adjusted,
                "effect_size": effect_size,
                "significant": significant,
                "verdict": verdict,
                "method": method,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        before_n = d.pop("before_n")

        after_n = d.pop("after_n")

        def _parse_before_median(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        before_median = _parse_before_median(d.pop("before_median"))

        def _parse_after_median(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        after_median = _parse_after_median(d.pop("after_median"))

        def _parse_shift(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        shift = _parse_shift(d.pop("shift"))

        def _parse_ci_low(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        ci_low = _parse_ci_low(d.pop("ci_low"))

        def _parse_ci_high(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        ci_high = _parse_ci_high(d.pop("ci_high"))

        def _parse_p_value(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_value = _parse_p_value(d.pop("p_value"))

        def _parse_p_adjusted(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        p_adjusted = _parse_p_adjusted(d.pop("p_adjusted"))

        def _parse_effect_size(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        effect_size = _parse_effect_size(d.pop("effect_size"))

        significant = d.pop("significant")

        verdict = Verdict(d.pop("verdict"))

        def _parse_method(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        method = _parse_method(d.pop("method"))

        dimension_drift = cls(
            before_n=before_n,
            after_n=after_n,
            before_median=before_median,
            after_median=after_median,
            shift=shift,
            ci_low=ci_low,
            ci_high=ci_high,
            p_value=p_value,
            p_adjusted=p_adjusted,
            effect_size=effect_size,
            significant=significant,
            verdict=verdict,
            method=method,
        )

        dimension_drift.additional_properties = d
        return dimension_drift

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
