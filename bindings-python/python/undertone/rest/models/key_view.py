from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.limits import Limits


T = TypeVar("T", bound="KeyView")


@_attrs_define
class KeyView:
    """The calling key (never the key itself).

    Example:
        {'id': 'key_394f0b7b2f4b4c7c8ac7448e7dd4baf4', 'name': 'support-agent', 'scope': 'read-only', 'prefix':
            'ut_live_eht9', 'created_at': '2026-11-21T09:00:00.000Z', 'limits': {'per_hour': 1000, 'per_day': 10000,
            'drift_per_hour': 10}}

    Attributes:
        id (str): The key's id (`key_` + 32 hex characters).
        name (str): The name given at creation.
        scope (str): `read-only` (GET and HEAD routes, MCP read tools) or `read-write` (everything).
        prefix (str): The key's first 12 characters.
        created_at (str): When the key was created.
        limits (Limits): Rate limits of a key.
    """

    id: str
    name: str
    scope: str
    prefix: str
    created_at: str
    limits: Limits
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        scope = self.scope

        prefix = self.prefix

        created_at = self.created_at

        limits = self.limits.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "scope": scope,
                "prefix": prefix,
                "created_at": created_at,
                "limits": limits,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.limits import Limits

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        scope = d.pop("scope")

        prefix = d.pop("prefix")

        created_at = d.pop("created_at")

        limits = Limits.from_dict(d.pop("limits"))

        key_view = cls(
            id=id,
            name=name,
            scope=scope,
            prefix=prefix,
            created_at=created_at,
            limits=limits,
        )

        key_view.additional_properties = d
        return key_view

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
