"""What both transports are tested for. Each scenario takes `connect(key)` (an async
context manager yielding a connected `mcp.Client` of the official SDK) and the live
server, and compares the MCP answers with the local `undertone score`/`drift` output
or with the REST API's own answer to the same question."""

from __future__ import annotations

import json
import tempfile
import uuid
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from typing import Any, AsyncIterator, Callable, Iterator

import anyio
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent, TextResourceContents

from conftest import (
    BINARY,
    CODING,
    DRIFT_AFTER,
    DRIFT_BEFORE,
    ROOT,
    SUPPORT,
    Server,
    read_json,
)

READ_TOOLS = {
    "get_session",
    "get_drift",
    "list_webhooks",
    "list_deliveries",
    "get_health_report",
    "score_conversation",
    "explain_score",
}
WRITE_TOOLS = {"ingest_conversation", "start_drift", "create_deploy_marker"}

# Per tool: (required arguments, optional arguments), as documented.
TOOL_ARGUMENTS: dict[str, tuple[set[str], set[str]]] = {
    "get_session": ({"session_id"}, {"view"}),
    "get_drift": ({"session_id"}, set()),
    "list_webhooks": (set(), set()),
    "list_deliveries": ({"webhook_id"}, {"limit", "cursor"}),
    "get_health_report": ({"deployment_id"}, {"report_id"}),
    "score_conversation": ({"deployment_id", "events"}, {"pipeline"}),
    "explain_score": ({"session_id", "event_index"}, {"dimension"}),
    "ingest_conversation": ({"deployment_id", "events"}, {"pipeline", "webhook_url", "idempotency_key"}),
    "start_drift": ({"before", "after"}, {"question", "deployment_id", "idempotency_key"}),
    "create_deploy_marker": ({"deployment_id"}, {"release", "description", "deployed_at"}),
}

SUMMARY_KEYS = {
    "session_id",
    "status",
    "scores",
    "key_finding",
    "recommendation",
    "flagged_turns",
    "archetype",
    "event_count",
    "conversation_count",
    "human_turn_count",
    "plain_summary",
    "created_at",
    "completed_at",
    "error",
}
STATUSES = {"received", "processing", "complete", "failed"}
DRIFT_DIRECTIONS = {"improved", "regressed", "mixed", "stable"}
POLL_SECONDS = 30.0

Connect = Callable[[str | None], Any]


# --------------------------------------------------------------------------- clients


# How the SDK connects: "legacy" is the initialize handshake (protocol 2025-11-25 and
# before, what deployed MCP clients do); "auto" is the SDK's default, which probes
# `server/discover` (2026-07-28) and falls back to the handshake.
MODES = ["legacy", "auto"]


def sdk_client(transport: Any, mode: str = "legacy") -> Client:
    """The SDK's high-level client over `transport`, without its response cache
    (sessions change while they are polled)."""
    return Client(transport, mode=mode, cache=None, read_timeout_seconds=60)


@contextmanager
def unwrapped() -> Iterator[None]:
    """Raises a lone exception out of the SDK's task-group wrapping, so a failed
    assertion in a test reads as itself."""
    try:
        yield
    except BaseExceptionGroup as group:
        leaves = flatten(group)
        if len(leaves) == 1:
            raise leaves[0] from None
        raise


@asynccontextmanager
async def connect_http(url: str, key: str | None, mode: str = "legacy") -> AsyncIterator[Client]:
    """Streamable HTTP at `url` with `Authorization: Bearer key` (no header for None)."""
    headers = {} if key is None else {"Authorization": f"Bearer {key}"}
    timeout = httpx2.Timeout(30, read=120)
    with unwrapped():
        async with httpx2.AsyncClient(headers=headers, timeout=timeout, trust_env=False) as http:
            async with sdk_client(streamable_http_client(url, http_client=http), mode) as client:
                yield client


def stdio_parameters(server: Server, key: str | None, *, via_env: bool = False) -> StdioServerParameters:
    args = ["mcp", "--base-url", server.base_url]
    env = {"RUST_LOG": "warn"}
    if key is not None and via_env:
        env["UNDERTONE_API_KEY"] = key
    elif key is not None:
        args += ["--api-key", key]
    return StdioServerParameters(command=str(BINARY), args=args, env=env, cwd=str(ROOT))


@asynccontextmanager
async def connect_stdio(
    server: Server, key: str | None, *, via_env: bool = False, mode: str = "legacy"
) -> AsyncIterator[Client]:
    """`undertone mcp --base-url … --api-key KEY` (or the key in UNDERTONE_API_KEY) as
    a subprocess spoken to over stdin/stdout; its stderr is attached to any failure."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        try:
            with unwrapped():
                params = stdio_parameters(server, key, via_env=via_env)
                async with sdk_client(stdio_client(params, errlog=errlog), mode) as client:
                    yield client
        except BaseException as e:
            errlog.seek(0)
            e.add_note("stderr of `undertone mcp`:\n" + errlog.read())
            raise


def flatten(exc: BaseException) -> list[BaseException]:
    """The leaf exceptions of a (possibly nested) exception group."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in flatten(inner)]
    return [exc]


async def assert_connect_refused(connect: Connect, key: str | None) -> list[BaseException]:
    """Connecting (initialize) with `key` fails with an error, not a hang."""
    with anyio.fail_after(30):
        try:
            async with connect(key) as client:
                tools = await client.list_tools()
        except Exception as e:  # noqa: BLE001 - any failure to connect is the point
            leaves = flatten(e)
            assert leaves, e
            return leaves
    raise AssertionError(f"connecting with key {key!r} succeeded; tools: {[t.name for t in tools.tools]}")


# ------------------------------------------------------------------------ tool calls


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> tuple[bool, Any]:
    """Calls a tool; checks the result is one text block of JSON; returns (is_error, JSON)."""
    result = await client.call_tool(name, arguments or {})
    assert len(result.content) == 1, f"{name}: {len(result.content)} content blocks: {result.content}"
    block = result.content[0]
    assert isinstance(block, TextContent), f"{name}: content is {type(block).__name__}, not text"
    try:
        payload = json.loads(block.text)
    except json.JSONDecodeError as e:
        raise AssertionError(f"{name}: text is not JSON: {block.text[:500]!r}") from e
    if result.structured_content is not None and not result.is_error:
        assert result.structured_content == payload, f"{name}: structuredContent differs from the text"
    return result.is_error, payload


async def ok(client: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    is_error, payload = await call(client, name, arguments)
    assert not is_error, f"{name} failed: {json.dumps(payload)[:2000]}"
    return payload


async def fails(client: Client, name: str, arguments: dict[str, Any], code: str) -> dict[str, Any]:
    """The call is a tool error `{"error": {"code": code, "message": …}}`; returns the error."""
    is_error, payload = await call(client, name, arguments)
    assert is_error, f"{name} should have failed with {code}; isError is false, result: {json.dumps(payload)[:2000]}"
    assert isinstance(payload, dict) and set(payload) == {"error"}, f"{name}: not an error envelope: {payload}"
    error = payload["error"]
    assert error.get("code") == code, f"{name}: expected code {code}, got {error}"
    assert isinstance(error.get("message"), str) and error["message"], f"{name}: empty message: {error}"
    return error  # type: ignore[no-any-return]


async def poll(
    client: Client, name: str, arguments: dict[str, Any], check: Callable[[Any], None] | None = None
) -> Any:
    """Calls `name` until `status` is complete or failed, for at most POLL_SECONDS."""
    deadline = anyio.current_time() + POLL_SECONDS
    while True:
        state = await ok(client, name, arguments)
        assert state.get("status") in STATUSES, f"{name}: status {state.get('status')!r}"
        if check is not None:
            check(state)
        if state["status"] in ("complete", "failed"):
            return state
        if anyio.current_time() > deadline:
            raise AssertionError(f"{name}({arguments}) still {state['status']} after {POLL_SECONDS} s")
        await anyio.sleep(0.1)


def rest_json(server: Server, method: str, path: str, status: int, body: Any = None, key: str | None = None) -> Any:
    r = server.rest(method, path, key=key, body=body)
    assert r.status_code == status, f"REST {method} {path}: {r.status_code} {r.text[:1000]}"
    return r.json()


# -------------------------------------------------------------------- expectations


def assert_scores(scores: Any, intel: dict[str, Any]) -> None:
    """`scores[dim]` holds the local output's request-level score, band, confidence, mode."""
    assert isinstance(scores, dict), f"scores is {scores!r}"
    assert set(scores) == set(intel["layer_z"])
    for dim, ref in intel["layer_z"].items():
        got = scores[dim]
        assert got["score"] == ref["score"], (dim, got, ref["score"])
        assert got["band"] == ref["band"], (dim, got, ref["band"])
        assert got["confidence"] == ref["confidence"], (dim, got, ref["confidence"])
        assert got.get("mode") == ref.get("mode"), (dim, got, ref.get("mode"))


def flagged_candidates(intel: dict[str, Any]) -> dict[tuple[int, str], tuple[dict[str, Any], dict[str, Any]]]:
    """Every (turn, dimension) of the local output in band watch or broken."""
    found = {}
    for conversation in intel["conversations"]:
        for turn in conversation["turns"]:
            for dim, value in turn["layer_z"].items():
                if value["band"] in ("watch", "broken"):
                    found[(turn["event_index"], dim)] = (turn, value)
    return found


def severity(value: dict[str, Any]) -> tuple[int, float]:
    """Worst first: broken before watch, then by risk, highest first."""
    return (0 if value["band"] == "broken" else 1, -value["risk"])


def assert_flagged(flagged: Any, intel: dict[str, Any]) -> None:
    candidates = flagged_candidates(intel)
    assert isinstance(flagged, list)
    assert len(flagged) == min(10, len(candidates)), (len(flagged), len(candidates))
    seen = set()
    ranks = []
    for item in flagged:
        assert {"event_index", "conversation_id", "dimension", "score", "band"} <= set(item), item
        where = (item["event_index"], item["dimension"])
        assert where in candidates, f"{item} is not a watch/broken turn of the local output"
        assert where not in seen, f"{item} listed twice"
        seen.add(where)
        turn, value = candidates[where]
        assert item["conversation_id"] == turn["conversation_id"], item
        assert item["score"] == value["score"], (item, value["score"])
        assert item["band"] == value["band"], (item, value["band"])
        ranks.append(severity(value))
    worst = sorted(severity(value) for _, value in candidates.values())[: len(flagged)]
    assert ranks == worst, f"flagged turns are not the worst ones, worst first: {flagged}"


def assert_summary(summary: Any, local: dict[str, Any]) -> None:
    """A summary (get_session, score_conversation, the session resource) holds what the
    local `undertone score` output says."""
    intel = local["intelligence"]
    assert_scores(summary["scores"], intel)
    for key in (
        "key_finding",
        "recommendation",
        "archetype",
        "event_count",
        "conversation_count",
        "human_turn_count",
        "plain_summary",
    ):
        assert summary[key] == intel[key], (key, summary[key], intel[key])
    assert_flagged(summary["flagged_turns"], intel)


def assert_progress(states: list[Any]) -> None:
    """Every summary polled, finished or not, has the documented keys; while a session
    is not complete its scores are null."""
    for state in states:
        missing = SUMMARY_KEYS - set(state)
        assert not missing, f"summary keys missing while {state['status']}: {sorted(missing)}; got {state}"
        if state["status"] in ("received", "processing"):
            assert state["scores"] is None, state


def same_instant(a: str, b: str) -> bool:
    return datetime.fromisoformat(a.replace("Z", "+00:00")) == datetime.fromisoformat(b.replace("Z", "+00:00"))


# ------------------------------------------------------------------------ scenarios


def assert_tool_list(tools: Any, expected: set[str]) -> None:
    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == expected, f"tools: {sorted(by_name)}"
    assert len(tools.tools) == len(expected), "a tool is listed twice"
    for name, tool in by_name.items():
        assert tool.description and tool.description.strip(), f"{name}: no description"
        schema = tool.input_schema
        assert schema.get("type") == "object", f"{name}: inputSchema {schema}"
        required, optional = TOOL_ARGUMENTS[name]
        properties = set(schema.get("properties") or {})
        assert required | optional <= properties, f"{name}: arguments missing from the schema: {(required | optional) - properties}"
        assert required <= set(schema.get("required") or []), f"{name}: required {schema.get('required')}"
        assert tool.annotations is not None, f"{name}: no annotations"
        assert tool.annotations.read_only_hint is (name in READ_TOOLS), f"{name}: readOnlyHint {tool.annotations.read_only_hint}"


async def check_tool_lists(connect: Connect, server: Server) -> None:
    async with connect(server.ro_key) as client:
        assert_tool_list(await client.list_tools(), READ_TOOLS)
    async with connect(server.key) as client:
        assert_tool_list(await client.list_tools(), READ_TOOLS | WRITE_TOOLS)


async def check_idempotent_ingest(connect: Connect, server: Server) -> None:
    """An ingest repeated with its `idempotency_key` (a retry after a lost answer) gets
    the first answer again, marked `idempotent_replayed: true`, and stores nothing new;
    the key with another body is CONFLICT."""
    key = f"retry-{uuid.uuid4()}"
    body = {**read_json(SUPPORT), "idempotency_key": key}
    async with connect(server.key) as client:
        first = await ok(client, "ingest_conversation", body)
        assert "idempotent_replayed" not in first, first
        again = await ok(client, "ingest_conversation", body)
        assert again.pop("idempotent_replayed", None) is True, again
        assert again == first, (first, again)
        other = {**body, "deployment_id": "another-bot"}
        error = await fails(client, "ingest_conversation", other, "CONFLICT")
        assert first["session_id"] in error["message"], error
        error = await fails(client, "ingest_conversation", {**body, "idempotency_key": "two words"}, "VALIDATION_ERROR")
        assert error["message"].startswith("idempotency_key: must be 1 to 255 visible ASCII characters"), error


async def check_ingest_then_get_session(connect: Connect, server: Server, local: dict[str, Any]) -> None:
    body = read_json(SUPPORT)
    async with connect(server.key) as client:
        ack = await ok(client, "ingest_conversation", body)
        assert set(ack) == {"session_id", "event_count", "status", "poll_url"}, ack
        session_id = ack["session_id"]
        assert str(uuid.UUID(session_id)) == session_id
        assert ack["event_count"] == len(body["events"])
        assert ack["status"] == "received"
        assert ack["poll_url"] == f"/api/v1/intelligence/{session_id}"

        states: list[Any] = []
        summary = await poll(client, "get_session", {"session_id": session_id}, states.append)
        assert summary["status"] == "complete", summary
        assert summary["session_id"] == session_id
        assert summary["error"] is None
        assert_summary(summary, local)

        # The REST API's own view of the same session.
        rest_full = rest_json(server, "GET", f"/intelligence/{session_id}", 200)
        assert summary["created_at"] == rest_full["created_at"]
        assert summary["completed_at"] == rest_full["completed_at"]

        explicit = await ok(client, "get_session", {"session_id": session_id, "view": "summary"})
        assert explicit == summary

        full = await ok(client, "get_session", {"session_id": session_id, "view": "full"})
        assert full == rest_full
        assert full["status"] == "complete"
        assert full["full_output"] == local, "full_output differs from `undertone score`"

        condensed = await ok(client, "get_session", {"session_id": session_id, "view": "condensed"})
        assert condensed == rest_json(server, "GET", f"/intelligence/{session_id}?view=condensed", 200)
        assert condensed["session_id"] == session_id
    assert_progress(states)


async def check_read_only_key(connect: Connect, server: Server, session_id: str, local: dict[str, Any]) -> None:
    """A read-only key reads, but every write tool answers FORBIDDEN (read-only)."""
    support = read_json(SUPPORT)
    drift_before, drift_after = read_json(DRIFT_BEFORE), read_json(DRIFT_AFTER)
    attempts = {
        "ingest_conversation": support,
        "start_drift": {"before": {"events": drift_before["events"]}, "after": {"events": drift_after["events"]}},
        "create_deploy_marker": {"deployment_id": "mcp-read-only", "release": "never"},
    }
    async with connect(server.ro_key) as client:
        for name, arguments in attempts.items():
            error = await fails(client, name, arguments, "FORBIDDEN")
            assert "read-only" in error["message"], f"{name}: {error}"
        summary = await ok(client, "get_session", {"session_id": session_id})
        assert summary["status"] == "complete"
        assert_summary(summary, local)
    # Nothing was written: the refused marker does not exist.
    assert rest_json(server, "GET", "/deployments/mcp-read-only/deploys", 200)["data"] == []


def richest_turn(intel: dict[str, Any]) -> dict[str, Any]:
    """The scored turn with the most evidence, so the comparison covers evidence."""
    turns = [turn for conversation in intel["conversations"] for turn in conversation["turns"]]
    return max(turns, key=lambda turn: sum(len(v["evidence"]) for v in turn["layer_z"].values()))


def assert_dimension(got: dict[str, Any], ref: dict[str, Any], dim: str) -> None:
    assert {"score", "band", "confidence", "evidence"} <= set(got), (dim, got)
    for key, value in got.items():
        assert key in ref, f"{dim}: `{key}` is not in the turn's layer_z"
        assert value == ref[key], (dim, key, value, ref[key])
    assert got.get("mode") == ref.get("mode"), (dim, got.get("mode"), ref.get("mode"))


async def check_explain_score(connect: Connect, server: Server, session_id: str, local: dict[str, Any]) -> None:
    intel = local["intelligence"]
    turn = richest_turn(intel)
    async with connect(server.key) as client:
        explained = await ok(client, "explain_score", {"session_id": session_id, "event_index": turn["event_index"]})
        assert explained["session_id"] == session_id
        for key in ("event_index", "conversation_id", "actor_id", "timestamp"):
            assert explained[key] == turn[key], (key, explained[key], turn[key])
        assert set(explained["dimensions"]) == set(turn["layer_z"])
        for dim, ref in turn["layer_z"].items():
            assert_dimension(explained["dimensions"][dim], ref, dim)

        dim = max(turn["layer_z"], key=lambda d: len(turn["layer_z"][d]["evidence"]))
        assert turn["layer_z"][dim]["evidence"], "the chosen dimension has evidence"
        one = await ok(
            client, "explain_score", {"session_id": session_id, "event_index": turn["event_index"], "dimension": dim}
        )
        assert set(one["dimensions"]) == {dim}
        assert one["event_index"] == turn["event_index"]
        assert_dimension(one["dimensions"][dim], turn["layer_z"][dim], dim)

        scored = {t["event_index"] for c in intel["conversations"] for t in c["turns"]}
        not_scored = min(i for i in range(intel["event_count"]) if i not in scored)  # an AI turn
        for index in (not_scored, intel["event_count"] + 1000):
            await fails(client, "explain_score", {"session_id": session_id, "event_index": index}, "NOT_FOUND")
        await fails(
            client, "explain_score", {"session_id": str(uuid.uuid4()), "event_index": turn["event_index"]}, "NOT_FOUND"
        )


async def check_score_conversation(connect: Connect, server: Server, local: dict[str, Any]) -> None:
    body = read_json(CODING)
    async with connect(server.ro_key) as client:  # a read tool: a read-only key may score
        scored = await ok(client, "score_conversation", body)
        tool = next(t for t in (await client.list_tools()).tools if t.name == "score_conversation")
        full = None
        if "view" in (tool.input_schema.get("properties") or {}):
            # The server's own schema offers `view: "full"`: every turn with evidence.
            full = await ok(client, "score_conversation", {**body, "view": "full"})
    assert scored["status"] == "scored", scored.get("status")
    assert "session_id" not in scored, scored.get("session_id")
    assert SUMMARY_KEYS - {"session_id", "created_at", "completed_at", "error"} <= set(scored)
    assert_summary(scored, local)
    if full is not None:
        assert full.get("pipeline") == local["pipeline"], f"pipeline {full.get('pipeline')!r}"
        assert full.get("intelligence") == local["intelligence"], "view full: `intelligence` differs from `undertone score`"


async def check_validation_errors(connect: Connect, server: Server) -> None:
    body = read_json(SUPPORT)
    empty = {"deployment_id": body["deployment_id"], "events": []}
    bad_time = json.loads(json.dumps(body))
    bad_time["events"][3]["timestamp"] = "not a timestamp"
    async with connect(server.key) as client:
        for name in ("ingest_conversation", "score_conversation"):
            error = await fails(client, name, empty, "VALIDATION_ERROR")
            assert "events" in error["message"], error
            error = await fails(client, name, bad_time, "VALIDATION_ERROR")
            assert "events[3].timestamp" in error["message"], error
    # REST refuses the same bodies with the same code.
    for refused in (empty, bad_time):
        assert rest_json(server, "POST", "/ingest", 400, refused)["error"]["code"] == "VALIDATION_ERROR"


async def check_unknown_ids(connect: Connect, server: Server) -> None:
    async with connect(server.key) as client:
        await fails(client, "get_session", {"session_id": str(uuid.uuid4())}, "NOT_FOUND")
        await fails(client, "get_drift", {"session_id": str(uuid.uuid4())}, "NOT_FOUND")
        await fails(client, "get_health_report", {"deployment_id": f"mcp-none-{uuid.uuid4().hex}"}, "NOT_FOUND")


async def check_deploy_marker(connect: Connect, server: Server, transport: str) -> None:
    deployment = f"mcp-{transport}-deploys-{uuid.uuid4().hex[:8]}"
    arguments = {
        "deployment_id": deployment,
        "release": f"support-bot-{transport}-2026.11.3",
        "description": "New refund prompt",
        "deployed_at": "2026-11-21T08:00:00Z",
    }
    async with connect(server.key) as client:
        marker = await ok(client, "create_deploy_marker", arguments)
    assert isinstance(marker["id"], str) and marker["id"]
    assert marker["deployment_id"] == deployment
    assert marker["release"] == arguments["release"]
    assert marker["description"] == arguments["description"]
    assert marker["source"] == "api"
    assert same_instant(marker["deployed_at"], arguments["deployed_at"]), marker["deployed_at"]
    stored = rest_json(server, "GET", f"/deployments/{deployment}/deploys", 200)["data"]
    assert [m for m in stored if m["id"] == marker["id"]] == [marker]


async def check_health_report(connect: Connect, server: Server, transport: str) -> None:
    deployment = f"mcp-{transport}-health-{uuid.uuid4().hex[:8]}"
    async with connect(server.key) as client:
        await fails(client, "get_health_report", {"deployment_id": deployment}, "NOT_FOUND")
        first = rest_json(server, "POST", f"/deployments/{deployment}/health-reports", 201)
        newest = rest_json(server, "POST", f"/deployments/{deployment}/health-reports", 201)
        assert first["id"] != newest["id"]
        assert await ok(client, "get_health_report", {"deployment_id": deployment}) == newest
        assert await ok(client, "get_health_report", {"deployment_id": deployment, "report_id": first["id"]}) == first
        await fails(
            client, "get_health_report", {"deployment_id": deployment, "report_id": "uhr_" + uuid.uuid4().hex}, "NOT_FOUND"
        )
        uri = f"undertone://deployments/{deployment}/health-report"
        contents = (await client.read_resource(uri)).contents
        assert len(contents) == 1 and isinstance(contents[0], TextResourceContents), contents
        assert json.loads(contents[0].text) == newest


async def check_webhooks(connect: Connect, server: Server, webhook: dict[str, Any]) -> None:
    # Webhooks belong to the key that registered them (the read-write one).
    async with connect(server.key) as client:
        listed = await ok(client, "list_webhooks")
        assert listed == rest_json(server, "GET", "/webhooks", 200)
        assert webhook["id"] in [w["id"] for w in listed["data"]]
        assert all("secret" not in w for w in listed["data"]), "a listed webhook shows its secret"

        deliveries = await ok(client, "list_deliveries", {"webhook_id": webhook["id"]})
        assert deliveries == rest_json(server, "GET", f"/webhooks/{webhook['id']}/deliveries", 200)
        assert deliveries["data"] == []
        limited = await ok(client, "list_deliveries", {"webhook_id": webhook["id"], "limit": 1})
        assert limited == rest_json(server, "GET", f"/webhooks/{webhook['id']}/deliveries?limit=1", 200)
        await fails(client, "list_deliveries", {"webhook_id": "wh_" + uuid.uuid4().hex}, "NOT_FOUND")


async def check_drift(connect: Connect, server: Server, local_drift: dict[str, Any]) -> None:
    before, after = read_json(DRIFT_BEFORE), read_json(DRIFT_AFTER)
    arguments = {
        # The labels `undertone drift` gives the files (their names without extension).
        "before": {"label": DRIFT_BEFORE.stem, "events": before["events"]},
        "after": {"label": DRIFT_AFTER.stem, "events": after["events"]},
        "deployment_id": before["deployment_id"],
    }
    async with connect(server.key) as client:
        ack = await ok(client, "start_drift", arguments)
        assert set(ack) == {"session_id", "status", "poll_url"}, ack
        session_id = ack["session_id"]
        assert str(uuid.UUID(session_id)) == session_id
        assert ack["status"] == "received"
        assert ack["poll_url"] == f"/api/v1/drift/{session_id}"

        drift = await poll(client, "get_drift", {"session_id": session_id})
    assert drift["status"] == "complete", drift
    assert drift["direction"] in DRIFT_DIRECTIONS
    assert drift["direction"] == local_drift["direction"]
    assert drift["overall_drift"] == local_drift["overall_drift"]
    assert drift["dimension_drifts"] == local_drift["dimension_drifts"]
    for key in ("before_label", "after_label"):
        if key in drift:
            assert drift[key] == arguments[key.split("_")[0]]["label"], (key, drift[key])
    # Every field the MCP answer shares with the REST answer is the same.
    rest = rest_json(server, "GET", f"/drift/{session_id}", 200)
    shared = set(drift) & set(rest)
    assert {"status", "direction", "overall_drift", "dimension_drifts"} <= shared
    assert {k: drift[k] for k in shared} == {k: rest[k] for k in shared}
    # Documented order: the headline first.
    assert list(drift)[:3] == ["status", "direction", "overall_drift"], f"keys start {list(drift)[:4]}"


async def check_resources_and_prompts(connect: Connect, server: Server, session_id: str, local: dict[str, Any]) -> None:
    async with connect(server.ro_key) as client:
        templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
        assert "undertone://sessions/{session_id}" in templates, templates
        assert "undertone://deployments/{deployment_id}/health-report" in templates, templates

        contents = (await client.read_resource(f"undertone://sessions/{session_id}")).contents
        assert len(contents) == 1 and isinstance(contents[0], TextResourceContents), contents
        resource = json.loads(contents[0].text)
        assert resource == await ok(client, "get_session", {"session_id": session_id})
        assert resource["status"] == "complete"
        assert_summary(resource, local)

        prompts = {p.name: p for p in (await client.list_prompts()).prompts}
        assert "investigate_deployment" in prompts, sorted(prompts)
        prompt = prompts["investigate_deployment"]
        assert prompt.description and prompt.description.strip()
        arguments = {a.name: a for a in prompt.arguments or []}
        assert "deployment_id" in arguments and arguments["deployment_id"].required, prompt.arguments
        got = await client.get_prompt("investigate_deployment", {"deployment_id": "acme-support-bot"})
        texts = [m.content.text for m in got.messages if isinstance(m.content, TextContent)]
        assert texts, got
        assert any("acme-support-bot" in text for text in texts), texts


async def check_wrong_keys(connect: Connect, keys: list[str | None]) -> None:
    for key in keys:
        leaves = await assert_connect_refused(connect, key)
        assert any(isinstance(leaf, MCPError) for leaf in leaves), f"key {key!r}: {leaves!r}"
