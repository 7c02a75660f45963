"""Noticing an HTTP client that went away: its event stream's connection dropped, nothing since.

Contract: a handshake-era MCP client keeps an event stream open (a ``GET``) for its whole
session, and a client killed, crashed or unplugged loses it without a ``DELETE``.
:class:`DropWatch` serves such a stream (:meth:`DropWatch.stream`) and reads its
``http.disconnect``, the server's only sign of the connection dropping (a stream the server
itself ends reads none). When one drops, and within ``grace_s`` no request of the session comes
(each request calls :meth:`DropWatch.seen`), no stream of it is open again and no call of it is
in flight, the watch awaits the stream's ``gone()``, which ends the session. The timers run
only inside :meth:`DropWatch.running`, held by the server's ASGI lifespan and cancelled with
it; a ``gone()`` that raises is one line on stderr, never the end of the server. Stateless
clients hold no stream, so nothing here ever ends them.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from silo.integrations.extras import require

require("mcp", "mcp", "silo-mcp")

import anyio  # noqa: E402  (after the extra check, so a missing extra is one line)
from anyio.abc import TaskGroup  # noqa: E402

__all__ = ["DropWatch"]

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]


class DropWatch:
    """Event streams served, and the timers of those whose connection dropped."""

    def __init__(self, grace_s: float) -> None:
        """Watch with ``grace_s`` for a client to come back after its stream dropped."""
        self.grace_s = grace_s
        self._drops: dict[str, object] = {}  # session id -> its unanswered drop
        self._streams: dict[str, int] = {}  # session id -> event streams open
        self._tasks: TaskGroup | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Act on drops while inside (the server's lifetime); timers left are cancelled."""
        async with anyio.create_task_group() as tasks:
            self._tasks = tasks
            try:
                yield
            finally:
                tasks.cancel_scope.cancel()
                self._tasks = None

    def seen(self, sid: str) -> None:
        """A request of session ``sid`` arrived: its client is there."""
        self._drops.pop(sid, None)

    async def stream(
        self,
        sid: str,
        serve: Callable[[Receive], Awaitable[None]],
        receive: Receive,
        busy: Callable[[], bool],
        gone: Callable[[], Awaitable[None]],
    ) -> None:
        """Serve ``sid``'s event stream with ``serve``; on a drop, start its clock.

        ``busy()`` says whether a call of the session is in flight (it is answered first);
        ``gone()`` ends the session once the client is taken to be gone.
        """
        dropped = False

        async def receiving() -> Message:
            nonlocal dropped
            message = await receive()
            dropped = dropped or message["type"] == "http.disconnect"
            return message

        self._streams[sid] = self._streams.get(sid, 0) + 1
        try:
            await serve(receiving)
        finally:
            if (left := self._streams.pop(sid) - 1) > 0:
                self._streams[sid] = left
        if dropped and self._tasks is not None:
            mark = self._drops[sid] = object()
            self._tasks.start_soon(self._end_if_gone, sid, mark, busy, gone)

    async def _end_if_gone(
        self,
        sid: str,
        mark: object,
        busy: Callable[[], bool],
        gone: Callable[[], Awaitable[None]],
    ) -> None:
        while True:
            await anyio.sleep(self.grace_s)
            if self._drops.get(sid) is not mark:
                return  # the client came back (or left by DELETE): nothing dropped after all
            if sid in self._streams:  # a stream it opened again before the old one closed
                del self._drops[sid]
                return
            if not busy():
                break
        del self._drops[sid]
        # This task runs beside the server's lifespan: an error escaping it would stop the
        # server for every other client, so it is one line instead.
        try:
            await gone()
        except Exception as exc:
            sys.stderr.write(f"silo-mcp: ending a session whose client went away: {exc}\n")
