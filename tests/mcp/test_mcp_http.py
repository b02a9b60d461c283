"""The MCP server over streamable HTTP (`{base_url}/mcp`, `Authorization: Bearer KEY`),
driven by the official MCP Python SDK."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

import helpers
from conftest import Server

pytestmark = pytest.mark.anyio


@pytest.fixture(params=helpers.MODES)
def connect(server: Server, request: pytest.FixtureRequest) -> helpers.Connect:
    """Connects with a key, once per SDK connection mode."""
    mode = request.param
    return lambda key: helpers.connect_http(server.mcp_url, key, mode)


async def test_tools_listed_by_scope(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_tool_lists(connect, server)


async def test_ingest_then_get_session_until_complete(connect: helpers.Connect, server: Server, local_score: Any) -> None:
    await helpers.check_ingest_then_get_session(connect, server, local_score(helpers.SUPPORT))


async def test_an_ingest_repeated_with_its_key_is_stored_once(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_idempotent_ingest(connect, server)


async def test_read_only_key_cannot_write(
    connect: helpers.Connect, server: Server, support_session_id: str, local_score: Any
) -> None:
    await helpers.check_read_only_key(connect, server, support_session_id, local_score(helpers.SUPPORT))


async def test_explain_score_matches_full_output(
    connect: helpers.Connect, server: Server, support_session_id: str, local_score: Any
) -> None:
    await helpers.check_explain_score(connect, server, support_session_id, local_score(helpers.SUPPORT))


async def test_score_conversation_matches_local(connect: helpers.Connect, server: Server, local_score: Any) -> None:
    await helpers.check_score_conversation(connect, server, local_score(helpers.CODING))


async def test_validation_errors(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_validation_errors(connect, server)


async def test_unknown_ids_not_found(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_unknown_ids(connect, server)


async def test_create_deploy_marker(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_deploy_marker(connect, server, "http")


async def test_health_report(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_health_report(connect, server, "http")


async def test_webhooks_and_deliveries(connect: helpers.Connect, server: Server, webhook: dict[str, Any]) -> None:
    await helpers.check_webhooks(connect, server, webhook)


async def test_drift_start_and_poll(connect: helpers.Connect, server: Server, local_drift: Any) -> None:
    await helpers.check_drift(connect, server, local_drift)


async def test_resources_and_prompts(
    connect: helpers.Connect, server: Server, support_session_id: str, local_score: Any
) -> None:
    await helpers.check_resources_and_prompts(connect, server, support_session_id, local_score(helpers.SUPPORT))


async def test_wrong_key_refused(connect: helpers.Connect, server: Server, foreign_key: str) -> None:
    """No key, a malformed key, a key of another database: the SDK cannot connect, and
    the endpoint answers 401 with the REST error envelope."""
    bad_keys: list[str | None] = [None, "ut_live_not-a-key", foreign_key]
    await helpers.check_wrong_keys(connect, bad_keys)
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
    }
    async with httpx2.AsyncClient(trust_env=False, timeout=30) as http:
        for key in bad_keys:
            headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
            if key is not None:
                headers["Authorization"] = f"Bearer {key}"
            r = await http.post(server.mcp_url, content=json.dumps(initialize), headers=headers)
            assert r.status_code == 401, (key, r.status_code, r.text[:500])
            assert r.json()["error"]["code"] == "UNAUTHORIZED", (key, r.text[:500])
        # The same request with a valid key is accepted (only the status is read: the
        # answer may be an event stream).
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Authorization": f"Bearer {server.ro_key}",
        }
        async with http.stream("POST", server.mcp_url, content=json.dumps(initialize), headers=headers) as r:
            assert r.status_code == 200, r.status_code
