"""The retrying transport under every request of a client, generated operation or not:
429 and 503 answers are sent again after their ``Retry-After`` or a jittered
exponential pause, a bounded number of times."""

from __future__ import annotations

import asyncio
import random
import ssl
import time
from dataclasses import dataclass
from typing import Optional, Union

import httpx

from .errors import _retry_after

_RETRIED = (429, 503)


@dataclass(frozen=True)
class _Retry:
    """When to send a request again: on 429 and 503, at most ``max_retries`` times."""

    max_retries: int
    max_wait: float
    base: float = 0.5

    def delay(self, attempt: int, response: httpx.Response) -> Optional[float]:
        """Seconds to wait before retry number ``attempt + 1``, or ``None`` to answer."""
        if response.status_code not in _RETRIED or attempt >= self.max_retries:
            return None
        after = _retry_after(response.headers)
        if after is None:
            # Exponential, with "equal jitter": half fixed, half random.
            return min(self.base * 2.0**attempt, self.max_wait) * random.uniform(0.5, 1.0)
        if after > self.max_wait:
            return None  # longer than the caller allows: let them see the answer
        return after * random.uniform(1.0, 1.1)  # spread the clients a window releases


class _RetryTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Wraps the transports of a client's ``httpx.Client`` and ``httpx.AsyncClient``
    (one object serves both, as the generated client passes the same ``httpx_args``
    to each) and retries 429 and 503 answers by ``retry``."""

    def __init__(
        self,
        retry: _Retry,
        sync: Optional[httpx.BaseTransport],
        async_: Optional[httpx.AsyncBaseTransport],
        verify: Union[str, bool, ssl.SSLContext],
    ) -> None:
        self._retry = retry
        self._sync = sync
        self._async = async_
        self._verify = verify

    def _sync_inner(self) -> httpx.BaseTransport:
        if self._sync is None:
            self._sync = httpx.HTTPTransport(verify=self._verify)
        return self._sync

    def _async_inner(self) -> httpx.AsyncBaseTransport:
        if self._async is None:
            self._async = httpx.AsyncHTTPTransport(verify=self._verify)
        return self._async

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Sends ``request``, again after a pause while the answer is 429 or 503."""
        attempt = 0
        while True:
            response = self._sync_inner().handle_request(request)
            delay = self._retry.delay(attempt, response)
            if delay is None:
                return response
            response.close()
            time.sleep(delay)
            attempt += 1

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Sends ``request``, again after a pause while the answer is 429 or 503."""
        attempt = 0
        while True:
            response = await self._async_inner().handle_async_request(request)
            delay = self._retry.delay(attempt, response)
            if delay is None:
                return response
            await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

    def close(self) -> None:
        """Closes the blocking transport."""
        if self._sync is not None:
            self._sync.close()

    async def aclose(self) -> None:
        """Closes the asyncio transport."""
        if self._async is not None:
            await self._async.aclose()
