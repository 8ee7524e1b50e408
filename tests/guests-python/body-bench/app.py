"""The body-read benchmark under bench (scripts/bench-body.sh): each task GETs ``--url`` and
reads the whole body, with urllib3 (``--read urllib3``, the default) or with the SDK's own
wasi:http helper (``--read raw``), in a step ``body``."""

import urllib3

from bench_task import http, task
from workload import get

CONFIG = {
    "benchmarkSlug": "guest-python-body",
    "benchmarkName": "Python body read",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
    "allowedHosts": ["http://127.0.0.1:*"],
    "customCliFlags": ["--url", "--read"],
}

_pool = urllib3.PoolManager()


@task(CONFIG)
def run(ctx):
    url = ctx.arg("--url")
    if ctx.arg("--read") == "raw":
        with ctx.step("body"):
            body = http.get(url).body
        return {"bytes": len(body)}
    with ctx.step("body"):
        size, _ = get(_pool, url)
    return {"bytes": size}
