"""Score a conversation file locally with the Python package; no server needed.

From the repository root:

    pip install ./bindings-python
    python examples/python/score_local.py examples/support-refund-goes-wrong.json
"""

import sys

import undertone

path = sys.argv[1] if len(sys.argv) > 1 else "examples/support-refund-goes-wrong.json"
result = undertone.score(path)
intelligence = result["intelligence"]
print(f"{intelligence['human_turn_count']} human turns, pipeline {result['pipeline']}")
for c in intelligence["conversations"]:
    z = c["layer_z"]
    frustration, trust = z["frustration_buildup"], z["trust_calibration"]
    print(
        f"{c['conversation_id']}: frustration {frustration['band']} ({frustration['score']:.2f}), "
        f"trust {trust['band']} ({trust['score']:.2f})"
    )
print("key finding:", intelligence["key_finding"])
