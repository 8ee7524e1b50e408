"""The ``ssl`` module of a task: the sandbox's Python has no OpenSSL, and needs none, since
the host makes every TLS connection (HTTPS goes through wasi:http, verified against the
host's roots). This stand-in carries what libraries touch when they import and configure
``ssl`` (``SSLContext`` and its settings, the constants, enums and exceptions) so that
``urllib3``, ``requests``, ``httpx`` and ``botocore`` import and build their contexts; what
would make a TLS connection in the guest (``wrap_socket``, ``wrap_bio``) raises ``SSLError``
saying so. Installed as ``sys.modules["ssl"]`` only when the real module cannot be imported.
"""

import enum
import os
from collections import namedtuple

_NO_GUEST_TLS = (
    "bench: TLS connections are made by the host, not in the sandbox: send HTTPS through "
    "wasi:http (requests, urllib3, httpx, boto3 and bench_task.http do)"
)

OPENSSL_VERSION = "bench host TLS (the sandbox has no OpenSSL)"
OPENSSL_VERSION_INFO = (3, 0, 0, 0, 0)
OPENSSL_VERSION_NUMBER = 0x30000000
_OPENSSL_API_VERSION = OPENSSL_VERSION_INFO
_DEFAULT_CIPHERS = "DEFAULT"

HAS_SNI = HAS_ALPN = HAS_ECDH = HAS_NEVER_CHECK_COMMON_NAME = True
HAS_TLSv1_2 = HAS_TLSv1_3 = True
HAS_NPN = HAS_SSLv2 = HAS_SSLv3 = HAS_TLSv1 = HAS_TLSv1_1 = HAS_PSK = HAS_PHA = False
CHANNEL_BINDING_TYPES = ["tls-unique"]

SSL_ERROR_ZERO_RETURN = 6
SSL_ERROR_WANT_READ = 2
SSL_ERROR_WANT_WRITE = 3
SSL_ERROR_WANT_X509_LOOKUP = 4
SSL_ERROR_SYSCALL = 5
SSL_ERROR_SSL = 1
SSL_ERROR_WANT_CONNECT = 7
SSL_ERROR_EOF = 8
SSL_ERROR_INVALID_ERROR_CODE = 10


class _SSLMethod(enum.IntEnum):
    PROTOCOL_SSLv23 = 2
    PROTOCOL_TLS = 2
    PROTOCOL_TLSv1 = 3
    PROTOCOL_TLSv1_1 = 4
    PROTOCOL_TLSv1_2 = 5
    PROTOCOL_TLS_CLIENT = 16
    PROTOCOL_TLS_SERVER = 17


class Options(enum.IntFlag):
    OP_ALL = 0x80000050
    OP_NO_SSLv2 = 0
    OP_NO_SSLv3 = 0x2000000
    OP_NO_TLSv1 = 0x4000000
    OP_NO_TLSv1_1 = 0x10000000
    OP_NO_TLSv1_2 = 0x8000000
    OP_NO_TLSv1_3 = 0x20000000
    OP_NO_COMPRESSION = 0x20000
    OP_NO_TICKET = 0x4000
    OP_NO_RENEGOTIATION = 0x40000000
    OP_CIPHER_SERVER_PREFERENCE = 0x400000
    OP_SINGLE_DH_USE = 0
    OP_SINGLE_ECDH_USE = 0
    OP_ENABLE_MIDDLEBOX_COMPAT = 0x100000
    OP_IGNORE_UNEXPECTED_EOF = 0x80
    OP_LEGACY_SERVER_CONNECT = 0x4
    OP_ENABLE_KTLS = 0x8


class VerifyMode(enum.IntEnum):
    CERT_NONE = 0
    CERT_OPTIONAL = 1
    CERT_REQUIRED = 2


class VerifyFlags(enum.IntFlag):
    VERIFY_DEFAULT = 0
    VERIFY_CRL_CHECK_LEAF = 0x4
    VERIFY_CRL_CHECK_CHAIN = 0xC
    VERIFY_X509_STRICT = 0x20
    VERIFY_ALLOW_PROXY_CERTS = 0x40
    VERIFY_X509_TRUSTED_FIRST = 0x8000
    VERIFY_X509_PARTIAL_CHAIN = 0x80000


class TLSVersion(enum.IntEnum):
    MINIMUM_SUPPORTED = -2
    MAXIMUM_SUPPORTED = -1
    SSLv3 = 0x300
    TLSv1 = 0x301
    TLSv1_1 = 0x302
    TLSv1_2 = 0x303
    TLSv1_3 = 0x304


class AlertDescription(enum.IntEnum):
    ALERT_DESCRIPTION_CLOSE_NOTIFY = 0
    ALERT_DESCRIPTION_HANDSHAKE_FAILURE = 40
    ALERT_DESCRIPTION_INTERNAL_ERROR = 80


class SSLErrorNumber(enum.IntEnum):
    SSL_ERROR_SSL = SSL_ERROR_SSL
    SSL_ERROR_WANT_READ = SSL_ERROR_WANT_READ
    SSL_ERROR_WANT_WRITE = SSL_ERROR_WANT_WRITE
    SSL_ERROR_SYSCALL = SSL_ERROR_SYSCALL
    SSL_ERROR_ZERO_RETURN = SSL_ERROR_ZERO_RETURN
    SSL_ERROR_EOF = SSL_ERROR_EOF


globals().update(_SSLMethod.__members__)
globals().update(Options.__members__)
globals().update(VerifyMode.__members__)
globals().update(VerifyFlags.__members__)
globals().update(AlertDescription.__members__)


class SSLError(OSError):
    """A TLS failure (in the sandbox: an attempt at TLS in the guest)."""

    library = None
    reason = None


class SSLZeroReturnError(SSLError):
    pass


class SSLWantReadError(SSLError):
    pass


class SSLWantWriteError(SSLError):
    pass


class SSLSyscallError(SSLError):
    pass


class SSLEOFError(SSLError):
    pass


class SSLCertVerificationError(SSLError, ValueError):
    verify_code = None
    verify_message = None


CertificateError = SSLCertVerificationError

_ASN1Object = namedtuple("_ASN1Object", "nid shortname longname oid")


class Purpose(_ASN1Object, enum.Enum):
    """What a context's certificates are for."""

    SERVER_AUTH = (129, "serverAuth", "TLS Web Server Authentication", "1.3.6.1.5.5.7.3.1")
    CLIENT_AUTH = (130, "clientAuth", "TLS Web Client Authentication", "1.3.6.1.5.5.7.3.2")


DefaultVerifyPaths = namedtuple(
    "DefaultVerifyPaths", "cafile capath openssl_cafile_env openssl_cafile openssl_capath_env openssl_capath"
)


def get_default_verify_paths():
    """No certificate files in the sandbox: the host verifies."""
    return DefaultVerifyPaths(None, None, "SSL_CERT_FILE", "", "SSL_CERT_DIR", "")


class SSLContext:
    """A TLS configuration. Its settings are kept (libraries read them back) but not used:
    the host makes the connection and verifies it."""

    sslsocket_class = None
    sslobject_class = None

    def __init__(self, protocol=PROTOCOL_TLS_CLIENT, *args, **kwargs):
        self.protocol = _SSLMethod(protocol)
        self.options = Options.OP_ALL | Options.OP_NO_SSLv3
        client = self.protocol == PROTOCOL_TLS_CLIENT
        self.verify_mode = VerifyMode.CERT_REQUIRED if client else VerifyMode.CERT_NONE
        self.check_hostname = client
        self.verify_flags = VerifyFlags.VERIFY_X509_TRUSTED_FIRST
        self.minimum_version = TLSVersion.MINIMUM_SUPPORTED
        self.maximum_version = TLSVersion.MAXIMUM_SUPPORTED
        self.hostname_checks_common_name = False
        self.post_handshake_auth = None
        self.keylog_filename = None
        self.sni_callback = None
        self.security_level = 2
        self.num_tickets = 2

    def load_verify_locations(self, cafile=None, capath=None, cadata=None):
        """Accepted and not used: the host verifies against its roots."""

    def load_default_certs(self, purpose=Purpose.SERVER_AUTH):
        """Accepted and not used: the host verifies against its roots."""

    def set_default_verify_paths(self):
        """Accepted and not used."""

    def load_cert_chain(self, certfile, keyfile=None, password=None):
        """Accepted and not used: the host sends no client certificate."""

    def set_ciphers(self, ciphers):
        """Accepted and not used: the host chooses the ciphers."""

    def get_ciphers(self):
        return []

    def set_alpn_protocols(self, protocols):
        """Accepted and not used."""

    def set_npn_protocols(self, protocols):
        """Accepted and not used."""

    def set_ecdh_curve(self, name):
        """Accepted and not used."""

    def set_servername_callback(self, callback):
        self.sni_callback = callback

    def cert_store_stats(self):
        return {"x509": 0, "crl": 0, "x509_ca": 0}

    def get_ca_certs(self, binary_form=False):
        return []

    def session_stats(self):
        return {}

    def wrap_socket(self, sock, *args, **kwargs):
        raise SSLError(_NO_GUEST_TLS)

    def wrap_bio(self, incoming, outgoing, *args, **kwargs):
        raise SSLError(_NO_GUEST_TLS)


def create_default_context(purpose=Purpose.SERVER_AUTH, *, cafile=None, capath=None, cadata=None):
    """A client context as ``ssl.create_default_context`` makes it."""
    return SSLContext(PROTOCOL_TLS_CLIENT if purpose == Purpose.SERVER_AUTH else PROTOCOL_TLS_SERVER)


def _create_unverified_context(*args, **kwargs):
    context = SSLContext(PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = CERT_NONE
    return context


_create_default_https_context = create_default_context
_create_stdlib_context = _create_unverified_context


class _NoGuestTls:
    """A TLS object of the guest, which the sandbox cannot make."""

    def __init__(self, *args, **kwargs):
        raise SSLError(_NO_GUEST_TLS)


class SSLSocket(_NoGuestTls):
    pass


class SSLObject(_NoGuestTls):
    pass


class SSLSession(_NoGuestTls):
    pass


class MemoryBIO(_NoGuestTls):
    pass


def wrap_socket(sock, *args, **kwargs):
    raise SSLError(_NO_GUEST_TLS)


def RAND_bytes(n):  # noqa: N802 (the ssl module's name)
    return os.urandom(n)


def RAND_status():  # noqa: N802 (the ssl module's name)
    return True


def RAND_add(data, entropy):  # noqa: N802 (the ssl module's name)
    """Accepted and not used."""


def get_server_certificate(addr, *args, **kwargs):
    raise SSLError(_NO_GUEST_TLS)
