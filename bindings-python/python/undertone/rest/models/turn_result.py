from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.layer_z import LayerZ


T = TypeVar("T", bound="TurnResult")


@_attrs_define
class TurnResult:
    """One scored human turn.

    Attributes:
        event_index (int): Position of the event in the request's `events`.
        conversation_id (str): The conversation the turn belongs to (shared by its turns).
        actor_id (str): Who wrote it.
        timestamp (datetime.datetime): When it was written.
        layer_z (LayerZ): The six dimensions of one turn, conversation or request.
    """

    event_index: int
    conversation_id: str
    actor_id: str
    timestamp: datetime.datetime
    layer_z: LayerZ
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event_index = self.event_index

        conversation_id = self.conversation_id

        actor_id = self.actor_id

        timestamp = self.timestamp.isoformat()

        layer_z = self.layer_z.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event_index": event_index,
                "conversation_id": conversation_id,
                "actor_id": actor_id,
                "timestamp": timestamp,
                "layer_z": layer_z,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.layer_z import LayerZ

        d = dict(src_dict)
        event_index = d.pop("event_index")

        conversation_id = d.pop("conversation_id")

        actor_id = d.pop("actor_id")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        layer_z = LayerZ.from_dict(d.pop("layer_z"))

        turn_result = cls(
            event_index=event_index,
            conversation_id=conversation_id,
            actor_id=actor_id,
            timestamp=timestamp,
            layer_z=layer_z,
        )

        turn_result.additional_properties = d
        return turn_result

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
