"""The MCP server over stdio: `undertone mcp --base-url BASE_URL --api-key KEY`, a
client of the REST API, launched and driven by the official MCP Python SDK."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest

import helpers
from conftest import BINARY, ROOT, Server

pytestmark = pytest.mark.anyio


@pytest.fixture(params=helpers.MODES)
def connect(server: Server, request: pytest.FixtureRequest) -> helpers.Connect:
    """Connects with a key, once per SDK connection mode."""
    mode = request.param
    return lambda key: helpers.connect_stdio(server, key, mode=mode)


async def test_tools_listed_by_scope(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_tool_lists(connect, server)


async def test_key_from_environment(server: Server, support_session_id: str, local_score: Any) -> None:
    """UNDERTONE_API_KEY instead of --api-key: a read-only key sees the read tools only
    and reads through them."""
    async with helpers.connect_stdio(server, server.ro_key, via_env=True) as client:
        helpers.assert_tool_list(await client.list_tools(), helpers.READ_TOOLS)
        summary = await helpers.ok(client, "get_session", {"session_id": support_session_id})
    assert summary["status"] == "complete"
    helpers.assert_summary(summary, local_score(helpers.SUPPORT))


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
    await helpers.check_deploy_marker(connect, server, "stdio")


async def test_health_report(connect: helpers.Connect, server: Server) -> None:
    await helpers.check_health_report(connect, server, "stdio")


async def test_webhooks_and_deliveries(connect: helpers.Connect, server: Server, webhook: dict[str, Any]) -> None:
    await helpers.check_webhooks(connect, server, webhook)


async def test_drift_start_and_poll(connect: helpers.Connect, server: Server, local_drift: Any) -> None:
    await helpers.check_drift(connect, server, local_drift)


async def test_resources_and_prompts(
    connect: helpers.Connect, server: Server, support_session_id: str, local_score: Any
) -> None:
    await helpers.check_resources_and_prompts(connect, server, support_session_id, local_score(helpers.SUPPORT))


async def test_wrong_key_refused_by_the_sdk(connect: helpers.Connect, foreign_key: str) -> None:
    """The SDK's connect fails (the process ends) instead of hanging."""
    await helpers.check_wrong_keys(connect, [foreign_key, "ut_live_not-a-key"])


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}},
    }
)


def run_mcp(server: Server, args: list[str], env_key: str | None = None) -> subprocess.CompletedProcess[str]:
    """`undertone mcp ARGS` with an initialize request waiting on its stdin."""
    env = {k: v for k, v in os.environ.items() if k != "UNDERTONE_API_KEY"}
    env["RUST_LOG"] = "warn"
    if env_key is not None:
        env["UNDERTONE_API_KEY"] = env_key
    return subprocess.run(
        [str(BINARY), "mcp", "--base-url", server.base_url, *args],
        input=INITIALIZE + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        env=env,
        check=False,
    )


@pytest.mark.parametrize(
    "how", ["unknown key in --api-key", "unknown key in UNDERTONE_API_KEY", "malformed key", "no key"]
)
def test_wrong_key_exits_before_serving(server: Server, foreign_key: str, how: str) -> None:
    """A key the server refuses: non-zero exit, a message about the key on stderr, and
    no answer to the initialize request on stdout."""
    if how == "unknown key in --api-key":
        done = run_mcp(server, ["--api-key", foreign_key])
    elif how == "unknown key in UNDERTONE_API_KEY":
        done = run_mcp(server, [], env_key=foreign_key)
    elif how == "malformed key":
        done = run_mcp(server, ["--api-key", "ut_live_not-a-key"])
    else:
        done = run_mcp(server, [])
    assert done.returncode != 0, (done.returncode, done.stdout, done.stderr)
    assert "key" in done.stderr.lower(), done.stderr
    assert '"result"' not in done.stdout, f"it answered initialize: {done.stdout[:500]}"


def test_valid_key_answers_initialize(server: Server) -> None:
    """The same raw exchange with a valid key answers the initialize request (so the
    test above fails for the key, not for the harness)."""
    done = run_mcp(server, ["--api-key", server.ro_key])
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    answers = [line for line in lines if line.get("id") == 1]
    assert len(answers) == 1 and "result" in answers[0], (done.stdout, done.stderr)
    assert answers[0]["result"]["capabilities"].get("tools") is not None, answers[0]


def answers_by_id(server: Server, messages: list[str]) -> dict[Any, dict[str, Any]]:
    """Sends `messages`, one per line, to `undertone mcp` with the read-only key and
    returns its answers by id once its input ends."""
    done = subprocess.run(
        [str(BINARY), "mcp", "--base-url", server.base_url, "--api-key", server.ro_key],
        input="\n".join(messages) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        env={**os.environ, "RUST_LOG": "warn"},
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert done.returncode == 0, (done.stdout, done.stderr)
    return {line["id"]: line for line in lines if "id" in line}


def test_a_message_that_gives_a_key_twice_is_refused_as_a_rest_body_is(server: Server) -> None:
    """The SDK's reader keeps a repeated key's last value; `undertone mcp` answers such a
    request itself with a JSON-RPC error carrying the REST body's message (a
    notification gets no answer), and the requests around it are served."""
    call = (
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "score_conversation", '
        '"arguments": {"deployment_id": "bot", "deployment_id": "evil", "events": []}}}'
    )
    notification = '{"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}, "params": {}}'
    listing = '{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}'
    initialized = '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
    answers = answers_by_id(server, [INITIALIZE, notification, initialized, call, listing])
    assert sorted(answers) == [1, 2, 3], answers
    assert answers[2]["error"] == {
        "code": -32600,
        "message": 'body: is not valid JSON: the key "deployment_id" is given twice in one object at line 1 column 146',
    }, answers[2]
    assert "result" in answers[1] and "result" in answers[3], answers


def test_params_a_method_cannot_take_are_invalid_params(server: Server) -> None:
    """A request whose params its method cannot take (arguments that are no object) is
    answered -32602 by `undertone mcp` itself, as on /mcp, not -32601 ("no such
    method") by the SDK; the requests around it are served."""
    call = '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_session", "arguments": "str"}}'
    read = '{"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {}}'
    listing = '{"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}}'
    initialized = '{"jsonrpc": "2.0", "method": "notifications/initialized"}'
    answers = answers_by_id(server, [INITIALIZE, initialized, call, read, listing])
    assert sorted(answers) == [1, 2, 3, 4], answers
    assert answers[2]["error"] == {
        "code": -32602,
        "message": "tools/call: params.arguments must be an object, got string",
    }, answers[2]
    assert answers[4]["error"] == {
        "code": -32602,
        "message": "resources/read: params.uri must be a string",
    }, answers[4]
    assert "result" in answers[1] and "result" in answers[3], answers
