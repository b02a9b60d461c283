"""Fixtures of the MCP end-to-end tests: one live `undertone serve`, its keys, and the
reference outputs the MCP answers are compared with (computed by the same binary's
`score` and `drift` commands, never hard-coded)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import httpx2
import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "target" / "debug" / "undertone"
EXAMPLES = ROOT / "examples"

SUPPORT = EXAMPLES / "support-refund-goes-wrong.json"
CODING = EXAMPLES / "coding-assistant-goes-well.json"
DRIFT_BEFORE = EXAMPLES / "drift-v1.json"
DRIFT_AFTER = EXAMPLES / "drift-v2.json"


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def run_json(*args: str) -> Any:
    """Runs the binary and parses its standard output as JSON."""
    done = subprocess.run(
        [str(BINARY), *args], capture_output=True, text=True, timeout=60, check=False, cwd=ROOT
    )
    assert done.returncode == 0, f"undertone {' '.join(args)} failed:\n{done.stderr}"
    return json.loads(done.stdout)


def create_key(database: str, name: str, scope: str) -> str:
    """`undertone keys create`; returns the key it prints."""
    done = subprocess.run(
        [str(BINARY), "keys", "create", "--name", name, "--scope", scope, "--database", database],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    m = re.search(r"^key:\s+(ut_live_[0-9A-Za-z]+)", done.stdout, re.MULTILINE)
    assert m, f"no key in the output of `keys create`:\n{done.stdout}"
    return m.group(1)


class Server:
    """`undertone serve` on 127.0.0.1 with a throwaway SQLite database, its first
    (read-write) key, and a read-only key created with `undertone keys create`."""

    def __init__(self, tmp: Path) -> None:
        if not BINARY.exists():
            raise RuntimeError(f"{BINARY} is missing; run `cargo build --bin undertone` first")
        self.database = f"sqlite://{tmp}/u.db"
        self.proc = subprocess.Popen(
            [str(BINARY), "serve", "--addr", "127.0.0.1:0", "--database", self.database],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "RUST_LOG": "warn"},
        )
        self.lines: list[str] = []
        self.key = ""
        self.base_url = ""
        ready = threading.Event()

        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line)
                if m := re.search(r"\b(ut_live_[0-9A-Za-z]+)", line):
                    self.key = self.key or m.group(1)
                if m := re.search(r"listening on (http://127\.0\.0\.1:\d+)", line):
                    self.base_url = m.group(1)
                if self.key and self.base_url:
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(30):
            self.stop()
            raise RuntimeError("server did not start:\n" + "".join(self.lines))
        self.ro_key = self.create_key("ro", "read-only")

    def create_key(self, name: str, scope: str) -> str:
        return create_key(self.database, name, scope)

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"

    def rest(self, method: str, path: str, *, key: str | None = None, body: Any = None) -> httpx2.Response:
        """One REST call (the oracle the MCP answers are held against)."""
        headers = {"Authorization": f"Bearer {key or self.key}"}
        with httpx2.Client(base_url=f"{self.base_url}/api/v1", headers=headers, timeout=30, trust_env=False) as c:
            if body is None:
                return c.request(method, path)
            return c.request(method, path, json=body)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("server"))
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="session")
def local_score() -> Any:
    """`undertone score FILE`, computed once per file."""
    cache: dict[Path, Any] = {}

    def score(path: Path) -> Any:
        if path not in cache:
            cache[path] = run_json("score", str(path))
        return cache[path]

    return score


@pytest.fixture(scope="session")
def local_drift() -> Any:
    """`undertone drift examples/drift-v1.json examples/drift-v2.json`."""
    return run_json("drift", str(DRIFT_BEFORE), str(DRIFT_AFTER))


@pytest.fixture(scope="session")
def webhook(server: Server) -> dict[str, Any]:
    """A webhook registered through REST for the read-write key. The address is a
    public IP literal (no DNS) and the kind one these tests never trigger, so it
    receives no delivery while the tests run."""
    r = server.rest(
        "POST", "/webhooks", body={"url": "https://93.184.215.14/undertone-mcp-test", "events": ["outcome_shift_detected"]}
    )
    assert r.status_code == 201, r.text
    created: dict[str, Any] = r.json()
    return created


@pytest.fixture(scope="session")
def foreign_key(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A well-formed read-write key with a valid checksum that the server has never
    seen: made in another database."""
    return create_key(f"sqlite://{tmp_path_factory.mktemp('other')}/o.db", "foreign", "read-write")


@pytest.fixture(scope="session")
def support_session_id(server: Server) -> str:
    """A complete session of examples/support-refund-goes-wrong.json, ingested through
    REST, for the tests of the read tools."""
    r = server.rest("POST", "/ingest", body=read_json(SUPPORT))
    assert r.status_code == 202, r.text
    session_id: str = r.json()["session_id"]
    deadline = time.monotonic() + 30
    while True:
        r = server.rest("GET", f"/intelligence/{session_id}")
        assert r.status_code == 200, r.text
        status = r.json()["status"]
        if status == "complete":
            return session_id
        assert status in ("received", "processing"), r.text
        assert time.monotonic() < deadline, f"session {session_id} still {status} after 30 s"
        time.sleep(0.1)
