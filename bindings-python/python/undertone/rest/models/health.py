from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Health")


@_attrs_define
class Health:
    """The service's health.

    Example:
        {'status': 'ok', 'scorer_version': '2.3.0', 'queue_depth': 3}

    Attributes:
        status (str): `ok` when the database answers.
        scorer_version (str): Version of the scoring rules this server applies.
        queue_depth (int | None | Unset): Jobs waiting or running; shown only to a caller with a valid key (the queue's
            depth is the service's load, not for anyone who can reach it).
    """

    status: str
    scorer_version: str
    queue_depth: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        status = self.status

        scorer_version = self.scorer_version

        queue_depth: int | None | Unset
        if isinstance(self.queue_depth, Unset):
            queue_depth = UNSET
        else:
            queue_depth = self.queue_depth

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "status": status,
                "scorer_version": scorer_version,
            }
        )
        if queue_depth is not UNSET:
            field_dict["queue_depth"] = queue_depth

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        status = d.pop("status")

        scorer_version = d.pop("scorer_version")

        def _parse_queue_depth(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        queue_depth = _parse_queue_depth(d.pop("queue_depth", UNSET))

        health = cls(
            status=status,
            scorer_version=scorer_version,
            queue_depth=queue_depth,
        )

        health.additional_properties = d
        return health

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
