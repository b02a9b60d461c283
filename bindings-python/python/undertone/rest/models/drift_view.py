from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_status import SessionStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.drift_view_after_type_0 import DriftViewAfterType0
    from ..models.drift_view_before_type_0 import DriftViewBeforeType0
    from ..models.drift_view_dimension_drifts_type_0 import (
        DriftViewDimensionDriftsType0,
    )
    from ..models.drift_view_outcome_shift_type_0 import DriftViewOutcomeShiftType0


T = TypeVar("T", bound="DriftView")


@_attrs_define
class DriftView:
    """A drift session (SPEC.md §2.5). Result fields are `null` until `status` is
    `complete`.

        Example:
            {'session_id': '5d1c7a2e-8b3f-4c6d-9e0a-1f2b3c4d5e6f', 'status': 'complete', 'created_at':
                '2026-11-21T09:31:00.120Z', 'completed_at': '2026-11-21T09:31:00.190Z', 'error': None, 'before_label':
                'model-v1', 'after_label': 'model-v2', 'question': 'Did v2 frustrate users more?', 'event_count': 400,
                'scorer_version': '1.1.0', 'overall_drift': 0.42, 'direction': 'regressed', 'plain_summary': 'Frustration
                buildup rose from 0.21 to 0.38 (p = 0.003).', 'plain_recommendations': ['Review the v2 refusals that preceded
                repeated questions.'], 'key_findings': ['frustration_buildup regressed: median 0.21 → 0.38, Holm p = 0.003'],
                'dimension_drifts': {'frustration_buildup': {'before_median': 0.21, 'after_median': 0.38, 'shift': 0.16,
                'ci_low': 0.07, 'ci_high': 0.25, 'p_value': 0.0006, 'p_adjusted': 0.003, 'effect_size': 0.42, 'significant':
                True, 'verdict': 'regressed'}}, 'before': {'label': 'model-v1', 'event_count': 200, 'conversation_count': 40,
                'human_turn_count': 100, 'resolved_rate': 0.6}, 'after': {'label': 'model-v2', 'event_count': 200,
                'conversation_count': 40, 'human_turn_count': 100, 'resolved_rate': 0.45}, 'outcome_shift': {'before_n': 40,
                'before_resolved': 24, 'after_n': 40, 'after_resolved': 18, 'before_rate': 0.6, 'after_rate': 0.45,
                'change_points': -15.0, 'p_value': 0.18, 'outcome_shift_detected': False}}

        Attributes:
            session_id (UUID): The drift session.
            status (SessionStatus): Where a session is (DESIGN.md §5).
            created_at (str): When the request was accepted.
            before_label (str): Label of the baseline period.
            after_label (str): Label of the compared period.
            event_count (int): Events in both periods (0 for a drift over a deployment's history, which
                keeps scores, not events).
            completed_at (None | str | Unset): When the comparison finished.
            error (None | str | Unset): Why processing failed.
            question (None | str | Unset): The question, as asked.
            scorer_version (None | str | Unset): Version of the scorer.
            overall_drift (float | None | Unset): Size of the largest significant change, in [0, 1].
            direction (None | str | Unset): `improved`, `regressed`, `mixed` or `stable`.
            plain_summary (None | str | Unset): 2–4 sentences with the numbers.
            plain_recommendations (list[str] | None | Unset): What to do about each regression.
            key_findings (list[str] | None | Unset): One line per dimension, most important first.
            dimension_drifts (DriftViewDimensionDriftsType0 | None | Unset): Per dimension: `{before_median, after_median,
                shift, ci_low, ci_high, p_value,
                p_adjusted, effect_size, significant, verdict}` (docs/drift.md).
            before (DriftViewBeforeType0 | None | Unset): Counts of the baseline period.
            after (DriftViewAfterType0 | None | Unset): Counts of the compared period.
            outcome_shift (DriftViewOutcomeShiftType0 | None | Unset): Resolved rate before vs after (two-proportion
                z-test).
    """

    session_id: UUID
    status: SessionStatus
    created_at: str
    before_label: str
    after_label: str
    event_count: int
    completed_at: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    question: None | str | Unset = UNSET
    scorer_version: None | str | Unset = UNSET
    overall_drift: float | None | Unset = UNSET
    direction: None | str | Unset = UNSET
    plain_summary: None | str | Unset = UNSET
    plain_recommendations: list[str] | None | Unset = UNSET
    key_findings: list[str] | None | Unset = UNSET
    dimension_drifts: DriftViewDimensionDriftsType0 | None | Unset = UNSET
    before: DriftViewBeforeType0 | None | Unset = UNSET
    after: DriftViewAfterType0 | None | Unset = UNSET
    outcome_shift: DriftViewOutcomeShiftType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.drift_view_after_type_0 import DriftViewAfterType0
        from ..models.drift_view_before_type_0 import DriftViewBeforeType0
        from ..models.drift_view_dimension_drifts_type_0 import (
            DriftViewDimensionDriftsType0,
        )
        from ..models.drift_view_outcome_shift_type_0 import DriftViewOutcomeShiftType0

        session_id = str(self.session_id)

        status = self.status.value

        created_at = self.created_at

        before_label = self.before_label

        after_label = self.after_label

        event_count = self.event_count

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        question: None | str | Unset
        if isinstance(self.question, Unset):
            question = UNSET
        else:
            question = self.question

        scorer_version: None | str | Unset
        if isinstance(self.scorer_version, Unset):
            scorer_version = UNSET
        else:
            scorer_version = self.scorer_version

        overall_drift: float | None | Unset
        if isinstance(self.overall_drift, Unset):
            overall_drift = UNSET
        else:
            overall_drift = self.overall_drift

        direction: None | str | Unset
        if isinstance(self.direction, Unset):
            direction = UNSET
        else:
            direction = self.direction

        plain_summary: None | str | Unset
        if isinstance(self.plain_summary, Unset):
            plain_summary = UNSET
        else:
            plain_summary = self.plain_summary

        plain_recommendations: list[str] | None | Unset
        if isinstance(self.plain_recommendations, Unset):
            plain_recommendations = UNSET
        elif isinstance(self.plain_recommendations, list):
            plain_recommendations = self.plain_recommendations

        else:
            plain_recommendations = self.plain_recommendations

        key_findings: list[str] | None | Unset
        if isinstance(self.key_findings, Unset):
            key_findings = UNSET
        elif isinstance(self.key_findings, list):
            key_findings = self.key_findings

        else:
            key_findings = self.key_findings

        dimension_drifts: dict[str, Any] | None | Unset
        if isinstance(self.dimension_drifts, Unset):
            dimension_drifts = UNSET
        elif isinstance(self.dimension_drifts, DriftViewDimensionDriftsType0):
            dimension_drifts = self.dimension_drifts.to_dict()
        else:
            dimension_drifts = self.dimension_drifts

        before: dict[str, Any] | None | Unset
        if isinstance(self.before, Unset):
            before = UNSET
        elif isinstance(self.before, DriftViewBeforeType0):
            before = self.before.to_dict()
        else:
            before = self.before

        after: dict[str, Any] | None | Unset
        if isinstance(self.after, Unset):
            after = UNSET
        elif isinstance(self.after, DriftViewAfterType0):
            after = self.after.to_dict()
        else:
            after = self.after

        outcome_shift: dict[str, Any] | None | Unset
        if isinstance(self.outcome_shift, Unset):
            outcome_shift = UNSET
        elif isinstance(self.outcome_shift, DriftViewOutcomeShiftType0):
            outcome_shift = self.outcome_shift.to_dict()
        else:
            outcome_shift = self.outcome_shift

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "session_id": session_id,
                "status": status,
                "created_at": created_at,
                "before_label": before_label,
                "after_label": after_label,
                "event_count": event_count,
            }
        )
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if error is not UNSET:
            field_dict["error"] = error
        if question is not UNSET:
            field_dict["question"] = question
        if scorer_version is not UNSET:
            field_dict["scorer_version"] = scorer_version
        if overall_drift is not UNSET:
            field_dict["overall_drift"] = overall_drift
        if direction is not UNSET:
            field_dict["direction"] = direction
        if plain_summary is not UNSET:
            field_dict["plain_summary"] = plain_summary
        if plain_recommendations is not UNSET:
            field_dict["plain_recommendations"] = plain_recommendations
        if key_findings is not UNSET:
            field_dict["key_findings"] = key_findings
        if dimension_drifts is not UNSET:
            field_dict["dimension_drifts"] = dimension_drifts
        if before is not UNSET:
            field_dict["before"] = before
        if after is not UNSET:
            field_dict["after"] = after
        if outcome_shift is not UNSET:
            field_dict["outcome_shift"] = outcome_shift

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.drift_view_after_type_0 import DriftViewAfterType0
        from ..models.drift_view_before_type_0 import DriftViewBeforeType0
        from ..models.drift_view_dimension_drifts_type_0 import (
            DriftViewDimensionDriftsType0,
        )
        from ..models.drift_view_outcome_shift_type_0 import DriftViewOutcomeShiftType0

        d = dict(src_dict)
        session_id = UUID(d.pop("session_id"))

        status = SessionStatus(d.pop("status"))

        created_at = d.pop("created_at")

        before_label = d.pop("before_label")

        after_label = d.pop("after_label")

        event_count = d.pop("event_count")

        def _parse_completed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_question(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        question = _parse_question(d.pop("question", UNSET))

        def _parse_scorer_version(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        scorer_version = _parse_scorer_version(d.pop("scorer_version", UNSET))

        def _parse_overall_drift(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        overall_drift = _parse_overall_drift(d.pop("overall_drift", UNSET))

        def _parse_direction(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        direction = _parse_direction(d.pop("direction", UNSET))

        def _parse_plain_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        plain_summary = _parse_plain_summary(d.pop("plain_summary", UNSET))

        def _parse_plain_recommendations(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                plain_recommendations_type_0 = cast(list[str], data)

                return plain_recommendations_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        plain_recommendations = _parse_plain_recommendations(
            d.pop("plain_recommendations", UNSET)
        )

        def _parse_key_findings(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                key_findings_type_0 = cast(list[str], data)

                return key_findings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        key_findings = _parse_key_findings(d.pop("key_findings", UNSET))

        def _parse_dimension_drifts(
            data: object,
        ) -> DriftViewDimensionDriftsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                dimension_drifts_type_0 = DriftViewDimensionDriftsType0.from_dict(data)

                return dimension_drifts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DriftViewDimensionDriftsType0 | None | Unset, data)

        dimension_drifts = _parse_dimension_drifts(d.pop("dimension_drifts", UNSET))

        def _parse_before(data: object) -> DriftViewBeforeType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                before_type_0 = DriftViewBeforeType0.from_dict(data)

                return before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DriftViewBeforeType0 | None | Unset, data)

        before = _parse_before(d.pop("before", UNSET))

        def _parse_after(data: object) -> DriftViewAfterType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                after_type_0 = DriftViewAfterType0.from_dict(data)

                return after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DriftViewAfterType0 | None | Unset, data)

        after = _parse_after(d.pop("after", UNSET))

        def _parse_outcome_shift(
            data: object,
        ) -> DriftViewOutcomeShiftType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                outcome_shift_type_0 = DriftViewOutcomeShiftType0.from_dict(data)

                return outcome_shift_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(DriftViewOutcomeShiftType0 | None | Unset, data)

        outcome_shift = _parse_outcome_shift(d.pop("outcome_shift", UNSET))

        drift_view = cls(
            session_id=session_id,
            status=status,
            created_at=created_at,
            before_label=before_label,
            after_label=after_label,
            event_count=event_count,
            completed_at=completed_at,
            error=error,
            question=question,
            scorer_version=scorer_version,
            overall_drift=overall_drift,
            direction=direction,
            plain_summary=plain_summary,
            plain_recommendations=plain_recommendations,
            key_findings=key_findings,
            dimension_drifts=dimension_drifts,
            before=before,
            after=after,
            outcome_shift=outcome_shift,
        )

        drift_view.additional_properties = d
        return drift_view

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
