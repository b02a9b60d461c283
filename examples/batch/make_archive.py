#!/usr/bin/env python3
"""Writes a seeded archive of support conversations, as a data lake holds them: one row
per event, Parquet, partitioned by deployment and day (hive style:
``deployment_id=…/day=…/part-0.parquet``), and the same events as one JSON Lines file
per deployment (what ``undertone score`` reads).

Usage: make_archive.py OUT_DIR [CONVERSATIONS] [SEED] [CONVERSATIONS_PER_PERSON]

Columns: deployment_id, day, conversation_id, user_id, actor_id, content, timestamp
(RFC 3339 text). By default each person has one conversation; with
CONVERSATIONS_PER_PERSON > 1 people come back, and dependency drift then reads their
conversations together (docs/batch.md). The conversations are
written for Undertone (Apache-2.0); no outside data. Needs pyarrow.
"""
from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

DEPLOYMENTS = ["acme-support-bot", "shop-assist", "bank-helper"]
ASKS = [
    ("Where is my order {n}? It was due yesterday.", "Order {n} left the warehouse this morning and arrives tomorrow."),
    ("I was charged twice for order {n}.", "The second charge for order {n} is refunded today; it shows in 3 to 5 days."),
    ("How do I change the address on order {n}?", "Open order {n}, choose Edit delivery and enter the new address."),
    ("My card was declined for payment {n}.", "Payment {n} failed the bank's check; try again or use another card."),
    ("The app logs me out every time I open it.", "Update the app to version 6.2 and sign in again; that bug is fixed there."),
]
THANKS = ["Great, thanks!", "Perfect, that worked.", "Thanks, that helps a lot.", "ok thanks"]
FAIL = ["I'm sorry, I can't help with that.", "Could you rephrase your question?", "Please check our FAQ."]
PUSH = ["That's not what I asked. {q}", "Again: {q}", "This is useless. Can I talk to a human?",
        "I already told you twice, why are you asking again?"]
LEAVE = ["forget it", "never mind", "whatever. bye"]


def conversation(rng: random.Random, deployment: str, k: int, user: str, start: datetime) -> list[dict]:
    n = rng.randint(10000, 99999)
    q, answer = (s.format(n=n) for s in rng.choice(ASKS))
    turns = [("user", q)]
    if rng.random() < 0.35:
        turns += [("bot", rng.choice(FAIL)), ("user", rng.choice(PUSH).format(q=q))]
        if rng.random() < 0.5:
            turns += [("bot", turns[1][1]), ("user", rng.choice(LEAVE))]
        else:
            turns += [("bot", answer), ("user", rng.choice(["ok", "finally. thanks"]))]
    else:
        turns += [("bot", answer), ("user", rng.choice(THANKS))]
    at = start
    rows = []
    for role, text in turns:
        at += timedelta(seconds=rng.randint(5, 90))
        rows.append({
            "deployment_id": deployment,
            "day": at.strftime("%Y-%m-%d"),
            "conversation_id": f"{deployment}-c{k:05d}",
            "user_id": user,
            "actor_id": deployment if role == "bot" else user,
            "content": text,
            "timestamp": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        })
    return rows


def main() -> None:
    out = Path(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    per_person = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    first = datetime(2026, 10, 1, tzinfo=timezone.utc)
    by_partition: dict[tuple[str, str], list[dict]] = defaultdict(list)
    by_deployment: dict[str, list[dict]] = defaultdict(list)
    for k in range(count):
        deployment = DEPLOYMENTS[k % len(DEPLOYMENTS)]
        start = first + timedelta(days=rng.randint(0, 13), hours=rng.randint(7, 20), minutes=rng.randint(0, 59))
        user = f"{deployment}-user-{k // (len(DEPLOYMENTS) * per_person):05d}"
        for row in conversation(rng, deployment, k, user, start):
            by_partition[(row["deployment_id"], row["day"])].append(row)
            by_deployment[deployment].append(row)
    for (deployment, day), rows in sorted(by_partition.items()):
        folder = out / "archive" / f"deployment_id={deployment}" / f"day={day}"
        folder.mkdir(parents=True, exist_ok=True)
        columns = ["conversation_id", "user_id", "actor_id", "content", "timestamp"]
        table = pa.table({c: [r[c] for r in rows] for c in columns})
        pq.write_table(table, folder / "part-0.parquet")
    for deployment, rows in by_deployment.items():
        with open(out / f"{deployment}.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                event = {k: r[k] for k in ("conversation_id", "actor_id", "content", "timestamp")}
                f.write(json.dumps(event, ensure_ascii=False) + "\n")
    events = sum(len(v) for v in by_deployment.values())
    print(f"{count} conversations, {events} events, {len(by_partition)} partitions in {out}")


if __name__ == "__main__":
    main()
