"""A model API's one JSON endpoint, spoken without an SDK on the request path.

Contract: :class:`JsonClient` POSTs JSON bodies the caller serialised to one URL, with headers
fixed when it is built (an SDK client's configuration: auth, organisation, user agent), over
:class:`silo.agents.wire.Connections` (one kept-alive connection per thread, the environment's
proxy, HTTPS verified). The request head is serialised once; a request costs its body and one
``sendall``. :meth:`JsonClient.post` returns the :class:`~silo.agents.wire.Answer` of a 2xx
status and raises :class:`StatusError` for any other (with the server's own message, as the
SDKs word it) and the :class:`~silo.agents.wire.WireError` kinds for no answer at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import orjson

from silo.agents.routing import route
from silo.agents.wire import Answer, Connections

__all__ = ["JsonClient", "StatusError", "status_detail"]


class StatusError(Exception):
    """The endpoint answered with an HTTP error status; ``detail`` is its message."""

    def __init__(self, status: int, detail: str, headers: Mapping[str, str]) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.headers = headers


def status_detail(status: int, body: bytes) -> str:
    """``Error code: <status>``, then `` - <message>`` when the body is an API error with one."""
    text = f"Error code: {status}"
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return text
    error = data.get("error", data) if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"{text} - {message}" if isinstance(message, str) and message else text


class JsonClient:
    """POST JSON to one URL; see the module docstring."""

    def __init__(self, url: str, headers: Mapping[str, str]) -> None:
        """``headers`` go with every request (``Host`` and ``Content-Length`` are added).

        Raises :class:`ValueError` (one line) for a URL or proxy that cannot be used, or a
        header that holds a line break.
        """
        parts = urlsplit(url)
        self.url = url
        self.route = route(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        fixed = [(k, v) for k, v in headers.items() if k.lower() not in ("host", "content-length")]
        fixed.append(("Accept-Encoding", "identity"))
        self._head = self.route.request_head("POST", target, fixed)
        self._wire = Connections()

    def post(self, body: bytes, timeout: float) -> Answer:
        """Send ``body``; the answer of a 2xx status (see the module docstring for failures)."""
        answer = self._wire.send(self.route, self._head, body, timeout)
        if not 200 <= answer.status < 300:
            detail = status_detail(answer.status, answer.body)
            raise StatusError(answer.status, detail, answer.headers)
        return answer

    def close(self) -> None:
        """Close every connection opened for this endpoint."""
        self._wire.close()
