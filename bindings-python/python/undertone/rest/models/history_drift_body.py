from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.history_range import HistoryRange


T = TypeVar("T", bound="HistoryDriftBody")


@_attrs_define
class HistoryDriftBody:
    """The body of `POST /deployments/{deployment_id}/drift`.

    Example:
        {'before': {'label': 'before the refund prompt', 'from': '2026-11-01T00:00:00Z', 'to': '2026-11-15T00:00:00Z'},
            'after': {'label': 'after', 'from': '2026-11-15T00:00:00Z', 'to': '2026-11-29T00:00:00Z'}, 'question': 'Are
            people more frustrated since the new refund prompt?'}

    Attributes:
        before (HistoryRange): One period of a deployment's history: `[from, to)`.
        after (HistoryRange): One period of a deployment's history: `[from, to)`.
        question (None | str | Unset): Optional question; its dimensions are reported first.
    """

    before: HistoryRange
    after: HistoryRange
    question: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        before = self.before.to_dict()

        after = self.after.to_dict()

        question: None | str | Unset
        if isinstance(self.question, Unset):
            question = UNSET
        else:
            question = self.question

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "before": before,
                "after": after,
            }
        )
        if question is not UNSET:
            field_dict["question"] = question

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.history_range import HistoryRange

        d = dict(src_dict)
        before = HistoryRange.from_dict(d.pop("before"))

        after = HistoryRange.from_dict(d.pop("after"))

        def _parse_question(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        question = _parse_question(d.pop("question", UNSET))

        history_drift_body = cls(
            before=before,
            after=after,
            question=question,
        )

        return history_drift_body
