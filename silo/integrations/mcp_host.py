"""Running silo-mcp's HTTP server: for the command line, or in a thread for a harness.

Contract: :func:`serve_http` serves until SIGTERM or SIGINT (``silo-mcp transport=http``): it
binds first (a port in use is a one-line ``ConfigError`` ``port_in_use`` before the ready line
``silo-mcp: serving <env> on <url>``), then runs uvicorn with :class:`~silo.integrations.
mcp_http.Gate` in front of the SDK's app. :class:`McpHost` serves the same in a thread of the
caller's process, for a harness (or a trainer) that gives each rollout its own episode:
``new_episode()`` is an episode id and URL for any MCP client, ``end_episode(id)`` ends it (its
record written) and returns the graded result, ``stop()`` ends what is still open. Both close
the episodes of clients gone silent for ``idle_timeout_s``, and those of handshake-era clients
whose event stream dropped ``drop_grace_s`` ago (see :mod:`silo.integrations.mcp_http`). The
SDK's error logs are one line each, and a client gone mid-request logs nothing.
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from silo.integrations.extras import require

require("mcp", "mcp", "silo-mcp")

import anyio  # noqa: E402  (after the extra check, so a missing extra is one line)
import uvicorn  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.server.transport_security import TransportSecuritySettings  # noqa: E402
from starlette.requests import ClientDisconnect  # noqa: E402

from silo.errors import ConfigError  # noqa: E402
from silo.integrations.episodes import EpisodeSpec, EpisodeTable  # noqa: E402
from silo.integrations.mcp_http import MAX_IDLE_S, Gate, HttpOptions, check_exposure  # noqa: E402
from silo.rollout.result import RolloutResult  # noqa: E402

__all__ = ["Episode", "McpHost", "serve_http"]

_START_S = 60.0  # safety net for uvicorn's start-up in a thread (it takes milliseconds)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        why = "is in use" if exc.errno == 98 else f"cannot be bound ({exc.strerror})"
        raise ConfigError(
            "port_in_use" if exc.errno == 98 else "config_invalid",
            f"port {port} on {host} {why}; stop what listens there or pick another with port=N",
        ) from None
    sock.listen(2048)
    return sock


_GONE = (ClientDisconnect, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)


class _OneLine(logging.Formatter):
    """The SDK's error logs as one line each, without the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        exc = record.exc_info[1] if record.exc_info else None
        why = "" if exc is None else f": {type(exc).__name__}: {exc}"
        return f"silo-mcp: {record.getMessage()}{why}"


def _client_gone(record: logging.LogRecord) -> bool:
    """False for the record of a client that went away mid-request (nothing to report)."""
    exc = record.exc_info[1] if record.exc_info else None
    return not isinstance(exc, _GONE)


def _quiet_sdk_logs() -> None:
    """The SDK logs a client gone mid-request with a traceback; say other errors in a line."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine())
    handler.addFilter(_client_gone)
    handler.setLevel(logging.ERROR)
    sdk = logging.getLogger("mcp")
    sdk.addHandler(handler)
    sdk.propagate = False


def _reap_until(stop: threading.Event, gate: Gate, idle_s: float) -> None:
    """Close the episodes of clients gone without a word, once idle for ``idle_s``."""
    while not stop.wait(max(0.2, min(idle_s / 4, 30.0))):
        gate.table.close_idle(idle_s)
        gate.forget_idle(idle_s)


def _prepare(
    server: Server[Any], table: EpisodeTable, options: HttpOptions
) -> tuple[socket.socket, Gate, float, str]:
    """Check, bind and build: the socket, the gate, the idle timeout and the base URL."""
    check_exposure(options.host, options.token)
    _quiet_sdk_logs()
    sock = _bind(options.host, options.port)
    idle_s = min(options.idle_timeout_s, MAX_IDLE_S)
    inner = server.streamable_http_app(
        host=options.host,
        session_idle_timeout=idle_s,
        max_sessions=None,  # the gate's cap ends the oldest idle session instead of refusing
        # The gate checks Host and Origin at every bind address, with the allow-list.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    shown = f"[{options.host}]" if ":" in options.host else options.host
    return sock, Gate(inner, table, options), idle_s, f"http://{shown}:{sock.getsockname()[1]}"


def serve_http(server: Server[Any], table: EpisodeTable, options: HttpOptions) -> None:
    """Serve until stopped; SIGTERM or SIGINT end it, and the caller records what is open."""
    sock, gate, idle_s, base = _prepare(server, table, options)
    stop = threading.Event()
    threading.Thread(target=_reap_until, args=(stop, gate, idle_s), daemon=True).start()
    sys.stderr.write(f"silo-mcp: serving {table.environment.name} on {base}/mcp\n")
    sys.stderr.flush()
    # uvicorn re-raises the SIGTERM it caught once it has shut down; exiting through Python
    # (not the default handler) lets serve() close the sessions clients left open.
    previous = signal.signal(signal.SIGTERM, _exit_cleanly)
    config = uvicorn.Config(gate, log_level="critical", lifespan="on")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        stop.set()
        signal.signal(signal.SIGTERM, previous)


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


@dataclass(frozen=True)
class Episode:
    """One episode handed out: its id and the MCP URL a client connects to."""

    id: str
    url: str


class McpHost:
    """silo-mcp over HTTP in a thread of this process, each rollout on an episode of its own."""

    def __init__(
        self,
        spec: EpisodeSpec,
        options: HttpOptions | None = None,
        finish_result: str = "recorded",
    ) -> None:
        """Load ``spec``'s environment; :meth:`start` serves it (default: loopback, free port)."""
        from silo.integrations.mcp_server import build_server

        self.options = options or HttpOptions(port=0)
        self.table = EpisodeTable(spec, spec.load(), self.options.max_episodes)
        self._server = build_server(self.table, finish_result)
        self._uvicorn: uvicorn.Server | None = None
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self.base_url = ""

    def start(self) -> McpHost:
        """Bind and serve in a thread; returns once clients can connect."""
        sock, gate, idle_s, self.base_url = _prepare(self._server, self.table, self.options)
        config = uvicorn.Config(gate, log_level="critical", lifespan="on")
        self._uvicorn = served = uvicorn.Server(config)
        self._threads = [
            threading.Thread(target=served.run, kwargs={"sockets": [sock]}, daemon=True),
            threading.Thread(target=_reap_until, args=(self._stop, gate, idle_s), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        deadline = time.monotonic() + _START_S
        while not served.started:  # uvicorn offers a flag, not an event
            if not self._threads[0].is_alive() or time.monotonic() > deadline:
                raise ConfigError("config_invalid", f"silo-mcp did not start on {self.base_url}")
            time.sleep(0.005)
        return self

    def new_episode(self) -> Episode:
        """A new episode: one rollout for whichever MCP client connects to its URL."""
        handle = self.table.reserve()
        return Episode(handle, f"{self.base_url}/episodes/{handle}/mcp")

    def end_episode(
        self, episode_id: str, why: str = "ended by its harness"
    ) -> RolloutResult | None:
        """End the episode (recorded as ``why`` unless it finished); its result.

        An episode whose client never called a tool is recorded as a rollout of no calls (on a
        server with a fixed task), so a harness that failed to reach silo-mcp still has a run.
        None for an id never handed out, or already ended.
        """
        session = self.table.close(episode_id, why, untouched=True)
        return None if session is None else session.result

    def stop(self) -> None:
        """Stop serving; every episode still open is recorded as closed."""
        self._stop.set()
        if self._uvicorn is not None:
            self._uvicorn.should_exit = True
        for thread in self._threads:
            thread.join()
        self.table.close_all()

    def __enter__(self) -> McpHost:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
