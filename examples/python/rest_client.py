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

import undertone

path = sys.argv[1] if len(sys.argv) > 1 else "examples/support-refund-goes-wrong.json"
client = undertone.Client(os.environ["UNDERTONE_URL"], os.environ["UNDERTONE_API_KEY"])
with open(path, encoding="utf-8") as f:
    request = json.load(f)

try:
    accepted = client.ingest(request)  # or client.score_remote(request): ingest + wait
    print(f"session {accepted.session_id}: {accepted.status.value}")
    session = client.wait(accepted.session_id, timeout=60)
except undertone.ApiError as e:  # an error answer: e.code, e.status, e.details
    sys.exit(f"refused: {e}")
except (undertone.SessionFailed, undertone.WaitTimeout) as e:
    sys.exit(f"scoring did not complete: {e}")

print(f"status {session.status.value}")
layer_z = session.full_output.to_dict()["intelligence"]["layer_z"]
for dimension, score in layer_z.items():
    print(f"{dimension}: {score['band']} ({score['score']:.2f})")
print(session.plain_summary)
