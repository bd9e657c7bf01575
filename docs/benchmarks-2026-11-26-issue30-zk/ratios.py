#!/usr/bin/env python3
"""Ratio table of a run-jmh.sh directory: per round and thread count, ops/s of Curator, fencedlock
after and before, the ratios to Curator, and bytes allocated per cycle (JMH gc profiler)."""
import glob
import json
import os
import re
import statistics
import sys

out = sys.argv[1]
data = {}  # (round, side, method) -> (score, alloc per op)
for path in glob.glob(os.path.join(out, "round-*-*.json")):
    m = re.match(r"round-(\d+)-(.+)\.json", os.path.basename(path))
    rnd, side = int(m.group(1)), m.group(2)
    try:
        results = json.load(open(path))
    except ValueError:
        continue  # a run still in progress, or one that failed
    for result in results:
        method = result["benchmark"].rsplit(".", 1)[1]
        score = result["primaryMetric"]["score"]
        alloc = result.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score")
        data[(rnd, side, method)] = (score, alloc)

rounds = sorted({k[0] for k in data})
print("| threads | round | Curator ops/s | fencedlock after | fencedlock before | after / Curator | before / Curator | after / before |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for method, threads in (("oneThread", 1), ("eightThreads", 8)):
    ra, rb, rab = [], [], []
    for r in rounds:
        c = data.get((r, "curator", method), (None,))[0]
        a = data.get((r, "fenced-after", method), (None,))[0]
        b = data.get((r, "fenced-before", method), (None,))[0]
        if None in (c, a, b):
            continue
        ra.append(a / c)
        rb.append(b / c)
        rab.append(a / b)
        print(f"| {threads} | {r} | {c:,.0f} | {a:,.0f} | {b:,.0f} | {a / c:.2f}x | {b / c:.2f}x | {a / b:.2f}x |")
    if ra:
        print(f"| {threads} | median | | | | **{statistics.median(ra):.2f}x** ({min(ra):.2f}-{max(ra):.2f}) "
              f"| **{statistics.median(rb):.2f}x** ({min(rb):.2f}-{max(rb):.2f}) "
              f"| **{statistics.median(rab):.2f}x** ({min(rab):.2f}-{max(rab):.2f}) |")
print()
print("| threads | bytes allocated per cycle: Curator | fencedlock after | fencedlock before |")
print("|---:|---:|---:|---:|")
for method, threads in (("oneThread", 1), ("eightThreads", 8)):
    cells = []
    for side in ("curator", "fenced-after", "fenced-before"):
        values = [data[(r, side, method)][1] for r in rounds if (r, side, method) in data and data[(r, side, method)][1]]
        cells.append(f"{statistics.median(values):,.0f} ({min(values):,.0f}-{max(values):,.0f})" if values else "-")
    print(f"| {threads} | " + " | ".join(cells) + " |")
