"""Test task: computes known vectors through ``bench_task.natives`` (hashes, HMAC, CRCs,
base64, hex, gzip, AES-GCM) and through ``hashlib``/``hmac``/``zlib`` (which the SDK points at
the host) and reports them; with ``--digest-mib <n>`` it instead times
steps over n MiB: ``sha256``/``crc32`` through the natives and ``hashlib-sha256``/
``zlib-crc32`` through the standard library (scripts/bench-natives.sh)."""

import hashlib
import hmac as stdlib_hmac
import zlib

from bench_task import natives, task

CONFIG = {
    "benchmarkSlug": "guest-python-natives",
    "benchmarkName": "Python natives",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
    "customCliFlags": ["--digest-mib"],
}

_payload = {}


def _digest_steps(ctx, mib):
    """Steps hashing and checksumming ``mib`` MiB, made once per instance."""
    if mib not in _payload:
        data = bytearray(mib << 20)
        data[::4096] = bytes(i % 256 for i in range(len(data) // 4096))
        _payload[mib] = bytes(data)
    data = _payload[mib]
    return {
        "sha256": ctx.step("sha256", lambda: natives.create_hash("sha256").update(data).hexdigest()),
        "crc32": ctx.step("crc32", lambda: natives.crc32(data)),
        "hashlibSha256": ctx.step("hashlib-sha256", lambda: hashlib.sha256(data).hexdigest()),
        "zlibCrc32": ctx.step("zlib-crc32", lambda: zlib.crc32(data)),
    }


def _raised(call):
    try:
        call()
    except natives.NativeError as error:
        return {"type": type(error).__name__, "reason": error.reason, "message": str(error)}
    return None


@task(CONFIG)
def run(ctx):
    mib = int(ctx.arg("--digest-mib") or 0)
    if mib > 0:
        return _digest_steps(ctx, mib)
    million = natives.create_hash("sha256")
    for _ in range(10):
        million.update(b"a" * 100_000)
    hmac = natives.create_hmac("sha256", b"Jefe").update(b"what do ya ")
    copy = hmac.copy()
    hmac.update(b"want for nothing?")
    body = b"natives " * 1000
    gzip = natives.compress("gzip", body, 9)
    with natives.create_decompressor("gzip") as stream:
        streamed = stream.push(gzip[:100]) + stream.push(gzip[100:]) + stream.finish()
    key = bytes.fromhex("feffe9928665731c6d6a8f9467308308")
    iv = bytes.fromhex("cafebabefacedbaddecaf888")
    sealed = natives.aes_encrypt("AES-GCM", key, iv, b"natives")
    return {
        **{name: natives.create_hash(name).update(b"abc").hexdigest() for name in ("md5", "sha1", "sha256", "sha384", "sha512")},
        "sha256MillionA": million.hexdigest(),
        "hmacSha256": hmac.hexdigest(),
        "hmacCopy": copy.hexdigest(),
        "crc32": natives.crc32(memoryview(b"__123456789__")[2:11]),
        "crc32Continued": natives.crc32(b"6789", natives.crc32(b"12345")),
        "crc32c": natives.crc32c(bytearray(b"123456789")),
        "base64": natives.base64_encode(bytes([0xFB, 0xFF, 0xBF])),
        "base64Url": natives.base64_encode(bytes([0xFB, 0xFF, 0xBF]), url_safe=True),
        "base64Decoded": natives.base64_decode("+/+/").hex(),
        "gzipMagic": gzip[:2].hex(),
        "gunzipped": natives.decompress("gzip", gzip) == body and streamed == body,
        "aesGcmRoundTrip": natives.aes_decrypt("AES-GCM", key, iv, sealed).decode(),
        "randomLength": len(natives.random_bytes(16)),
        "standardLibrary": {
            "sha256": hashlib.sha256(b"abc").hexdigest(),
            "newSha1": hashlib.new("SHA1", b"abc").hexdigest(),
            "hmacSha256": stdlib_hmac.new(b"Jefe", b"what do ya want for nothing?", hashlib.sha256).hexdigest(),
            "crc32": zlib.crc32(b"6789", zlib.crc32(b"12345")),
            "onTheHost": [type(made).__module__ for made in (hashlib.sha256(), hashlib.md5(), stdlib_hmac.new(b"k", digestmod="sha512"))],
            "blake2bStaysPython": type(hashlib.blake2b()).__module__ != natives.__name__,
        },
        "errors": {
            "hex": _raised(lambda: natives.hex_decode("zz")),
            "key": _raised(lambda: natives.aes_encrypt("AES-CBC", b"abc", bytes(16), b"x")),
            "random": _raised(lambda: natives.random_bytes(1 << 30)),
        },
    }
