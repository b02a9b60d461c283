"""undertone.webhooks and examples/webhooks/fastapi_receiver.py: deliveries signed here
with hmac as docs/webhooks.md says the server signs them, sent through FastAPI's
TestClient."""

from __future__ import annotations

import base64
import hashlib
import hmac
import importlib.util
import json
import sys
import time
from types import ModuleType
from typing import Any

import pytest
from fastapi.testclient import TestClient

import undertone
from undertone import webhooks

from conftest import ROOT

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()
ENVELOPE = {
    "id": "5b0e7c1a-0000-4000-8000-000000000001",
    "event_type": "webhook.test",
    "version": "webhooks-v1.0",
    "created_at": "2026-11-21T09:31:00.161Z",
    "org_id": "default",
    "deployment_id": "webhook-test",
    "data": {"webhook_id": "wh_1", "message": "a test"},
}
BODY = json.dumps(ENVELOPE).encode()


def signed(body: bytes, delivery_id: str, *, secret: str = SECRET, ts: int | None = None) -> dict[str, str]:
    """The headers of a delivery (docs/webhooks.md, "Headers"; core/src/signature.rs)."""
    ts = int(time.time()) if ts is None else ts
    plain = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    key = base64.b64decode(secret.removeprefix("whsec_"))
    standard = hmac.new(key, f"{delivery_id}.{ts}.".encode() + body, hashlib.sha256).digest()
    return {
        "Content-Type": "application/json",
        "X-Undertone-Event": "webhook.test",
        "X-Undertone-Delivery": delivery_id,
        "X-Undertone-Signature": plain,
        "webhook-id": delivery_id,
        "webhook-timestamp": str(ts),
        "webhook-signature": "v1," + base64.b64encode(standard).decode(),
    }


def load_example() -> ModuleType:
    if (loaded := sys.modules.get("fastapi_receiver")) is not None:
        return loaded
    path = ROOT / "examples" / "webhooks" / "fastapi_receiver.py"
    spec = importlib.util.spec_from_file_location("fastapi_receiver", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def receiver_app() -> tuple[TestClient, list[tuple[dict[str, Any], str]]]:
    handled: list[tuple[dict[str, Any], str]] = []
    app = load_example().create_app(SECRET, handle=lambda event, delivery: handled.append((event, delivery)))
    return TestClient(app), handled


def test_verify_is_verify_signature_with_the_handler_s_argument_order() -> None:
    headers = signed(BODY, "d-1")
    assert webhooks.verify(BODY, headers, SECRET) is True
    assert webhooks.verify(BODY.decode(), list(headers.items()), SECRET) is True
    assert webhooks.verify(BODY + b" ", headers, SECRET) is False
    assert webhooks.verify(BODY, headers, "whsec_" + base64.b64encode(b"x" * 32).decode()) is False
    stale = signed(BODY, "d-1", ts=int(time.time()) - 400)
    assert webhooks.verify(BODY, stale, SECRET) is False
    assert webhooks.verify(BODY, stale, SECRET, tolerance_secs=600) is True
    for headers in (signed(BODY, "d-1"), stale, {}):
        assert webhooks.verify(BODY, headers, SECRET) is undertone.verify_signature(SECRET, BODY, headers)


def test_delivery_id_reads_undertone_s_header_then_standard_webhooks() -> None:
    assert webhooks.delivery_id({"x-undertone-delivery": "a", "webhook-id": "b"}) == "a"
    assert webhooks.delivery_id([("Webhook-Id", "b")]) == "b"
    assert webhooks.delivery_id({"Content-Type": "application/json"}) is None


def test_a_signed_delivery_is_answered_204_and_handled_once(receiver_app: Any) -> None:
    client, handled = receiver_app
    first = client.post("/hook", content=BODY, headers=signed(BODY, "d-1"))
    assert first.status_code == 204
    assert handled == [(ENVELOPE, "d-1")]

    # The same delivery again (a retry after a crash), freshly signed: 2xx, not handled.
    again = client.post("/hook", content=BODY, headers=signed(BODY, "d-1"))
    assert again.status_code == 204
    assert handled == [(ENVELOPE, "d-1")]

    # Another delivery of the same event (another endpoint's) is a new delivery.
    other = client.post("/hook", content=BODY, headers=signed(BODY, "d-2"))
    assert other.status_code == 204
    assert [d for _, d in handled] == ["d-1", "d-2"]


def test_a_bad_signature_is_401_and_not_handled(receiver_app: Any) -> None:
    client, handled = receiver_app
    forged = signed(BODY, "d-3", secret="whsec_" + base64.b64encode(b"f" * 32).decode())
    assert client.post("/hook", content=BODY, headers=forged).status_code == 401
    tampered = signed(BODY, "d-3")
    assert client.post("/hook", content=BODY.replace(b"a test", b"a fake"), headers=tampered).status_code == 401
    assert client.post("/hook", content=BODY, headers={"X-Undertone-Delivery": "d-3"}).status_code == 401
    assert handled == []
    # A refused request does not mark its id as seen.
    assert client.post("/hook", content=BODY, headers=signed(BODY, "d-3")).status_code == 204
    assert [d for _, d in handled] == ["d-3"]


def test_only_standard_webhooks_headers_dedupe_on_webhook_id(receiver_app: Any) -> None:
    client, handled = receiver_app
    headers = {k: v for k, v in signed(BODY, "msg_1").items() if not k.startswith("X-Undertone")}
    assert client.post("/hook", content=BODY, headers=headers).status_code == 204
    assert client.post("/hook", content=BODY, headers=headers).status_code == 204
    assert handled == [(ENVELOPE, "msg_1")]


def test_a_failing_handler_still_answers_2xx() -> None:
    def fail(event: dict[str, Any], delivery: str) -> None:
        raise RuntimeError("the queue is down")

    client = TestClient(load_example().create_app(SECRET, handle=fail))
    assert client.post("/hook", content=BODY, headers=signed(BODY, "d-9")).status_code == 204


def test_the_receiver_is_framework_neutral() -> None:
    example = load_example()
    receive = example.receiver(SECRET)
    fresh = receive(BODY, signed(BODY, "d-1"))
    assert (fresh.status, fresh.delivery_id, fresh.event, fresh.duplicate) == (204, "d-1", ENVELOPE, False)
    repeat = receive(BODY, signed(BODY, "d-1"))
    assert (repeat.status, repeat.event, repeat.duplicate) == (204, None, True)
    assert receive(BODY, {}).status == 401
    not_json = b"not json"
    assert receive(not_json, signed(not_json, "d-2")).status == 400
    with pytest.raises(ValueError):
        example.receiver("")
