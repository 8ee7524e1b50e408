"""httpx over wasi:http: transports (sync and async) that send each request through the
host, made the default of ``httpx.Client`` and ``httpx.AsyncClient`` (and what
``httpx.HTTPTransport``/``AsyncHTTPTransport`` name). Failures are httpx's own exceptions
(``ConnectError``, ``ConnectTimeout``, ``ReadTimeout``, ``ReadError``) with bench's reason."""

import httpx
import httpx._client
import httpx._transports.default

from .. import transport
from .aio import drive


def _exchange(request):
    timeouts = request.extensions.get("timeout", {})
    outgoing = transport.Request(request.method, str(request.url), request.headers.raw, timeouts.get("connect"))
    return transport.Exchange(outgoing), timeouts.get("read")


def _error(error, request, reading=False):
    """httpx's exception for a transport failure."""
    message = str(error)
    if isinstance(error, transport.HttpTimeout):
        kind = httpx.ConnectTimeout if error.code == "connection_timeout" else httpx.ReadTimeout
    elif reading:
        kind = httpx.ReadError
    elif error.code in transport.CONNECT_CODES:
        kind = httpx.ConnectError
    else:
        kind = httpx.RemoteProtocolError
    return kind(message, request=request)


def _response(response, stream):
    return httpx.Response(
        status_code=response.status,
        headers=response.headers,
        stream=stream,
        extensions={"http_version": b"HTTP/1.1", "reason_phrase": b""},
    )


class _Body(httpx.SyncByteStream):
    def __init__(self, response, request):
        self._response = response
        self._request = request

    def __iter__(self):
        try:
            while chunk := self._response.read():
                yield chunk
        except (transport.HttpError, transport.HttpTimeout) as error:
            raise _error(error, self._request, reading=True) from None

    def close(self):
        self._response.close()


class _AsyncBody(httpx.AsyncByteStream):
    def __init__(self, response, request):
        self._response = response
        self._request = request

    async def __aiter__(self):
        try:
            while chunk := await drive(self._response.read_step()):
                yield chunk
        except (transport.HttpError, transport.HttpTimeout) as error:
            raise _error(error, self._request, reading=True) from None

    async def aclose(self):
        self._response.close()


class WasiHTTPTransport(httpx.BaseTransport):
    """httpx's transport over wasi:http. The connection options of ``httpx.HTTPTransport``
    are accepted; TLS, proxies and connection reuse are the host's."""

    def __init__(self, *args, **options):
        pass

    def handle_request(self, request):
        exchange, read_timeout = _exchange(request)
        try:
            exchange.start()
            for chunk in request.stream:
                transport.wait(exchange.write(chunk))
            transport.wait(exchange.finish_body())
            response = transport.wait(exchange.response(read_timeout))
        except (transport.HttpError, transport.HttpTimeout) as error:
            raise _error(error, request) from None
        finally:
            exchange.close()
        response.read_timeout = read_timeout
        return _response(response, _Body(response, request))


class AsyncWasiHTTPTransport(httpx.AsyncBaseTransport):
    """httpx's async transport over wasi:http, waiting in the sandbox's event loop."""

    def __init__(self, *args, **options):
        pass

    async def handle_async_request(self, request):
        exchange, read_timeout = _exchange(request)
        try:
            exchange.start()
            async for chunk in request.stream:
                await drive(exchange.write(chunk))
            await drive(exchange.finish_body())
            response = await drive(exchange.response(read_timeout))
        except (transport.HttpError, transport.HttpTimeout) as error:
            raise _error(error, request) from None
        finally:
            exchange.close()
        response.read_timeout = read_timeout
        return _response(response, _AsyncBody(response, request))


def install():
    """Makes the wasi:http transports httpx's defaults."""
    for module in (httpx, httpx._client, httpx._transports.default):
        module.HTTPTransport = WasiHTTPTransport
        module.AsyncHTTPTransport = AsyncWasiHTTPTransport
