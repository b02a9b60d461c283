from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.report_view_report import ReportViewReport


T = TypeVar("T", bound="ReportView")


@_attrs_define
class ReportView:
    """A User Health Report.

    Attributes:
        id (str): The report.
        deployment_id (str): The deployment.
        trigger (str): `schedule` (weekly) or `request`.
        period_start (str): Start of the period covered.
        period_end (str): End of the period covered (exclusive).
        created_at (str): When it was generated.
        report (ReportViewReport): Conversations, human turns, resolved rate; per dimension the median, p90 and
            broken-band rate with the week-over-week change and its significance; top
            findings (docs/webhooks.md).
    """

    id: str
    deployment_id: str
    trigger: str
    period_start: str
    period_end: str
    created_at: str
    report: ReportViewReport
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        deployment_id = self.deployment_id

        trigger = self.trigger

        period_start = self.period_start

        period_end = self.period_end

        created_at = self.created_at

        report = self.report.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deployment_id": deployment_id,
                "trigger": trigger,
                "period_start": period_start,
                "period_end": period_end,
                "created_at": created_at,
                "report": report,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.report_view_report import ReportViewReport

        d = dict(src_dict)
        id = d.pop("id")

        deployment_id = d.pop("deployment_id")

        trigger = d.pop("trigger")

        period_start = d.pop("period_start")

        period_end = d.pop("period_end")

        created_at = d.pop("created_at")

        report = ReportViewReport.from_dict(d.pop("report"))

        report_view = cls(
            id=id,
            deployment_id=deployment_id,
            trigger=trigger,
            period_start=period_start,
            period_end=period_end,
            created_at=created_at,
            report=report,
        )

        report_view.additional_properties = d
        return report_view

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
