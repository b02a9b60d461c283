#!/usr/bin/env python3
"""Writes examples/drift-v1.json and examples/drift-v2.json: two weeks of a support bot,
before and after a model change (v2 refuses and repeats itself more often).

Seeded and deterministic: `python3 scripts/make_drift_examples.py` rewrites the same files.
The conversations are written for Undertone (Apache-2.0); no outside data.
"""
import json
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = "acme-support-bot"

ASKS = [
    ("Where is my order {n}? It was due yesterday.", "Order {n} left our warehouse this morning and arrives tomorrow before noon."),
    ("I was charged twice for order {n}.", "I can see two charges for order {n}; the second one is refunded today and shows up in 3 to 5 days."),
    ("How do I change the delivery address for order {n}?", "Open order {n}, choose Edit delivery, and enter the new address before it ships tonight."),
    ("Can I return the shoes from order {n}? Wrong size.", "Yes: print the label from order {n}, drop the parcel at any post office within 30 days, and we refund on arrival."),
    ("My discount code SAVE10 did not apply to order {n}.", "SAVE10 applies to full-price items only; order {n} had sale items, so I added a 10% credit to your account instead."),
    ("The app logs me out every time I open it.", "Update the app to version 6.2 and sign in again; the logout bug is fixed there."),
]
THANKS = ["Great, thanks!", "Perfect, that worked.", "Thanks, that helps a lot.", "Got it, thank you!", "ok thanks"]
FAIL_AI = [
    "I'm sorry, I can't help with that.",
    "I'm not able to access order details. Please check our FAQ.",
    "Could you rephrase your question?",
]
PUSH = [
    "That's not what I asked. {q}",
    "Again: {q}",
    "You didn't answer my question.",
    "This is useless. Can I talk to a human?",
]
LEAVE = ["forget it", "never mind, I'll call instead", "whatever. bye", "I give up"]


def conversation(rng, k, label, fail_rate, day):
    n = rng.randint(10000, 99999)
    q, answer = rng.choice(ASKS)
    q, answer = q.format(n=n), answer.format(n=n)
    turns = [("user", q)]
    if rng.random() < fail_rate:
        turns.append(("assistant", rng.choice(FAIL_AI)))
        turns.append(("user", rng.choice(PUSH).format(q=q)))
        if rng.random() < 0.5:
            turns.append(("assistant", turns[1][1]))  # repeats itself
            turns.append(("user", rng.choice(LEAVE)))
        else:
            turns.append(("assistant", answer))
            turns.append(("user", rng.choice(["ok", "finally. thanks", "fine"])))
    else:
        turns.append(("assistant", answer))
        turns.append(("user", rng.choice(THANKS)))
    cust = f"cust-{label}-{k:03d}"
    hour, minute = 8 + rng.randint(0, 9), rng.randint(0, 50)
    events = []
    for i, (role, text) in enumerate(turns):
        events.append({
            "conversation_id": f"{label}-{k:03d}",
            "actor_id": cust if role == "user" else BOT,
            "content": text,
            "timestamp": f"2026-11-{day:02d}T{hour:02d}:{minute + i:02d}:{10 * i:02d}Z",
            "metadata": {"role": role, "model_version": label},
        })
    return events


def write(label, fail_rate, first_day, seed, count=40):
    rng = random.Random(seed)
    events = []
    for k in range(count):
        events += conversation(rng, k, label, fail_rate, first_day + k % 7)
    body = {"deployment_id": BOT, "pipeline": "support", "events": events}
    path = ROOT / "examples" / f"drift-{label}.json"
    path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    print(f"{path.relative_to(ROOT)}: {count} conversations, {len(events)} events")


write("v1", fail_rate=0.15, first_day=2, seed=1)
write("v2", fail_rate=0.45, first_day=9, seed=2)
