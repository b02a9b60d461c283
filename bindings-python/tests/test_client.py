"""undertone.Client and AsyncClient: every convenience call against a live server, and
retries, failed sessions and timeouts against small stub servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

import undertone
from undertone.rest.api.sessions import ingest as generated_ingest
from undertone.rest.models import (
    DriftView,
    EventKind,
    IngestAccepted,
    IngestRequest,
    SessionStatus,
    SessionView,
)

from conftest import ROOT, canonical, read_json

REFUND = ROOT / "examples" / "support-refund-goes-wrong.json"
V1 = ROOT / "examples" / "drift-v1.json"
V2 = ROOT / "examples" / "drift-v2.json"
DEPLOYMENT = "acme-support-bot"
UNREACHABLE = "https://hooks.invalid/undertone"  # accepted (it does not resolve); never delivered


@pytest.fixture(scope="module")
def client(server) -> Iterator[undertone.Client]:
    with undertone.Client(server.base_url, server.key) as c:
        yield c


@pytest.fixture(scope="module")
def both_weeks(client: undertone.Client) -> tuple[SessionView, SessionView]:
    """drift-v1.json (2026-11-02..08) and drift-v2.json (11-09..15), ingested and scored."""
    return client.score_remote(read_json(V1)), client.score_remote(read_json(V2))


# ---------------------------------------------------------------------------- live server


def test_score_remote_equals_local_scoring(client: undertone.Client) -> None:
    session = client.score_remote(read_json(REFUND))
    assert isinstance(session, SessionView)
    assert session.status == SessionStatus.COMPLETE
    assert session.event_count == len(read_json(REFUND)["events"])
    assert canonical(session.full_output.to_dict()) == canonical(undertone.score(REFUND))


def test_ingest_events_with_datetimes_then_wait(client: undertone.Client) -> None:
    request = read_json(REFUND)
    events = [
        {**e, "timestamp": dt.datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00"))}
        for e in request["events"]
    ]
    accepted = client.ingest(events, deployment_id=request["deployment_id"], pipeline=request["pipeline"])
    assert isinstance(accepted, IngestAccepted)
    assert accepted.event_count == 20
    assert accepted.status == SessionStatus.RECEIVED
    assert accepted.poll_url == f"/api/v1/intelligence/{accepted.session_id}"

    session = client.wait(accepted.session_id, timeout=30)
    assert session.session_id == accepted.session_id
    assert session.status == SessionStatus.COMPLETE
    assert canonical(session.full_output.to_dict()) == canonical(undertone.score(REFUND))


def test_a_bad_body_is_an_api_error_with_every_violation(client: undertone.Client) -> None:
    events = [{"actor_id": "u", "timestamp": "2026-11-02T00:00:00Z", "content": " "}, {"actor_id": "u"}]
    with pytest.raises(undertone.ApiError) as raised:
        client.ingest(events, deployment_id="d")
    e = raised.value
    assert isinstance(e, undertone.UndertoneError)
    assert (e.code, e.status) == ("VALIDATION_ERROR", 400)
    assert [d["path"] for d in e.details] == ["events[0].content", "events[1].content", "events[1].timestamp"]
    # A request with a valid key reports its hourly window (the most constrained one).
    assert e.rate_limit is not None and e.rate_limit.limit == 1000
    assert 0 <= e.rate_limit.remaining < 1000
    assert e.retry_after is None


def test_a_wrong_key_is_api_error_unauthorized(server) -> None:
    bad = undertone.Client(server.base_url, "ut_live_" + "0" * 38)
    with pytest.raises(undertone.ApiError) as raised:
        bad.ingest(read_json(REFUND))
    e = raised.value
    assert (e.code, e.status) == ("UNAUTHORIZED", 401)
    assert "checksum" in e.message
    assert e.headers["www-authenticate"] == "Bearer"
    assert e.rate_limit is None  # an unknown key has no window
    assert str(e).startswith("UNAUTHORIZED (401): ")


def test_drift_equals_local_drift(client: undertone.Client) -> None:
    local = undertone.drift(V1, V2, before_label="v1", after_label="v2")
    question = "Did v2 frustrate customers more?"
    view = client.drift(read_json(V1), read_json(V2), question=question, before_label="v1", after_label="v2")
    assert isinstance(view, DriftView)
    assert view.status == SessionStatus.COMPLETE
    assert (view.before_label, view.after_label, view.question) == ("v1", "v2", question)
    assert view.direction == local["direction"] == "regressed"
    assert view.event_count == 128 + 162
    assert canonical(view.dimension_drifts.to_dict()) == canonical(local["dimension_drifts"])


def test_start_drift_then_wait_drift(client: undertone.Client) -> None:
    v1, v2 = read_json(V1), read_json(V2)
    accepted = client.start_drift(v1["events"], v2["events"], deployment_id=DEPLOYMENT)
    assert accepted.status == SessionStatus.RECEIVED
    assert accepted.poll_url == f"/api/v1/drift/{accepted.session_id}"
    view = client.wait_drift(accepted.session_id)
    assert (view.session_id, view.status) == (accepted.session_id, SessionStatus.COMPLETE)
    assert (view.before_label, view.after_label) == ("before", "after")


def test_deployment_drift_over_two_date_ranges(client: undertone.Client, both_weeks: Any) -> None:
    assert [s.status for s in both_weeks] == [SessionStatus.COMPLETE] * 2
    local = undertone.drift(V1, V2)
    utc = dt.timezone.utc
    view = client.deployments.drift(
        DEPLOYMENT,
        before=(dt.date(2026, 11, 2), "2026-11-09T00:00:00Z"),  # a date is its UTC midnight
        after=(dt.datetime(2026, 11, 9, tzinfo=utc), dt.datetime(2026, 11, 16, tzinfo=utc)),
        question="Did the second week frustrate customers more?",
        after_label="week 2",
    )
    assert view.status == SessionStatus.COMPLETE
    assert view.before_label == "2026-11-02 00:00 – 2026-11-09 00:00"
    assert view.after_label == "week 2"
    assert view.event_count == 0  # history keeps scores, not events
    assert view.before.to_dict()["conversation_count"] == view.after.to_dict()["conversation_count"] == 40
    # The same test on the same per-conversation scores as drift over the two files.
    assert canonical(view.dimension_drifts.to_dict()) == canonical(local["dimension_drifts"])


def test_deployments_list_history_deploys_and_reports(client: undertone.Client, both_weeks: Any) -> None:
    listed = {d.deployment_id: d for d in client.deployments.list()}
    assert listed[DEPLOYMENT].conversations >= 80

    # History windows end now, so the days read are conversations of the last week.
    today = dt.datetime.now(dt.timezone.utc).replace(hour=9, minute=0, second=0, microsecond=0)
    recent = "py-recent-bot"
    events = []
    for back in (2, 1):
        start = today - dt.timedelta(days=back)
        for i, (who, text) in enumerate([("u", "where is my order?"), (recent, "It ships today."), ("u", "thanks!")]):
            events.append({"actor_id": f"{who}-{back}" if who == "u" else who, "content": text,
                           "conversation_id": f"c{back}", "timestamp": start + dt.timedelta(minutes=i)})
    client.score_remote(events, deployment_id=recent)
    history = client.deployments.history(recent, days=7)
    assert history.deployment_id == recent
    by_day = {d.to_dict()["date"]: d.to_dict()["conversations"] for d in history.days}
    assert by_day == {(today - dt.timedelta(days=b)).date().isoformat(): 1 for b in (2, 1)}

    marker = client.deployments.create_deploy(
        DEPLOYMENT, release="bot-2026.11.20", description="test marker", deployed_at=dt.date(2026, 11, 20)
    )
    assert (marker.release, marker.source) == ("bot-2026.11.20", "api")
    assert marker.deployed_at.startswith("2026-11-20T00:00:00")
    assert marker.id in [d.id for d in client.deployments.deploys(DEPLOYMENT)]

    report = client.deployments.create_report(DEPLOYMENT)
    assert report.deployment_id == DEPLOYMENT
    assert report.id in [r.id for r in client.deployments.reports(DEPLOYMENT)]
    assert client.deployments.report(DEPLOYMENT, report.id).to_dict() == report.to_dict()
    with pytest.raises(undertone.ApiError) as raised:
        client.deployments.report(DEPLOYMENT, "uhr_missing")
    assert (raised.value.code, raised.value.status) == ("NOT_FOUND", 404)


def test_webhooks_create_list_test_deliveries_delete(server) -> None:
    seen: list[httpx.URL] = []
    hooks = {"request": [lambda request: seen.append(request.url)]}
    with undertone.Client(server.base_url, server.key, httpx_args={"event_hooks": hooks}) as client:
        created = client.webhooks.create(UNREACHABLE, events=["intelligence.ready"])
        assert created.secret.startswith("whsec_")
        assert (created.url, created.events) == (UNREACHABLE, [EventKind.INTELLIGENCE_READY])
        assert created.id in [w.id for w in client.webhooks.list()]
        assert client.webhooks.get(created.id) == next(w for w in client.webhooks.list() if w.id == created.id)

        sent = [client.webhooks.test(created.id) for _ in range(5)]
        assert {t.event_type for t in sent} == {"webhook.test"}
        assert sent[0].deliveries_url == f"/api/v1/webhooks/{created.id}/deliveries"

        seen.clear()
        deliveries = list(client.webhooks.deliveries(created.id, limit=2))
        pages = [u for u in seen if u.path.endswith("/deliveries")]
        assert len(pages) == 3  # 2 + 2 + 1
        assert [u.params.get("cursor") for u in pages] == [None, deliveries[1].id, deliveries[3].id]
        # Every delivery once, newest first: as one page of 100 lists them.
        one_page = [d.id for d in client.webhooks.deliveries(created.id, limit=100)]
        assert [d.id for d in deliveries] == one_page
        assert len(set(one_page)) == 5
        assert [d.event_id for d in deliveries] == [t.event_id for t in reversed(sent)]

        client.webhooks.delete(created.id)
        assert created.id not in [w.id for w in client.webhooks.list()]
        with pytest.raises(undertone.ApiError) as raised:
            client.webhooks.delete(created.id)
        assert (raised.value.code, raised.value.status) == ("NOT_FOUND", 404)
        with pytest.raises(undertone.ApiError) as raised:
            client.webhooks.get(created.id)
        assert (raised.value.code, raised.value.status) == ("NOT_FOUND", 404)


def test_an_idempotency_key_makes_ingest_safe_to_repeat(client: undertone.Client) -> None:
    key = str(uuid.uuid4())
    first = client.ingest(read_json(REFUND), idempotency_key=key)
    again = client.ingest(read_json(REFUND), idempotency_key=key)
    assert again.session_id == first.session_id
    other = read_json(REFUND)
    other["deployment_id"] = "another-bot"
    with pytest.raises(undertone.ApiError) as raised:
        client.ingest(other, idempotency_key=key)
    assert (raised.value.code, raised.value.status) == ("CONFLICT", 409)
    assert client.ingest(read_json(REFUND)).session_id != first.session_id


def test_sessions_iterates_every_page(client: undertone.Client) -> None:
    mine = client.ingest(read_json(REFUND)).session_id
    all_at_once = [s.session_id for s in client.sessions(limit=100)]
    paged = [s.session_id for s in client.sessions(limit=2)]
    assert len(paged) >= 3
    assert paged == all_at_once
    assert len(set(paged)) == len(paged)
    assert paged[0] == mine  # newest first


def test_the_generated_operations_still_take_the_client(client: undertone.Client) -> None:
    accepted = generated_ingest.sync(client=client, body=IngestRequest.from_dict(read_json(REFUND)))
    assert isinstance(accepted, IngestAccepted)
    assert client.wait(accepted.session_id).status == SessionStatus.COMPLETE


def test_async_client(server) -> None:
    async def main() -> tuple[SessionView, list[uuid.UUID], undertone.ApiError]:
        async with undertone.AsyncClient(server.base_url, server.key) as client:
            session = await client.score_remote(read_json(REFUND))
            ids = [s.session_id async for s in client.sessions(limit=1)]
            created = await client.webhooks.create(UNREACHABLE, events=["uhr_generated"])
            assert created.id in [w.id for w in await client.webhooks.list()]
            assert (await client.webhooks.get(created.id)).id == created.id
            await client.webhooks.delete(created.id)
            assert [d.deployment_id for d in await client.deployments.list()].count(DEPLOYMENT) == 1
        async with undertone.AsyncClient(server.base_url, "ut_live_" + "0" * 38) as bad:
            try:
                await bad.wait(session.session_id)
            except undertone.ApiError as e:
                return session, ids, e
        raise AssertionError("a wrong key was accepted")

    session, ids, error = asyncio.run(main())
    assert session.status == SessionStatus.COMPLETE
    assert canonical(session.full_output.to_dict()) == canonical(undertone.score(REFUND))
    assert ids[0] == session.session_id and len(ids) == len(set(ids)) >= 2
    assert (error.code, error.status) == ("UNAUTHORIZED", 401)


# ---------------------------------------------------------------------------- stub servers

Answer = tuple[int, dict[str, str], Any]


class Stub:
    """An HTTP server on 127.0.0.1 that answers each request with ``answer(method, path,
    n)`` (``n`` counts the requests so far) and records ``(method, path, time)``."""

    def __init__(self, answer: Callable[[str, str, int], Answer]) -> None:
        self.requests: list[tuple[str, str, float]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def handle_one(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                stub.requests.append((self.command, self.path, time.monotonic()))
                status, headers, body = answer(self.command, self.path, len(stub.requests))
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = handle_one

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stub() -> Iterator[Callable[[Callable[[str, str, int], Answer]], Stub]]:
    started: list[Stub] = []

    def start(answer: Callable[[str, str, int], Answer]) -> Stub:
        started.append(Stub(answer))
        return started[-1]

    yield start
    for s in started:
        s.close()


SESSION = str(uuid.UUID(int=7))
ACCEPTED = {"session_id": SESSION, "event_count": 1, "status": "received", "poll_url": f"/api/v1/intelligence/{SESSION}"}
LIMITED = {"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1795590000"}
RATE_LIMITED = {"error": {"code": "RATE_LIMITED", "message": "the hourly window is full"}}
EVENTS = [{"actor_id": "u", "content": "hi", "timestamp": "2026-11-02T00:00:00Z"}]


def session_view(status: str, error: str | None = None) -> dict[str, Any]:
    return {"session_id": SESSION, "status": status, "event_count": 1, "created_at": "2026-11-02T00:00:00Z", "error": error}


def test_a_429_is_retried_after_its_retry_after(stub) -> None:
    def answer(method: str, path: str, n: int) -> Answer:
        if n == 1:
            return 429, {**LIMITED, "Retry-After": "1"}, RATE_LIMITED
        return 202, {}, ACCEPTED

    s = stub(answer)
    client = undertone.Client(s.url, "ut_live_stub")
    started = time.monotonic()
    accepted = client.ingest(EVENTS, deployment_id="d")
    elapsed = time.monotonic() - started
    assert str(accepted.session_id) == SESSION
    assert [(m, p) for m, p, _ in s.requests] == [("POST", "/api/v1/ingest")] * 2
    gap = s.requests[1][2] - s.requests[0][2]
    assert 1.0 <= gap < 1.3 and elapsed < 1.5


def test_the_generated_operations_are_retried_too(stub) -> None:
    s = stub(lambda method, path, n: (503, {"Retry-After": "0"}, {"error": {"code": "SERVICE_UNAVAILABLE", "message": "busy"}}) if n < 3 else (202, {}, ACCEPTED))
    client = undertone.Client(s.url, "ut_live_stub")
    body = IngestRequest.from_dict({"deployment_id": "d", "events": EVENTS})
    accepted = generated_ingest.sync(client=client, body=body)
    assert isinstance(accepted, IngestAccepted) and str(accepted.session_id) == SESSION
    assert len(s.requests) == 3


def test_a_503_without_retry_after_backs_off_and_gives_up_after_max_retries(stub) -> None:
    busy = {"error": {"code": "SERVICE_UNAVAILABLE", "message": "the queue is at capacity"}}
    s = stub(lambda method, path, n: (503, {}, busy))
    client = undertone.Client(s.url, "ut_live_stub", max_retries=2)
    with pytest.raises(undertone.ApiError) as raised:
        client.ingest(EVENTS, deployment_id="d")
    assert (raised.value.code, raised.value.status) == ("SERVICE_UNAVAILABLE", 503)
    assert len(s.requests) == 3
    gaps = [b[2] - a[2] for a, b in zip(s.requests, s.requests[1:])]
    # 0.5 s then 1 s, each with equal jitter (half fixed, half random).
    assert 0.25 <= gaps[0] < 0.7 and 0.5 <= gaps[1] < 1.2


def test_max_retries_0_raises_the_429_with_its_rate_limit_headers(stub) -> None:
    s = stub(lambda method, path, n: (429, {**LIMITED, "Retry-After": "1"}, RATE_LIMITED))
    client = undertone.Client(s.url, "ut_live_stub", max_retries=0)
    with pytest.raises(undertone.ApiError) as raised:
        client.ingest(EVENTS, deployment_id="d")
    e = raised.value
    assert (e.code, e.status, e.message) == ("RATE_LIMITED", 429, "the hourly window is full")
    assert e.rate_limit == undertone.RateLimit(limit=1000, remaining=0, reset=1795590000)
    assert e.retry_after == 1.0
    assert len(s.requests) == 1


def test_a_retry_after_beyond_max_retry_wait_is_not_waited_for(stub) -> None:
    s = stub(lambda method, path, n: (429, {**LIMITED, "Retry-After": "3600"}, RATE_LIMITED))
    client = undertone.Client(s.url, "ut_live_stub", max_retry_wait=5)
    started = time.monotonic()
    with pytest.raises(undertone.ApiError) as raised:
        client.ingest(EVENTS, deployment_id="d")
    assert raised.value.retry_after == 3600.0
    assert len(s.requests) == 1 and time.monotonic() - started < 1


def test_an_error_page_that_is_not_the_envelope(stub) -> None:
    s = stub(lambda method, path, n: (502, {"Content-Type": "text/html"}, b"<html>Bad Gateway</html>"))
    with pytest.raises(undertone.ApiError) as raised:
        undertone.Client(s.url, "ut_live_stub").wait(SESSION)
    assert (raised.value.code, raised.value.status) == ("UNEXPECTED_RESPONSE", 502)
    assert "Bad Gateway" in raised.value.message
    assert len(s.requests) == 1


def test_wait_raises_session_failed(stub) -> None:
    why = "scoring took longer than the job time budget of 1 s"
    s = stub(lambda method, path, n: (200, {}, session_view("processing" if n == 1 else "failed", why)))
    with pytest.raises(undertone.SessionFailed) as raised:
        undertone.Client(s.url, "ut_live_stub").wait(SESSION)
    e = raised.value
    assert (e.code, e.error) == ("SESSION_FAILED", why)
    assert isinstance(e.session, SessionView) and e.session.status == SessionStatus.FAILED
    assert [(m, p) for m, p, _ in s.requests] == [("GET", f"/api/v1/intelligence/{SESSION}")] * 2
    assert 0.2 <= s.requests[1][2] - s.requests[0][2] < 0.5


def test_wait_drift_raises_session_failed(stub) -> None:
    drift = {**session_view("failed", "worker died"), "before_label": "a", "after_label": "b"}
    s = stub(lambda method, path, n: (200, {}, drift))
    with pytest.raises(undertone.SessionFailed) as raised:
        undertone.Client(s.url, "ut_live_stub").wait_drift(SESSION)
    assert isinstance(raised.value.session, DriftView) and raised.value.error == "worker died"
    assert s.requests[0][1] == f"/api/v1/drift/{SESSION}"


def test_wait_times_out(stub) -> None:
    s = stub(lambda method, path, n: (200, {}, session_view("processing")))
    started = time.monotonic()
    with pytest.raises(TimeoutError) as raised:
        undertone.Client(s.url, "ut_live_stub").wait(SESSION, timeout=0.5)
    elapsed = time.monotonic() - started
    e = raised.value
    assert isinstance(e, undertone.WaitTimeout) and isinstance(e, undertone.UndertoneError)
    assert (e.code, e.timeout, e.session.status) == ("TIMEOUT", 0.5, SessionStatus.PROCESSING)
    assert 0.5 <= elapsed < 1.0
    assert len(s.requests) == 3  # at 0, 0.2 and 0.5 s (the pause is cut to the deadline)


def test_async_client_retries_and_fails_like_the_client(stub) -> None:
    def answer(method: str, path: str, n: int) -> Answer:
        if path == "/api/v1/ingest":
            return (429, {"Retry-After": "0"}, RATE_LIMITED) if n == 1 else (202, {}, ACCEPTED)
        return 200, {}, session_view("failed", "no good")

    s = stub(answer)

    async def main() -> tuple[IngestAccepted, undertone.SessionFailed]:
        async with undertone.AsyncClient(s.url, "ut_live_stub") as client:
            accepted = await client.ingest(EVENTS, deployment_id="d")
            try:
                await client.wait(accepted.session_id)
            except undertone.SessionFailed as e:
                return accepted, e
        raise AssertionError("a failed session was returned")

    accepted, failed = asyncio.run(main())
    assert str(accepted.session_id) == SESSION
    assert failed.error == "no good"
    assert [p for _, p, _ in s.requests] == ["/api/v1/ingest", "/api/v1/ingest", f"/api/v1/intelligence/{SESSION}"]
