#!/usr/bin/env python3
"""Scores a partitioned archive of conversations with Undertone inside Apache Spark.

Usage: score_spark.py ARCHIVE OUT [--keep-together conversation_id]
                      [--buckets 64] [--master local[2]] [--pipeline support]

ARCHIVE is Parquet with one row per event and the columns deployment_id,
conversation_id, actor_id, content, timestamp (RFC 3339 text; ``metadata`` as JSON
text is optional), e.g. hive-partitioned by deployment and day. OUT receives Parquet,
partitioned by deployment_id, with one row per human turn: deployment_id,
conversation_id, turn, actor_id, timestamp and the six dimensions' scores and bands:
the rows ``undertone score FILE --view turns`` prints.

Rows are grouped by deployment and conversation (``--keep-together``), and the groups
of each deployment are hashed into ``--buckets`` buckets; each bucket is scored by the
Python package in a Spark worker with ``applyInPandas``, in one call: the same Rust
core as the command line and the server. A conversation is never split, so the scores
are the command line's; buckets only spare Spark and Arrow a round trip per
conversation. Dependency drift reads a person's conversations together, so when
people have several conversations in the archive, group by deployment and the
person's column instead (``--keep-together user_id``). On a cluster, pass
``--master`` (or run with spark-submit) and install the ``undertone`` wheel on the
workers; nothing else changes.

Prints one JSON line: rows written and the seconds to start Spark and to run the job.
"""
from __future__ import annotations

import argparse
import json
import time

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import undertone

DIMENSIONS = [
    "trust_calibration",
    "frustration_buildup",
    "dependency_drift",
    "silent_abandonment_risk",
    "escalation_friction",
    "comprehension_gap",
]
ROW_SCHEMA = ", ".join(
    ["deployment_id string", "conversation_id string", "turn long", "actor_id string", "timestamp string"]
    + [f"{d} double, {d}_band string" for d in DIMENSIONS]
)
EVENT_COLUMNS = ["conversation_id", "actor_id", "content", "timestamp", "metadata"]


def score_group(pipeline: str):
    """The function applyInPandas calls with one group's events."""

    def score(events: pd.DataFrame) -> pd.DataFrame:
        deployment = str(events["deployment_id"].iloc[0])
        # Events in time order; the core groups them into conversations by id.
        ordered = events.sort_values(["timestamp", "conversation_id"], kind="stable")
        request = [
            {k: (json.loads(v) if k == "metadata" else v) for k, v in row.items() if k in EVENT_COLUMNS and v is not None}
            for row in ordered.to_dict("records")
        ]
        rows = undertone.score(request, deployment_id=deployment, pipeline=pipeline, view="turns")
        return pd.DataFrame(rows, columns=[f.split(" ")[0] for f in ROW_SCHEMA.split(", ")])

    return score


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("archive")
    p.add_argument("out")
    p.add_argument("--keep-together", default="conversation_id",
                   help="comma-separated columns whose groups are scored whole (within a deployment)")
    p.add_argument("--buckets", type=int, default=64, help="buckets per deployment (1 or more)")
    p.add_argument("--master", default=None, help="e.g. local[2]; default: spark-submit's")
    p.add_argument("--pipeline", default="support", choices=["auto", "support", "reviews"])
    args = p.parse_args(argv)

    started = time.perf_counter()
    builder = SparkSession.builder.appName("undertone-batch").config("spark.ui.enabled", "false")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    ready = time.perf_counter()
    try:
        events = spark.read.parquet(args.archive)
        whole = args.keep_together.split(",")
        bucket = F.pmod(F.xxhash64(*whole), F.lit(max(1, args.buckets)))
        rows = (
            events.withColumn("_bucket", bucket)
            .groupBy("deployment_id", "_bucket")
            .applyInPandas(score_group(args.pipeline), schema=ROW_SCHEMA)
        )
        rows.write.mode("overwrite").partitionBy("deployment_id").parquet(args.out)
        written = spark.read.parquet(args.out).count()
    finally:
        spark.stop()
    done = time.perf_counter()
    print(json.dumps({"rows": written, "spark_start_s": round(ready - started, 3), "job_s": round(done - ready, 3)}))


if __name__ == "__main__":
    main()
