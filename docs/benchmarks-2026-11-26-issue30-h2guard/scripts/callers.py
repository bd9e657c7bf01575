#!/usr/bin/env python3
"""callers.py FILE.jfr LEAF [DEPTH]: the call paths above samples whose leaf frame matches LEAF."""
import collections
import sys
from jfrstacks import load

samples = load(sys.argv[1])
leaf = sys.argv[2]
depth = int(sys.argv[3]) if len(sys.argv) > 3 else 5
c = collections.Counter()
for st in samples:
    if st and leaf in st[0]:
        c[' < '.join('.'.join(x.split('.')[-2:]) for x in st[1:depth + 1])] += 1
for k, v in c.most_common(10):
    print(v, k)
