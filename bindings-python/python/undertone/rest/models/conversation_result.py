from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.grouping import Grouping
from ..models.resolution_source import ResolutionSource

if TYPE_CHECKING:
    from ..models.layer_z import LayerZ
    from ..models.turn_result import TurnResult


T = TypeVar("T", bound="ConversationResult")


@_attrs_define
class ConversationResult:
    """One scored conversation.

    Attributes:
        conversation_id (str): The conversation id (given, or implicit `auto:…`).
        grouping (Grouping): How a conversation's turns were found to belong together.
        human_actor_ids (list[str]): Distinct human actors, in order of appearance.
        started_at (datetime.datetime): First turn.
        ended_at (datetime.datetime): Last turn.
        human_turn_count (int): Human turns.
        ai_turn_count (int): AI turns.
        resolved (bool): Whether the person's need was met.
        resolution_source (ResolutionSource): How a conversation's resolution was decided.
        abandoned (bool): Whether the person left unresolved with high abandonment risk.
        layer_z (LayerZ): The six dimensions of one turn, conversation or request.
        turns (list[TurnResult]): One entry per human turn, in conversation order.
    """

    conversation_id: str
    grouping: Grouping
    human_actor_ids: list[str]
    started_at: datetime.datetime
    ended_at: datetime.datetime
    human_turn_count: int
    ai_turn_count: int
    resolved: bool
    resolution_source: ResolutionSource
    abandoned: bool
    layer_z: LayerZ
    turns: list[TurnResult]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        conversation_id = self.conversation_id

        grouping = self.grouping.value

        human_actor_ids = self.human_actor_ids

        started_at = self.started_at.isoformat()

        ended_at = self.ended_at.isoformat()

        human_turn_count = self.human_turn_count

        ai_turn_count = self.ai_turn_count

        resolved = self.resolved

        resolution_source = self.resolution_source.value

        abandoned = self.abandoned

        layer_z = self.layer_z.to_dict()

        turns = []
        for turns_item_data in self.turns:
            turns_item = turns_item_data.to_dict()
            turns.append(turns_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conversation_id": conversation_id,
                "grouping": grouping,
                "human_actor_ids": human_actor_ids,
                "started_at": started_at,
                "ended_at": ended_at,
                "human_turn_count": human_turn_count,
                "ai_turn_count": ai_turn_count,
                "resolved": resolved,
                "resolution_source": resolution_source,
                "abandoned": abandoned,
                "layer_z": layer_z,
                "turns": turns,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.layer_z import LayerZ
        from ..models.turn_result import TurnResult

        d = dict(src_dict)
        conversation_id = d.pop("conversation_id")

        grouping = Grouping(d.pop("grouping"))

        human_actor_ids = cast(list[str], d.pop("human_actor_ids"))

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        ended_at = datetime.datetime.fromisoformat(d.pop("ended_at"))

        human_turn_count = d.pop("human_turn_count")

        ai_turn_count = d.pop("ai_turn_count")

        resolved = d.pop("resolved")

        resolution_source = ResolutionSource(d.pop("resolution_source"))

        abandoned = d.pop("abandoned")

        layer_z = LayerZ.from_dict(d.pop("layer_z"))

        turns = []
        _turns = d.pop("turns")
        for turns_item_data in _turns:
            turns_item = TurnResult.from_dict(turns_item_data)

            turns.append(turns_item)

        conversation_result = cls(
            conversation_id=conversation_id,
            grouping=grouping,
            human_actor_ids=human_actor_ids,
            started_at=started_at,
            ended_at=ended_at,
            human_turn_count=human_turn_count,
            ai_turn_count=ai_turn_count,
            resolved=resolved,
            resolution_source=resolution_source,
            abandoned=abandoned,
            layer_z=layer_z,
            turns=turns,
        )

        conversation_result.additional_properties = d
        return conversation_result

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
