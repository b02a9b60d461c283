from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.pipeline_doc import PipelineDoc
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.bie_event import BIEEvent


T = TypeVar("T", bound="IngestRequest")


@_attrs_define
class IngestRequest:
    """The body of `POST /ingest` (SPEC.md §2.2).

    Example:
        {'deployment_id': 'acme-support-bot', 'events': [{'actor_id': 'cust-1', 'content': "My refund still hasn't
            arrived.", 'timestamp': '2026-11-21T09:30:00Z', 'conversation_id': 'c-1'}, {'actor_id': 'acme-support-bot',
            'content': 'Refunds take 5-7 days.', 'timestamp': '2026-11-21T09:30:04Z', 'conversation_id': 'c-1'}]}

    Attributes:
        deployment_id (str): Stable identifier of the AI deployment.
        events (list[BIEEvent]): The conversation turns, in order: 1 to 5000.
        pipeline (None | PipelineDoc | Unset):
        webhook_url (None | str | Unset): Where to deliver `intelligence.ready`: https, public address.
    """

    deployment_id: str
    events: list[BIEEvent]
    pipeline: None | PipelineDoc | Unset = UNSET
    webhook_url: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        deployment_id = self.deployment_id

        events = []
        for events_item_data in self.events:
            events_item = events_item_data.to_dict()
            events.append(events_item)

        pipeline: None | str | Unset
        if isinstance(self.pipeline, Unset):
            pipeline = UNSET
        elif isinstance(self.pipeline, PipelineDoc):
            pipeline = self.pipeline.value
        else:
            pipeline = self.pipeline

        webhook_url: None | str | Unset
        if isinstance(self.webhook_url, Unset):
            webhook_url = UNSET
        else:
            webhook_url = self.webhook_url

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "deployment_id": deployment_id,
                "events": events,
            }
        )
        if pipeline is not UNSET:
            field_dict["pipeline"] = pipeline
        if webhook_url is not UNSET:
            field_dict["webhook_url"] = webhook_url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.bie_event import BIEEvent

        d = dict(src_dict)
        deployment_id = d.pop("deployment_id")

        events = []
        _events = d.pop("events")
        for events_item_data in _events:
            events_item = BIEEvent.from_dict(events_item_data)

            events.append(events_item)

        def _parse_pipeline(data: object) -> None | PipelineDoc | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pipeline_type_0 = PipelineDoc(data)

                return pipeline_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PipelineDoc | Unset, data)

        pipeline = _parse_pipeline(d.pop("pipeline", UNSET))

        def _parse_webhook_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        webhook_url = _parse_webhook_url(d.pop("webhook_url", UNSET))

        ingest_request = cls(
            deployment_id=deployment_id,
            events=events,
            pipeline=pipeline,
            webhook_url=webhook_url,
        )

        return ingest_request
