"""A scripted model server for tests (stdlib only, 127.0.0.1), whatever API it imitates.

Contract: ``FakeServer(script, route)`` serves ``POST`` requests whose path ends in ``route`` on a
free local port. Each request pops the next entry of ``script``: a :class:`Reply` (HTTP status,
JSON body, headers) or a callable ``(request_json) -> Reply`` (a "model" that reacts to tool
results). When the script runs out, the last entry is repeated. Every request is recorded in
``requests`` (path, headers, parsed JSON body); ``peak_in_flight`` is the most requests it held
at once. ``latency_s`` delays every answer. Use it as a context manager.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.waiting import QUICK_STOP

__all__ = ["FakeServer", "Reply", "Step"]


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


Step = Reply | Callable[[dict[str, Any]], Reply]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the default backlog of 5 resets connections under load

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer (a test's timeout) is no error of the script's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeServer:
    def __init__(self, script: list[Step], route: str, latency_s: float = 0.0) -> None:
        if not script:
            raise ValueError("the script needs at least one reply")
        self.script = list(script)
        self.route = route
        self.latency_s = latency_s
        self.requests: list[dict[str, Any]] = []
        self.peak_in_flight = 0
        self._in_flight = 0
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs=QUICK_STOP, daemon=True
        )

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        # Keep-alive connections outlive the listening socket: close them, or a client's pooled
        # connection would still reach this server's script after a new server took the port.
        with self._lock:
            for connection in self._connections:
                with contextlib.suppress(OSError):  # already closed by the client
                    connection.shutdown(socket.SHUT_RDWR)

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            step = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        return step(body) if callable(step) else step

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(
                {"path": path, "headers": headers, "json": body, "at": time.monotonic()}
            )
            self._in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            if self.latency_s:
                time.sleep(self.latency_s)
            if not path.endswith(self.route):
                return Reply(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
            return self._next(body)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do

            def log_message(self, format: str, *args: Any) -> None:  # silence stderr
                pass

            def setup(self) -> None:
                super().setup()
                with fake._lock:
                    fake._connections.add(self.connection)

            def finish(self) -> None:
                with fake._lock:
                    fake._connections.discard(self.connection)
                super().finish()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {key.lower(): value for key, value in self.headers.items()}
                reply = fake._answer(self.path, headers, body)
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
