"""The errors of the REST client: an error answer of the server (``ApiError``, with the
``RateLimit`` its headers report) and a waited-for session that failed
(``SessionFailed``) or did not finish in time (``WaitTimeout``).

All are ``UndertoneError`` with a stable ``.code``; ``undertone`` re-exports them.
"""

from __future__ import annotations

import datetime as _dt
import email.utils
from dataclasses import dataclass
from typing import Optional, Union

import httpx

from ._native import UndertoneError
from .rest.models import DriftView, SessionView

__all__ = ["ApiError", "RateLimit", "SessionFailed", "WaitTimeout"]


@dataclass(frozen=True)
class RateLimit:
    """The rate-limit window an answer reports (``X-RateLimit-Limit/Remaining/Reset``)."""

    limit: int
    remaining: int
    reset: int
    """When the window resets, epoch seconds."""

    @classmethod
    def from_headers(cls, headers: httpx.Headers) -> Optional[RateLimit]:
        """The window in ``headers``, or ``None`` when they do not carry all three."""
        try:
            return cls(
                int(headers["x-ratelimit-limit"]),
                int(headers["x-ratelimit-remaining"]),
                int(headers["x-ratelimit-reset"]),
            )
        except (KeyError, ValueError):
            return None


class ApiError(UndertoneError):
    """An error answer of the server, from ``{"error": {"code", "message", "details"?}}``.

    ``code`` is the server's stable code (``UNAUTHORIZED``, ``VALIDATION_ERROR``,
    ``RATE_LIMITED`` …; ``UNEXPECTED_RESPONSE`` for an answer that is not the envelope,
    or a 2xx that is not what the route documents), ``status`` the HTTP status,
    ``details`` the violations of a ``VALIDATION_ERROR``, ``request_id`` the
    ``X-Request-Id`` header when a proxy adds one, ``rate_limit`` and ``retry_after``
    (seconds) from the headers, ``headers`` all of them.
    """

    message: str
    status: int
    request_id: Optional[str]
    rate_limit: Optional[RateLimit]
    retry_after: Optional[float]
    headers: httpx.Headers

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        *,
        details: Optional[list[dict[str, str]]] = None,
        headers: Optional[httpx.Headers] = None,
    ) -> None:
        super().__init__(f"{code} ({status}): {message}")
        self.code = code
        self.message = message
        self.status = status
        self.details = details or []
        self.headers = headers if headers is not None else httpx.Headers()
        self.request_id = self.headers.get("x-request-id")
        self.rate_limit = RateLimit.from_headers(self.headers)
        self.retry_after = _retry_after(self.headers)

    @classmethod
    def from_response(cls, response: httpx.Response) -> ApiError:
        """The error a non-2xx ``response`` stands for."""
        try:
            error = response.json()["error"]
            code, message = str(error["code"]), str(error["message"])
            details = [{str(k): str(v) for k, v in d.items()} for d in error.get("details") or []]
        except (ValueError, KeyError, TypeError, AttributeError):
            text = response.text[:200]
            return cls.unexpected(response, f"HTTP {response.status_code}: {text}")
        return cls(code, message, response.status_code, details=details, headers=response.headers)

    @classmethod
    def unexpected(cls, response: httpx.Response, message: str) -> ApiError:
        """An ``UNEXPECTED_RESPONSE`` error for ``response``."""
        return cls("UNEXPECTED_RESPONSE", message, response.status_code, headers=response.headers)


class SessionFailed(UndertoneError):
    """A waited-for session (ingest or drift) ended ``failed``: ``.session`` is its last
    state and ``.error`` why it failed (``.code == "SESSION_FAILED"``)."""

    session: Union[SessionView, DriftView]
    error: str

    def __init__(self, session: Union[SessionView, DriftView]) -> None:
        self.error = session.error if isinstance(session.error, str) else "no reason given"
        super().__init__(f"session {session.session_id} failed: {self.error}")
        self.code = "SESSION_FAILED"
        self.details = []
        self.session = session


class WaitTimeout(UndertoneError, TimeoutError):
    """A waited-for session did not finish in time (``.code == "TIMEOUT"``); ``.session``
    is its last state, ``.timeout`` the seconds waited."""

    session: Union[SessionView, DriftView]
    timeout: float

    def __init__(self, session: Union[SessionView, DriftView], timeout: float) -> None:
        status = session.status.value
        super().__init__(f"session {session.session_id} is still {status} after {timeout:g} s")
        self.code = "TIMEOUT"
        self.details = []
        self.session = session
        self.timeout = timeout


def _retry_after(headers: httpx.Headers) -> Optional[float]:
    """``Retry-After`` in seconds (given as seconds or as an HTTP date), if present."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return max(0.0, (when - _dt.datetime.now(_dt.timezone.utc)).total_seconds())
