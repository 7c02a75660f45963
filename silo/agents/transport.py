"""An HTTP/1.1 transport for the model SDKs: one keep-alive connection per thread and host.

Contract: :class:`ThreadConnections` is an ``httpx2.BaseTransport`` (the SDKs' documented way
to replace how requests travel: ``DefaultHttpxClient(transport=...)``). Each thread that sends
a request gets its own ``http.client`` connection to the request's host, kept alive for that
thread's next request; rollouts each run on a thread of their own, so no two requests ever
share or wait for a connection. Failures are raised as the ``httpx2`` exceptions the SDKs map
to their own errors: ``ConnectTimeout``/``ReadTimeout``/``WriteTimeout`` (the SDK's
``APITimeoutError``) and ``ConnectError``/``ReadError`` (``APIConnectionError``). A request on a
kept-alive connection that the server had already closed is sent once more on a new one.
:meth:`ThreadConnections.close` closes every connection it opened.

Why not the SDKs' own pool (``httpcore2``): with 256 rollouts in flight its one pool lock and
per-request bookkeeping cost ~1-1.5 ms of CPU per request, as much as the rest of a rollout.
"""

from __future__ import annotations

import http.client
import ssl
import threading
import weakref

import httpx2

__all__ = ["ThreadConnections"]

_STALE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


class ThreadConnections(httpx2.BaseTransport):
    """Per-thread keep-alive connections; see the module docstring."""

    def __init__(self) -> None:
        self._local = threading.local()
        # Weak: a connection goes (and its socket closes) with the thread that owned it.
        self._every: weakref.WeakSet[http.client.HTTPConnection] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._ssl: ssl.SSLContext | None = None

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` on this thread's connection to its host; the whole answer read."""
        url = request.url
        body = request.read()
        # No Accept-Encoding: answers come uncompressed, so they need no decoding here.
        headers = [
            (k, v) for k, v in request.headers.multi_items() if k.lower() != "accept-encoding"
        ]
        target = url.raw_path.decode("ascii")
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        # An explicit port: http.client would read the colons of an IPv6 host as one.
        port = url.port or (443 if url.scheme == "https" else 80)
        connection, reused = self._connection(url.scheme, url.host, port, request, timeouts)
        try:
            try:
                answer = _exchange(connection, request.method, target, body, headers, timeouts)
            except _STALE:
                if not reused:
                    raise
                self._drop(connection)  # the server closed it while it was idle: once more
                connection, _ = self._connection(url.scheme, url.host, port, request, timeouts)
                answer = _exchange(connection, request.method, target, body, headers, timeouts)
        except TimeoutError as exc:
            self._drop(connection)
            raise httpx2.ReadTimeout(str(exc) or "timed out", request=request) from exc
        except (OSError, http.client.HTTPException) as exc:
            self._drop(connection)
            raise httpx2.ReadError(str(exc) or type(exc).__name__, request=request) from exc
        status, reason, response_headers, content = answer
        return httpx2.Response(
            status,
            headers=response_headers,
            content=content,
            request=request,
            extensions={"reason_phrase": reason.encode("latin-1", "replace")},
        )

    def close(self) -> None:
        """Close every connection this transport opened, on any thread."""
        with self._lock:
            every, self._every = list(self._every), weakref.WeakSet()
        for connection in every:
            connection.close()

    def _connection(
        self,
        scheme: str,
        host: str,
        port: int,
        request: httpx2.Request,
        timeouts: dict[str, float | None],
    ) -> tuple[http.client.HTTPConnection, bool]:
        """This thread's connected connection to ``host``, and whether it was kept alive."""
        mine: dict[tuple[str, str, int], http.client.HTTPConnection] | None = getattr(
            self._local, "connections", None
        )
        if mine is None:
            mine = self._local.connections = {}
        key = (scheme, host, port)
        found = mine.get(key)
        if found is not None and found.sock is not None:
            return found, True
        connection: http.client.HTTPConnection
        if scheme == "https":
            if self._ssl is None:
                self._ssl = ssl.create_default_context()
            connection = http.client.HTTPSConnection(
                host, port, timeout=timeouts.get("connect"), context=self._ssl
            )
        else:
            connection = http.client.HTTPConnection(host, port, timeout=timeouts.get("connect"))
        try:
            connection.connect()
        except TimeoutError as exc:
            raise httpx2.ConnectTimeout(str(exc) or "timed out", request=request) from exc
        except OSError as exc:
            raise httpx2.ConnectError(str(exc) or type(exc).__name__, request=request) from exc
        mine[key] = connection
        with self._lock:
            self._every.add(connection)
        return connection, False

    def _drop(self, connection: http.client.HTTPConnection) -> None:
        connection.close()
        with self._lock:
            self._every.discard(connection)


def _exchange(
    connection: http.client.HTTPConnection,
    method: str,
    target: str,
    body: bytes,
    headers: list[tuple[str, str]],
    timeouts: dict[str, float | None],
) -> tuple[int, str, list[tuple[str, str]], bytes]:
    """One request and its whole answer on a connected ``connection``."""
    connection.sock.settimeout(timeouts.get("write"))
    connection.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
    for name, value in headers:
        connection.putheader(name, value)
    if body and not any(name.lower() == "content-length" for name, _ in headers):
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body or None)
    connection.sock.settimeout(timeouts.get("read"))
    response = connection.getresponse()
    content = response.read()
    if response.will_close:
        connection.close()
    return response.status, response.reason, response.getheaders(), content
