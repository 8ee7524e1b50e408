"""Test task: computes known vectors through ``bench_task.natives`` (hashes, HMAC, CRCs,
base64, hex, gzip, AES-GCM) and reports them."""

from bench_task import natives, task

CONFIG = {
    "benchmarkSlug": "guest-python-natives",
    "benchmarkName": "Python natives",
    "participants": [{"name": "p", "requiredEnvVars": []}],
    "iterations": 1,
}


def _raised(call):
    try:
        call()
    except natives.NativeError as error:
        return {"type": type(error).__name__, "reason": error.reason, "message": str(error)}
    return None


@task(CONFIG)
def run(ctx):
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
        "errors": {
            "hex": _raised(lambda: natives.hex_decode("zz")),
            "key": _raised(lambda: natives.aes_encrypt("AES-CBC", b"abc", bytes(16), b"x")),
            "random": _raised(lambda: natives.random_bytes(1 << 30)),
        },
    }
