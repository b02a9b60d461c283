"""The generated REST client against a live server: ingest, poll, complete, and the
server's scores equal local scoring of the same file."""

from __future__ import annotations

import os
import subprocess
import sys

import undertone
from undertone.rest.api.meta import healthz
from undertone.rest.api.sessions import ingest, intelligence
from undertone.rest.models import ErrorEnvelope, IngestAccepted, IngestRequest, SessionView

from conftest import ROOT, canonical, read_json, wait_until

EXAMPLE = ROOT / "examples" / "support-refund-goes-wrong.json"


def test_ingest_poll_complete_matches_local_scoring(server) -> None:
    client = undertone.Client(server.base_url, server.key)
    assert healthz.sync_detailed(client=client).status_code == 200
    accepted = ingest.sync(client=client, body=IngestRequest.from_dict(read_json(EXAMPLE)))
    assert isinstance(accepted, IngestAccepted), accepted
    assert accepted.event_count == len(read_json(EXAMPLE)["events"])

    def complete():
        s = intelligence.sync(str(accepted.session_id), client=client)
        assert isinstance(s, SessionView), s
        return s if s.status.value in ("complete", "failed") else None

    session = wait_until(complete)
    assert session.status.value == "complete", session.error
    assert canonical(session.full_output.to_dict()) == canonical(undertone.score(EXAMPLE))


def test_a_wrong_key_is_refused_with_the_error_envelope(server) -> None:
    client = undertone.Client(server.base_url, "ut_live_" + "0" * 38)
    refused = ingest.sync_detailed(client=client, body=IngestRequest.from_dict(read_json(EXAMPLE)))
    assert refused.status_code == 401
    assert isinstance(refused.parsed, ErrorEnvelope)
    assert refused.parsed.error.code.value == "UNAUTHORIZED"


def test_rest_client_example_runs_as_written(server) -> None:
    env = {**os.environ, "UNDERTONE_URL": server.base_url, "UNDERTONE_API_KEY": server.key}
    out = subprocess.run(
        [sys.executable, "examples/python/rest_client.py", "examples/support-refund-goes-wrong.json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=90,
    )
    assert out.returncode == 0, out.stderr
    band = undertone.score(EXAMPLE)["intelligence"]["layer_z"]["frustration_buildup"]["band"]
    assert "status complete" in out.stdout
    assert f"frustration_buildup: {band}" in out.stdout
