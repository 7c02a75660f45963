"""The model SDKs' transport: per-thread keep-alive connections, failures as httpx2 errors."""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest

from silo.agents.transport import ThreadConnections


class _OneAnswerEach(socketserver.BaseRequestHandler):
    """Answers one request per connection as if keeping it alive, then closes it."""

    def handle(self) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.request.recv(65536)
        if self.server.delay_s:  # type: ignore[attr-defined]
            time.sleep(self.server.delay_s)  # type: ignore[attr-defined]
        # Counted before answering: the client may read the answer (and the test count) before
        # this thread runs again.
        self.server.connections += 1  # type: ignore[attr-defined]
        self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")


@pytest.fixture
def server() -> Iterator[socketserver.ThreadingTCPServer]:
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _OneAnswerEach)
    srv.daemon_threads = True
    srv.connections = 0  # type: ignore[attr-defined]
    srv.delay_s = 0.0  # type: ignore[attr-defined]
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv: socketserver.ThreadingTCPServer) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}/v1/x"


def test_a_connection_the_server_closed_is_replaced_once(
    server: socketserver.ThreadingTCPServer,
) -> None:
    with httpx2.Client(transport=ThreadConnections()) as client:
        for _ in range(3):  # each later request finds its kept connection closed
            reply = client.post(_url(server), content=b"{}")
            assert (reply.status_code, reply.content) == (200, b"ok")
    assert server.connections == 3  # type: ignore[attr-defined]


def test_a_thread_keeps_its_connection_and_threads_do_not_share_one() -> None:
    opened: list[int] = []

    class KeepAlive(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            opened.append(1)

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    srv = ThreadingHTTPServer(("127.0.0.1", 0), KeepAlive)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{srv.server_address[1]}/"
    try:
        with httpx2.Client(transport=ThreadConnections()) as client:

            def three_requests() -> None:
                for _ in range(3):
                    assert client.post(url, content=b"{}").content == b"ok"

            for _ in range(2):
                thread = threading.Thread(target=three_requests)
                thread.start()
                thread.join()
    finally:
        srv.shutdown()
        srv.server_close()
    assert len(opened) == 2  # one connection per thread, reused for its three requests


def test_a_refused_connection_is_a_connect_error() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with httpx2.Client(transport=ThreadConnections()) as client, pytest.raises(httpx2.ConnectError):
        client.post(f"http://127.0.0.1:{port}/", content=b"{}")


def test_no_answer_within_the_read_timeout_is_a_read_timeout(
    server: socketserver.ThreadingTCPServer,
) -> None:
    server.delay_s = 1.0  # type: ignore[attr-defined]
    with httpx2.Client(transport=ThreadConnections(), timeout=0.2) as client:
        started = time.monotonic()
        with pytest.raises(httpx2.ReadTimeout):
            client.post(_url(server), content=b"{}")
    assert time.monotonic() - started < 1.0  # it gave up before the server answered


def test_an_ipv6_host_is_reached_on_its_port() -> None:
    class V6(socketserver.ThreadingTCPServer):
        address_family = socket.AF_INET6

    try:
        srv = V6(("::1", 0), _OneAnswerEach)
    except OSError:
        pytest.skip("no IPv6 loopback here")
    srv.connections = 0  # type: ignore[attr-defined]
    srv.delay_s = 0.0  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with httpx2.Client(transport=ThreadConnections()) as client:
            reply = client.post(f"http://[::1]:{srv.server_address[1]}/", content=b"{}")
        assert reply.content == b"ok"
    finally:
        srv.shutdown()
        srv.server_close()
