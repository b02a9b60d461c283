"""A FastAPI receiver of Undertone webhooks: verifies the signature of the raw body (401
if bad), drops a delivery it has already seen, answers 204 at once and handles the
event afterwards (docs/webhooks.md).

    pip install ./bindings-python fastapi uvicorn
    UNDERTONE_WEBHOOK_SECRET=whsec_… python examples/webhooks/fastapi_receiver.py 9000

The check lives in ``receiver()``, which knows nothing of FastAPI: call it from any
framework with the raw body bytes and the request headers.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from fastapi import BackgroundTasks, FastAPI, Request, Response

from undertone import webhooks

log = logging.getLogger("undertone.receiver")

REMEMBERED = 10_000
"""Delivery ids remembered for deduplication; the oldest is forgotten beyond this."""


class Seen:
    """Delivery ids already accepted, in memory. With several receiver processes, use a
    shared store with an atomic insert-if-absent instead (a unique key, ``SET NX``)."""

    def __init__(self, size: int = REMEMBERED) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def add(self, delivery_id: str) -> bool:
        """Remembers ``delivery_id``; ``False`` if it was already remembered."""
        with self._lock:
            if delivery_id in self._ids:
                return False
            self._ids[delivery_id] = None
            if len(self._ids) > self._size:
                self._ids.popitem(last=False)
            return True


@dataclass(frozen=True)
class Verdict:
    """What to answer a delivery (``status``), and the event to handle, if any: set for a
    new delivery, ``None`` for a duplicate or a refused one."""

    status: int
    delivery_id: Optional[str] = None
    event: Optional[dict[str, Any]] = None

    @property
    def duplicate(self) -> bool:
        """Whether the delivery was accepted before."""
        return self.status == 204 and self.event is None


def receiver(secret: str, seen: Optional[Seen] = None) -> Callable[[bytes, webhooks.Headers], Verdict]:
    """A function of ``(body, headers)`` that judges one delivery: 401 when the signature
    does not verify under ``secret``; 204 with no event for a delivery id already
    accepted; 204 with the parsed envelope for a new one; 400 for a signed body without
    a delivery id or that is not JSON."""
    if not secret:
        raise ValueError("the webhook secret is empty")
    remembered = seen if seen is not None else Seen()

    def receive(body: bytes, headers: webhooks.Headers) -> Verdict:
        # Verify first: an unsigned request must not learn which ids were seen.
        if not webhooks.verify(body, headers, secret):
            return Verdict(401)
        # The same id on every attempt (X-Undertone-Delivery; Standard Webhooks' webhook-id).
        delivery_id = webhooks.delivery_id(headers)
        if delivery_id is None:
            return Verdict(400)
        try:
            event = json.loads(body)
        except ValueError:
            return Verdict(400)
        if not remembered.add(delivery_id):
            return Verdict(204, delivery_id)
        return Verdict(204, delivery_id, event)

    return receive


def log_event(event: dict[str, Any], delivery_id: str) -> None:
    """The default handler: logs the event."""
    log.info("%s %s %s", delivery_id, event.get("event_type"), event.get("data"))


def create_app(
    secret: Optional[str] = None,
    handle: Callable[[dict[str, Any], str], None] = log_event,
    seen: Optional[Seen] = None,
) -> FastAPI:
    """The app: ``POST /hook`` verifies and deduplicates with ``receiver``, answers, then
    calls ``handle(event, delivery_id)`` as a background task. Answering before the work
    is done keeps within Undertone's 10 s deadline; a handler that must not lose an
    event should write it to a durable queue first. ``secret`` defaults to
    ``$UNDERTONE_WEBHOOK_SECRET``."""
    receive = receiver(secret if secret is not None else os.environ["UNDERTONE_WEBHOOK_SECRET"], seen)
    app = FastAPI()

    def run(event: dict[str, Any], delivery_id: str) -> None:
        try:
            handle(event, delivery_id)
        except Exception:  # the answer is sent; a failing handler must not look like a crash
            log.exception("webhook handler failed for delivery %s", delivery_id)

    @app.post("/hook", status_code=204)
    async def hook(request: Request, background: BackgroundTasks) -> Response:
        # The raw bytes: the signature covers them, not a re-serialisation.
        verdict = receive(await request.body(), request.headers)
        if verdict.event is not None and verdict.delivery_id is not None:
            background.add_task(run, verdict.event, verdict.delivery_id)
        return Response(status_code=verdict.status)

    return app


if __name__ == "__main__":
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    uvicorn.run(create_app(), host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 9000)
