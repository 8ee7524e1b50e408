"""Primitives the bench host computes at native speed (the ``bench:task/natives``
interface) instead of Python code in the guest: hashes and HMACs, CRC-32/CRC-32C, base64 and
hex, random bytes, gzip/deflate and AES::

    from bench_task import natives

    natives.create_hash("sha256").update(b"abc").hexdigest()
    natives.crc32(b"123456789")
    natives.decompress("gzip", natives.compress("gzip", b"data"))

Bytes arguments take any bytes-like object (``bytes``, ``bytearray``, ``memoryview``…). Every call is bounded by the
host (each input at most 64 MiB, each output that can grow at most 64 MiB, at most 1024 live
hashers and 32 live streams per sandbox). Failures raise a ``NativeError``:
``InvalidArgument`` and ``InvalidData`` (both also ``ValueError``s) or ``LimitExceeded``
(also an ``OverflowError``).
"""

from componentize_py_types import Err
from wit_world.imports import natives as _host

_HASHES = {
    "md5": _host.HashAlgorithm.MD5,
    "sha1": _host.HashAlgorithm.SHA1,
    "sha256": _host.HashAlgorithm.SHA256,
    "sha384": _host.HashAlgorithm.SHA384,
    "sha512": _host.HashAlgorithm.SHA512,
}
_FORMATS = {
    "gzip": _host.CompressionFormat.GZIP,
    "deflate": _host.CompressionFormat.DEFLATE,
    "deflate-raw": _host.CompressionFormat.DEFLATE_RAW,
}
_AES_MODES = {
    "AES-GCM": _host.AesMode.GCM,
    "AES-CBC": _host.AesMode.CBC,
    "AES-CTR": _host.AesMode.CTR,
}
_DIGEST_SIZES = {"md5": 16, "sha1": 20, "sha256": 32, "sha384": 48, "sha512": 64}
_BLOCK_SIZES = {"md5": 64, "sha1": 64, "sha256": 64, "sha384": 128, "sha512": 128}

# Inputs up to this size wait in the hash object, so a short hash is one host call.
_PENDING_BYTES = 64 * 1024


class NativeError(Exception):
    """A native call the host refused; ``reason`` is ``invalid-argument``, ``invalid-data``
    or ``limit``."""

    reason = ""


class InvalidArgument(NativeError, ValueError):
    """An argument the function does not take."""

    reason = "invalid-argument"


class InvalidData(NativeError, ValueError):
    """Data that cannot be decoded, decompressed or authenticated."""

    reason = "invalid-data"


class LimitExceeded(NativeError, OverflowError):
    """An input, an output or the number of live objects past the host's bound."""

    reason = "limit"


_ERRORS = {
    _host.NativeError_InvalidArgument: InvalidArgument,
    _host.NativeError_InvalidData: InvalidData,
    _host.NativeError_Limit: LimitExceeded,
}


def _call(function, *args):
    try:
        return function(*args)
    except Err as error:
        kind = _ERRORS.get(type(error.value))
        if kind is None:
            raise
        raise kind(error.value.value) from None


def _bytes(value, what="data"):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        raise TypeError(f"{what} must be bytes-like, not str (encode it first)")
    try:
        return bytes(memoryview(value))
    except TypeError:
        raise TypeError(f"{what} must be bytes-like: bytes, bytearray, memoryview (got {type(value).__name__})") from None


def _hash_name(algorithm):
    name = algorithm.lower().replace("-", "") if isinstance(algorithm, str) else ""
    if name not in _HASHES:
        raise ValueError(f"unsupported hash algorithm {algorithm!r} (natives hash md5, sha1, sha256, sha384 and sha512)")
    return name


class Hash:
    """An incremental hash or HMAC shaped like hashlib's and hmac's objects: ``update``,
    ``digest`` and ``hexdigest`` (any number of times), ``copy``, ``name``, ``digest_size``,
    ``block_size``. ``update`` also returns the hash, so calls chain."""

    def __init__(self, algorithm, key):
        self._algorithm = algorithm
        self._key = key
        self.name = algorithm if key is None else f"hmac-{algorithm}"
        self.digest_size = _DIGEST_SIZES[algorithm]
        self.block_size = _BLOCK_SIZES[algorithm]
        self._hasher = None
        self._pending = bytearray()

    def update(self, data):
        """Feeds ``data``."""
        data = _bytes(data)
        if self._hasher is None and len(self._pending) + len(data) <= _PENDING_BYTES:
            self._pending += data
        else:
            _call(self._start().update, data)
        return self

    def digest(self):
        """The digest of what was fed so far, as bytes."""
        if self._hasher is None:
            return _call(_host.digest, _HASHES[self._algorithm], self._key, bytes(self._pending))
        with _call(self._hasher.copy) as ending:
            return _call(ending.finish)

    def hexdigest(self):
        """The digest as lowercase hex."""
        return self.digest().hex()

    def copy(self):
        """A hash in this one's state."""
        copy = Hash(self._algorithm, self._key)
        if self._hasher is not None:
            copy._hasher = _call(self._hasher.copy)
        else:
            copy._pending = bytearray(self._pending)
        return copy

    def __del__(self):
        # Releases the host's hasher now rather than whenever the binding's object goes.
        hasher, self._hasher = getattr(self, "_hasher", None), None
        if hasher is not None:
            hasher.__exit__(None, None, None)

    def _start(self):
        if self._hasher is None:
            self._hasher = _call(_host.Hasher.create, _HASHES[self._algorithm], self._key)
            pending, self._pending = bytes(self._pending), bytearray()
            if pending:
                _call(self._hasher.update, pending)
        return self._hasher


def create_hash(algorithm):
    """A hash of ``md5``, ``sha1``, ``sha256``, ``sha384`` or ``sha512`` (``SHA-256`` and
    other cases too)."""
    return Hash(_hash_name(algorithm), None)


def create_hmac(algorithm, key):
    """An HMAC of one of those hashes under ``key`` (bytes of any length)."""
    return Hash(_hash_name(algorithm), _bytes(key, "key"))


# The body the host read whole last and the CRC-32 it computed as it read: the CRC-32 of
# that very object from 0 (botocore's check of a response's ``x-amz-checksum-crc32``) is
# answered without handing the body back to the host. Held until the next CRC-32, the next
# whole read or the end of the task, whichever comes first.
_known_crc32 = None


def remember_crc32(body, crc):
    """Remembers that ``body`` (a bytes object the host read whole) has CRC-32 ``crc``
    (the SDK's whole reads call this)."""
    global _known_crc32  # noqa: PLW0603 (the one remembered body)
    _known_crc32 = (body, crc)


def forget_crc32():
    """Lets the remembered body go (before a whole read and at the end of a task)."""
    global _known_crc32  # noqa: PLW0603 (the one remembered body)
    _known_crc32 = None


def crc32(data, previous=0):
    """CRC-32 (zlib's) of ``data``, continuing from ``previous``; that of a body the host
    has just read whole, from 0, is the one the host computed as it read."""
    global _known_crc32  # noqa: PLW0603 (the one remembered body)
    known, _known_crc32 = _known_crc32, None
    previous &= 0xFFFFFFFF
    if known is not None and known[0] is data and previous == 0:
        return known[1]
    return _call(_host.crc32, _bytes(data), previous)


def crc32c(data, previous=0):
    """CRC-32C (Castagnoli) of ``data``, continuing from ``previous``."""
    return _call(_host.crc32c, _bytes(data), previous & 0xFFFFFFFF)


def random_bytes(n):
    """``n`` cryptographically secure random bytes."""
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 0xFFFFFFFF:
        raise ValueError(f"random_bytes takes a whole number of bytes (got {n!r})")
    return _call(_host.random_bytes, n)


def base64_encode(data, url_safe=False):
    """Base64 text of ``data``: standard with padding, or URL-safe without."""
    return _call(_host.base64_encode, _bytes(data), bool(url_safe))


def base64_decode(text):
    """The bytes of base64 text in either alphabet, padded or not, whitespace ignored."""
    if not isinstance(text, str):
        raise TypeError("base64_decode takes a str")
    return _call(_host.base64_decode, text)


def hex_encode(data):
    """Lowercase hex of ``data``."""
    return _call(_host.hex_encode, _bytes(data))


def hex_decode(text):
    """The bytes of hex text (an even number of digits, either case)."""
    if not isinstance(text, str):
        raise TypeError("hex_decode takes a str")
    return _call(_host.hex_decode, text)


def _format(format):
    if format not in _FORMATS:
        raise ValueError(f"unsupported compression format {format!r} (natives compress gzip, deflate and deflate-raw)")
    return _FORMATS[format]


def _level(level):
    if level is None or level == -1:
        return None
    if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 9:
        raise ValueError(f"the compression level must be 0 to 9, or -1 for the default (got {level!r})")
    return level


def compress(format, data, level=None):
    """``data`` compressed as ``gzip``, ``deflate`` (zlib) or ``deflate-raw`` at ``level``
    0–9 (6 by default)."""
    return _call(_host.compress, _format(format), _bytes(data), _level(level))


def decompress(format, data):
    """``data`` decompressed (the whole stream; more than 64 MiB of output raises
    ``LimitExceeded``)."""
    return _call(_host.decompress, _format(format), _bytes(data))


class Stream:
    """A (de)compression stream: ``push`` and ``flush`` return the output so far,
    ``finish`` the rest; ``close`` releases it unfinished. Usable as a context manager."""

    def __init__(self, stream):
        self._stream = stream

    def push(self, data):
        """Feeds ``data``; returns the output ready so far."""
        return _call(self._live().push, _bytes(data))

    def flush(self):
        """Returns all output so far, ending on a byte boundary (compression only)."""
        stream = self._live()
        return _call(stream.flush) if hasattr(stream, "flush") else b""

    def finish(self):
        """Ends the stream; returns the rest of the output."""
        stream, self._stream = self._live(), None
        with stream:
            return _call(stream.finish)

    def close(self):
        """Releases the host stream without finishing it."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            stream.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if self._stream is None:
            raise ValueError("the stream has ended")
        return self._stream


def create_compressor(format, level=None):
    """An incremental compression stream (as ``compress``)."""
    return Stream(_call(_host.Compressor.create, _format(format), _level(level)))


def create_decompressor(format):
    """An incremental decompression stream (as ``decompress``)."""
    return Stream(_call(_host.Decompressor.create, _format(format)))


def _aes(function, mode, key, iv, data, additional_data, tag_length, length):
    if mode not in _AES_MODES:
        raise ValueError(f"unsupported AES mode {mode!r} (natives do AES-GCM, AES-CBC and AES-CTR)")
    options = _host.AesOptions(
        additional_data=None if additional_data is None else _bytes(additional_data, "additional_data"),
        tag_length=tag_length,
        counter_length=length,
    )
    return _call(function, _AES_MODES[mode], _bytes(key, "key"), _bytes(iv, "iv"), _bytes(data), options)


def aes_encrypt(mode, key, iv, data, additional_data=None, tag_length=None, length=None):
    """``data`` encrypted with AES in ``mode`` (``AES-GCM``, ``AES-CBC`` or ``AES-CTR``) under
    ``key`` (16, 24 or 32 bytes) and ``iv`` (GCM: 12 or 16 bytes, tag appended; CBC: 16,
    PKCS#7 padding; CTR: the counter block, ``length`` its counter bits)."""
    return _aes(_host.aes_encrypt, mode, key, iv, data, additional_data, tag_length, length)


def aes_decrypt(mode, key, iv, data, additional_data=None, tag_length=None, length=None):
    """``data`` decrypted as ``aes_encrypt`` made it (a GCM tag that does not verify raises
    ``InvalidData``)."""
    return _aes(_host.aes_decrypt, mode, key, iv, data, additional_data, tag_length, length)
