"""A small blocking HTTP client over wasi:http (the host allows only the hosts the
benchmark config or ``--allow-host`` lists)::

    from bench_task import http

    response = http.get("http://127.0.0.1:8080/health", timeout_ms=2000)
    response.status, response.text()
"""

import json
from urllib.parse import urlsplit

from componentize_py_types import Err, Ok
from wit_world.imports import outgoing_handler, streams, types

_CHUNK = 4096
_NS_PER_MS = 1_000_000


class HttpError(Exception):
    """A request that got no response; ``code`` names the wasi:http error in snake case
    (e.g. ``http_request_denied``, ``connection_refused``) and becomes the task's errorCode."""

    def __init__(self, code, detail=None):
        super().__init__(f"HTTP request failed: {code}" + (f" ({detail})" if detail else ""))
        self.code = code


class Response:
    """An HTTP response: ``status``, ``headers`` (a list of (name, value) pairs) and the
    ``body`` bytes."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def ok(self):
        """Whether the status is 2xx."""
        return 200 <= self.status < 300

    def header(self, name):
        """The first value of a header (case-insensitive), or None."""
        name = name.lower()
        return next((value for key, value in self.headers if key.lower() == name), None)

    def text(self):
        """The body decoded as UTF-8."""
        return self.body.decode("utf-8", errors="replace")

    def json(self):
        """The body parsed as JSON."""
        return json.loads(self.body)


def get(url, **options):
    """Sends a GET request; see ``request`` for the options."""
    return request("GET", url, **options)


def post(url, body=None, **options):
    """Sends a POST request; see ``request`` for the options."""
    return request("POST", url, body=body, **options)


def request(method, url, headers=None, body=None, timeout_ms=None):
    """Sends a request and returns the whole ``Response``. ``headers`` is a dict or a list
    of pairs, ``body`` bytes or str, ``timeout_ms`` bounds connecting and each wait for
    data. Raises ``HttpError`` when there is no response."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"not an http(s) URL: {url}")
    pairs = [(str(name), _bytes(value)) for name, value in (headers.items() if isinstance(headers, dict) else headers or [])]
    data = _bytes(body) if body is not None else b""
    if body is not None and not any(name.lower() == "content-length" for name, _ in pairs):
        pairs.append(("content-length", str(len(data)).encode()))
    fields = types.Fields.from_list(pairs)
    outgoing = types.OutgoingRequest(fields)
    outgoing.set_method(_method(method))
    outgoing.set_scheme(types.Scheme_Http() if parts.scheme == "http" else types.Scheme_Https())
    outgoing.set_authority(parts.netloc)
    outgoing.set_path_with_query((parts.path or "/") + (f"?{parts.query}" if parts.query else ""))
    outgoing_body = outgoing.body()
    try:
        future = outgoing_handler.handle(outgoing, _options(timeout_ms))
    except Err as error:
        raise _http_error(error.value) from None
    _write_body(outgoing_body, data)
    with future:
        with future.subscribe() as pollable:
            pollable.block()
        result = future.get()
    if not isinstance(result, Ok) or not isinstance(result.value, Ok):
        detail = result.value.value if isinstance(result, Ok) else None
        raise _http_error(detail)
    with result.value.value as response:
        status = response.status()
        with response.headers() as fields:
            received = [(name, value.decode("latin-1")) for name, value in fields.entries()]
        return Response(status, received, _read_body(response))


def _options(timeout_ms):
    if timeout_ms is None:
        return None
    options = types.RequestOptions()
    nanos = int(timeout_ms * _NS_PER_MS)
    options.set_connect_timeout(nanos)
    options.set_first_byte_timeout(nanos)
    options.set_between_bytes_timeout(nanos)
    return options


def _write_body(outgoing_body, data):
    with outgoing_body.write() as stream:
        for start in range(0, len(data), _CHUNK):
            stream.blocking_write_and_flush(data[start : start + _CHUNK])
    types.OutgoingBody.finish(outgoing_body, None)


def _read_body(response):
    chunks = []
    with response.consume() as incoming_body:
        with incoming_body.stream() as stream:
            while True:
                try:
                    chunks.append(stream.blocking_read(65536))
                except Err as error:
                    if isinstance(error.value, streams.StreamError_Closed):
                        break
                    raise HttpError("http_response_incomplete") from None
    return b"".join(chunks)


def _method(method):
    name = method.upper()
    known = {
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
    return known[name]() if name in known else types.Method_Other(name)


def _http_error(code):
    if code is None:
        return HttpError("http_response_incomplete")
    name = type(code).__name__.removeprefix("ErrorCode_")
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    detail = getattr(code, "value", None)
    return HttpError(snake, None if detail is None else str(detail))


def _bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")
