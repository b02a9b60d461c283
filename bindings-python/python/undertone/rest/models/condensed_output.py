from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.archetype import Archetype

if TYPE_CHECKING:
    from ..models.layer_z import LayerZ


T = TypeVar("T", bound="CondensedOutput")


@_attrs_define
class CondensedOutput:
    """The condensed view (SPEC.md §2.3): archetype, request-level Layer Z, key finding.

    Attributes:
        session_id (None | str): The session, when scored by the service; `null` when scored locally.
        archetype (Archetype): A kind of AI deployment.
        layer_z (LayerZ): The six dimensions of one turn, conversation or request.
        key_finding (str): The most important finding.
        falsifiable (bool): Whether the finding states a measurable prediction.
        recommendation (str): The first recommendation.
    """

    session_id: None | str
    archetype: Archetype
    layer_z: LayerZ
    key_finding: str
    falsifiable: bool
    recommendation: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        session_id: None | str
        session_id = self.session_id

        archetype = self.archetype.value

        layer_z = self.layer_z.to_dict()

        key_finding = self.key_finding

        falsifiable = self.falsifiable

        recommendation = self.recommendation

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "archetype": archetype,
                "layer_z": layer_z,
                "key_finding": key_finding,
                "falsifiable": falsifiable,
                "recommendation": recommendation,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.layer_z import LayerZ

        d = dict(src_dict)

        def _parse_session_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        session_id = _parse_session_id(d.pop("session_id"))

        archetype = Archetype(d.pop("archetype"))

        layer_z = LayerZ.from_dict(d.pop("layer_z"))

        key_finding = d.pop("key_finding")

        falsifiable = d.pop("falsifiable")

        recommendation = d.pop("recommendation")

        condensed_output = cls(
            session_id=session_id,
            archetype=archetype,
            layer_z=layer_z,
            key_finding=key_finding,
            falsifiable=falsifiable,
            recommendation=recommendation,
        )

        condensed_output.additional_properties = d
        return condensed_output

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
