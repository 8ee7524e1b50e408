"""``hashlib``, ``hmac`` and the CRC-32 of ``zlib`` and ``binascii`` computed by the host
(``bench_task.natives``) when a task runs, so what a library hashes runs at native speed
instead of in the sandbox's CPython: botocore's payload SHA-256 and MD5, its CRC32 checksum,
the HMACs of request signing. A task does not import anything for it::

    hashlib.sha256(body).hexdigest()          # the host's SHA-256
    hmac.new(key, msg, hashlib.sha256)        # the host's HMAC-SHA256
    zlib.crc32(body)                          # the host's CRC-32

MD5, SHA-1, SHA-256, SHA-384 and SHA-512 go to the host, every other algorithm (``sha3_*``,
``blake2*``…) stays Python's. While the component is built there is no host to call: the
originals answer then, and what they made then (a module-level hash object) stays theirs.
"""

import binascii
import hashlib
import hmac
import zlib

from .. import natives

_ALGORITHMS = ("md5", "sha1", "sha256", "sha384", "sha512")

# Python's own, for the build and for the algorithms the host does not compute.
_original = {name: getattr(hashlib, name) for name in _ALGORITHMS}
_original_new = hashlib.new
_original_hmac_new = hmac.new
_original_hmac_digest = hmac.digest
_original_zlib_crc32 = zlib.crc32
_original_binascii_crc32 = binascii.crc32

# The digestmod a caller may hand hmac for each algorithm: its name, Python's constructor
# or the one installed here.
_names_of = {constructor: name for name, constructor in _original.items()}

_running = False


def install():
    """Puts the host's hashes into ``hashlib``, ``hmac``, ``zlib`` and ``binascii`` (before
    the task module imports them, so ``from hashlib import sha256`` gets the host's)."""
    for name in _ALGORITHMS:
        constructor = _constructor(name)
        _names_of[constructor] = name
        setattr(hashlib, name, constructor)
    hashlib.new = _new
    hmac.new = _hmac_new
    hmac.digest = _hmac_digest
    zlib.crc32 = _crc32(_original_zlib_crc32)
    binascii.crc32 = _crc32(_original_binascii_crc32)


def start():
    """Called when a task runs: from now on the host computes."""
    global _running  # noqa: PLW0603 (once per instance)
    _running = True


def _constructor(name):
    original = _original[name]

    def construct(*args, **kwargs):
        if not _running:
            return original(*args, **kwargs)
        hash = natives.create_hash(name)
        data = args[0] if args else kwargs.get("data", kwargs.get("string"))
        if data is not None:
            hash.update(data)
        return hash

    construct.__name__ = construct.__qualname__ = name
    construct.__doc__ = f"A {name} hash computed by the bench host (hashlib.{name}'s arguments)."
    return construct


def _new(name, *args, **kwargs):
    """``hashlib.new``: the host's hash for the algorithms it computes, else Python's."""
    algorithm = name.lower() if isinstance(name, str) else None
    if not _running or algorithm not in _ALGORITHMS:
        return _original_new(name, *args, **kwargs)
    return getattr(hashlib, algorithm)(*args, **kwargs)


def _algorithm_of(digestmod):
    """The host's name of an hmac ``digestmod`` (a name or a constructor), or None."""
    if isinstance(digestmod, str):
        name = digestmod.lower()
        return name if name in _ALGORITHMS else None
    try:
        return _names_of.get(digestmod)
    except TypeError:  # unhashable
        return None


def _hmac_new(key, msg=None, digestmod=""):
    """``hmac.new``: the host's HMAC for the algorithms it computes, else Python's."""
    algorithm = _algorithm_of(digestmod) if _running else None
    if algorithm is None:
        return _original_hmac_new(key, msg, digestmod)
    mac = natives.create_hmac(algorithm, key)
    if msg is not None:
        mac.update(msg)
    return mac


def _hmac_digest(key, msg, digest):
    """``hmac.digest``: as ``_hmac_new``, in one call."""
    algorithm = _algorithm_of(digest) if _running else None
    if algorithm is None:
        return _original_hmac_digest(key, msg, digest)
    return natives.create_hmac(algorithm, key).update(msg).digest()


def _crc32(original):
    def crc32(data, value=0, /):
        if not _running:
            return original(data, value)
        return natives.crc32(data, value)

    crc32.__doc__ = "CRC-32 of data continuing from value, computed by the bench host."
    return crc32
