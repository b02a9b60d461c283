#!/usr/bin/env python3
"""Draws the DBDC3 dialogues the team annotates and renders them for annotators.

Usage: scripts/annotation_batches.py OUT_DIR   (writes batch-01.txt … batch-06.txt and
double.txt, the second-annotator batch; the labels go to annotations/dbdc3/).

The draw is fixed by a seed: 50 dialogues per bot from the DBDC3 dev split and 25 per
bot from the eval split, ordered by SHA-256 of seed + dialogue id. Each batch mixes dev
and eval dialogues of every bot, so an annotator's habits do not line up with a split.
The double batch takes the first five dialogues of every batch. Breakdown labels are
never shown: annotators see only the text.
"""
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

SEED = "undertone-annotation-2026"
PER_BOT = {"dev": 50, "eval": 25}
BATCHES = 6
DOUBLE_PER_BATCH = 5
DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dbdc3_en" / "dbdc3_en_revised.jsonl"


def key(dialog_id: str) -> str:
    return hashlib.sha256(f"{SEED}:{dialog_id}".encode()).hexdigest()


def draw(dialogs):
    """The drawn dialogues, grouped by (split, bot), each group in key order."""
    groups = defaultdict(list)
    for d in dialogs:
        _, _, split, bot = d["source"].split("-", 3)  # DBDC3-en-dev-CIC_115
        groups[(split, bot.split("_")[0])].append(d)
    drawn = {}
    for (split, bot), ds in sorted(groups.items()):
        ds.sort(key=lambda d: key(d["dialog_id"]))
        drawn[(split, bot)] = ds[: PER_BOT[split]]
    return drawn


def batches(drawn):
    out = [[] for _ in range(BATCHES)]
    i = 0
    for group in drawn.values():
        for d in group:
            out[i % BATCHES].append(d)
            i += 1
    for b in out:
        b.sort(key=lambda d: key(d["dialog_id"]))
    return out


def render(d) -> str:
    bot = d["source"].split("-", 3)[3].split("_")[0]
    lines = [f"=== dialog {d['dialog_id']} (bot {bot}) ==="]
    for t in d["turns"]:
        tag = "U" if t["role"] == "user" else "S"
        lines.append(f"[{tag}{t['turn_index']}] {t['text']}")
    return "\n".join(lines) + "\n\n"


def main():
    out_dir = Path(sys.argv[1])
    out_dir.mkdir(parents=True, exist_ok=True)
    dialogs = [json.loads(line) for line in DATA.open()]
    bs = batches(draw(dialogs))
    double = []
    for n, b in enumerate(bs, 1):
        (out_dir / f"batch-{n:02}.txt").write_text("".join(render(d) for d in b))
        double.extend(b[:DOUBLE_PER_BATCH])
    double.sort(key=lambda d: key("double:" + d["dialog_id"]))
    (out_dir / "double.txt").write_text("".join(render(d) for d in double))
    for n, b in enumerate(bs, 1):
        users = sum(1 for d in b for t in d["turns"] if t["role"] == "user")
        print(f"batch-{n:02}: {len(b)} dialogues, {users} user turns")
    print(f"double: {len(double)} dialogues, {sum(1 for d in double for t in d['turns'] if t['role'] == 'user')} user turns")


if __name__ == "__main__":
    main()
