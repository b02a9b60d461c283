from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.crossing_data_evidence_item import CrossingDataEvidenceItem
    from ..models.summarised import Summarised


T = TypeVar("T", bound="CrossingData")


@_attrs_define
class CrossingData:
    """`data` of `layer_z_threshold_crossed` (SPEC.md §6, plus where to find the turn).

    Attributes:
        dimension (str): The dimension that crossed.
        score (float): The turn's score of that dimension.
        threshold (float): The score at which the dimension enters the broken band (0.45 for
            trust_calibration, whose broken end is low; 0.55 for the others).
        band (str): Always `broken`.
        conversation_id (str): Undertone's id of the conversation: stable for the deployment and the
            conversation's own id.
        conversation_external_id (str): The conversation id as sent (`conversation_id` of the events, or the implicit
            `auto:…` grouping).
        signal_id (str): The crossing signal: stable for the session, turn and dimension.
        occurred_at (datetime.datetime): When the turn was written.
        session_id (str): The session whose result holds the turn.
        event_index (int): The turn's position in the request's `events`.
        evidence (list[CrossingDataEvidenceItem]): The turn's evidence for the dimension, strongest first.
        signal (None | str | Unset): The strongest signal that pushed the score, when one did.
        summarised (None | Summarised | Unset):
    """

    dimension: str
    score: float
    threshold: float
    band: str
    conversation_id: str
    conversation_external_id: str
    signal_id: str
    occurred_at: datetime.datetime
    session_id: str
    event_index: int
    evidence: list[CrossingDataEvidenceItem]
    signal: None | str | Unset = UNSET
    summarised: None | Summarised | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.summarised import Summarised

        dimension = self.dimension

        score = self.score

        threshold = self.threshold

        band = self.band

        conversation_id = self.conversation_id

        conversation_external_id = self.conversation_external_id

        signal_id = self.signal_id

        occurred_at = self.occurred_at.isoformat()

        session_id = self.session_id

        event_index = self.event_index

        evidence = []
        for evidence_item_data in self.evidence:
            evidence_item = evidence_item_data.to_dict()
            evidence.append(evidence_item)

        signal: None | str | Unset
        if isinstance(self.signal, Unset):
            signal = UNSET
        else:
            signal = self.signal

        summarised: dict[str, Any] | None | Unset
        if isinstance(self.summarised, Unset):
            summarised = UNSET
        elif isinstance(self.summarised, Summarised):
            summarised = self.summarised.to_dict()
        else:
            summarised = self.summarised

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dimension": dimension,
                "score": score,
                "threshold": threshold,
                "band": band,
                "conversation_id": conversation_id,
                "conversation_external_id": conversation_external_id,
                "signal_id": signal_id,
                "occurred_at": occurred_at,
                "session_id": session_id,
                "event_index": event_index,
                "evidence": evidence,
            }
        )
        if signal is not UNSET:
            field_dict["signal"] = signal
        if summarised is not UNSET:
            field_dict["summarised"] = summarised

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.crossing_data_evidence_item import CrossingDataEvidenceItem
        from ..models.summarised import Summarised

        d = dict(src_dict)
        dimension = d.pop("dimension")

        score = d.pop("score")

        threshold = d.pop("threshold")

        band = d.pop("band")

        conversation_id = d.pop("conversation_id")

        conversation_external_id = d.pop("conversation_external_id")

        signal_id = d.pop("signal_id")

        occurred_at = datetime.datetime.fromisoformat(d.pop("occurred_at"))

        session_id = d.pop("session_id")

        event_index = d.pop("event_index")

        evidence = []
        _evidence = d.pop("evidence")
        for evidence_item_data in _evidence:
            evidence_item = CrossingDataEvidenceItem.from_dict(evidence_item_data)

            evidence.append(evidence_item)

        def _parse_signal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        signal = _parse_signal(d.pop("signal", UNSET))

        def _parse_summarised(data: object) -> None | Summarised | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summarised_type_0 = Summarised.from_dict(data)

                return summarised_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Summarised | Unset, data)

        summarised = _parse_summarised(d.pop("summarised", UNSET))

        crossing_data = cls(
            dimension=dimension,
            score=score,
            threshold=threshold,
            band=band,
            conversation_id=conversation_id,
            conversation_external_id=conversation_external_id,
            signal_id=signal_id,
            occurred_at=occurred_at,
            session_id=session_id,
            event_index=event_index,
            evidence=evidence,
            signal=signal,
            summarised=summarised,
        )

        crossing_data.additional_properties = d
        return crossing_data

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
