from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.condensed_view_layer_z_type_0 import CondensedViewLayerZType0


T = TypeVar("T", bound="CondensedView")


@_attrs_define
class CondensedView:
    """The condensed view (SPEC.md §2.3); result fields are `null` until complete.

    Example:
        {'session_id': '0b8a3c1e-5f7d-4e1a-9c2b-6d4e8f0a1b2c', 'status': 'complete', 'archetype': 'cx_chatbot',
            'layer_z': {'frustration_buildup': {'score': 0.61, 'risk': 0.61, 'band': 'broken', 'direction':
            'higher_is_worse', 'confidence': 0.7, 'evidence': []}}, 'key_finding': 'Frustration builds across repeated
            refund questions.', 'falsifiable': True, 'recommendation': 'Offer a human handoff when a customer asks twice.'}

    Attributes:
        session_id (UUID): The session.
        status (SessionStatus | Unset): Where a session is (DESIGN.md §5).
        archetype (None | str | Unset): Detected deployment archetype.
        layer_z (CondensedViewLayerZType0 | None | Unset): Request-level dimensions: `{dimension: {score, risk, band,
            direction,
            confidence, evidence}}`.
        key_finding (None | str | Unset): The most important finding.
        falsifiable (bool | None | Unset): Whether the finding states a measurable prediction.
        recommendation (None | str | Unset): The first recommendation.
    """

    session_id: UUID
    status: SessionStatus | Unset = UNSET
    archetype: None | str | Unset = UNSET
    layer_z: CondensedViewLayerZType0 | None | Unset = UNSET
    key_finding: None | str | Unset = UNSET
    falsifiable: bool | None | Unset = UNSET
    recommendation: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.condensed_view_layer_z_type_0 import CondensedViewLayerZType0

        session_id = str(self.session_id)

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        archetype: None | str | Unset
        if isinstance(self.archetype, Unset):
            archetype = UNSET
        else:
            archetype = self.archetype

        layer_z: dict[str, Any] | None | Unset
        if isinstance(self.layer_z, Unset):
            layer_z = UNSET
        elif isinstance(self.layer_z, CondensedViewLayerZType0):
            layer_z = self.layer_z.to_dict()
        else:
            layer_z = self.layer_z

        key_finding: None | str | Unset
        if isinstance(self.key_finding, Unset):
            key_finding = UNSET
        else:
            key_finding = self.key_finding

        falsifiable: bool | None | Unset
        if isinstance(self.falsifiable, Unset):
            falsifiable = UNSET
        else:
            falsifiable = self.falsifiable

        recommendation: None | str | Unset
        if isinstance(self.recommendation, Unset):
            recommendation = UNSET
        else:
            recommendation = self.recommendation

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "session_id": session_id,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status
        if archetype is not UNSET:
            field_dict["archetype"] = archetype
        if layer_z is not UNSET:
            field_dict["layer_z"] = layer_z
        if key_finding is not UNSET:
            field_dict["key_finding"] = key_finding
        if falsifiable is not UNSET:
            field_dict["falsifiable"] = falsifiable
        if recommendation is not UNSET:
            field_dict["recommendation"] = recommendation

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.condensed_view_layer_z_type_0 import CondensedViewLayerZType0

        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        _status = d.pop("status", UNSET)
        status: SessionStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = SessionStatus(_status)

        def _parse_archetype(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        archetype = _parse_archetype(d.pop("archetype", UNSET))

        def _parse_layer_z(data: object) -> CondensedViewLayerZType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                layer_z_type_0 = CondensedViewLayerZType0.from_dict(data)

                return layer_z_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CondensedViewLayerZType0 | None | Unset, data)

        layer_z = _parse_layer_z(d.pop("layer_z", UNSET))

        def _parse_key_finding(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key_finding = _parse_key_finding(d.pop("key_finding", UNSET))

        def _parse_falsifiable(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        falsifiable = _parse_falsifiable(d.pop("falsifiable", UNSET))

        def _parse_recommendation(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        recommendation = _parse_recommendation(d.pop("recommendation", UNSET))

        condensed_view = cls(
            session_id=session_id,
            status=status,
            archetype=archetype,
            layer_z=layer_z,
            key_finding=key_finding,
            falsifiable=falsifiable,
            recommendation=recommendation,
        )

        return condensed_view
