"""Shared fixtures: the repository root, canonical JSON, and a live server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]


def canonical(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


class Server:
    """`undertone serve` on 127.0.0.1 with a throwaway database."""

    def __init__(self, tmp: Path) -> None:
        binary = ROOT / "target" / "debug" / "undertone"
        if not binary.exists():
            raise RuntimeError(f"{binary} is missing; run `cargo build --bin undertone` first")
        self.proc = subprocess.Popen(
            [str(binary), "serve", "--addr", "127.0.0.1:0", "--database", f"sqlite://{tmp}/u.db"],
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

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("server"))
    try:
        yield s
    finally:
        s.stop()


def wait_until(predicate: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out")
