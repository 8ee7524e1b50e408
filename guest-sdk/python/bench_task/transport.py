"""One HTTP exchange over wasi:http, the way every HTTP client of the SDK sends: the helper
``bench_task.http`` and the adapters that carry ``urllib3``/``requests``, ``httpx`` and
``botocore`` over it. The host makes the connection (and the TLS) and allows only the hosts
the benchmark config or ``--allow-host`` lists.

Waiting is written once, as generators that yield the list of pollables they wait on (any
one ready will do; the generator owns them): ``wait`` blocks on them, the asyncio loop of
``bench_task.adapters.aio`` awaits them. Every resource
(request, body streams, response) is dropped as soon as it is done with, so one instance
can send any number of requests without its handle table or memory growing.
"""

from urllib.parse import urlsplit

from componentize_py_types import Err, Ok
from wit_world.imports import bodies, monotonic_clock, outgoing_handler, poll, streams
from wit_world.imports import wasi_http_types as types

from . import natives

_NS_PER_S = 1_000_000_000
_MS_PER_S = 1000
# The longest timeout a whole read takes (u32 milliseconds).
_MAX_TIMEOUT_MS = (1 << 32) - 1
# The most one read asks the host for: a whole body of a few MiB is read in a few calls.
_READ_SIZE = 1 << 20

# Codes of the requests that never reached the destination: libraries report them as
# failures to connect (urllib3's NewConnectionError, httpx.ConnectError).
CONNECT_CODES = frozenset(
    {
        "http_request_denied",
        "dns_error",
        "dns_timeout",
        "destination_not_found",
        "destination_unavailable",
        "destination_ip_prohibited",
        "destination_ip_unroutable",
        "connection_refused",
        "connection_terminated",
        "connection_limit_reached",
        "tls_protocol_error",
        "tls_certificate_error",
        "tls_alert_received",
        "http_request_uri_invalid",
    }
)
# Codes of a request that waited too long; connection_timeout is the connect phase.
TIMEOUT_CODES = frozenset({"connection_timeout", "connection_read_timeout", "connection_write_timeout"})

_REASONS = {
    "http_request_denied": "bench denied the request to {origin}: it is not allowed by the benchmark "
    "config's allowedHosts or --allow-host (a private or special address needs a rule naming it)",
    "connection_refused": "{origin} refused the connection",
    "dns_error": "{host} could not be resolved",
    "destination_not_found": "{host} could not be resolved",
    "connection_timeout": "connecting to {origin} timed out",
    "connection_read_timeout": "{origin} sent nothing for longer than the read timeout",
    "tls_certificate_error": "the TLS certificate of {origin} was not accepted by the host",
}


# Headers the host sets itself (the connection's own) and refuses from a guest.
_HOST_HEADERS = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "transfer-encoding",
        "upgrade",
        "host",
        "http2-settings",
    }
)


class HttpError(OSError):
    """A request that failed in the sandbox's HTTP. ``code`` names the wasi:http error in
    snake case (``http_request_denied``, ``connection_refused``…) and becomes the task's
    errorCode; the message says why, in bench's words."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class HttpTimeout(TimeoutError):
    """A request or a body read that waited longer than its timeout (``code`` as in
    ``HttpError``)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def failure(code, origin, detail=None):
    """The exception for a wasi:http error code: ``HttpTimeout`` for the timeouts, else
    ``HttpError``, with bench's reason in its message."""
    host = urlsplit(origin).hostname or origin
    reason = _REASONS.get(code, "{origin}: " + code.replace("_", " ")).format(origin=origin, host=host)
    message = f"HTTP request failed: {code} ({reason}" + (f"; {detail})" if detail else ")")
    return (HttpTimeout if code in TIMEOUT_CODES else HttpError)(code, message)


def wait(steps):
    """Runs a waiting generator to its end, blocking until one of the pollables it yields
    is ready each time; returns what it returns."""
    try:
        pollables = next(steps)
        while True:
            poll.poll(pollables)
            pollables = steps.send(None)
    except StopIteration as done:
        return done.value


def timer(seconds):
    """A pollable ready after ``seconds`` (a monotonic-clock subscription)."""
    return monotonic_clock.subscribe_duration(max(0, int(seconds * _NS_PER_S)))


def ready_within(pollable, seconds, origin):
    """Generator: waits until ``pollable`` is ready, for at most ``seconds`` (None: no
    bound); raises the read timeout after that."""
    if seconds is None:
        yield [pollable]
        return
    with timer(seconds) as expiry:
        while not pollable.ready():
            if expiry.ready():
                raise failure("connection_read_timeout", origin)
            yield [pollable, expiry]


class Request:
    """A request to send: ``method``, absolute ``url``, ``headers`` (pairs of str and
    bytes/str; the connection's own headers, such as ``Host`` and ``Transfer-Encoding``,
    are left to the host) and ``connect_timeout`` in seconds (None: the host's)."""

    def __init__(self, method, url, headers=(), connect_timeout=None):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"not an http(s) URL: {url}")
        self.method = method
        self.parts = parts
        self.origin = f"{parts.scheme}://{parts.netloc}"
        pairs = ((_text(name), _bytes(value)) for name, value in headers)
        self.headers = [(name, value) for name, value in pairs if name.lower() not in _HOST_HEADERS]
        self.connect_timeout = connect_timeout


class Exchange:
    """One request in flight: ``start`` hands it to the host, ``write`` streams the body,
    ``finish_body`` ends it, ``response`` waits for the status and headers."""

    def __init__(self, request):
        self.request = request
        self._future = None
        self._body = None
        self._stream = None
        self.write_failed = False

    def start(self):
        """Hands the request to the host (the body follows through ``write``)."""
        request = self.request
        parts = request.parts
        try:
            outgoing = types.OutgoingRequest(types.Fields.from_list(request.headers))
            outgoing.set_method(_method(request.method))
            outgoing.set_scheme(types.Scheme_Http() if parts.scheme == "http" else types.Scheme_Https())
            outgoing.set_authority(parts.netloc)
            outgoing.set_path_with_query((parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
        except Err as error:
            raise failure("http_request_invalid", request.origin, str(error.value)) from None
        self._body = outgoing.body()
        self._stream = self._body.write()
        try:
            self._future = outgoing_handler.handle(outgoing, _options(request.connect_timeout))
        except Err as error:
            self.close()
            raise _failure(request, error.value) from None

    def write(self, data):
        """Generator: writes ``data`` to the body as fast as the host takes it. A body the
        host no longer takes (the request failed) is dropped; ``response`` says why."""
        view = memoryview(data)
        while view and not self.write_failed:
            try:
                permitted = self._stream.check_write()
                if permitted == 0:
                    with self._stream.subscribe() as pollable:
                        yield [pollable]
                    continue
                self._stream.write(bytes(view[:permitted]))
                view = view[permitted:]
            except Err as error:
                _untraced(error)
                self.write_failed = True

    def finish_body(self):
        """Generator: flushes and ends the body."""
        if not self.write_failed:
            try:
                self._stream.flush()
                while self._stream.check_write() == 0:
                    with self._stream.subscribe() as pollable:
                        yield [pollable]
            except Err as error:
                _untraced(error)
                self.write_failed = True
        self._stream.__exit__(None, None, None)
        self._stream = None
        body, self._body = self._body, None
        try:
            types.OutgoingBody.finish(body, None)
        except Err as error:
            _untraced(error)
            self.write_failed = True

    def response(self, read_timeout=None):
        """Generator: waits for the response head (at most ``read_timeout`` seconds) and
        returns a ``Response``; raises ``HttpError``/``HttpTimeout``."""
        future = self._future
        try:
            with future.subscribe() as pollable:
                yield from ready_within(pollable, read_timeout, self.request.origin)
            result = future.get()
        finally:
            self.close()
        if not isinstance(result, Ok) or not isinstance(result.value, Ok):
            code = result.value.value if isinstance(result, Ok) else None
            raise _failure(self.request, code)
        return Response(result.value.value, self.request.origin, self.request.method)

    def close(self):
        """Drops what the exchange still holds (a request given up on is cancelled)."""
        if self._stream is not None:
            self._stream.__exit__(None, None, None)
            self._stream = None
        if self._body is not None:
            self._body.__exit__(None, None, None)
            self._body = None
        if self._future is not None:
            self._future.__exit__(None, None, None)
            self._future = None


class Response:
    """A response head: ``status``, ``headers`` (pairs of str) and the body to read with
    ``read`` or whole with ``read_all`` (``read_timeout`` bounds each wait for data);
    ``length`` is the body's announced length (None: unknown). ``close`` drops what is
    left."""

    def __init__(self, incoming, origin, method="GET"):
        self.origin = origin
        self.status = incoming.status()
        with incoming.headers() as fields:
            self.headers = [(name, value.decode("latin-1")) for name, value in fields.entries()]
        self.length = _body_length(method, self.status, self.headers)
        self.read_timeout = None
        self._received = 0
        self._incoming = incoming
        self._body = incoming.consume()
        self._stream = self._body.stream()

    @property
    def closed(self):
        """Whether the whole body was read (or the response closed)."""
        return self._stream is None

    def read_step(self, size=_READ_SIZE):
        """Generator: returns the next chunk of at most ``size`` bytes, ``b""`` at the end."""
        while self._stream is not None:
            try:
                chunk = self._stream.read(size)
            except Err as error:
                _untraced(error)
                self.close()
                if isinstance(error.value, streams.StreamError_Closed):
                    return b""
                raise failure("http_response_incomplete", self.origin) from None
            if chunk:
                self._received += len(chunk)
                return chunk
            try:
                with self._stream.subscribe() as pollable:
                    yield from ready_within(pollable, self.read_timeout, self.origin)
            except HttpTimeout:
                self.close()
                raise
        return b""

    def read(self, size=_READ_SIZE):
        """The next chunk of at most ``size`` bytes, blocking; ``b""`` at the end."""
        return wait(self.read_step(size))

    def read_all(self):
        """The rest of the body: of a known length, read whole by the host and handed over
        in one piece (one copy in the sandbox) with its CRC-32, which ``natives.crc32`` then
        answers without handing the body back; else chunk by chunk."""
        if self._stream is not None and self.length is not None:
            return self._read_whole(max(0, self.length - self._received))
        chunks = []
        while chunk := self.read():
            chunks.append(chunk)
        return b"".join(chunks)

    def _read_whole(self, expected):
        """The rest of the body from one host call (``expected`` bytes reserved for it);
        raises as ``read`` does."""
        timeout = self.read_timeout
        timeout_ms = None if timeout is None else min(_MAX_TIMEOUT_MS, max(0, int(timeout * _MS_PER_S)))
        natives.forget_crc32()
        try:
            whole = bodies.read_whole_crc32(self._stream, expected, timeout_ms)
        except Err as error:
            self.close()
            if isinstance(error.value, bodies.ReadError_Timeout):
                raise failure("connection_read_timeout", self.origin) from None
            raise failure("http_response_incomplete", self.origin) from None
        body = whole.data
        natives.remember_crc32(body, whole.crc32)
        self._received += len(body)
        self.close()
        return body

    def close(self):
        """Drops the body stream, the body and the response, innermost first."""
        if self._stream is not None:
            self._stream.__exit__(None, None, None)
            self._stream = None
        if self._body is not None:
            body, self._body = self._body, None
            types.IncomingBody.finish(body).__exit__(None, None, None)
        if self._incoming is not None:
            self._incoming.__exit__(None, None, None)
            self._incoming = None


def send(request, body=b"", read_timeout=None):
    """Sends ``request`` with a whole ``body`` (bytes) and waits for the response head."""
    exchange = Exchange(request)
    exchange.start()
    try:
        wait(exchange.write(body))
        wait(exchange.finish_body())
    except BaseException:
        exchange.close()
        raise
    return wait(exchange.response(read_timeout))


def _body_length(method, status, headers):
    """The length of the body a response announces (its one ``Content-Length``), None when
    it announces none, several, or carries no body whatever it says (a ``HEAD``, 1xx, 204
    or 304 response)."""
    verb = method.decode("ascii") if isinstance(method, bytes) else str(method)
    if verb.upper() == "HEAD" or status < 200 or status in (204, 304):
        return None
    values = {value.strip() for name, value in headers if name.lower() == "content-length"}
    if len(values) != 1:
        return None
    value = values.pop()
    return int(value) if value.isdigit() else None


def _options(connect_timeout):
    if connect_timeout is None:
        return None
    options = types.RequestOptions()
    options.set_connect_timeout(max(0, int(connect_timeout * _NS_PER_S)))
    return options


def _failure(request, code):
    """The exception for a wasi:http ``error-code`` value (None: the response was cut)."""
    if code is None:
        return failure("http_response_incomplete", request.origin)
    name = type(code).__name__.removeprefix("ErrorCode_")
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    detail = getattr(code, "value", None)
    return failure(snake, request.origin, None if detail is None else str(detail))


def _untraced(error):
    """Drops the traceback of an ``Err`` a host call raised: the bindings raise it from a
    frame that holds it, a cycle that would keep that frame and its callers' (with their
    locals: requests, responses, bodies) alive until the cyclic collector runs."""
    error.with_traceback(None)


def _bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("latin-1")


def _text(name):
    return name.decode("latin-1") if isinstance(name, bytes) else str(name)


_METHODS = {
    "GET": types.Method_Get,
    "HEAD": types.Method_Head,
    "POST": types.Method_Post,
    "PUT": types.Method_Put,
    "DELETE": types.Method_Delete,
    "CONNECT": types.Method_Connect,
    "OPTIONS": types.Method_Options,
    "TRACE": types.Method_Trace,
    "PATCH": types.Method_Patch,
}


def _method(method):
    name = method.upper() if isinstance(method, str) else method.decode("ascii").upper()
    return _METHODS[name]() if name in _METHODS else types.Method_Other(name)
