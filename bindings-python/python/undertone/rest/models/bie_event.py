from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bie_event_metadata_type_0 import BIEEventMetadataType0


T = TypeVar("T", bound="BIEEvent")


@_attrs_define
class BIEEvent:
    """One turn of a conversation, as sent (DESIGN.md §2).

    Example:
        {'actor_id': 'cust-1', 'content': 'Where is my order?', 'timestamp': '2026-11-21T09:30:00Z', 'conversation_id':
            'c-1'}

    Attributes:
        actor_id (str): Who wrote the turn: a person, or the AI (`metadata.role`, `actor_id ==
            deployment_id`, or an `ai:`/`bot:`/`assistant` prefix marks AI turns).
        content (str): The message text: 1–32768 bytes of UTF-8 after trimming, no NUL.
        timestamp (datetime.datetime): When the turn happened: RFC 3339 with an offset (normalised to UTC).
        context (None | str | Unset): Channel, thread, category or topic.
        metadata (BIEEventMetadataType0 | None | Unset): Arbitrary key/value pairs (≤ 16 KiB serialised, depth ≤ 8),
            preserved in the
            output. `role`/`speaker`, `conversation_id`, `resolved`, `release` and
            `model_version` are read (docs/input.md).
        conversation_id (None | str | Unset): Groups the turns of one conversation.
    """

    actor_id: str
    content: str
    timestamp: datetime.datetime
    context: None | str | Unset = UNSET
    metadata: BIEEventMetadataType0 | None | Unset = UNSET
    conversation_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.bie_event_metadata_type_0 import BIEEventMetadataType0

        actor_id = self.actor_id

        content = self.content

        timestamp = self.timestamp.isoformat()

        context: None | str | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        else:
            context = self.context

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, BIEEventMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        conversation_id: None | str | Unset
        if isinstance(self.conversation_id, Unset):
            conversation_id = UNSET
        else:
            conversation_id = self.conversation_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "actor_id": actor_id,
                "content": content,
                "timestamp": timestamp,
            }
        )
        if context is not UNSET:
            field_dict["context"] = context
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if conversation_id is not UNSET:
            field_dict["conversation_id"] = conversation_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bie_event_metadata_type_0 import BIEEventMetadataType0

        d = dict(src_dict)
        actor_id = d.pop("actor_id")

        content = d.pop("content")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        def _parse_context(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        def _parse_metadata(data: object) -> BIEEventMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = BIEEventMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BIEEventMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_conversation_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        conversation_id = _parse_conversation_id(d.pop("conversation_id", UNSET))

        bie_event = cls(
            actor_id=actor_id,
            content=content,
            timestamp=timestamp,
            context=context,
            metadata=metadata,
            conversation_id=conversation_id,
        )

        return bie_event
