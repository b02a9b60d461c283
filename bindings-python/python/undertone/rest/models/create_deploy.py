from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateDeploy")


@_attrs_define
class CreateDeploy:
    """The body of `POST /deployments/{id}/deploys`; every field is optional.

    Example:
        {'release': 'support-bot-2026.11.3', 'description': 'New refund prompt', 'deployed_at': '2026-11-21T08:00:00Z'}

    Attributes:
        release (None | str | Unset): The release deployed (a model version, prompt version, build); blank means
            not given; no NUL.
        description (None | str | Unset): What changed, for people; blank means not given; no NUL.
        deployed_at (datetime.datetime | None | Unset): When it went live (RFC 3339); now when omitted.
    """

    release: None | str | Unset = UNSET
    description: None | str | Unset = UNSET
    deployed_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
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

        deployed_at: None | str | Unset
        if isinstance(self.deployed_at, Unset):
            deployed_at = UNSET
        elif isinstance(self.deployed_at, datetime.datetime):
            deployed_at = self.deployed_at.isoformat()
        else:
            deployed_at = self.deployed_at

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if release is not UNSET:
            field_dict["release"] = release
        if description is not UNSET:
            field_dict["description"] = description
        if deployed_at is not UNSET:
            field_dict["deployed_at"] = deployed_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

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

        def _parse_deployed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deployed_at_type_0 = datetime.datetime.fromisoformat(data)

                return deployed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        deployed_at = _parse_deployed_at(d.pop("deployed_at", UNSET))

        create_deploy = cls(
            release=release,
            description=description,
            deployed_at=deployed_at,
        )

        return create_deploy
