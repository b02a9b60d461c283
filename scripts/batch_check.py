#!/usr/bin/env python3
"""The batch recipe's test (scripts/test-batch runs it): writes a seeded archive, scores
it with examples/batch/score_spark.py in Spark local mode, scores the same events
with the command line (`undertone score --view turns`, one file per deployment), and
checks that the two give the same rows, value for value. Prints throughput per core
of both, measured in this run.

Usage: batch_check.py WORK_DIR CONVERSATIONS UNDERTONE_BINARY
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as ds

ROOT = Path(__file__).resolve().parent.parent
SPARK_CORES = 2


def run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, check=True, **kw)


def main() -> None:
    work, count, binary = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    py = sys.executable
    run([py, str(ROOT / "examples/batch/make_archive.py"), str(work), str(count)])
    deployments = sorted(p.stem for p in work.glob("*.jsonl"))

    # The command line, one core (rayon's pool held to one thread), per deployment file.
    started = time.perf_counter()
    cli_rows = []
    for d in deployments:
        out = run(
            [binary, "score", str(work / f"{d}.jsonl"), "--deployment-id", d, "--pipeline", "support", "--view", "turns"],
            capture_output=True, text=True, env={**os.environ, "RAYON_NUM_THREADS": "1"},
        ).stdout
        cli_rows += [json.loads(line) for line in out.splitlines()]
    cli_seconds = time.perf_counter() - started

    started = time.perf_counter()
    out = run([py, str(ROOT / "examples/batch/score_spark.py"), str(work / "archive"), str(work / "turns"),
               "--master", f"local[{SPARK_CORES}]"], stderr=subprocess.DEVNULL, capture_output=False,
              stdout=subprocess.PIPE, text=True).stdout
    spark_seconds = time.perf_counter() - started
    timing = json.loads(out.strip().splitlines()[-1])

    spark_rows = ds.dataset(work / "turns", format="parquet", partitioning="hive").to_table().to_pylist()
    key = lambda r: (r["deployment_id"], r["conversation_id"], r["turn"])  # noqa: E731
    columns = list(cli_rows[0])
    spark_rows = sorted(({c: r[c] for c in columns} for r in spark_rows), key=key)
    cli_rows.sort(key=key)
    assert len(spark_rows) == len(cli_rows), (len(spark_rows), len(cli_rows))
    assert len({key(r) for r in spark_rows}) == len(spark_rows), "a turn was written twice"
    differ = [(a, b) for a, b in zip(cli_rows, spark_rows) if a != b]
    assert not differ, f"{len(differ)} rows differ, first: {differ[0]}"
    assert set(columns) == set(spark_rows[0]), "the Parquet columns are the command line's"

    assert timing["rows"] == len(cli_rows), timing

    turns = len(cli_rows)
    cli_rate = turns / cli_seconds
    job_rate = turns / timing["job_s"] / SPARK_CORES
    print(f"rows: {turns} human turns of {count} conversations, equal in Parquet (Spark) and from the command line")
    print(f"command line, 1 core (RAYON_NUM_THREADS=1): {cli_seconds:.2f} s, {cli_rate:,.0f} turns/s per core")
    print(f"Spark local[{SPARK_CORES}]: {spark_seconds:.2f} s in all, of which {timing['spark_start_s']:.2f} s "
          f"starting Spark and {timing['job_s']:.2f} s for the job (read, score, write Parquet, count): "
          f"{job_rate:,.0f} turns/s per core ({job_rate / cli_rate:.3f}x the command line per core)")


if __name__ == "__main__":
    main()
