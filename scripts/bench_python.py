#!/usr/bin/env python3
"""undertone.score vs VADER in one Python process (run by scripts/bench-python).

VADER scores each user message alone (``polarity_scores``), as
../shared/bench/bench_vader.py does. Undertone scores every human turn in the context
of its conversation, from three starting points a Python user has: the JSON Lines
file's path, its bytes, and a list of event dicts (serialised by the package). Each
figure is the best of REPEATS runs; the ratio is Undertone's messages per second over
VADER's.

Usage: bench_python.py CORPUS.jsonl EVENTS.jsonl
"""

import json
import os
import platform
import sys
import time

import undertone
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

REPEATS = 3
DEPLOYMENT = "support-bot"  # the AI actor of scripts/bench_ai_turns.py


def best(fn):
    times = []
    result = None
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return min(times), result


def main() -> None:
    corpus, events_path = sys.argv[1], sys.argv[2]
    texts = [json.loads(line)["text"] for line in open(corpus, encoding="utf-8")]
    events_bytes = open(events_path, "rb").read()
    events = [json.loads(line) for line in events_bytes.splitlines() if line.strip()]
    n = len(texts)

    analyzer = SentimentIntensityAnalyzer()
    vader_s, _ = best(lambda: [analyzer.polarity_scores(t)["compound"] for t in texts])

    runs = {
        "path": lambda: undertone.score(events_path, deployment_id=DEPLOYMENT),
        "bytes": lambda: undertone.score(events_bytes, deployment_id=DEPLOYMENT),
        "list of dicts": lambda: undertone.score(events, deployment_id=DEPLOYMENT),
    }
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{n} user messages, {len(events)} events; best of {REPEATS}"
    )
    print(f"{'VADER polarity_scores':<34} {vader_s:8.3f} s {n / vader_s:>10.0f} msg/s   1.00x")
    for name, fn in runs.items():
        seconds, result = best(fn)
        scored = result["intelligence"]["human_turn_count"]
        assert scored == n, f"scored {scored} human turns, expected {n}"
        rate = n / seconds
        print(
            f"{'undertone.score (' + name + ')':<34} {seconds:8.3f} s {rate:>10.0f} msg/s "
            f"{rate / (n / vader_s):6.2f}x"
        )


if __name__ == "__main__":
    main()
