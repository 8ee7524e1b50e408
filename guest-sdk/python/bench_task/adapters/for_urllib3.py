"""urllib3 v2 (and so ``requests``) over wasi:http: connection classes that send each
request through the host instead of a socket, put in place of urllib3's own as its
Emscripten support does. Responses are urllib3's own ``HTTPResponse`` reading the body from
the host, so streaming, decoding and content-length checks behave as usual."""

import io
from http.client import ResponseNotReady

import urllib3.connection
import urllib3.connectionpool
from urllib3.connection import port_by_scheme
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.response import HTTPResponse
from urllib3._collections import HTTPHeaderDict
from urllib3.util.timeout import Timeout

from .. import transport

_CHUNK = 1 << 20


class BodyReader(io.RawIOBase):
    """A response body as the raw file urllib3's ``HTTPResponse`` reads from."""

    def __init__(self, response):
        super().__init__()
        self._response = response

    def readable(self):
        return True

    def read(self, size=-1):
        if size is None or size < 0:
            return self.readall()
        return self._response.read(size) if size else b""

    read1 = read

    def readall(self):
        return self._response.read_all()

    def readinto(self, buffer):
        chunk = self._response.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)

    def isclosed(self):
        return self._response.closed

    def close(self):
        self._response.close()
        super().close()


class _Headers:
    """The ``msg`` of the original response, which ``requests`` reads cookies from."""

    def __init__(self, pairs):
        self._pairs = pairs

    def get_all(self, name, default=None):
        name = name.lower()
        values = [value for key, value in self._pairs if key.lower() == name]
        return values or default


class _Original:
    """What ``requests`` and urllib3 read of http.client's response: ``msg`` and
    ``isclosed``."""

    def __init__(self, pairs, body):
        self.msg = _Headers(pairs)
        self._body = body

    def isclosed(self):
        return self._body.isclosed()


class WasiHTTPConnection:
    """An urllib3 connection whose requests go through wasi:http: ``request`` hands the
    request and its body to the host, ``getresponse`` waits for the answer. The host keeps
    its connections alive between requests."""

    default_port = port_by_scheme["http"]
    default_socket_options = []
    scheme = "http"
    is_verified = False
    proxy_is_verified = None

    def __init__(self, host, port=None, *, timeout=Timeout.DEFAULT_TIMEOUT, **_options):
        self.host = host
        self.port = port
        self.timeout = timeout
        self.proxy = None
        self.proxy_config = None
        self.sock = None
        self._exchange = None
        self._request = None
        self._response_options = None
        self._closed = True

    def __repr__(self):
        return f"{type(self).__name__}({self.scheme}://{self.host}:{self.port or self.default_port})"

    def set_tunnel(self, host, port=None, headers=None, scheme="http"):
        """Proxies are not supported: the host sends requests to their destination."""
        raise NotImplementedError("bench sends requests directly: proxies are not supported")

    def connect(self):
        """Nothing to do: the host connects when the request is sent."""

    def request(
        self,
        method,
        url,
        body=None,
        headers=None,
        *,
        chunked=False,
        preload_content=True,
        decode_content=True,
        enforce_content_length=True,
    ):
        """Sends the request line, headers and body to the host."""
        if not url.startswith(("http://", "https://")):
            port = f":{self.port}" if self.port else ""
            url = f"{self.scheme}://{self.host}{port}{url}"
        pairs = list((headers or {}).items())
        data = _body_chunks(body)
        if not chunked and isinstance(body, (bytes, str)) and not _has(pairs, "content-length"):
            pairs.append(("Content-Length", str(len(body.encode("utf-8") if isinstance(body, str) else body))))
        if not _has(pairs, "user-agent"):
            pairs.append(("User-Agent", urllib3.connection._get_default_user_agent()))
        self._closed = False
        self._request = transport.Request(method, url, pairs, _seconds(self.timeout))
        self._response_options = (method, url, preload_content, decode_content, enforce_content_length)
        exchange = transport.Exchange(self._request)
        self._exchange = exchange
        try:
            exchange.start()
            for chunk in data:
                transport.wait(exchange.write(chunk))
            transport.wait(exchange.finish_body())
        except transport.HttpError as error:
            self._exchange = None
            exchange.close()
            raise _connect_error(self, error) from None
        except BaseException:
            self._exchange = None
            exchange.close()
            raise

    def getresponse(self):
        """Waits for the response head and returns urllib3's ``HTTPResponse`` over it."""
        exchange, self._exchange = self._exchange, None
        if exchange is None:
            raise ResponseNotReady()
        method, url, preload_content, decode_content, enforce_content_length = self._response_options
        read_timeout = _seconds(self.timeout)
        try:
            response = transport.wait(exchange.response(read_timeout))
        except transport.HttpTimeout as error:
            if error.code == "connection_timeout":
                raise ConnectTimeoutError(self, str(error)) from None
            raise
        except transport.HttpError as error:
            if error.code in transport.CONNECT_CODES:
                raise _connect_error(self, error) from None
            raise
        response.read_timeout = read_timeout
        body = BodyReader(response)
        return HTTPResponse(
            body=body,
            headers=HTTPHeaderDict(response.headers),
            status=response.status,
            version=11,
            version_string="HTTP/1.1",
            reason=None,
            preload_content=preload_content,
            decode_content=decode_content,
            original_response=_Original(response.headers, body),
            enforce_content_length=enforce_content_length,
            request_method=method,
            request_url=url,
        )

    def close(self):
        """Gives up the request in flight, if any."""
        if self._exchange is not None:
            self._exchange.close()
            self._exchange = None
        self._closed = True

    @property
    def is_closed(self):
        return self._closed

    @property
    def is_connected(self):
        return True

    @property
    def has_connected_to_proxy(self):
        return False

    @property
    def proxy_is_forwarding(self):
        return False

    @property
    def proxy_is_tunneling(self):
        return False


class WasiHTTPSConnection(WasiHTTPConnection):
    """HTTPS through wasi:http: the host makes the TLS connection and verifies the
    certificate against the system's roots; the ssl options a task passes are not used."""

    default_port = port_by_scheme["https"]
    scheme = "https"
    is_verified = True
    cert_reqs = None
    ca_certs = None
    ca_cert_dir = None
    ca_cert_data = None
    ssl_version = None
    ssl_minimum_version = None
    ssl_maximum_version = None
    assert_fingerprint = None

    def set_cert(self, *args, **kwargs):
        """Certificates are the host's."""


def _has(pairs, name):
    return any(str(key).lower() == name for key, _ in pairs)


def _seconds(timeout):
    if timeout is Timeout.DEFAULT_TIMEOUT or timeout is None:
        return None
    return float(timeout)


def _body_chunks(body):
    """The request body as chunks of bytes, whatever urllib3 was given."""
    if body is None:
        return ()
    if isinstance(body, str):
        return (body.encode("utf-8"),)
    if isinstance(body, (bytes, bytearray, memoryview)):
        return (bytes(body),)
    if hasattr(body, "read"):
        return _file_chunks(body)
    return (chunk.encode("utf-8") if isinstance(chunk, str) else bytes(chunk) for chunk in body)


def _file_chunks(file):
    while chunk := file.read(_CHUNK):
        yield chunk.encode("utf-8") if isinstance(chunk, str) else chunk


def _connect_error(connection, error):
    return NewConnectionError(connection, str(error))


def install():
    """Makes every urllib3 pool use the wasi:http connections."""
    urllib3.connectionpool.HTTPConnectionPool.ConnectionCls = WasiHTTPConnection
    urllib3.connectionpool.HTTPSConnectionPool.ConnectionCls = WasiHTTPSConnection
    urllib3.connection.HTTPConnection = WasiHTTPConnection
    urllib3.connection.HTTPSConnection = WasiHTTPSConnection
    urllib3.connection.VerifiedHTTPSConnection = WasiHTTPSConnection
