"""WebSocket client connections through the host (the ``bench:task/websocket`` interface),
under the participant's outbound rules (the allowlist judges ``ws://`` as ``http://`` and
``wss://`` as ``https://``; private addresses only through a rule naming them)::

    from bench_task.websocket import WebSocket

    with WebSocket("ws://127.0.0.1:9000/echo") as socket:
        socket.send("hello")
        assert socket.recv() == "hello"

``recv`` blocks on the host's pollable (no spinning); ``await socket.recv_async()`` waits
inside the asyncio loop bench installs. Bounds (the host's): a message is at most 16 MiB
either way, at most 16 MiB of received messages wait (the host stops reading from the
server until the task takes some) and 16 MiB of sent ones, at most 64 connections per
sandbox; a connection still open when the task ends is closed by the host (code 1001).
Failures raise a ``WebSocketError`` whose ``reason`` is ``invalid-argument``, ``denied``,
``connect-failed``, ``limit``, ``failed`` or ``closed``; ``recv`` on a connection the server
closed raises ``ConnectionClosed`` (its ``code`` and ``close_reason``).
"""

from componentize_py_types import Err
from wit_world.imports import websocket as _host

from . import transport


class WebSocketError(Exception):
    """A WebSocket call the host refused or a connection that failed; ``reason`` names the
    kind, the message is the host's."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


class ConnectionClosed(WebSocketError):
    """The connection closed with ``code`` and ``close_reason``."""

    def __init__(self, code, close_reason):
        super().__init__("closed", f"the connection closed with code {code}" + (f": {close_reason}" if close_reason else ""))
        self.code = code
        self.close_reason = close_reason


_REASONS = {
    _host.WebsocketError_InvalidArgument: "invalid-argument",
    _host.WebsocketError_Denied: "denied",
    _host.WebsocketError_ConnectFailed: "connect-failed",
    _host.WebsocketError_Limit: "limit",
    _host.WebsocketError_Failed: "failed",
    _host.WebsocketError_Closed: "closed",
}


def _call(function, *args):
    try:
        return function(*args)
    except Err as error:
        reason = _REASONS.get(type(error.value))
        if reason is None:
            raise
        raise WebSocketError(reason, error.value.value) from None


def _next_event(connection):
    """Waiting generator (``bench_task.transport``): the connection's next event."""
    while True:
        event = _call(connection.receive)
        if event is not None:
            return event
        with connection.subscribe() as pollable:
            yield [pollable]


class WebSocket:
    """One connection to ``url`` offering ``protocols``, with extra request ``headers``
    (a dict or pairs); the constructor waits for the handshake. ``protocol`` is the one the
    server chose ("" for none)."""

    def __init__(self, url, protocols=(), headers=None):
        if isinstance(protocols, str):
            protocols = [protocols]
        pairs = list(headers.items()) if isinstance(headers, dict) else list(headers or ())
        self._connection = _call(_host.Connection.connect, str(url), [str(p) for p in protocols], [(str(k), str(v)) for k, v in pairs])
        self._closed = None
        event = transport.wait(_next_event(self._connection))
        self.protocol = event.value if isinstance(event, _host.Event_Open) else ""

    def send(self, message):
        """Sends ``message``: text for a ``str``, binary for a bytes-like object."""
        if isinstance(message, str):
            _call(self._connection.send_text, message)
        else:
            _call(self._connection.send_binary, bytes(memoryview(message)))

    def _message(self, event):
        if isinstance(event, (_host.Event_Text, _host.Event_Binary)):
            return event.value
        if isinstance(event, _host.Event_Closed):
            self._closed = ConnectionClosed(event.value.code, event.value.reason)
        raise self._closed

    def recv(self):
        """The next message (``str`` or ``bytes``), waiting for it; raises ``ConnectionClosed``
        once the connection has closed."""
        if self._closed is not None:
            raise self._closed
        return self._message(transport.wait(_next_event(self._connection)))

    async def recv_async(self):
        """``recv`` inside the asyncio loop bench installs (other tasks run meanwhile)."""
        from .adapters import aio

        if self._closed is not None:
            raise self._closed
        return self._message(await aio.drive(_next_event(self._connection)))

    @property
    def buffered_amount(self):
        """Bytes sent but not yet written to the connection."""
        return self._connection.buffered_amount()

    def close(self, code=1000, reason=""):
        """Starts the closing handshake (``code`` 1000 or 3000-4999, ``reason`` at most 123
        bytes) and waits for the server's close; returns its code."""
        if self._closed is not None:
            return self._closed.code
        _call(self._connection.close, code, reason)
        while True:
            try:
                self._message(transport.wait(_next_event(self._connection)))
            except ConnectionClosed as closed:
                return closed.code
            except WebSocketError:
                return 1006

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        self._connection.__exit__(*exc)
