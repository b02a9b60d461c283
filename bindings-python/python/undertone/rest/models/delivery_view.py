from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.delivery_status import DeliveryStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attempt_view import AttemptView


T = TypeVar("T", bound="DeliveryView")


@_attrs_define
class DeliveryView:
    """A delivery of one event to one endpoint.

    Attributes:
        id (str): The delivery id, sent as `X-Undertone-Delivery` and `webhook-id`, the same on
            every attempt.
        event_id (str): The event (the envelope's `id`).
        event_type (str): The event kind.
        status (DeliveryStatus): Where a delivery is.
        attempts (int): Attempts made.
        created_at (str): When it was queued.
        attempt_log (list[AttemptView]): Every attempt, first first.
        response_status (int | None | Unset): Status code of the last attempt.
        error (None | str | Unset): Error of the last attempt.
        last_attempt_at (None | str | Unset): When the last attempt started.
        next_attempt_at (None | str | Unset): When the next attempt is due (pending only).
        completed_at (None | str | Unset): When it succeeded or failed for good.
    """

    id: str
    event_id: str
    event_type: str
    status: DeliveryStatus
    attempts: int
    created_at: str
    attempt_log: list[AttemptView]
    response_status: int | None | Unset = UNSET
    error: None | str | Unset = UNSET
    last_attempt_at: None | str | Unset = UNSET
    next_attempt_at: None | str | Unset = UNSET
    completed_at: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        event_id = self.event_id

        event_type = self.event_type

        status = self.status.value

        attempts = self.attempts

        created_at = self.created_at

        attempt_log = []
        for attempt_log_item_data in self.attempt_log:
            attempt_log_item = attempt_log_item_data.to_dict()
            attempt_log.append(attempt_log_item)

        response_status: int | None | Unset
        if isinstance(self.response_status, Unset):
            response_status = UNSET
        else:
            response_status = self.response_status

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        last_attempt_at: None | str | Unset
        if isinstance(self.last_attempt_at, Unset):
            last_attempt_at = UNSET
        else:
            last_attempt_at = self.last_attempt_at

        next_attempt_at: None | str | Unset
        if isinstance(self.next_attempt_at, Unset):
            next_attempt_at = UNSET
        else:
            next_attempt_at = self.next_attempt_at

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "event_id": event_id,
                "event_type": event_type,
                "status": status,
                "attempts": attempts,
                "created_at": created_at,
                "attempt_log": attempt_log,
            }
        )
        if response_status is not UNSET:
            field_dict["response_status"] = response_status
        if error is not UNSET:
            field_dict["error"] = error
        if last_attempt_at is not UNSET:
            field_dict["last_attempt_at"] = last_attempt_at
        if next_attempt_at is not UNSET:
            field_dict["next_attempt_at"] = next_attempt_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.attempt_view import AttemptView

        d = dict(src_dict)
        id = d.pop("id")

        event_id = d.pop("event_id")

        event_type = d.pop("event_type")

        status = DeliveryStatus(d.pop("status"))

        attempts = d.pop("attempts")

        created_at = d.pop("created_at")

        attempt_log = []
        _attempt_log = d.pop("attempt_log")
        for attempt_log_item_data in _attempt_log:
            attempt_log_item = AttemptView.from_dict(attempt_log_item_data)

            attempt_log.append(attempt_log_item)

        def _parse_response_status(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        response_status = _parse_response_status(d.pop("response_status", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_last_attempt_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_attempt_at = _parse_last_attempt_at(d.pop("last_attempt_at", UNSET))

        def _parse_next_attempt_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_attempt_at = _parse_next_attempt_at(d.pop("next_attempt_at", UNSET))

        def _parse_completed_at(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        delivery_view = cls(
            id=id,
            event_id=event_id,
            event_type=event_type,
            status=status,
            attempts=attempts,
            created_at=created_at,
            attempt_log=attempt_log,
            response_status=response_status,
            error=error,
            last_attempt_at=last_attempt_at,
            next_attempt_at=next_attempt_at,
            completed_at=completed_at,
        )

        delivery_view.additional_properties = d
        return delivery_view

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
