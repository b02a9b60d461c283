"""Ingest a conversation into a running Undertone server, wait, and print its scores.

From the repository root, with a server running (`cargo run --release --bin undertone
-- serve` prints an API key on first start):

    pip install ./bindings-python
    UNDERTONE_URL=http://127.0.0.1:8080 UNDERTONE_API_KEY=ut_live_... \\
        python examples/python/rest_client.py examples/support-refund-goes-wrong.json
"""

import json
import os
import sys
import time

import undertone
from undertone.rest.api.sessions import ingest, intelligence
from undertone.rest.models import IngestAccepted, IngestRequest, SessionView

path = sys.argv[1] if len(sys.argv) > 1 else "examples/support-refund-goes-wrong.json"
client = undertone.Client(os.environ["UNDERTONE_URL"], os.environ["UNDERTONE_API_KEY"])
with open(path, encoding="utf-8") as f:
    request = IngestRequest.from_dict(json.load(f))

accepted = ingest.sync(client=client, body=request)
if not isinstance(accepted, IngestAccepted):
    sys.exit(f"ingest refused: {accepted}")
print(f"session {accepted.session_id}: {accepted.status.value}")

deadline = time.monotonic() + 60
while True:
    session = intelligence.sync(str(accepted.session_id), client=client)
    if not isinstance(session, SessionView):
        sys.exit(f"poll failed: {session}")
    if session.status.value in ("complete", "failed") or time.monotonic() > deadline:
        break
    time.sleep(0.2)

print(f"status {session.status.value}")
if session.status.value == "complete" and session.full_output:
    layer_z = session.full_output.to_dict()["intelligence"]["layer_z"]
    for dimension, score in layer_z.items():
        print(f"{dimension}: {score['band']} ({score['score']:.2f})")
    print(session.plain_summary)
else:
    sys.exit(f"scoring did not complete: {session.error}")
