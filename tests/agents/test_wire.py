"""The model agents' HTTP/1.1 wire: answer framing, keep-alive, timeouts, proxies, verified TLS."""

from __future__ import annotations

import contextlib
import gzip
import json
import shutil
import socket
import socketserver
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from silo.agents.json_client import JsonClient, StatusError, status_detail
from silo.agents.routing import Route, check_route, route
from silo.agents.wire import ConnectFailed, Connections, ReadFailed, TimedOut
from tests.waiting import SHORT_SAFETY_S

Answer = Callable[[socket.socket, bytes], bool]  # writes raw bytes; False: close the connection


class Canned(socketserver.ThreadingTCPServer):
    """A server whose ``answer`` writes each answer's raw bytes; it records request heads."""

    daemon_threads = True

    def __init__(self, answer: Answer) -> None:
        super().__init__(("127.0.0.1", 0), _Canned)
        self.answer = answer
        self.connections = 0
        self.heads: list[str] = []

    @property
    def route(self) -> Route:
        return Route("http", "127.0.0.1", self.server_address[1])


class _Canned(socketserver.BaseRequestHandler):
    """Reads each request's head and body, then lets the server's ``answer`` write raw bytes."""

    def handle(self) -> None:
        server = self.server
        assert isinstance(server, Canned)
        server.connections += 1
        data = b""
        while True:
            while b"\r\n\r\n" not in data:
                more = self.request.recv(65536)
                if not more:
                    return
                data += more
            head, _, data = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            while len(data) < length:
                data += self.request.recv(65536)
            server.heads.append(head.decode())
            if not server.answer(self.request, data[:length]):
                return
            data = data[length:]


Start = Callable[[Answer], Canned]


@pytest.fixture
def canned() -> Iterator[Start]:
    servers: list[Canned] = []

    def start(answer: Answer) -> Canned:
        srv = Canned(answer)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()


def _head(to: Route) -> bytes:
    return to.request_head("POST", "/v1/x", [("Content-Type", "application/json")])


def test_chunked_gzip_and_interim_answers_are_read_whole(canned: Start) -> None:
    packed = gzip.compress(b'{"ok": true}')

    def answer(sock: socket.socket, body: bytes) -> bool:
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (packed[:5], packed[5:]))
        sock.sendall(
            b"HTTP/1.1 100 Continue\r\n\r\n"
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n"
            + chunks
            + b"0\r\nX-Trailer: 1\r\n\r\n"
        )
        return True

    to = canned(answer).route
    wire = Connections()
    for _ in range(2):  # the second request reuses the connection: the framing was exact
        got = wire.send(to, _head(to), b"{}", 5)
        assert (got.status, got.body) == (200, b'{"ok": true}')
        assert "content-encoding" not in got.headers  # the headers describe the decoded body
    wire.close()


def test_connection_close_and_a_body_to_the_end_open_a_new_connection(canned: Start) -> None:
    answers = iter([b"Content-Length: 2\r\nConnection: close\r\n\r\nok", b"\r\nto the end"])

    def answer(sock: socket.socket, body: bytes) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\n" + next(answers))
        return False  # then close

    srv = canned(answer)
    to, wire = srv.route, Connections()
    assert wire.send(to, _head(to), b"{}", 5).body == b"ok"
    assert wire.send(to, _head(to), b"{}", 5).body == b"to the end"
    assert srv.connections == 2


def test_the_timeout_bounds_the_whole_request_not_each_read(canned: Start) -> None:
    sent_all = threading.Event()

    def trickle(sock: socket.socket, body: bytes) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n")
        for _ in range(20):  # a byte every 0.1 s: every read in time, the whole answer not
            time.sleep(0.1)
            sock.sendall(b"x")
        sent_all.set()
        return True

    to = canned(trickle).route
    with pytest.raises(TimedOut, match=r"no answer within 0\.5s"):
        Connections().send(to, _head(to), b"{}", 0.5)
    assert not sent_all.is_set()  # it gave up while every single read was still in time


def test_a_connection_that_breaks_mid_answer_is_a_read_failure(canned: Start) -> None:
    def half(sock: socket.socket, body: bytes) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort")
        return False

    to = canned(half).route
    with pytest.raises(ReadFailed, match="closed in the middle"):
        Connections().send(to, _head(to), b"{}", 5)


def test_nothing_listening_is_a_connect_failure() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    to = Route("http", "127.0.0.1", port)
    with pytest.raises(ConnectFailed, match="refused"):
        Connections().send(to, _head(to), b"{}", 5)


def test_a_header_with_a_line_break_is_refused() -> None:
    with pytest.raises(ValueError, match="line break"):
        Route("http", "h", 80).request_head("POST", "/", [("Authorization", "Bearer a\r\nX: y")])


def test_status_errors_carry_the_server_message_and_headers(canned: Start) -> None:
    def limited(sock: socket.socket, body: bytes) -> bool:
        data = json.dumps({"error": {"message": "slow down", "type": "rate"}}).encode()
        sock.sendall(
            b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: %d\r\n\r\n%s"
            % (len(data), data)
        )
        return True

    to = canned(limited).route
    client = JsonClient(f"http://127.0.0.1:{to.port}/v1/x", {"Authorization": "Bearer k"})
    with pytest.raises(StatusError) as failed:
        client.post(b"{}", 5)
    assert (failed.value.status, failed.value.detail) == (429, "Error code: 429 - slow down")
    assert failed.value.headers["retry-after"] == "3"
    assert status_detail(502, b"<html>bad gateway</html>") == "Error code: 502"


def test_proxies_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    assert route("https://api.example.com/v1").via is None
    monkeypatch.setenv("HTTPS_PROXY", "http://user:p%40ss@proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,.corp.example,10.0.0.0/8,svc:8080")
    via = route("https://api.example.com/v1")
    assert via.via == ("proxy.internal", 3128)
    assert via.proxy_authorization == "Basic dXNlcjpwQHNz"  # user:p@ss
    for exempt in ("https://localhost:9/v1", "https://a.corp.example/v1", "https://10.1.2.3/v1",
                   "https://svc:8080/v1"):  # fmt: skip
        assert route(exempt).via is None, exempt
    assert route("https://svc:8081/v1").via is not None  # another port of an exempt host
    assert route("http://api.example.com/v1").via is None  # no HTTP_PROXY for plain http
    monkeypatch.setenv("HTTPS_PROXY", "socks5://proxy.internal:1080")
    with pytest.raises(ValueError, match="socks5.* is not supported"):
        route("https://api.example.com/v1")


def test_a_plain_http_request_through_a_proxy_names_its_origin(canned: Start) -> None:
    def proxy(sock: socket.socket, body: bytes) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        return True

    proxied = canned(proxy)
    to = Route("http", "models.example", 8000, ("127.0.0.1", proxied.route.port), "Basic eDp5")
    assert Connections().send(to, _head(to), b"{}", 5).body == b"ok"
    [head] = proxied.heads
    assert head.startswith("POST http://models.example:8000/v1/x HTTP/1.1\r\n")
    assert "Host: models.example:8000" in head and "Proxy-Authorization: Basic eDp5" in head


# -- HTTPS: verified, and tunnelled through a proxy ------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-signed certificate (and key) for 127.0.0.1, in one PEM file."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command here")
    pem = tmp_path_factory.mktemp("tls") / "local.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", str(pem), "-out", str(pem)],
        check=True, capture_output=True,
    )  # fmt: skip
    return pem


@pytest.fixture
def tls_origin(certificate: Path) -> Iterator[int]:
    """An HTTPS server on 127.0.0.1 answering ``ok`` to every request; yields its port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate)

    class Server(Canned):
        def get_request(self) -> tuple[socket.socket, object]:
            sock, address = super().get_request()
            sock.settimeout(SHORT_SAFETY_S)  # the handshake runs in the handler's thread
            wrapped = context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
            return wrapped, address

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # a client that refused the certificate

    def ok(sock: socket.socket, body: bytes) -> bool:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        return True

    srv = Server(ok)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def test_https_verifies_the_certificate(
    tls_origin: int, certificate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    to = Route("https", "127.0.0.1", tls_origin)
    with pytest.raises(ConnectFailed, match="CERTIFICATE_VERIFY_FAILED"):
        Connections().send(to, _head(to), b"{}", 5)
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate))  # trusted: as OpenSSL reads it
    assert Connections().send(to, _head(to), b"{}", 5).body == b"ok"


def test_https_through_a_proxy_goes_in_a_connect_tunnel(
    tls_origin: int, certificate: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate))
    tunnels: list[str] = []

    class Tunnel(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            data = b""
            while b"\r\n\r\n" not in data:
                data += self.request.recv(65536)
            tunnels.append(data.split(b"\r\n")[0].decode())
            upstream = socket.create_connection(("127.0.0.1", tls_origin), timeout=SHORT_SAFETY_S)
            self.request.settimeout(SHORT_SAFETY_S)
            self.request.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")

            def pipe(a: socket.socket, b: socket.socket) -> None:
                with contextlib.suppress(OSError):  # either side closed, or idle past the net
                    while chunk := a.recv(65536):
                        b.sendall(chunk)

            threading.Thread(target=pipe, args=(upstream, self.request), daemon=True).start()
            pipe(self.request, upstream)

    proxy = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Tunnel)
    proxy.daemon_threads = True
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    try:
        to = Route("https", "127.0.0.1", tls_origin, ("127.0.0.1", proxy.server_address[1]))
        assert Connections().send(to, _head(to), b"{}", 5).body == b"ok"
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert tunnels == [f"CONNECT 127.0.0.1:{tls_origin} HTTP/1.1"]


def test_the_kept_check_of_an_endpoint_follows_the_proxy_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    url = "https://kept-check.example.com/v1"
    check_route(url)
    check_route(url)  # kept: no scan of the environment
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY"):  # each spelling is read
        monkeypatch.setenv(name, "socks5://proxy.internal:1080")
        with pytest.raises(ValueError, match="socks5.* is not supported"):
            check_route(url)
        monkeypatch.delenv(name)
    monkeypatch.setenv("HTTPS_PROXY", "socks5://proxy.internal:1080")
    monkeypatch.setenv("NO_PROXY", "kept-check.example.com")
    check_route(url)  # exempt: the new settings were read
    with pytest.raises(ValueError, match="not an http:// or https:// URL"):
        check_route("ftp://kept-check.example.com")
