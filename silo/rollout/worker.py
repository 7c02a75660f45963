"""Agent threads: run an agent on a reusable daemon thread, abandon it if it hangs.

Contract: :meth:`AgentWorkers.start` runs ``agent.fn(inp)`` (awaiting it, on an event loop of
that thread's own, when it returns an awaitable) on an idle worker thread in a fresh
``contextvars`` context and returns an :class:`AgentJob`. The thread keeps its event loop for
the agents it runs next (creating and closing a loop per rollout cost ~0.2 ms); what an agent
leaves on it (tasks it never awaited) is cancelled when the agent returns, so the next agent
starts on an empty loop, as with ``asyncio.run``. When the agent returns or raises, the
job calls ``on_return`` first (the rollout refuses calls from then on: an agent's stray threads
cannot act after it returned), then records the outcome, sets ``finished`` and sets the
caller's ``wake`` event. :meth:`AgentWorkers.release` gives the worker back when its agent
returned; a worker whose agent is still running (abandoned after a timeout) is retired and
exits when that agent finally returns. Starting a thread per rollout cost more than a whole
scripted rollout, hence the reuse.

Every agent gets a thread of its own, so an agent that never yields (a CPU loop, a blocking
sleep, ``async`` code that never awaits) holds up nothing but itself: the GIL switches threads
every few milliseconds, and the rollout's driver abandons the thread at the timeout.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Callable
from typing import Any

from silo.agents.contract import AgentInput
from silo.agents.resolve import ResolvedAgent

__all__ = ["AgentJob", "AgentWorkers", "WORKERS"]


class AgentJob:
    """One agent's run on a worker: what it returned or raised, and whether it has finished."""

    __slots__ = (
        "agent", "inp", "enter", "on_return", "wake", "finished", "has_returned", "returned",
        "error",
    )  # fmt: skip

    def __init__(
        self,
        agent: ResolvedAgent,
        inp: AgentInput,
        enter: Callable[[], Any],
        on_return: Callable[[], None],
        wake: threading.Event,
    ) -> None:
        self.agent, self.inp, self.enter = agent, inp, enter
        self.on_return, self.wake = on_return, wake
        self.finished = threading.Event()
        self.has_returned = False
        self.returned: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        """Run the agent to its end on this thread (called by the worker in a fresh context)."""
        try:
            self.enter()
            value = self.agent.fn(self.inp)
            if hasattr(value, "__await__"):
                value = _run_on_thread_loop(value)
            self.on_return()
            self.returned, self.has_returned = value, True
        except BaseException as exc:  # noqa: BLE001 - any failure of the agent is reported
            self.on_return()
            self.error = exc
        finally:
            self.finished.set()
            self.wake.set()


async def _awaited(value: Any) -> Any:
    return await value


# Each worker thread's event loop (a resource of the thread, like its stack; never results).
_THREAD_LOOP = threading.local()


def _run_on_thread_loop(awaitable: Any) -> Any:
    """Await ``awaitable`` on this thread's event loop, then cancel the tasks it left behind."""
    loop: asyncio.AbstractEventLoop | None = getattr(_THREAD_LOOP, "loop", None)
    if loop is None or loop.is_closed():
        loop = _THREAD_LOOP.loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(_awaited(awaitable))
    finally:
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        asyncio.set_event_loop(None)


def _close_thread_loop() -> None:
    """Close this thread's event loop, if it made one (the worker thread is exiting)."""
    loop: asyncio.AbstractEventLoop | None = getattr(_THREAD_LOOP, "loop", None)
    if loop is not None and not loop.is_closed():
        loop.close()


class _AgentWorker:
    """A daemon thread that runs agents one after another, so a rollout needs no new thread.

    A worker whose agent is still running when its rollout ends (abandoned after a timeout) is
    retired: it exits once that agent returns, and a new worker takes its place.
    """

    __slots__ = ("_go", "_job", "_mutex", "_retired", "thread")

    def __init__(self) -> None:
        self._go = threading.Lock()
        self._go.acquire()
        self._job: AgentJob | None = None
        self._mutex = threading.Lock()
        self._retired = False
        self.thread = threading.Thread(target=self._loop, daemon=True, name="silo-agent")
        self.thread.start()

    def _loop(self) -> None:
        try:
            self._run_jobs()
        finally:
            _close_thread_loop()

    def _run_jobs(self) -> None:
        go = self._go
        while True:
            go.acquire()
            job, self._job = self._job, None
            if job is None:
                return
            # A fresh, empty context per agent, as a new thread would start with.
            contextvars.Context().run(job.run)
            del job  # let the finished rollout's objects go
            with self._mutex:
                if self._retired:
                    return

    def submit(self, name: str, job: AgentJob) -> None:
        self.thread.name = name
        self._job = job
        self._go.release()

    def finish(self, job: AgentJob) -> bool:
        """After a rollout: True when the agent returned (the worker is free again)."""
        with self._mutex:
            if job.finished.is_set():
                return True
            self._retired = True
            return False


class AgentWorkers:
    """The idle agent threads of this process, handed out one per rollout in flight."""

    def __init__(self) -> None:
        self._idle: list[_AgentWorker] = []
        self._lock = threading.Lock()

    def start(
        self,
        agent: ResolvedAgent,
        inp: AgentInput,
        name: str,
        *,
        enter: Callable[[], Any],
        on_return: Callable[[], None],
        wake: threading.Event,
    ) -> tuple[_AgentWorker, AgentJob]:
        """Start ``agent`` on an idle worker (a new one if none is idle)."""
        job = AgentJob(agent, inp, enter, on_return, wake)
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _AgentWorker()
        worker.submit(name, job)
        return worker, job

    def release(self, worker: _AgentWorker, job: AgentJob) -> None:
        """Keep ``worker`` for the next rollout if its agent returned, else retire it."""
        if worker.finish(job):
            with self._lock:
                self._idle.append(worker)

    def forget(self) -> None:
        """Drop every idle worker: in a forked child their threads do not exist."""
        self._idle = []
        self._lock = threading.Lock()


WORKERS = AgentWorkers()
"""The process's agent threads (a thread pool: it holds idle threads, never results)."""

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=WORKERS.forget)
