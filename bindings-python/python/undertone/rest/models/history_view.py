from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.deploy_view import DeployView
    from ..models.history_view_anomalies_item import HistoryViewAnomaliesItem
    from ..models.history_view_days_item import HistoryViewDaysItem


T = TypeVar("T", bound="HistoryView")


@_attrs_define
class HistoryView:
    """A deployment's history by day.

    Attributes:
        deployment_id (str): The deployment.
        from_ (str): Start of the window (RFC 3339, UTC).
        to (str): End of the window (now).
        days (list[HistoryViewDaysItem]): Each UTC day with conversations, oldest first: `{date, conversations,
            resolved_share, dimensions: {dimension: {median, broken_share}}}` (median of the
            conversation scores; broken share of conversations in the broken band).
        deploys (list[DeployView]): The deploy markers in the window, with their outcome-shift results.
        anomalies (list[HistoryViewAnomaliesItem]): Days whose mean risk on a dimension left the EWMA control limits:
            `{dimension, bucket (the date), conversations, value, baseline_mean, z, severity,
            direction, …}`.
    """

    deployment_id: str
    from_: str
    to: str
    days: list[HistoryViewDaysItem]
    deploys: list[DeployView]
    anomalies: list[HistoryViewAnomaliesItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        deployment_id = self.deployment_id

        from_ = self.from_

        to = self.to

        days = []
        for days_item_data in self.days:
            days_item = days_item_data.to_dict()
            days.append(days_item)

        deploys = []
        for deploys_item_data in self.deploys:
            deploys_item = deploys_item_data.to_dict()
            deploys.append(deploys_item)

        anomalies = []
        for anomalies_item_data in self.anomalies:
            anomalies_item = anomalies_item_data.to_dict()
            anomalies.append(anomalies_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "deployment_id": deployment_id,
                "from": from_,
                "to": to,
                "days": days,
                "deploys": deploys,
                "anomalies": anomalies,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.deploy_view import DeployView
        from ..models.history_view_anomalies_item import HistoryViewAnomaliesItem
        from ..models.history_view_days_item import HistoryViewDaysItem

        d = dict(src_dict)
        deployment_id = d.pop("deployment_id")

        from_ = d.pop("from")

        to = d.pop("to")

        days = []
        _days = d.pop("days")
        for days_item_data in _days:
            days_item = HistoryViewDaysItem.from_dict(days_item_data)

            days.append(days_item)

        deploys = []
        _deploys = d.pop("deploys")
        for deploys_item_data in _deploys:
            deploys_item = DeployView.from_dict(deploys_item_data)

            deploys.append(deploys_item)

        anomalies = []
        _anomalies = d.pop("anomalies")
        for anomalies_item_data in _anomalies:
            anomalies_item = HistoryViewAnomaliesItem.from_dict(anomalies_item_data)

            anomalies.append(anomalies_item)

        history_view = cls(
            deployment_id=deployment_id,
            from_=from_,
            to=to,
            days=days,
            deploys=deploys,
            anomalies=anomalies,
        )

        history_view.additional_properties = d
        return history_view

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
