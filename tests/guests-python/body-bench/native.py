"""The body-read benchmark under CPython: ``python3 native.py URL COUNT`` prints the
milliseconds of each GET, one a line (scripts/bench-body.sh)."""

import sys

import urllib3

from workload import get

pool = urllib3.PoolManager()
for _ in range(int(sys.argv[2])):
    _, seconds = get(pool, sys.argv[1])
    print(f"{seconds * 1000:.3f}")
