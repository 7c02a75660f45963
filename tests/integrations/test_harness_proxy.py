"""The recording proxy on its own: a harness that leaves mid-answer is not the upstream's fault."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# The harness agents need the [mcp] extra (their MCP door); the floors run goes without it.
pytest.importorskip("mcp", reason="the harness agents need the [mcp] extra")

from silo.integrations.harness.proxy import PROXY, Route
from tests.waiting import QUICK_STOP, wait_until

_FIRST = b'data: {"choices": [{"index": 0, "delta": {"content": "hel"}}]}\n\n'


def test_a_harness_gone_mid_stream_is_recorded_and_blames_no_upstream() -> None:
    left = threading.Event()

    class Slow(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            self.wfile.write(_FIRST)
            self.wfile.flush()
            left.wait(300)  # safety net: the harness leaves after the first chunk
            time.sleep(0.2)  # the proxy notices the harness's closed socket on its next write
            for _ in range(50):
                self.wfile.write(b'data: {"choices": []}\n\n')
                self.wfile.flush()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, kwargs=QUICK_STOP, daemon=True).start()
    steps: list[dict[str, Any]] = []
    route = PROXY.open(
        Route(f"http://127.0.0.1:{server.server_address[1]}", lambda k, d: steps.append(dict(d)))
    )
    try:
        host, port = route.url.split("//")[1].split("/")[0].split(":")
        body = json.dumps({"model": "m", "stream": True, "messages": []}).encode()
        path = route.url.split(f"{port}", 1)[1] + "/v1/chat/completions"
        with socket.create_connection((host, int(port))) as harness:
            harness.sendall(
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            got = b""
            while b"hel" not in got:
                got += harness.recv(4096)
        left.set()
        wait_until(lambda: steps, "the proxy to record the broken-off request")
    finally:
        PROXY.close(route)
        server.shutdown()
    assert route.failure is None
    assert steps[0]["status"] == 200 and steps[0]["response"]["text"] == "hel"


def test_an_unknown_route_is_404() -> None:
    route = PROXY.open(Route("http://127.0.0.1:9", lambda k, d: None))
    PROXY.close(route)
    request = urllib.request.Request(f"{route.url}/v1/messages", data=b"{}", method="POST")
    try:
        urllib.request.urlopen(request, timeout=60)
    except urllib.error.HTTPError as refused:
        assert refused.code == 404
    else:
        raise AssertionError("a closed route answered")
