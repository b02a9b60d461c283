from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.report_data_report import ReportDataReport


T = TypeVar("T", bound="ReportData")


@_attrs_define
class ReportData:
    """`data` of `uhr_generated`.

    Attributes:
        report_id (str): The report's id.
        trigger (str): `schedule` or `request`.
        report_url (str): Where to read it.
        period_start (datetime.datetime): Start of the period covered.
        period_end (datetime.datetime): End of the period covered (exclusive).
        report (ReportDataReport): The report itself.
    """

    report_id: str
    trigger: str
    report_url: str
    period_start: datetime.datetime
    period_end: datetime.datetime
    report: ReportDataReport
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        report_id = self.report_id

        trigger = self.trigger

        report_url = self.report_url

        period_start = self.period_start.isoformat()

        period_end = self.period_end.isoformat()

        report = self.report.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "report_id": report_id,
                "trigger": trigger,
                "report_url": report_url,
                "period_start": period_start,
                "period_end": period_end,
                "report": report,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.report_data_report import ReportDataReport

        d = dict(src_dict)
        report_id = d.pop("report_id")

        trigger = d.pop("trigger")

        report_url = d.pop("report_url")

        period_start = datetime.datetime.fromisoformat(d.pop("period_start"))

        period_end = datetime.datetime.fromisoformat(d.pop("period_end"))

        report = ReportDataReport.from_dict(d.pop("report"))

        report_data = cls(
            report_id=report_id,
            trigger=trigger,
            report_url=report_url,
            period_start=period_start,
            period_end=period_end,
            report=report,
        )

        report_data.additional_properties = d
        return report_data

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
