#!/usr/bin/env python3
"""Times scipy.stats.mannwhitneyu (two-sided, method="auto") on the samples written by
bench_drift, one call per dimension, best of 7; checks the p-values agree with Undertone's."""
import json
import sys
import time

from scipy.stats import mannwhitneyu
import scipy

samples = json.load(open(sys.argv[1]))
best = float("inf")
for _ in range(7):
    t = time.perf_counter()
    ps = [mannwhitneyu(s["after"], s["before"], alternative="two-sided", method="auto").pvalue
          for s in samples]
    best = min(best, time.perf_counter() - t)
worst = 0.0
for s, p in zip(samples, ps):
    if s["p_value"] is not None:
        worst = max(worst, abs(s["p_value"] - p) / max(abs(p), 1e-300))
print(f"scipy {scipy.__version__} mannwhitneyu x{len(samples)}: {best * 1e3:.3f} ms; "
      f"largest relative p-value difference from Undertone {worst:.2e}")
print(f"metric scipy_mwu_ms {best * 1e3:.4f}")
