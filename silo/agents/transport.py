"""An HTTP/1.1 transport for the model SDKs: one keep-alive connection per thread and origin.

Contract: :class:`ThreadConnections` is an ``httpx2.BaseTransport`` (the SDKs' documented way
to replace how requests travel: ``DefaultHttpxClient(transport=...)``) that sends each request
through :class:`silo.agents.wire.Connections`: the calling thread's own kept-alive connection to
the request's origin, reached directly or through the environment's proxy
(:func:`silo.agents.wire.route`, HTTPS verified). Failures are raised as the ``httpx2``
exceptions the SDKs map to their own errors: ``ConnectTimeout``/``ReadTimeout`` (the SDK's
``APITimeoutError``) and ``ConnectError``/``ReadError`` (``APIConnectionError``).
:meth:`ThreadConnections.close` closes every connection it opened. :func:`sdk_http_client` is
the ``http_client`` an SDK client is built with (import this module only once the SDK is there).

Why not the SDKs' own pool (``httpcore2``): with 256 rollouts in flight its one pool lock and
per-request bookkeeping cost ~1-1.5 ms of CPU per request, as much as the rest of a rollout.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx2

from silo.agents.routing import Route, route
from silo.agents.wire import ConnectFailed, Connections, TimedOut, WireError

__all__ = ["ThreadConnections", "sdk_http_client"]

# Headers the wire layer writes itself: the origin, the body's length, and no compression.
_OWN_HEADERS = frozenset({"host", "content-length", "accept-encoding", "transfer-encoding"})


class ThreadConnections(httpx2.BaseTransport):
    """Per-thread keep-alive connections for an SDK client; see the module docstring."""

    def __init__(self) -> None:
        self._wire = Connections()
        self._routes: dict[tuple[str, str, int | None], Route] = {}
        self._lock = threading.Lock()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request`` on this thread's connection to its origin; the whole answer read."""
        url = request.url
        timeouts: dict[str, float | None] = request.extensions.get("timeout", {})
        timeout = max((t for t in timeouts.values() if t is not None), default=None)
        headers = [
            (name, value)
            for name, value in request.headers.multi_items()
            if name.lower() not in _OWN_HEADERS
        ]
        headers.append(("Accept-Encoding", "identity"))
        try:
            to = self._route(url)
            head = to.request_head(request.method, url.raw_path.decode("ascii"), headers)
            answer = self._wire.send(to, head, request.read(), 1e9 if timeout is None else timeout)
        except TimedOut as exc:
            raise httpx2.ReadTimeout(str(exc), request=request) from exc
        except ConnectFailed as exc:
            raise httpx2.ConnectError(str(exc), request=request) from exc
        except (WireError, ValueError) as exc:
            raise httpx2.ReadError(str(exc), request=request) from exc
        return httpx2.Response(
            answer.status,
            headers=list(answer.headers.items()),
            content=answer.body,
            request=request,
            extensions={"reason_phrase": answer.reason.encode("latin-1", "replace")},
        )

    def close(self) -> None:
        """Close every connection this transport opened, on any thread."""
        self._wire.close()

    def _route(self, url: httpx2.URL) -> Route:
        key = (url.scheme, url.host, url.port)
        found = self._routes.get(key)
        if found is None:
            found = route(str(url.copy_with(path="/", query=None, fragment=None)))
            with self._lock:
                self._routes[key] = found
        return found


def sdk_http_client(sdk: Any, pool: int) -> httpx2.Client:
    """An SDK's ``DefaultHttpxClient`` over :class:`ThreadConnections`, ``pool`` requests wide.

    As many connections kept alive as in flight: the SDKs keep 100 by default, and at 256
    rollouts in flight the surplus would be reopened on every burst.
    """
    limits = httpx2.Limits(max_connections=pool, max_keepalive_connections=pool)
    client: httpx2.Client = sdk.DefaultHttpxClient(limits=limits, transport=ThreadConnections())
    return client
