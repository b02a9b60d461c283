"""The connection ``Client`` and ``AsyncClient`` both are: the generated
``AuthenticatedClient`` with the retrying transport and a request timeout."""

from __future__ import annotations

from typing import Any, Optional, Union

import httpx

from ._transport import _Retry, _RetryTransport
from .rest.client import AuthenticatedClient


class _Connection(AuthenticatedClient):
    """The generated client with a retrying transport and a request timeout."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: Union[float, httpx.Timeout] = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        transport: Optional[httpx.BaseTransport] = None,
        async_transport: Optional[httpx.AsyncBaseTransport] = None,
        **kwargs: Any,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries must be 0 or more")
        retry = _Retry(max_retries, max_retry_wait)
        wrapped = _RetryTransport(retry, transport, async_transport, kwargs.get("verify_ssl", True))
        httpx_args = {**kwargs.pop("httpx_args", {}), "transport": wrapped}
        super().__init__(
            base_url=base_url,
            token=api_key,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            httpx_args=httpx_args,
            **kwargs,
        )
