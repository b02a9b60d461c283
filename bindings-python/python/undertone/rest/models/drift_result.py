from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.drift_direction import DriftDirection
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dimension_drifts import DimensionDrifts
    from ..models.outcome_shift import OutcomeShift
    from ..models.period_summary import PeriodSummary


T = TypeVar("T", bound="DriftResult")


@_attrs_define
class DriftResult:
    """The drift result (DESIGN.md §6).

    Attributes:
        scorer_version (str): Version of the scorer that scored both periods.
        before (PeriodSummary): Counts of one period.
        after (PeriodSummary): Counts of one period.
        overall_drift (float): Size of the largest significant change: the largest |effect size| among the
            dimensions with a significant verdict, 0 when none; in [0, 1].
        direction (DriftDirection): The direction of the whole comparison.
        plain_summary (str): 2–4 sentences with the numbers.
        plain_recommendations (list[str]): What to do about each regression, tied to the after period's evidence.
        key_findings (list[str]): One line per dimension, the question's dimensions and significant ones first.
        dimension_drifts (DimensionDrifts): The six dimension comparisons, in output order.
        outcome_shift (OutcomeShift): The resolved rate before and after, and whether the change counts as a shift.
        question (None | str | Unset): The question the analysis addresses first, as given.
    """

    scorer_version: str
    before: PeriodSummary
    after: PeriodSummary
    overall_drift: float
    direction: DriftDirection
    plain_summary: str
    plain_recommendations: list[str]
    key_findings: list[str]
    dimension_drifts: DimensionDrifts
    outcome_shift: OutcomeShift
    question: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scorer_version = self.scorer_version

        before = self.before.to_dict()

        after = self.after.to_dict()

        overall_drift = self.overall_drift

        direction = self.direction.value

        plain_summary = self.plain_summary

        plain_recommendations = self.plain_recommendations

        key_findings = self.key_findings

        dimension_drifts = self.dimension_drifts.to_dict()

        outcome_shift = self.outcome_shift.to_dict()

        question: None | str | Unset
        if isinstance(self.question, Unset):
            question = UNSET
        else:
            question = self.question

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scorer_version": scorer_version,
                "before": before,
                "after": after,
                "overall_drift": overall_drift,
                "direction": direction,
                "plain_summary": plain_summary,
                "plain_recommendations": plain_recommendations,
                "key_findings": key_findings,
                "dimension_drifts": dimension_drifts,
                "outcome_shift": outcome_shift,
            }
        )
        if question is not UNSET:
            field_dict["question"] = question

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.dimension_drifts import DimensionDrifts
        from ..models.outcome_shift import OutcomeShift
        from ..models.period_summary import PeriodSummary

        d = dict(src_dict)
        scorer_version = d.pop("scorer_version")

        before = PeriodSummary.from_dict(d.pop("before"))

        after = PeriodSummary.from_dict(d.pop("after"))

        overall_drift = d.pop("overall_drift")

        direction = DriftDirection(d.pop("direction"))

        plain_summary = d.pop("plain_summary")

        plain_recommendations = cast(list[str], d.pop("plain_recommendations"))

        key_findings = cast(list[str], d.pop("key_findings"))

        dimension_drifts = DimensionDrifts.from_dict(d.pop("dimension_drifts"))

        outcome_shift = OutcomeShift.from_dict(d.pop("outcome_shift"))

        def _parse_question(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        question = _parse_question(d.pop("question", UNSET))

        drift_result = cls(
            scorer_version=scorer_version,
            before=before,
            after=after,
            overall_drift=overall_drift,
            direction=direction,
            plain_summary=plain_summary,
            plain_recommendations=plain_recommendations,
            key_findings=key_findings,
            dimension_drifts=dimension_drifts,
            outcome_shift=outcome_shift,
            question=question,
        )

        drift_result.additional_properties = d
        return drift_result

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
