from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.archetype import Archetype
from ..models.pipeline_source import PipelineSource

if TYPE_CHECKING:
    from ..models.conversation_result import ConversationResult
    from ..models.environment import Environment
    from ..models.layer_z import LayerZ


T = TypeVar("T", bound="Intelligence")


@_attrs_define
class Intelligence:
    """The structured result of scoring one request.

    Attributes:
        scorer_version (str): Version of the scoring rules.
        deployment_id (str): The deployment.
        pipeline_source (PipelineSource): How the pipeline was chosen.
        archetype (Archetype): A kind of AI deployment.
        environment (Environment): Detected environment: archetype, confidence in `[0, 1]`, and the terms that decided
            it.
        event_count (int): Events in the request.
        conversation_count (int): Conversations found.
        human_turn_count (int): Human turns scored.
        layer_z (LayerZ): The six dimensions of one turn, conversation or request.
        conversations (list[ConversationResult]): Every conversation, in assembly order.
        without_human_turns (list[str]): Conversations with no human turn (kept, not scored).
        key_finding (str): The most important finding.
        falsifiable (bool): Whether `prediction` states a measurable claim.
        prediction (None | str): A claim a later drift comparison can confirm or refute.
        recommendation (str): The first recommendation.
        plain_summary (str): 3–5 sentences for a product manager.
        plain_recommendations (list[str]): Actions tied to evidence.
    """

    scorer_version: str
    deployment_id: str
    pipeline_source: PipelineSource
    archetype: Archetype
    environment: Environment
    event_count: int
    conversation_count: int
    human_turn_count: int
    layer_z: LayerZ
    conversations: list[ConversationResult]
    without_human_turns: list[str]
    key_finding: str
    falsifiable: bool
    prediction: None | str
    recommendation: str
    plain_summary: str
    plain_recommendations: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        scorer_version = self.scorer_version

        deployment_id = self.deployment_id

        pipeline_source = self.pipeline_source.value

        archetype = self.archetype.value

        environment = self.environment.to_dict()

        event_count = self.event_count

        conversation_count = self.conversation_count

        human_turn_count = self.human_turn_count

        layer_z = self.layer_z.to_dict()

        conversations = []
        for conversations_item_data in self.conversations:
            conversations_item = conversations_item_data.to_dict()
            conversations.append(conversations_item)

        without_human_turns = self.without_human_turns

        key_finding = self.key_finding

        falsifiable = self.falsifiable

        prediction: None | str
        prediction = self.prediction

        recommendation = self.recommendation

        plain_summary = self.plain_summary

        plain_recommendations = self.plain_recommendations

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "scorer_version": scorer_version,
                "deployment_id": deployment_id,
                "pipeline_source": pipeline_source,
                "archetype": archetype,
                "environment": environment,
                "event_count": event_count,
                "conversation_count": conversation_count,
                "human_turn_count": human_turn_count,
                "layer_z": layer_z,
                "conversations": conversations,
                "without_human_turns": without_human_turns,
                "key_finding": key_finding,
                "falsifiable": falsifiable,
                "prediction": prediction,
                "recommendation": recommendation,
                "plain_summary": plain_summary,
                "plain_recommendations": plain_recommendations,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conversation_result import ConversationResult
        from ..models.environment import Environment
        from ..models.layer_z import LayerZ

        d = dict(src_dict)
        scorer_version = d.pop("scorer_version")

        deployment_id = d.pop("deployment_id")

        pipeline_source = PipelineSource(d.pop("pipeline_source"))

        archetype = Archetype(d.pop("archetype"))

        environment = Environment.from_dict(d.pop("environment"))

        event_count = d.pop("event_count")

        conversation_count = d.pop("conversation_count")

        human_turn_count = d.pop("human_turn_count")

        layer_z = LayerZ.from_dict(d.pop("layer_z"))

        conversations = []
        _conversations = d.pop("conversations")
        for conversations_item_data in _conversations:
            conversations_item = ConversationResult.from_dict(conversations_item_data)

            conversations.append(conversations_item)

        without_human_turns = cast(list[str], d.pop("without_human_turns"))

        key_finding = d.pop("key_finding")

        falsifiable = d.pop("falsifiable")

        def _parse_prediction(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        prediction = _parse_prediction(d.pop("prediction"))

        recommendation = d.pop("recommendation")

        plain_summary = d.pop("plain_summary")

        plain_recommendations = cast(list[str], d.pop("plain_recommendations"))

        intelligence = cls(
            scorer_version=scorer_version,
            deployment_id=deployment_id,
            pipeline_source=pipeline_source,
            archetype=archetype,
            environment=environment,
            event_count=event_count,
            conversation_count=conversation_count,
            human_turn_count=human_turn_count,
            layer_z=layer_z,
            conversations=conversations,
            without_human_turns=without_human_turns,
            key_finding=key_finding,
            falsifiable=falsifiable,
            prediction=prediction,
            recommendation=recommendation,
            plain_summary=plain_summary,
            plain_recommendations=plain_recommendations,
        )

        intelligence.additional_properties = d
        return intelligence

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
