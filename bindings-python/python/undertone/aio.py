"""The asyncio REST client: ``AsyncClient``, ``Client``'s twin, with its ``webhooks``
and ``deployments``. It awaits the same programs (``undertone._programs``) that
``Client`` runs with blocking I/O."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, Optional, Union, cast
from uuid import UUID

from ._connection import _Connection
from ._programs import (
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

__all__ = ["AsyncClient", "AsyncDeployments", "AsyncWebhooks"]


class AsyncClient(_Connection):
    """``Client``'s asyncio twin: the same constructor and methods, as coroutines (and
    async iterators for ``sessions`` and ``webhooks.deliveries``). It is also the
    generated ``AuthenticatedClient``, for the operations' ``asyncio`` functions.
    """

    @property
    def webhooks(self) -> AsyncWebhooks:
        """The calling key's webhook endpoints."""
        return AsyncWebhooks(self)

    @property
    def deployments(self) -> AsyncDeployments:
        """The organisation's deployments: history, reports, deploys, drift over dates."""
        return AsyncDeployments(self)

    async def _run(self, program: _Program[T]) -> T:
        """Runs ``program`` with asyncio."""
        answer: Any = None
        try:
            while True:
                step = program.send(answer)
                if isinstance(step, _Sleep):
                    await asyncio.sleep(step.seconds)
                    answer = None
                else:
                    response = await self.get_async_httpx_client().request(**step.request())
                    answer = step.answer(self, response)
        except StopIteration as done:
            return cast(T, done.value)
        finally:
            program.close()

    async def _each(self, page: Callable[[Optional[str]], _Program[_Page[T]]]) -> AsyncIterator[T]:
        """Every item of every page, fetched as iteration reaches it."""
        cursor: Optional[str] = None
        while True:
            got = await self._run(page(cursor))
            for item in got.data:
                yield item
            if (cursor := _next_cursor(got)) is None:
                return

    async def aclose(self) -> None:
        """Closes the connections (also done by leaving an ``async with`` block)."""
        await self.get_async_httpx_client().aclose()

    async def ingest(
        self,
        events_or_request: EventsOrRequest,
        *,
        deployment_id: Optional[str] = None,
        pipeline: Optional[str] = None,
        webhook_url: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> IngestAccepted:
        """``Client.ingest``, awaited."""
        start = _ingest_request(events_or_request, deployment_id, pipeline, webhook_url, idempotency_key)
        return await self._run(start)

    async def wait(self, session_id: Union[str, UUID], *, timeout: float = 60.0) -> SessionView:
        """``Client.wait``, awaited."""
        return await self._run(_poll(SessionView, _intelligence, str(session_id), timeout))

    async def score_remote(
        self,
        events_or_request: EventsOrRequest,
        *,
        deployment_id: Optional[str] = None,
        pipeline: Optional[str] = None,
        webhook_url: Optional[str] = None,
        timeout: float = 60.0,
    ) -> SessionView:
        """``Client.score_remote``, awaited."""
        start = _ingest_request(events_or_request, deployment_id, pipeline, webhook_url)
        return await self._run(_scored(start, timeout))

    async def start_drift(
        self,
        before: EventsOrRequest,
        after: EventsOrRequest,
        *,
        question: Optional[str] = None,
        deployment_id: Optional[str] = None,
        before_label: Optional[str] = None,
        after_label: Optional[str] = None,
    ) -> DriftAccepted:
        """``Client.start_drift``, awaited."""
        start = _drift_request(before, after, question, deployment_id, before_label, after_label)
        return await self._run(start)

    async def wait_drift(self, session_id: Union[str, UUID], *, timeout: float = 60.0) -> DriftView:
        """``Client.wait_drift``, awaited."""
        return await self._run(_poll(DriftView, _read_drift, str(session_id), timeout))

    async def drift(
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
        """``Client.drift``, awaited."""
        start = _drift_request(before, after, question, deployment_id, before_label, after_label)
        return await self._run(_drifted(start, timeout))

    def sessions(self, *, limit: Optional[int] = None) -> AsyncIterator[SessionSummary]:
        """``Client.sessions``, as an async iterator."""
        return self._each(lambda cursor: _sessions_page(limit, cursor))


class AsyncWebhooks:
    """``Webhooks`` of an ``AsyncClient``."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(self, url: str, events: Optional[Iterable[str]] = None) -> WebhookCreated:
        """``Webhooks.create``, awaited."""
        body = _webhook_body(url, events)
        return await self._client._run(_call(WebhookCreated, _create_webhook, body=body))

    async def list(self) -> builtins.list[WebhookView]:
        """``Webhooks.list``, awaited."""
        return (await self._client._run(_call(WebhookList, _list_webhooks))).data

    async def get(self, webhook_id: str) -> WebhookView:
        """``Webhooks.get``, awaited."""
        return await self._client._run(_call(WebhookView, _show_webhook, webhook_id))

    async def delete(self, webhook_id: str) -> None:
        """``Webhooks.delete``, awaited."""
        await self._client._run(_call(type(None), _remove_webhook, webhook_id))

    async def test(self, webhook_id: str) -> TestQueued:
        """``Webhooks.test``, awaited."""
        return await self._client._run(_call(TestQueued, _test_webhook, webhook_id))

    def deliveries(self, webhook_id: str, *, limit: Optional[int] = None) -> AsyncIterator[DeliveryView]:
        """``Webhooks.deliveries``, as an async iterator."""
        return self._client._each(lambda cursor: _deliveries_page(webhook_id, limit, cursor))


class AsyncDeployments:
    """``Deployments`` of an ``AsyncClient``."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def list(self) -> builtins.list[DeploymentSummary]:
        """``Deployments.list``, awaited."""
        return [d async for d in self._client._each(_deployments_page)]

    async def history(self, deployment_id: str, *, days: int = 30) -> HistoryView:
        """``Deployments.history``, awaited."""
        return await self._client._run(_call(HistoryView, _history, deployment_id, days=days))

    async def deploys(self, deployment_id: str) -> builtins.list[DeployView]:
        """``Deployments.deploys``, awaited."""
        return (await self._client._run(_call(DeployList, _list_deploys, deployment_id))).data

    async def create_deploy(
        self,
        deployment_id: str,
        *,
        release: Optional[str] = None,
        description: Optional[str] = None,
        deployed_at: Optional[Instant] = None,
    ) -> DeployView:
        """``Deployments.create_deploy``, awaited."""
        body = _Json(_given(release=release, description=description, deployed_at=deployed_at))
        return await self._client._run(_call(DeployView, _create_deploy, deployment_id, body=body))

    async def reports(self, deployment_id: str) -> builtins.list[ReportView]:
        """``Deployments.reports``, awaited."""
        return (await self._client._run(_call(ReportList, _list_reports, deployment_id))).data

    async def report(self, deployment_id: str, report_id: str) -> ReportView:
        """``Deployments.report``, awaited."""
        return await self._client._run(_call(ReportView, _read_report, deployment_id, report_id))

    async def create_report(self, deployment_id: str) -> ReportView:
        """``Deployments.create_report``, awaited."""
        return await self._client._run(_call(ReportView, _create_report, deployment_id))

    async def start_drift(
        self,
        deployment_id: str,
        *,
        before: Span,
        after: Span,
        question: Optional[str] = None,
        before_label: Optional[str] = None,
        after_label: Optional[str] = None,
    ) -> DriftAccepted:
        """``Deployments.start_drift``, awaited."""
        start = _history_drift_request(deployment_id, before, after, question, before_label, after_label)
        return await self._client._run(start)

    async def drift(
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
        """``Deployments.drift``, awaited."""
        start = _history_drift_request(deployment_id, before, after, question, before_label, after_label)
        return await self._client._run(_drifted(start, timeout))
