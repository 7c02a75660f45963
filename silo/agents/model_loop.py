"""The process's model loop: one asyncio event loop, on a thread of its own, for every model request.

Contract: :func:`model_loop` returns the loop (its thread starts on first use, as a daemon, and
is started anew in a forked child, where the parent's thread does not exist). Silo's model
agents run their conversations on it as coroutines and their endpoints keep their aiohttp
sessions there (:mod:`silo.agents.endpoints`), so thousands of rollouts in flight cost one
thread and one loop, not a thread each. :func:`run_on_model_loop` runs a coroutine there from
any *other* thread and returns its result (or raises what it raised); called on the loop's own
thread it raises :class:`RuntimeError` instead of deadlocking. :func:`loop_native` says whether
an agent callable offers a coroutine to run on this loop (``runs_on_model_loop`` set and an
``arun(inp)`` method), which the rollout driver then starts here instead of on a worker thread.

Only Silo's own model agents run here: a user's agent never does (an ``async`` agent of a user
keeps a loop and thread of its own, so one that never awaits cannot stall this loop), and
the code that runs on this loop never blocks for longer than a tool call or a record's write.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

__all__ = ["at_exit", "loop_native", "model_loop", "on_model_loop", "run_on_model_loop"]

T = TypeVar("T")


class _ModelLoop:
    """The loop and its thread, made on first use (a resource of the process, never results)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closers: list[Callable[[], Awaitable[None]]] = []

    def get(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is not None:
            return loop
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()
                thread = threading.Thread(
                    target=self._serve, args=(loop, ready), name="silo-model-loop", daemon=True
                )
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
            return self._loop

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop, ready: threading.Event) -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.run_forever()

    def on_thread(self) -> bool:
        return self._thread is threading.current_thread()

    def at_exit(self, closer: Callable[[], Awaitable[None]]) -> None:
        with self._lock:
            self._closers.append(closer)

    def close(self, wait_s: float = 2.0) -> None:
        """Run the registered closers (aiohttp sessions), then stop the loop; at process exit."""
        loop, closers = self._loop, self._closers
        if loop is None or loop.is_closed() or not closers:
            return

        async def close_all() -> None:
            await asyncio.gather(*(closer() for closer in closers), return_exceptions=True)

        # The process is ending: a session that will not close has nothing left to tell.
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(close_all(), loop).result(wait_s)

    def forget(self) -> None:
        """In a forked child the loop's thread does not exist: start afresh on next use."""
        self._lock = threading.Lock()
        self._loop, self._thread, self._closers = None, None, []


_MODEL_LOOP = _ModelLoop()
atexit.register(_MODEL_LOOP.close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_MODEL_LOOP.forget)


def model_loop() -> asyncio.AbstractEventLoop:
    """The process's model loop, running on its own thread."""
    return _MODEL_LOOP.get()


def on_model_loop() -> bool:
    """True on the model loop's own thread."""
    return _MODEL_LOOP.on_thread()


def at_exit(closer: Callable[[], Awaitable[None]]) -> None:
    """Await ``closer()`` on the loop when the process exits (closing a pooled session)."""
    _MODEL_LOOP.at_exit(closer)


def run_on_model_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the model loop and wait for its result, from any other thread."""
    if _MODEL_LOOP.on_thread():
        coro.close()
        raise RuntimeError(
            "a model agent was called synchronously on the model loop; await its arun() instead"
        )
    return asyncio.run_coroutine_threadsafe(coro, model_loop()).result()


def loop_native(fn: Any) -> Callable[[Any], Coroutine[Any, Any, Any]] | None:
    """``fn.arun`` when ``fn`` is an agent that runs on the model loop, else None."""
    if getattr(fn, "runs_on_model_loop", False) is True:
        arun = getattr(fn, "arun", None)
        if callable(arun):
            return arun  # type: ignore[no-any-return]
    return None
