"""The agent configuration snippets of docs/mcp.md, read from the doc and used as an
agent would use them: with the URL and key placeholders replaced, each connects with
the official MCP Python SDK, ingests a conversation and reads its scores."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest
from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import BINARY, ROOT, SUPPORT, Server, read_json
from helpers import assert_summary, ok, poll, sdk_client, unwrapped

DOC = ROOT / "docs" / "mcp.md"
PLACEHOLDER_KEY = "ut_live_REPLACE_WITH_YOUR_KEY"
PLACEHOLDER_URL = "http://127.0.0.1:8080"

pytestmark = pytest.mark.anyio


def snippets() -> list[dict[str, Any]]:
    """Every ```json block of the doc that configures `mcpServers`, parsed."""
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    configs = [json.loads(b) for b in blocks if '"mcpServers"' in b]
    return [c["mcpServers"]["undertone"] for c in configs]


def filled(value: Any, server: Server) -> Any:
    """`value` with the doc's placeholder URL and key replaced by the live server's."""
    text = json.dumps(value).replace(PLACEHOLDER_URL, server.base_url)
    return json.loads(text.replace(PLACEHOLDER_KEY, server.key))


def test_the_doc_has_one_http_and_one_stdio_snippet() -> None:
    kinds = sorted("url" if "url" in s else "command" for s in snippets())
    assert kinds == ["command", "url"], snippets()
    for s in snippets():
        assert PLACEHOLDER_KEY in json.dumps(s), s


async def ingest_and_read(client: Any, local: dict[str, Any]) -> None:
    ack = await ok(client, "ingest_conversation", read_json(SUPPORT))
    summary = await poll(client, "get_session", {"session_id": ack["session_id"]})
    assert summary["status"] == "complete", summary
    assert_summary(summary, local)


async def test_the_http_snippet_connects_ingests_and_reads(server: Server, local_score: Any) -> None:
    (config,) = [filled(s, server) for s in snippets() if "url" in s]
    assert config["type"] == "http"
    async with httpx2.AsyncClient(headers=config["headers"], trust_env=False) as http:
        with unwrapped():
            async with sdk_client(streamable_http_client(config["url"], http_client=http)) as client:
                await ingest_and_read(client, local_score(SUPPORT))


async def test_the_stdio_snippet_connects_ingests_and_reads(server: Server, local_score: Any) -> None:
    (config,) = [filled(s, server) for s in snippets() if "command" in s]
    # The doc runs `undertone` from PATH; here it is the binary under test.
    assert config["command"] == "undertone"
    params = StdioServerParameters(command=str(BINARY), args=config["args"], env=config["env"])
    with unwrapped():
        async with sdk_client(stdio_client(params)) as client:
            await ingest_and_read(client, local_score(SUPPORT))
