"""Test task: a response body read with urllib3 (``--read urllib3``: ``.data``, the whole body
at once), the SDK's helper (``--read raw``) or urllib3 in pieces (``--read pieces``: 64 KiB
reads); returns how many bytes it read and their SHA-256, so the test can check every byte
whichever way the body came (read whole through the host, or chunk by chunk).

``--read dropped`` reads it ``--times`` times through urllib3, dropping each response, and
returns how many of them were still alive after each drop."""

import hashlib
import weakref

import urllib3

from bench_task import http, task

CONFIG = {
    "benchmarkSlug": "guest-python-bodies",
    "benchmarkName": "Python response bodies",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
    "allowedHosts": ["http://127.0.0.1:*"],
    "customCliFlags": ["--url", "--read", "--times"],
}

_pool = urllib3.PoolManager()


def _pieces(url):
    response = _pool.request("GET", url, preload_content=False)
    pieces = []
    while piece := response.read(1 << 16):
        pieces.append(piece)
    response.release_conn()
    return b"".join(pieces)


_READS = {
    "urllib3": lambda url: _pool.request("GET", url).data,
    "raw": lambda url: http.get(url).body,
    "pieces": _pieces,
}


def _dropped(ctx, url):
    responses = []
    alive = []
    for _ in range(int(ctx.arg("--times"))):
        response = _pool.request("GET", url)
        responses.append(weakref.ref(response))
        del response
        alive.append(sum(ref() is not None for ref in responses))
    return {"alive": alive}


_CHECKS = {"dropped": _dropped}


@task(CONFIG)
def run(ctx):
    read = ctx.arg("--read")
    if read in _CHECKS:
        return _CHECKS[read](ctx, ctx.arg("--url"))
    body = _READS[read](ctx.arg("--url"))
    return {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
