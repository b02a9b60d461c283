from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.outcome_shift_data_shift import OutcomeShiftDataShift


T = TypeVar("T", bound="OutcomeShiftData")


@_attrs_define
class OutcomeShiftData:
    """`data` of `outcome_shift_detected`.

    Attributes:
        deploy_id (str): The deploy marker.
        source (str): `api` or `metadata`.
        deployed_at (datetime.datetime): When it was deployed.
        shift (OutcomeShiftDataShift): Resolved rate before and after, counts, change in points and p-value.
        summary (str): One sentence for a person.
        release (None | str | Unset): The release deployed, when known.
    """

    deploy_id: str
    source: str
    deployed_at: datetime.datetime
    shift: OutcomeShiftDataShift
    summary: str
    release: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deploy_id = self.deploy_id

        source = self.source

        deployed_at = self.deployed_at.isoformat()

        shift = self.shift.to_dict()

        summary = self.summary

        release: None | str | Unset
        if isinstance(self.release, Unset):
            release = UNSET
        else:
            release = self.release

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deploy_id": deploy_id,
                "source": source,
                "deployed_at": deployed_at,
                "shift": shift,
                "summary": summary,
            }
        )
        if release is not UNSET:
            field_dict["release"] = release

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.outcome_shift_data_shift import OutcomeShiftDataShift

        d = dict(src_dict)
        deploy_id = d.pop("deploy_id")

        source = d.pop("source")

        deployed_at = datetime.datetime.fromisoformat(d.pop("deployed_at"))

        shift = OutcomeShiftDataShift.from_dict(d.pop("shift"))

        summary = d.pop("summary")

        def _parse_release(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        release = _parse_release(d.pop("release", UNSET))

        outcome_shift_data = cls(
            deploy_id=deploy_id,
            source=source,
            deployed_at=deployed_at,
            shift=shift,
            summary=summary,
            release=release,
        )

        outcome_shift_data.additional_properties = d
        return outcome_shift_data

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
