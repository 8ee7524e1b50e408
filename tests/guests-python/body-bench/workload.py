"""The body-read benchmark's workload, the same code under CPython (native.py) and under
bench (app.py): GET ``url`` with urllib3 (the client under requests and boto3) and read the
whole body; returns its length and the seconds the GET took."""

import time

import urllib3


def get(pool, url):
    """(bytes, seconds) of one GET of ``url`` read whole."""
    started = time.perf_counter()
    body = pool.request("GET", url).data
    return len(body), time.perf_counter() - started
