"""A small blocking HTTP client over wasi:http (the host allows only the hosts the
benchmark config or ``--allow-host`` lists)::

    from bench_task import http

    response = http.get("http://127.0.0.1:8080/health", timeout_ms=2000)
    response.status, response.text()
"""

import json

from . import transport
from .transport import HttpError, HttpTimeout

__all__ = ["HttpError", "HttpTimeout", "Response", "get", "post", "request"]

_S_PER_MS = 0.001


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
    data. Raises ``HttpError`` (``HttpTimeout`` past the timeout) when there is no response."""
    pairs = list(headers.items() if isinstance(headers, dict) else headers or [])
    data = _bytes(body) if body is not None else b""
    if body is not None and not any(str(name).lower() == "content-length" for name, _ in pairs):
        pairs.append(("content-length", str(len(data))))
    timeout = None if timeout_ms is None else timeout_ms * _S_PER_MS
    response = transport.send(transport.Request(method, url, pairs, timeout), data, timeout)
    try:
        response.read_timeout = timeout
        return Response(response.status, response.headers, response.read_all())
    finally:
        response.close()


def _bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")
