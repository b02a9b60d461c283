from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DeploymentSummary")


@_attrs_define
class DeploymentSummary:
    """One deployment with history.

    Attributes:
        deployment_id (str): The deployment.
        conversations (int): Scored conversations kept in its history.
        last_conversation_at (str): When its latest conversation started.
    """

    deployment_id: str
    conversations: int
    last_conversation_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deployment_id = self.deployment_id

        conversations = self.conversations

        last_conversation_at = self.last_conversation_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deployment_id": deployment_id,
                "conversations": conversations,
                "last_conversation_at": last_conversation_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        deployment_id = d.pop("deployment_id")

        conversations = d.pop("conversations")

        last_conversation_at = d.pop("last_conversation_at")

        deployment_summary = cls(
            deployment_id=deployment_id,
            conversations=conversations,
            last_conversation_at=last_conversation_at,
        )

        deployment_summary.additional_properties = d
        return deployment_summary

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
