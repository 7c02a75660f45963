"""silo-mcp over streamable HTTP: episode URLs, and the gate that makes it safe to expose.

Contract: :class:`Gate` is the ASGI app in front of the SDK's (served by
:mod:`silo.integrations.mcp_host`, with the :class:`HttpOptions`). It answers:

- ``POST /episodes``: a new episode, ``201 {"episode": <id>, "url": <base>/episodes/<id>/mcp}``.
  Every MCP request to that URL (any protocol era, stateless 2026-07-28 clients included, no
  custom header) is that one rollout. ``DELETE /episodes/<id>`` (or ``/episodes/<id>/mcp``)
  ends it at once, recorded (one that never called a tool too, as a rollout of no calls); an
  unknown id is 404.
- ``/mcp``: a handshake-era session is one rollout (its ``mcp-session-id``), ended at once by
  the client's ``DELETE``; a request carrying ``x-silo-episode`` belongs to that episode.

Before any of it, each request passes three checks: the ``Host`` header names a loopback host
or one in ``allowed_hosts`` (at any bind address: DNS rebinding), a browser's ``Origin`` does
too, and, when a token is set (required for a host that is not loopback, see
:func:`check_exposure`), ``Authorization: Bearer <token>``. Refusals are 421, 403 and 401 with
a one-line JSON reason. At most ``max_sessions`` MCP sessions stay open: past it the least
recently used one without a request in flight is ended and recorded (never a lock-out). A
session or episode with no request for ``idle_timeout_s`` (default: the task's time budget) is
ended and recorded, so a client that went away costs nothing after its rollout's budget.

A client that keeps a standing connection (a handshake-era session's ``GET`` event stream, at
``/mcp`` or on an episode URL) and loses it without a ``DELETE`` (killed, crashed, unplugged)
is noticed sooner: when that stream's connection drops and no request of the session follows
within ``drop_grace_s`` (longer than the SDKs' reconnection delay), its episode is ended and
recorded ("its client went away"; :mod:`silo.integrations.mcp_drops`). A stateless client (POST
only, no stream) has no standing connection to lose, so only ``DELETE`` or the idle timeout end
it.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from silo.integrations.extras import require

require("mcp", "mcp", "silo-mcp")

from anyio import to_thread  # noqa: E402  (after the extra check, so a missing extra is one line)

from silo.errors import ConfigError  # noqa: E402
from silo.integrations.episodes import EpisodeTable  # noqa: E402
from silo.integrations.mcp_drops import DropWatch  # noqa: E402

__all__ = [
    "DROP_GRACE_S",
    "TOKEN_ENV",
    "WENT_AWAY",
    "Gate",
    "HttpOptions",
    "check_exposure",
    "is_loopback",
    "new_token",
]

TOKEN_ENV = "SILO_MCP_TOKEN"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
MAX_IDLE_S = 1800.0  # the SDK's own default: no client is held longer, whatever the budget
# Above the mcp SDKs' reconnection delay of a dropped event stream (1 s in Python and TypeScript).
DROP_GRACE_S = 5.0
WENT_AWAY = "ended when its client went away (its connection dropped)"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass(frozen=True)
class HttpOptions:
    """How silo-mcp serves HTTP: where, to whom, and how many clients at once."""

    host: str = "127.0.0.1"
    port: int = 8000
    token: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    max_sessions: int = 256
    max_episodes: int = 256
    idle_timeout_s: float = MAX_IDLE_S
    drop_grace_s: float = DROP_GRACE_S


def is_loopback(host: str) -> bool:
    """True for a name or address that only this machine reaches."""
    if host.strip("[]").lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, token: str | None) -> None:
    """Refuse (one line) to serve a host other machines reach without a token."""
    if token is None and not is_loopback(host):
        raise ConfigError(
            "config_invalid",
            f"host={host} lets other machines in, so silo-mcp needs a token: add auth=generate "
            f"(prints one) or set {TOKEN_ENV} and add auth=env; see docs/integrations.md, "
            "Exposing silo-mcp",
        )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", []):
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def _reply(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


class Gate:
    """The ASGI app in front of the SDK's: checks, episode URLs, caps, ends on DELETE.

    Ending an episode grades and writes it, so that runs on a worker thread: the event loop
    keeps serving the other clients meanwhile.
    """

    def __init__(self, inner: App, table: EpisodeTable, options: HttpOptions) -> None:
        self.inner = inner
        self.table = table
        self.options = options
        self.hosts = {h.lower() for h in (*LOOPBACK_NAMES, *options.allowed_hosts)}
        if not options.host.startswith(("0.0.0.0", "::")) and options.host != "[::]":
            self.hosts.add(options.host.strip("[]").lower())
        self._lock = threading.Lock()
        self._sessions: dict[str, float] = {}  # MCP session id -> last use, oldest first
        self._busy: dict[str, int] = {}  # MCP session id -> requests in flight
        self.drops = DropWatch(options.drop_grace_s)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve one ASGI connection event (lifespan passes through)."""
        if scope["type"] == "lifespan":
            # The lifespan lasts as long as the server: drop timers run beside it, and are
            # cancelled with it rather than holding the shutdown up.
            async with self.drops.running():
                await self.inner(scope, receive, send)
            return
        if scope["type"] != "http":  # websockets: nothing here speaks them, and none is checked
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await _reply(send, *refusal)
            return
        path, method = scope["path"].rstrip("/"), scope["method"]
        if path == "/episodes" and method == "POST":
            handle = await to_thread.run_sync(self.table.reserve)
            base = f"{scope.get('scheme', 'http')}://{_header(scope, b'host') or 'localhost'}"
            await _reply(send, 201, {"episode": handle, "url": f"{base}/episodes/{handle}/mcp"})
            return
        if path.startswith("/episodes/"):
            await self._episode(path, method, scope, receive, send)
            return
        if path == "/mcp":
            await self._session(scope, receive, send)
            return
        await _reply(send, 404, {"error": f"no such path {path}; MCP is at /mcp"})

    def _refusal(self, scope: Scope) -> tuple[int, dict[str, Any]] | None:
        host = _header(scope, b"host") or ""
        name = urlsplit(f"//{host}").hostname or ""
        if name.lower() not in self.hosts:
            return 421, {"error": f"Host {host!r} is not served here; see allowed_hosts"}
        origin = _header(scope, b"origin")
        if origin is not None and (urlsplit(origin).hostname or "").lower() not in self.hosts:
            return 403, {"error": f"Origin {origin!r} is not allowed; see allowed_hosts"}
        token = self.options.token
        if token is not None:
            given = _header(scope, b"authorization") or ""
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return 401, {"error": "missing or wrong Authorization: Bearer <token>"}
        return None

    async def _episode(
        self, path: str, method: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        parts = path.split("/")  # "", "episodes", id[, "mcp"]
        handle = parts[2]
        if len(parts) > 4 or parts[3:] not in ([], ["mcp"]) or not self.table.known(handle):
            await _reply(send, 404, {"error": "unknown episode; POST /episodes for a new one"})
            return
        if method == "DELETE":
            session = await to_thread.run_sync(self.table.close, handle, "ended by DELETE", True)
            done = session is not None and session.result is not None
            run_dir = session.run_dir if session is not None else None
            await _reply(send, 200, {"ended": done, "runDir": None if not done else str(run_dir)})
            return
        if len(parts) == 3:
            await _reply(send, 405, {"error": "an episode takes DELETE; MCP is at its /mcp"})
            return
        headers = [(k, v) for k, v in scope["headers"] if k != b"x-silo-episode"]
        headers.append((b"x-silo-episode", handle.encode()))
        inner = {**scope, "path": "/mcp", "raw_path": b"/mcp", "headers": headers}
        sid = _header(scope, b"mcp-session-id")
        if sid is not None:
            self.drops.seen(sid)
            if method == "GET":
                await self._stream(inner, receive, send, sid, handle)
                return
        await self._forward(inner, receive, send)

    async def _session(self, scope: Scope, receive: Receive, send: Send) -> None:
        sid = _header(scope, b"mcp-session-id")
        if sid is not None:
            self.drops.seen(sid)
            if scope["method"] == "GET":
                await self._stream(scope, receive, send, sid, None)
                return
        # Only calls make a session busy: a client's open GET stream says nothing about
        # whether anyone still drives it.
        counted = sid if scope["method"] == "POST" else None
        if counted is not None:
            self._use(counted, +1)
        try:
            await self._forward(scope, receive, send, watch=sid is None)
        finally:
            if counted is not None:
                self._use(counted, -1)
        if sid is not None and scope["method"] == "DELETE":
            self._forget(sid)
            await to_thread.run_sync(self.table.close, sid, "ended by DELETE")

    async def _forward(
        self, scope: Scope, receive: Receive, send: Send, watch: bool = False
    ) -> None:
        """Pass the request on; a client gone mid-answer is not an error worth a traceback."""
        opened: list[str] = []

        async def sending(message: Message) -> None:
            if watch and message["type"] == "http.response.start":
                for key, value in message.get("headers", []):
                    if key.lower() == b"mcp-session-id":
                        opened.append(value.decode("latin-1"))
            await send(message)

        try:
            await self.inner(scope, receive, sending)
        except OSError:
            return  # the client closed its connection while we answered
        for sid in opened:
            self._use(sid, 0)
            await self._enforce_cap(scope, sid)

    async def _stream(
        self, scope: Scope, receive: Receive, send: Send, sid: str, episode: str | None
    ) -> None:
        """Serve a session's event stream, watched for its connection dropping."""

        async def serve(receiving: Receive) -> None:
            await self._forward(scope, receiving, send)

        busy = partial(self._is_busy, sid)
        gone = partial(self._went_away, sid, scope, episode)
        await self.drops.stream(sid, serve, receive, busy, gone)

    def _is_busy(self, sid: str) -> bool:
        with self._lock:
            return self._busy.get(sid, 0) > 0

    async def _went_away(self, sid: str, scope: Scope, episode: str | None) -> None:
        """End the session (and its episode) whose client went away, if still open."""
        if episode is None:
            with self._lock:
                open_here = sid in self._sessions
        else:
            open_here = self.table.known(episode)
        if open_here:
            await self.end_session(sid, scope, WENT_AWAY, handle=episode)

    def _use(self, sid: str, delta: int) -> None:
        with self._lock:
            self._sessions.pop(sid, None)
            self._sessions[sid] = time.monotonic()
            self._busy[sid] = self._busy.get(sid, 0) + delta

    def _forget(self, sid: str) -> None:
        with self._lock:
            self._sessions.pop(sid, None)
            self._busy.pop(sid, None)

    async def _enforce_cap(self, scope: Scope, newcomer: str) -> None:
        """Past ``max_sessions``, end the least recently used idle sessions, recorded."""
        while True:
            with self._lock:
                if len(self._sessions) <= self.options.max_sessions:
                    return
                idle = [s for s in self._sessions if s != newcomer and self._busy.get(s, 0) <= 0]
                if not idle:
                    return
                oldest = idle[0]
            await self.end_session(oldest, scope, "evicted (silo-mcp's max_sessions reached)")

    async def end_session(
        self, sid: str, scope: Scope, why: str, handle: str | None = None
    ) -> None:
        """End an MCP session as its client's DELETE would, and record its rollout.

        ``handle`` is the session's episode when it came through an episode URL.
        """
        self._forget(sid)
        headers = [(b"host", b"127.0.0.1"), (b"mcp-session-id", sid.encode())]
        delete = {
            **scope,
            "method": "DELETE",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "headers": headers,
        }

        async def discard(message: Message) -> None:
            return None

        await self.inner(delete, _no_body, discard)
        # An episode handed out is recorded even with no call, as its DELETE would.
        await to_thread.run_sync(self.table.close, handle or sid, why, handle is not None)

    def forget_idle(self, idle_s: float) -> None:
        """Stop tracking sessions idle for ``idle_s``: the SDK has ended them by then."""
        now = time.monotonic()
        with self._lock:
            for sid in [s for s, t in self._sessions.items() if now - t >= idle_s]:
                if self._busy.get(sid, 0) <= 0:
                    del self._sessions[sid]
                    self._busy.pop(sid, None)


def new_token() -> str:
    """A fresh bearer token (printed once by ``auth=generate``)."""
    return secrets.token_urlsafe(32)
