from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.scored_pipeline import ScoredPipeline

if TYPE_CHECKING:
    from ..models.intelligence import Intelligence


T = TypeVar("T", bound="FullOutput")


@_attrs_define
class FullOutput:
    """`full_output` of a session: `{pipeline, intelligence}`.

    Attributes:
        pipeline (ScoredPipeline): The pipeline a request was scored with, after `auto` is resolved.
        intelligence (Intelligence): The structured result of scoring one request.
    """

    pipeline: ScoredPipeline
    intelligence: Intelligence
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pipeline = self.pipeline.value

        intelligence = self.intelligence.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pipeline": pipeline,
                "intelligence": intelligence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.intelligence import Intelligence

        d = dict(src_dict)
        pipeline = ScoredPipeline(d.pop("pipeline"))

        intelligence = Intelligence.from_dict(d.pop("intelligence"))

        full_output = cls(
            pipeline=pipeline,
            intelligence=intelligence,
        )

        full_output.additional_properties = d
        return full_output

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
