from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="HistoryRange")


@_attrs_define
class HistoryRange:
    """One period of a deployment's history: `[from, to)`.

    Attributes:
        from_ (datetime.datetime): Conversations that started at or after this time (RFC 3339) are in the period.
        to (datetime.datetime): Conversations that started before this time (RFC 3339) are in the period.
        label (None | str | Unset): Name of the period; the range's times when omitted.
    """

    from_: datetime.datetime
    to: datetime.datetime
    label: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.isoformat()

        to = self.to.isoformat()

        label: None | str | Unset
        if isinstance(self.label, Unset):
            label = UNSET
        else:
            label = self.label

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "from": from_,
                "to": to,
            }
        )
        if label is not UNSET:
            field_dict["label"] = label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = datetime.datetime.fromisoformat(d.pop("from"))

        to = datetime.datetime.fromisoformat(d.pop("to"))

        def _parse_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        label = _parse_label(d.pop("label", UNSET))

        history_range = cls(
            from_=from_,
            to=to,
            label=label,
        )

        return history_range
