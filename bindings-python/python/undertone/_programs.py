"""The programs ``Client`` and ``AsyncClient`` share.

A convenience method builds a *program*: a generator that yields the steps it needs (a
call of a generated operation, ``_Call``; a pause, ``_Sleep``) and receives their
results. ``Client`` runs programs with blocking I/O and ``AsyncClient`` awaits them, so
request building, answer checks, polling and paging are written once, here.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from collections.abc import Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Optional, Protocol, TypeVar, Union, cast
from uuid import UUID

import httpx

from .errors import ApiError, SessionFailed, WaitTimeout
from .rest.api.deployments import list_deployments as _list_deployments
from .rest.api.drift import read as _read_drift
from .rest.api.drift import start as _start_drift
from .rest.api.drift import start_history_drift as _start_history_drift
from .rest.api.sessions import ingest as _ingest
from .rest.api.sessions import intelligence as _intelligence
from .rest.api.sessions import list_sessions as _list_sessions
from .rest.api.webhooks import deliveries as _deliveries
from .rest.client import AuthenticatedClient
from .rest.models import (
    DeliveryPage,
    DeploymentList,
    DriftAccepted,
    DriftView,
    EventKind,
    IngestAccepted,
    SessionPage,
    SessionStatus,
    SessionView,
)
from .rest.types import UNSET, Unset

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
_Session = TypeVar("_Session", SessionView, DriftView)

Events = Iterable[Mapping[str, Any]]
"""A list (or any iterable) of event dicts, as ``POST /ingest`` takes them."""

EventsOrRequest = Union[Mapping[str, Any], Events]
"""A whole ingest request ``{"deployment_id", "events", ...}``, or its events."""

Instant = Union[str, _dt.datetime, _dt.date]
"""An RFC 3339 string, an aware datetime, or a date (its UTC midnight)."""

Span = tuple[Instant, Instant]
"""A period ``(from, to)``: conversations that started at or after ``from``, before ``to``."""

_POLL_FIRST, _POLL_MOST = 0.2, 2.0  # seconds between polls: doubling from the first to the most


@dataclass(frozen=True)
class _Call:
    """A step: call a generated ``operation`` with ``args``; a 2xx answer must parse to
    ``ok``."""

    operation: ModuleType
    ok: type[Any]
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]

    def request(self) -> dict[str, Any]:
        """The arguments of ``httpx.Client.request``, as the generated code builds them."""
        return cast(dict[str, Any], self.operation._get_kwargs(*self.args, **self.kwargs))

    def answer(self, client: AuthenticatedClient, response: httpx.Response) -> Any:
        """The parsed 2xx answer; ``ApiError`` for anything else.

        Parsed here rather than by the generated ``sync_detailed``, which reads every
        documented error status as JSON and so fails on a proxy's HTML error page."""
        if not response.is_success:
            raise ApiError.from_response(response)
        try:
            parsed = self.operation._parse_response(client=client, response=response)
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ApiError.unexpected(response, f"unreadable {self.ok.__name__}: {e}") from e
        if not isinstance(parsed, self.ok):
            raise ApiError.unexpected(response, f"expected {self.ok.__name__}, got {response.status_code}")
        return parsed


@dataclass(frozen=True)
class _Sleep:
    """A step: pause for ``seconds``."""

    seconds: float


_Program = Generator[Union[_Call, _Sleep], Any, T]


def _call(ok: type[T], operation: ModuleType, *args: Any, **kwargs: Any) -> _Program[T]:
    """One call of a generated operation, answering ``ok``."""
    answer = yield _Call(operation, ok, args, kwargs)
    return cast(T, answer)


def _poll(ok: type[_Session], operation: ModuleType, session_id: str, timeout: float) -> _Program[_Session]:
    """Reads a session until it is complete (returned) or failed (``SessionFailed``),
    pausing 0.2 s doubling to 2 s between reads; ``WaitTimeout`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    pause = _POLL_FIRST
    while True:
        session = yield from _call(ok, operation, session_id)
        if session.status == SessionStatus.COMPLETE:
            return session
        if session.status == SessionStatus.FAILED:
            raise SessionFailed(session)
        left = deadline - time.monotonic()
        if left <= 0:
            raise WaitTimeout(session, timeout)
        yield _Sleep(min(pause, left))
        pause = min(pause * 2, _POLL_MOST)


def _scored(start: _Program[IngestAccepted], timeout: float) -> _Program[SessionView]:
    """``start`` an ingest session, then wait for it."""
    accepted = yield from start
    return (yield from _poll(SessionView, _intelligence, str(accepted.session_id), timeout))


def _drifted(start: _Program[DriftAccepted], timeout: float) -> _Program[DriftView]:
    """``start`` a drift session, then wait for it."""
    accepted = yield from start
    return (yield from _poll(DriftView, _read_drift, str(accepted.session_id), timeout))


class _Page(Protocol[T_co]):
    """A page of a paginated list."""

    @property
    def data(self) -> Sequence[T_co]: ...

    @property
    def next_cursor(self) -> Union[None, str, Unset]: ...


def _unset(value: Optional[T]) -> Union[T, Unset]:
    return UNSET if value is None else value


def _next_cursor(page: _Page[Any]) -> Optional[str]:
    """The cursor of the page after ``page``, ``None`` after the last."""
    return page.next_cursor if page.data and isinstance(page.next_cursor, str) else None


# ---------------------------------------------------------------------------- requests


class _Json:
    """A request body sent as the caller gave it, in place of a generated model.

    The server validates every body and lists every violation with its field path
    (``ApiError.details``); the generated models would instead refuse the first bad
    timestamp or event kind locally, with a bare ``ValueError``."""

    def __init__(self, value: Any) -> None:
        # Through JSON once, so datetimes are written as RFC 3339 and the body is plain.
        self._value = json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False, default=_encode))

    def to_dict(self) -> Any:
        return self._value


def _encode(value: Any) -> Any:
    if isinstance(value, (_dt.datetime, _dt.date)):
        return _instant(value)
    if isinstance(value, UUID):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _instant(value: Instant) -> str:
    """RFC 3339 text; a date is its UTC midnight (a naive datetime keeps no offset, which
    the server refuses)."""
    if isinstance(value, _dt.datetime):
        return value.isoformat()
    if isinstance(value, _dt.date):
        return f"{value.isoformat()}T00:00:00Z"
    return value


def _given(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _ingest_request(
    events_or_request: EventsOrRequest,
    deployment_id: Optional[str],
    pipeline: Optional[str],
    webhook_url: Optional[str],
    idempotency_key: Optional[str] = None,
) -> _Program[IngestAccepted]:
    """``POST /ingest`` of a request or its events; the other arguments override."""
    if isinstance(events_or_request, (str, bytes, bytearray)):
        raise TypeError("pass an ingest request dict or a list of event dicts (json.load a file first)")
    body: dict[str, Any]
    if isinstance(events_or_request, Mapping):
        body = dict(events_or_request)
    else:
        body = {"events": list(events_or_request)}
    body.update(_given(deployment_id=deployment_id, pipeline=pipeline, webhook_url=webhook_url))
    return _call(IngestAccepted, _ingest, body=_Json(body), idempotency_key=_unset(idempotency_key))


def _period(value: EventsOrRequest, label: Optional[str]) -> tuple[dict[str, Any], Optional[str]]:
    """A drift period ``{events, label?}`` and the deployment its request names."""
    if isinstance(value, Mapping):
        label = label if label is not None else value.get("label")
        return _given(events=list(value["events"]), label=label), value.get("deployment_id")
    return _given(events=list(value), label=label), None


def _drift_request(
    before: EventsOrRequest,
    after: EventsOrRequest,
    question: Optional[str],
    deployment_id: Optional[str],
    before_label: Optional[str],
    after_label: Optional[str],
) -> _Program[DriftAccepted]:
    """``POST /drift`` of two periods, each a request or its events."""
    (b, b_deployment), (a, a_deployment) = _period(before, before_label), _period(after, after_label)
    deployment = deployment_id or b_deployment or a_deployment
    body = {"before": b, "after": a, **_given(question=question, deployment_id=deployment)}
    return _call(DriftAccepted, _start_drift, body=_Json(body))


def _history_drift_request(
    deployment_id: str,
    before: Span,
    after: Span,
    question: Optional[str],
    before_label: Optional[str],
    after_label: Optional[str],
) -> _Program[DriftAccepted]:
    """``POST /deployments/{id}/drift`` of two date ranges."""

    def span(value: Span, label: Optional[str]) -> dict[str, Any]:
        start, end = value
        return {"from": _instant(start), "to": _instant(end), **_given(label=label)}

    body = {"before": span(before, before_label), "after": span(after, after_label), **_given(question=question)}
    return _call(DriftAccepted, _start_history_drift, deployment_id, body=_Json(body))


def _sessions_page(limit: Optional[int], cursor: Optional[str]) -> _Program[SessionPage]:
    return _call(SessionPage, _list_sessions, limit=_unset(limit), cursor=_unset(cursor))


def _deployments_page(cursor: Optional[str]) -> _Program[DeploymentList]:
    return _call(DeploymentList, _list_deployments, cursor=_unset(cursor))


def _deliveries_page(webhook_id: str, limit: Optional[int], cursor: Optional[str]) -> _Program[DeliveryPage]:
    return _call(DeliveryPage, _deliveries, webhook_id, limit=_unset(limit), cursor=_unset(cursor))


def _webhook_body(url: str, events: Optional[Iterable[str]]) -> _Json:
    kinds = [str(e) for e in (events if events is not None else EventKind)]
    return _Json({"url": url, "events": kinds})
