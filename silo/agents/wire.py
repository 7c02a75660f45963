"""HTTP/1.1 for the model agents: one keep-alive connection per thread and origin, lean parsing.

Contract: :class:`Connections` sends a whole request (head and body serialised by the caller, see
:meth:`~silo.agents.routing.Route.request_head`) over the calling thread's own connection to the request's origin and
reads the whole answer into an :class:`Answer`. Rollouts each run on a thread of their own, so no
two requests ever share or wait for a connection; a connection is kept alive for the thread's
next request unless the server said ``Connection: close``. A request on a kept-alive connection
that the server had already closed (no byte of an answer came back) is sent once more on a new
one. Answers may carry ``Content-Length``, ``Transfer-Encoding: chunked`` or neither (read to the
end); ``1xx`` interim answers are skipped; ``gzip``/``deflate`` bodies are decoded (requests ask
for ``identity``). Failures raise :class:`ConnectFailed`, :class:`TimedOut` (the request's whole
``timeout`` passed: connect, send and answer together) or :class:`ReadFailed`.

A :class:`~silo.agents.routing.Route` says how an origin is reached (directly or through an
``http://`` proxy); HTTPS is verified, host name included, against what the SDKs trust
(httpx2's TLS context: ``SSL_CERT_FILE``/``SSL_CERT_DIR``, else the system's store), and goes
through a proxy in a ``CONNECT`` tunnel.

Why not ``http.client`` or the SDKs' ``httpcore2`` pool: at 256 requests in flight their header
parsing (the ``email`` package) and pool bookkeeping cost 0.1-1.5 ms of CPU per request; this
costs ~15 us.
"""

from __future__ import annotations

import socket
import ssl
import struct
import sys
import threading
import time
import weakref
import zlib
from dataclasses import dataclass

from silo.agents.routing import Route

__all__ = [
    "Answer",
    "ConnectFailed",
    "Connections",
    "ReadFailed",
    "TimedOut",
    "WireError",
]

_CHUNK = 65536
_MAX_HEAD = 65536  # an answer's status line and headers; more is not an HTTP server talking
# struct timeval is two longs on Linux; elsewhere Python's own timeouts are used.
_KERNEL_TIMEOUTS = sys.platform.startswith("linux") and hasattr(socket, "SO_RCVTIMEO")
_SLACK_S = 0.05  # how far a request's wait may miss its deadline to save a system call


class WireError(Exception):
    """A request that got no HTTP answer; the message says why in one line."""


class ConnectFailed(WireError):
    """The origin (or its proxy) could not be reached."""


class TimedOut(WireError):
    """No whole answer within the request's timeout."""


class ReadFailed(WireError):
    """The connection broke, or what came back is not an HTTP/1.1 answer."""


class _Stale(Exception):
    """A kept-alive connection the server had closed before answering."""


@dataclass(frozen=True)
class Answer:
    """An HTTP answer: status, reason, headers (names lower-cased) and the decoded body.

    ``headers`` describe the body as given here: ``content-encoding`` is removed once decoded.
    """

    status: int
    reason: str
    headers: dict[str, str]
    body: bytes


class Connections:
    """Per-thread keep-alive connections; see the module docstring."""

    def __init__(self) -> None:
        self._local = threading.local()
        # Weak: a connection goes (and its socket closes) with the thread that owned it.
        self._every: weakref.WeakSet[_Connection] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._tls: ssl.SSLContext | None = None

    def send(self, to: Route, head: bytes, body: bytes, timeout: float) -> Answer:
        """Send ``head`` (from :meth:`Route.request_head`) and ``body``; the whole answer."""
        deadline = time.monotonic() + timeout
        data = b"%sContent-Length: %d\r\n\r\n%s" % (head, len(body), body)
        connection, reused = self._connection(to, deadline)
        try:
            try:
                return connection.exchange(data, deadline)
            except _Stale:
                self._drop(connection)
                if not reused:
                    raise ReadFailed("the server closed the connection without answering") from None
                connection, _ = self._connection(to, deadline)  # closed while idle: once more
                return connection.exchange(data, deadline)
        except _Stale:
            self._drop(connection)
            raise ReadFailed("the server closed the connection without answering") from None
        except TimeoutError:
            self._drop(connection)
            raise TimedOut(f"no answer within {timeout:.1f}s") from None
        except (OSError, ValueError, zlib.error) as exc:
            self._drop(connection)
            raise ReadFailed(str(exc) or type(exc).__name__) from None

    def close(self) -> None:
        """Close every connection opened here, on any thread."""
        with self._lock:
            every, self._every = list(self._every), weakref.WeakSet()
        for connection in every:
            connection.close()

    def _connection(self, to: Route, deadline: float) -> tuple[_Connection, bool]:
        """This thread's open connection for ``to``, and whether it was kept alive."""
        mine: dict[Route, _Connection] | None = getattr(self._local, "connections", None)
        if mine is None:
            mine = self._local.connections = {}
        found = mine.get(to)
        if found is not None and found.open:
            return found, True
        connection = _Connection(self._open(to, deadline))
        mine[to] = connection
        with self._lock:
            self._every.add(connection)
        return connection, False

    def _open(self, to: Route, deadline: float) -> socket.socket:
        target = to.via or (to.host, to.port)
        try:
            sock = socket.create_connection(target, timeout=_left(deadline))
        except TimeoutError:
            raise TimedOut(f"no connection to {target[0]}:{target[1]} in time") from None
        except OSError as exc:
            raise ConnectFailed(str(exc) or type(exc).__name__) from None
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if to.via is not None and to.scheme == "https":
                _tunnel(sock, to, deadline)
            if to.scheme == "https":
                if self._tls is None:
                    self._tls = _tls_context()
                sock.settimeout(_left(deadline))
                sock = self._tls.wrap_socket(sock, server_hostname=to.host)
        except TimeoutError:
            sock.close()
            raise TimedOut(f"no connection to {to.host}:{to.port} in time") from None
        except (OSError, ValueError, _Stale) as exc:
            sock.close()
            raise ConnectFailed(str(exc) or "the proxy closed the connection") from None
        return sock

    def _drop(self, connection: _Connection) -> None:
        connection.close()
        with self._lock:
            self._every.discard(connection)


def _tls_context() -> ssl.SSLContext:
    """The SDKs' own verified TLS context (httpx2's), else Python's default one.

    httpx2's trusts what the SDKs trust: ``SSL_CERT_FILE``/``SSL_CERT_DIR``, the operating
    system's store on macOS and Windows (``truststore``), the system's CA files on Linux.
    """
    try:
        import httpx2
    except ImportError:  # pragma: no cover - both SDKs depend on httpx2
        return ssl.create_default_context()
    return httpx2.create_ssl_context()


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _tunnel(sock: socket.socket, to: Route, deadline: float) -> None:
    """Open a ``CONNECT`` tunnel to ``to`` through the proxy ``sock`` is connected to."""
    authority = f"{to.host}:{to.port}" if ":" not in to.host else f"[{to.host}]:{to.port}"
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
    if to.proxy_authorization:
        lines.append(f"Proxy-Authorization: {to.proxy_authorization}")
    sock.settimeout(_left(deadline))
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    tunnel = _Connection(sock)
    try:
        status, reason, _, _ = tunnel.read_head(deadline)
    finally:
        tunnel.sock = None  # the socket is the caller's: it goes on to carry TLS
    if not 200 <= status < 300:
        raise ConnectFailed(f"the proxy refused the tunnel (HTTP {status} {reason})")
    if tunnel.buffer:
        raise ConnectFailed("the proxy sent data before the tunnel opened")


class _Connection:
    """One socket and the bytes read from it past the last answer."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock: socket.socket | None = sock
        self.buffer = b""
        # A plain TCP socket on Linux waits in blocking mode with the kernel's timeouts
        # (SO_RCVTIMEO, SO_SNDTIMEO): Python's own timeout polls before every read and write,
        # two system calls, each handing the GIL over, where one does.
        self.kernel_timeouts = _KERNEL_TIMEOUTS and not isinstance(sock, ssl.SSLSocket)
        if self.kernel_timeouts:
            sock.settimeout(None)
        self.timeout: float | None = None

    def wait_at_most(self, sock: socket.socket, deadline: float) -> None:
        """Let each wait on ``sock`` last until about ``deadline`` (raises when it passed).

        Setting a timeout is a system call, so one within ``_SLACK_S`` (or a tenth) of what is
        left is kept: the request ends that much early or late, never more.
        """
        left = _left(deadline)
        current = self.timeout
        if current is not None and abs(current - left) <= min(_SLACK_S, left / 10):
            return
        if self.kernel_timeouts:
            whole = int(left)
            wait = struct.pack("@ll", whole, max(1, int((left - whole) * 1e6)))  # 0: forever
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, wait)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, wait)
        else:
            sock.settimeout(left)
        self.timeout = left

    @property
    def open(self) -> bool:
        return self.sock is not None

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()

    def __del__(self) -> None:  # a thread that ended took its connections with it
        self.close()

    def exchange(self, data: bytes, deadline: float) -> Answer:
        """Send one request; its whole answer (``_Stale`` when none began)."""
        sock = self.sock
        assert sock is not None
        self.buffer = b""
        try:
            self.wait_at_most(sock, deadline)
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            raise _Stale from None
        except BlockingIOError:  # the kernel's send timeout
            raise TimeoutError from None
        status, reason, headers, keep = self.read_head(deadline)
        while 100 <= status < 200:  # interim answers (100 Continue, 103 Early Hints)
            status, reason, headers, keep = self.read_head(deadline)
        body = self.read_body(headers, status, deadline)
        if not keep or headers.get("connection", "").lower() == "close":
            self.close()
        encoding = headers.pop("content-encoding", "identity").lower()  # the body is decoded
        if encoding in ("gzip", "deflate"):
            body = zlib.decompress(body, 47)  # 32 + 15: a gzip or zlib header, found from the data
        elif encoding != "identity":
            raise ValueError(f"the answer is {encoding}-encoded, which cannot be read here")
        return Answer(status, reason, headers, body)

    def read_head(self, deadline: float) -> tuple[int, str, dict[str, str], bool]:
        """Status, reason, headers and whether the connection may be kept alive."""
        end = self.buffer.find(b"\r\n\r\n")
        while end < 0:
            if len(self.buffer) > _MAX_HEAD:
                raise ValueError("the answer's headers never end")
            try:
                more = self._recv(deadline)
            except ConnectionResetError:  # a kept-alive connection the server dropped
                more = b""
            if not more:
                if not self.buffer:
                    raise _Stale
                raise ValueError("the connection closed in the middle of the answer's headers")
            self.buffer += more
            end = self.buffer.find(b"\r\n\r\n")
        head, self.buffer = self.buffer[:end], self.buffer[end + 4 :]
        status_line, *lines = head.decode("latin-1").split("\r\n")
        version, _, rest = status_line.partition(" ")
        code, _, reason = rest.partition(" ")
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise ValueError(f"not an HTTP/1.1 answer ({status_line[:60]!r})")
        headers: dict[str, str] = {}
        for line in lines:
            name, _, value = line.partition(":")
            key = name.strip().lower()
            headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
        return int(code), reason, headers, version == "HTTP/1.1"

    def read_body(self, headers: dict[str, str], status: int, deadline: float) -> bytes:
        """The answer's body, framed by chunks, its length or the connection's end."""
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._chunked(deadline)
        length = headers.get("content-length")
        if length is not None:
            return self._exactly(int(length.split(",")[0]), deadline)
        if status in (204, 304):
            return b""
        parts: list[bytes] = [self.buffer]
        while more := self._recv(deadline):
            parts.append(more)
        self.close()  # the end of the body is the end of the connection
        return b"".join(parts)

    def _chunked(self, deadline: float) -> bytes:
        parts: list[bytes] = []
        while True:
            size_line = self._line(deadline)
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self._line(deadline):  # trailers, up to the blank line
                    pass
                return b"".join(parts)
            parts.append(self._exactly(size, deadline))
            self._line(deadline)  # the CRLF after the chunk

    def _line(self, deadline: float) -> bytes:
        end = self.buffer.find(b"\r\n")
        while end < 0:
            self._more(deadline)
            end = self.buffer.find(b"\r\n")
        line, self.buffer = self.buffer[:end], self.buffer[end + 2 :]
        return line

    def _exactly(self, size: int, deadline: float) -> bytes:
        while len(self.buffer) < size:
            self._more(deadline)
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def _more(self, deadline: float) -> None:
        more = self._recv(deadline)
        if not more:
            raise ValueError("the connection closed in the middle of the answer")
        self.buffer += more

    def _recv(self, deadline: float) -> bytes:
        sock = self.sock
        if sock is None:
            return b""
        self.wait_at_most(sock, deadline)
        try:
            return sock.recv(_CHUNK)
        except BlockingIOError:  # the kernel's receive timeout
            raise TimeoutError from None
