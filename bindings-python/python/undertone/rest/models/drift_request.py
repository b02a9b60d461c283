from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.period_doc import PeriodDoc


T = TypeVar("T", bound="DriftRequest")


@_attrs_define
class DriftRequest:
    """The body of `POST /drift` (SPEC.md §2.4).

    Attributes:
        before (PeriodDoc): One period of a drift comparison.
        after (PeriodDoc): One period of a drift comparison.
        question (None | str | Unset): Optional question; its dimensions are reported first.
        deployment_id (None | str | Unset): Deployment the events come from (recognises AI turns by `actor_id`).
    """

    before: PeriodDoc
    after: PeriodDoc
    question: None | str | Unset = UNSET
    deployment_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        before = self.before.to_dict()

        after = self.after.to_dict()

        question: None | str | Unset
        if isinstance(self.question, Unset):
            question = UNSET
        else:
            question = self.question

        deployment_id: None | str | Unset
        if isinstance(self.deployment_id, Unset):
            deployment_id = UNSET
        else:
            deployment_id = self.deployment_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "before": before,
                "after": after,
            }
        )
        if question is not UNSET:
            field_dict["question"] = question
        if deployment_id is not UNSET:
            field_dict["deployment_id"] = deployment_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.period_doc import PeriodDoc

        d = dict(src_dict)
        before = PeriodDoc.from_dict(d.pop("before"))

        after = PeriodDoc.from_dict(d.pop("after"))

        def _parse_question(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        question = _parse_question(d.pop("question", UNSET))

        def _parse_deployment_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        deployment_id = _parse_deployment_id(d.pop("deployment_id", UNSET))

        drift_request = cls(
            before=before,
            after=after,
            question=question,
            deployment_id=deployment_id,
        )

        return drift_request
