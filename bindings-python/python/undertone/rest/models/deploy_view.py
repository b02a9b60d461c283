from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.deploy_view_result_type_0 import DeployViewResultType0


T = TypeVar("T", bound="DeployView")


@_attrs_define
class DeployView:
    """A deploy marker, with its outcome-shift measurement once its post-deploy window
    settled.

        Attributes:
            id (str): The marker.
            deployment_id (str): The deployment.
            source (str): `api` (this route) or `metadata` (a new `release`/`model_version` in events).
            deployed_at (str): When it went live.
            created_at (str): When it was recorded.
            release (None | str | Unset): The release, when known.
            description (None | str | Unset): What changed.
            measured_at (None | str | Unset): When the outcome-shift test ran (null until the window settles).
            result (DeployViewResultType0 | None | Unset): The test: counts and resolved rates before and after, change in
                points,
                p-value, and `outcome_shift_detected`.
    """

    id: str
    deployment_id: str
    source: str
    deployed_at: str
    created_at: str
    release: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    measured_at: None | str | Unset = UNSET
    result: DeployViewResultType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.deploy_view_result_type_0 import DeployViewResultType0

        id = self.id

        deployment_id = self.deployment_id

        source = self.source

        deployed_at = self.deployed_at

        created_at = self.created_at

        release: None | str | Unset
        if isinstance(self.release, Unset):
            release = UNSET
        else:
            release = self.release

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        measured_at: None | str | Unset
        if isinstance(self.measured_at, Unset):
            measured_at = UNSET
        else:
            measured_at = self.measured_at

        result: dict[str, Any] | None | Unset
        if isinstance(self.result, Unset):
            result = UNSET
        elif isinstance(self.result, DeployViewResultType0):
            result = self.result.to_dict()
        else:
            result = self.result

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deployment_id": deployment_id,
                "source": source,
                "deployed_at": deployed_at,
                "created_at": created_at,
            }
        )
        if release is not UNSET:
            field_dict["release"] = release
        if description is not UNSET:
            field_dict["description"] = description
        if measured_at is not UNSET:
            field_dict["measured_at"] = measured_at
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.deploy_view_result_type_0 import DeployViewResultType0

        d = dict(src_dict)
        id = d.pop("id")

        deployment_id = d.pop("deployment_id")

        source = d.pop("source")

        deployed_at = d.pop("deployed_at")

        created_at = d.pop("created_at")

        def _parse_release(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        release = _parse_release(d.pop("release", UNSET))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_measured_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        measured_at = _parse_measured_at(d.pop("measured_at", UNSET))

        def _parse_result(data: object) -> DeployViewResultType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                result_type_0 = DeployViewResultType0.from_dict(data)

                return result_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DeployViewResultType0 | None | Unset, data)

        result = _parse_result(d.pop("result", UNSET))

        deploy_view = cls(
            id=id,
            deployment_id=deployment_id,
            source=source,
            deployed_at=deployed_at,
            created_at=created_at,
            release=release,
            description=description,
            measured_at=measured_at,
            result=result,
        )

        deploy_view.additional_properties = d
        return deploy_view

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
