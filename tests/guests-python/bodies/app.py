"""Test task: a response body read with urllib3 (``--read urllib3``: ``.data``, the whole body
at once), the SDK's helper (``--read raw``) or urllib3 in pieces (``--read pieces``: 64 KiB
reads); returns how many bytes it read and their SHA-256, so the test can check every byte
whichever way the body came (read whole through the host, or chunk by chunk).

``--read crc32`` reads the body whole once per case of ``_CRC32_CASES`` and returns each
case's CRC-32 of it: the body's own (the host's, from the read) and those a remembered CRC-32
must not answer (another start value, a slice, a copy, bytes of the same length, an object
of the same length that claims to equal anything…). ``--read crc32-loop`` reads it ``--times`` times in one task, checking each
read's CRC-32 against the first (``zlib.crc32`` as botocore checks a download).
``--read dropped`` reads it ``--times`` times through urllib3, dropping each response, and
returns how many of them were still alive after each drop."""

import binascii
import hashlib
import weakref
import zlib

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


class _EqualToAll(bytes):
    """Bytes that claim to equal anything and share one hash."""

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


def _after_another(body):
    zlib.crc32(b"another")
    return zlib.crc32(body)


_CRC32_CASES = {
    "body": zlib.crc32,
    "binascii": binascii.crc32,
    "from1": lambda body: zlib.crc32(body, 1),
    "fromAllOnes": lambda body: zlib.crc32(body, -1),
    "from2To32": lambda body: zlib.crc32(body, 1 << 32),
    "slice": lambda body: zlib.crc32(body[1:]),
    "view": lambda body: zlib.crc32(memoryview(body)),
    "copy": lambda body: zlib.crc32(bytes(bytearray(body))),
    "bytearray": lambda body: zlib.crc32(bytearray(body)),
    "reversed": lambda body: zlib.crc32(body[::-1]),
    "equalToAll": lambda body: zlib.crc32(_EqualToAll(bytes(len(body)))),
    "afterAnother": _after_another,
    "twice": lambda body: [zlib.crc32(body), zlib.crc32(body)][1],
}


def _crc32_cases(ctx, url):
    return {name: crc32(_READS["urllib3"](url)) for name, crc32 in _CRC32_CASES.items()}


def _crc32_loop(ctx, url):
    first = None
    times = int(ctx.arg("--times"))
    for _ in range(times):
        crc = zlib.crc32(_READS["urllib3"](url))
        if first is None:
            first = crc
        elif crc != first:
            raise ValueError(f"CRC-32 {crc} after {first}")
    return {"times": times, "crc32": first}


def _dropped(ctx, url):
    responses = []
    alive = []
    for _ in range(int(ctx.arg("--times"))):
        response = _pool.request("GET", url)
        responses.append(weakref.ref(response))
        del response
        alive.append(sum(ref() is not None for ref in responses))
    return {"alive": alive}


_CHECKS = {"crc32": _crc32_cases, "crc32-loop": _crc32_loop, "dropped": _dropped}


@task(CONFIG)
def run(ctx):
    read = ctx.arg("--read")
    if read in _CHECKS:
        return _CHECKS[read](ctx, ctx.arg("--url"))
    body = _READS[read](ctx.arg("--url"))
    return {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
