#!/usr/bin/env python3
"""children.py FILE.jfr FRAME: the frames FRAME calls (outermost occurrence), as shares of the benchmark's samples."""
import collections
import sys
from jfrstacks import load

samples = load(sys.argv[1])
parent = sys.argv[2]
n = sum(1 for st in samples if any('UpdateBenchmark.update' in x for x in st))
c = collections.Counter()
for st in samples:
    for i in range(len(st) - 1, -1, -1):
        if parent in st[i]:
            c[st[i - 1] if i > 0 else '(self)'] += 1
            break
for k, v in c.most_common(12):
    print(f'{100 * v / n:5.1f}% {v:4d} {k}')
