"""The REST client of an Undertone server: ``Client``, with its ``webhooks`` and
``deployments``.

``Client`` is the generated ``AuthenticatedClient`` (``undertone.rest``), so every
generated operation still takes it, with typed convenience methods on top that raise
``ApiError`` for an error answer. Every request, generated or not, goes through a
transport that retries 429 and 503 answers. Each convenience method builds a program
(``undertone._programs``) and runs it with blocking I/O; ``AsyncClient``
(``undertone.aio``, also importable from here, as are the errors) awaits the same
programs.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Optional, Union, cast
from uuid import UUID

from ._connection import _Connection
from ._programs import (
    Events,
    EventsOrRequest,
    Instant,
    Span,
    T,
    _call,
    _deliveries_page,
    _drift_request,
    _drifted,
    _given,
    _history_drift_request,
    _ingest_request,
    _Json,
    _next_cursor,
    _Page,
    _poll,
    _Program,
    _scored,
    _deployments_page,
    _sessions_page,
    _Sleep,
    _webhook_body,
)
from .aio import AsyncClient, AsyncDeployments, AsyncWebhooks
from .errors import ApiError, RateLimit, SessionFailed, WaitTimeout
from .rest.api.deployments import create_deploy as _create_deploy
from .rest.api.deployments import create_report as _create_report
from .rest.api.deployments import history as _history
from .rest.api.deployments import list_deploys as _list_deploys
from .rest.api.deployments import list_reports as _list_reports
from .rest.api.deployments import read_report as _read_report
from .rest.api.drift import read as _read_drift
from .rest.api.sessions import intelligence as _intelligence
from .rest.api.webhooks import create as _create_webhook
from .rest.api.webhooks import list_ as _list_webhooks
from .rest.api.webhooks import remove as _remove_webhook
from .rest.api.webhooks import show as _show_webhook
from .rest.api.webhooks import test as _test_webhook
from .rest.models import (
    DeliveryView,
    DeployList,
    DeploymentSummary,
    DeployView,
    DriftAccepted,
    DriftView,
    HistoryView,
    IngestAccepted,
    ReportList,
    ReportView,
    SessionSummary,
    SessionView,
    TestQueued,
    WebhookCreated,
    WebhookList,
    WebhookView,
)

__all__ = [
    "ApiError",
    "AsyncClient",
    "AsyncDeployments",
    "AsyncWebhooks",
    "Client",
    "Deployments",
    "Events",
    "EventsOrRequest",
    "Instant",
    "RateLimit",
    "SessionFailed",
    "Span",
    "WaitTimeout",
    "Webhooks",
]


class Client(_Connection):
    """A client of an Undertone server, authenticated with an API key.

    ``Client(base_url, api_key, *, timeout=30.0, max_retries=3, max_retry_wait=30.0)``.
    It is also the generated ``AuthenticatedClient``: pass it to any operation of
    ``undertone.rest.api`` (``ingest.sync(client=client, body=...)``).

    ``timeout`` bounds each request (seconds, or an ``httpx.Timeout``). A 429 or 503
    answer is retried up to ``max_retries`` times (0: never), after its
    ``Retry-After`` or else a jittered exponential pause (0.5 s, 1 s, 2 s …); an
    answer asking for a pause longer than ``max_retry_wait`` seconds is not retried,
    and neither is any other status. ``transport`` / ``async_transport`` replace
    httpx's own (e.g. one with a proxy); they are wrapped with the retries. Other
    keyword arguments go to ``AuthenticatedClient`` (``headers``, ``verify_ssl``,
    ``httpx_args`` …).
    """

    @property
    def webhooks(self) -> Webhooks:
        """The calling key's webhook endpoints."""
        return Webhooks(self)

    @property
    def deployments(self) -> Deployments:
        """The organisation's deployments: history, reports, deploys, drift over dates."""
        return Deployments(self)

    def _run(self, program: _Program[T]) -> T:
        """Runs ``program`` with blocking I/O."""
        answer: Any = None
        try:
            while True:
                step = program.send(answer)
                if isinstance(step, _Sleep):
                    time.sleep(step.seconds)
                    answer = None
                else:
                    answer = step.answer(self, self.get_httpx_client().request(**step.request()))
        except StopIteration as done:
            return cast(T, done.value)
        finally:
            program.close()

    def _each(self, page: Callable[[Optional[str]], _Program[_Page[T]]]) -> Iterator[T]:
        """Every item of every page, fetched as iteration reaches it."""
        cursor: Optional[str] = None
        while True:
            got = self._run(page(cursor))
            yield from got.data
            if (cursor := _next_cursor(got)) is None:
                return

    def close(self) -> None:
        """Closes the connections (also done by leaving a ``with`` block)."""
        self.get_httpx_client().close()

    def ingest(
        self,
        events_or_request: EventsOrRequest,
        *,
        deployment_id: Optional[str] = None,
        pipeline: Optional[str] = None,
        webhook_url: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> IngestAccepted:
        """Submits a conversation set for scoring (``POST /ingest``); returns the
        accepted answer (``session_id``, ``event_count``, ``status``, ``poll_url``).

        ``events_or_request`` is an ingest request dict or a list of event dicts (then
        ``deployment_id`` is required); the keyword arguments override the request's
        own. Datetimes are sent as RFC 3339. With ``idempotency_key`` (for example a
        UUID you keep with the batch), sending the same batch again, after a timeout
        say, answers with the session it started instead of starting another. Raises
        ``ApiError`` (``VALIDATION_ERROR`` with ``details`` for a body that breaks the
        contract, ``CONFLICT`` for a key sent before with another batch)."""
        start = _ingest_request(events_or_request, deployment_id, pipeline, webhook_url, idempotency_key)
        return self._run(start)

    def wait(self, session_id: Union[str, UUID], *, timeout: float = 60.0) -> SessionView:
        """Polls ``GET /intelligence/{session_id}`` (0.2 s doubling to 2 s between
        polls) until the session is complete, and returns it.

        Raises ``SessionFailed`` when it ends ``failed``, ``WaitTimeout`` (a
        ``TimeoutError``) after ``timeout`` seconds, ``ApiError`` for an error answer."""
        return self._run(_poll(SessionView, _intelligence, str(session_id), timeout))

    def score_remote(
        self,
        events_or_request: EventsOrRequest,
        *,
        deployment_id: Optional[str] = None,
        pipeline: Optional[str] = None,
        webhook_url: Optional[str] = None,
        timeout: float = 60.0,
    ) -> SessionView:
        """``ingest`` then ``wait``: the complete session, whose ``full_output`` is what
        ``undertone.score`` returns for the same input."""
        start = _ingest_request(events_or_request, deployment_id, pipeline, webhook_url)
        return self._run(_scored(start, timeout))

    def start_drift(
        self,
        before: EventsOrRequest,
        after: EventsOrRequest,
        *,
        question: Optional[str] = None,
        deployment_id: Optional[str] = None,
        before_label: Optional[str] = None,
        after_label: Optional[str] = None,
    ) -> DriftAccepted:
        """Starts a drift comparison of two periods (``POST /drift``); returns the
        accepted answer, for ``wait_drift``.

        Each period is a list of event dicts or an ingest request dict (whose
        ``deployment_id`` is used unless ``deployment_id`` is given); labels default to
        the periods' ``label`` keys, else ``before`` and ``after`` (the server's)."""
        return self._run(_drift_request(before, after, question, deployment_id, before_label, after_label))

    def wait_drift(self, session_id: Union[str, UUID], *, timeout: float = 60.0) -> DriftView:
        """Polls ``GET /drift/{session_id}`` like ``wait`` and returns the complete
        drift session; raises ``SessionFailed``, ``WaitTimeout`` or ``ApiError``."""
        return self._run(_poll(DriftView, _read_drift, str(session_id), timeout))

    def drift(
        self,
        before: EventsOrRequest,
        after: EventsOrRequest,
        *,
        question: Optional[str] = None,
        deployment_id: Optional[str] = None,
        before_label: Optional[str] = None,
        after_label: Optional[str] = None,
        timeout: float = 60.0,
    ) -> DriftView:
        """``start_drift`` then ``wait_drift``: the complete drift session, with per
        dimension ``dimension_drifts`` as ``undertone.drift`` computes them locally."""
        start = _drift_request(before, after, question, deployment_id, before_label, after_label)
        return self._run(_drifted(start, timeout))

    def sessions(self, *, limit: Optional[int] = None) -> Iterator[SessionSummary]:
        """Every ingest session of the organisation, newest first, following
        ``next_cursor`` across pages of ``limit`` (1–100, the server's default 20)."""
        return self._each(lambda cursor: _sessions_page(limit, cursor))


class Webhooks:
    """``client.webhooks``: the calling key's webhook endpoints (``/webhooks``)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(self, url: str, events: Optional[Iterable[str]] = None) -> WebhookCreated:
        """Registers an endpoint for ``events`` (kinds such as ``"intelligence.ready"``;
        all five when ``None``); the answer holds its ``secret``, shown only this once."""
        return self._client._run(_call(WebhookCreated, _create_webhook, body=_webhook_body(url, events)))

    def list(self) -> builtins.list[WebhookView]:
        """The calling key's endpoints, oldest first."""
        return self._client._run(_call(WebhookList, _list_webhooks)).data

    def get(self, webhook_id: str) -> WebhookView:
        """One endpoint, as ``list`` shows it (never its secret)."""
        return self._client._run(_call(WebhookView, _show_webhook, webhook_id))

    def delete(self, webhook_id: str) -> None:
        """Deletes an endpoint; its pending deliveries fail."""
        self._client._run(_call(type(None), _remove_webhook, webhook_id))

    def test(self, webhook_id: str) -> TestQueued:
        """Queues a signed ``webhook.test`` event to one endpoint."""
        return self._client._run(_call(TestQueued, _test_webhook, webhook_id))

    def deliveries(self, webhook_id: str, *, limit: Optional[int] = None) -> Iterator[DeliveryView]:
        """Every delivery to an endpoint with its attempts, newest first, following
        ``next_cursor`` across pages of ``limit`` (1–100, the server's default 20)."""
        return self._client._each(lambda cursor: _deliveries_page(webhook_id, limit, cursor))


class Deployments:
    """``client.deployments``: the organisation's deployments (``/deployments``)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(self) -> builtins.list[DeploymentSummary]:
        """The deployments with kept history."""
        return builtins.list(self._client._each(_deployments_page))

    def history(self, deployment_id: str, *, days: int = 30) -> HistoryView:
        """The last ``days`` (1–366) of a deployment by UTC day, with deploys and anomalies."""
        return self._client._run(_call(HistoryView, _history, deployment_id, days=days))

    def deploys(self, deployment_id: str) -> builtins.list[DeployView]:
        """A deployment's deploy markers, with their outcome-shift measurements."""
        return self._client._run(_call(DeployList, _list_deploys, deployment_id)).data

    def create_deploy(
        self,
        deployment_id: str,
        *,
        release: Optional[str] = None,
        description: Optional[str] = None,
        deployed_at: Optional[Instant] = None,
    ) -> DeployView:
        """Records a deploy marker (``deployed_at`` defaults to now, on the server)."""
        body = _Json(_given(release=release, description=description, deployed_at=deployed_at))
        return self._client._run(_call(DeployView, _create_deploy, deployment_id, body=body))

    def reports(self, deployment_id: str) -> builtins.list[ReportView]:
        """A deployment's User Health Reports, newest first."""
        return self._client._run(_call(ReportList, _list_reports, deployment_id)).data

    def report(self, deployment_id: str, report_id: str) -> ReportView:
        """One User Health Report."""
        return self._client._run(_call(ReportView, _read_report, deployment_id, report_id))

    def create_report(self, deployment_id: str) -> ReportView:
        """Generates a User Health Report now, over the seven days before the request."""
        return self._client._run(_call(ReportView, _create_report, deployment_id))

    def start_drift(
        self,
        deployment_id: str,
        *,
        before: Span,
        after: Span,
        question: Optional[str] = None,
        before_label: Optional[str] = None,
        after_label: Optional[str] = None,
    ) -> DriftAccepted:
        """Starts a drift comparison of two date ranges of a deployment's kept history
        (``POST /deployments/{id}/drift``); each range is ``(from, to)``, half open."""
        start = _history_drift_request(deployment_id, before, after, question, before_label, after_label)
        return self._client._run(start)

    def drift(
        self,
        deployment_id: str,
        *,
        before: Span,
        after: Span,
        question: Optional[str] = None,
        before_label: Optional[str] = None,
        after_label: Optional[str] = None,
        timeout: float = 60.0,
    ) -> DriftView:
        """``start_drift`` then ``Client.wait_drift``: the complete drift session."""
        start = _history_drift_request(deployment_id, before, after, question, before_label, after_label)
        return self._client._run(_drifted(start, timeout))
