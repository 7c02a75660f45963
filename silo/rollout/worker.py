"""Agent threads: run an agent on a reusable daemon thread, abandon it if it hangs.

Contract: :meth:`AgentWorkers.start` runs a job (a callable returning whether its thread may
be reused) on an idle worker thread in a fresh ``contextvars`` context. :func:`call_agent` runs
``agent.fn(inp)`` on the calling thread, awaiting it on that thread's own event loop when it
returns an awaitable; the thread keeps its event loop for the agents it runs next (creating and
closing a loop per rollout cost ~0.2 ms), and what an agent leaves on it (tasks it never
awaited) is cancelled when the agent returns, so the next agent starts on an empty loop, as
with ``asyncio.run``. A worker whose job says no (its agent was abandoned after a timeout and
returned later) exits instead of taking the next job. Starting a thread per rollout cost more
than a whole scripted rollout, hence the reuse.

:class:`AgentJob` is the job of a driver on another thread (:func:`silo.rollout.run.run_task`):
when the agent returns or raises it calls ``on_return`` first (the rollout refuses calls from
then on: an agent's stray threads cannot act after it returned), then records the outcome,
sets ``finished`` and calls the caller's ``wake``; :meth:`AgentJob.abandon` gives it up.

Every agent gets a thread of its own, so an agent that never yields (a blocking sleep,
``async`` code that never awaits) cannot stop the others: the rollout's driver abandons its
thread at the timeout. A CPU-bound agent on a thread is different: it competes with every
rollout for the GIL, and an abandoned thread that keeps computing cannot be stopped, so many
such agents slow every rollout in the process and make timeouts overshoot
(docs/performance.md gives the figures). An agent resolved with ``isolation: process`` runs
in a child process instead (:mod:`silo.rollout.isolation`), which is killed at its deadline.
"""

from __future__ import annotations

import asyncio
import atexit
import contextvars
import os
import threading
import time
import weakref
from collections.abc import Callable
from typing import Any

from silo.agents.contract import AgentInput
from silo.agents.resolve import ResolvedAgent

__all__ = ["WORKERS", "AgentJob", "AgentOutcome", "AgentWorkers", "Job", "call_agent"]


def call_agent(agent: ResolvedAgent, inp: AgentInput) -> tuple[bool, Any, BaseException | None]:
    """Run ``agent`` to its end on this thread: (returned, what it returned, what it raised).

    An agent isolated in a process runs in a child, this thread serving its calls
    (:func:`silo.rollout.isolation.call_in_process`).
    """
    if agent.isolation == "process":
        from silo.rollout.isolation import call_in_process

        return call_in_process(agent, inp)
    try:
        value = agent.fn(inp)
        if hasattr(value, "__await__"):
            value = _run_on_thread_loop(value)
        return True, value, None
    except BaseException as exc:  # noqa: BLE001 - any failure of the agent is reported
        return False, None, exc


class AgentOutcome:
    """What became of an agent: returned (and what), raised (and what), or neither yet."""

    __slots__ = ("has_returned", "returned", "error")

    def __init__(self) -> None:
        self.has_returned = False
        self.returned: Any = None
        self.error: BaseException | None = None


class AgentJob(AgentOutcome):
    """One agent's run on a worker: what it returned or raised, and whether it has finished."""

    __slots__ = ("agent", "inp", "enter", "on_return", "wake", "finished", "_state", "_abandoned")

    def __init__(
        self,
        agent: ResolvedAgent,
        inp: AgentInput,
        enter: Callable[[], Any],
        on_return: Callable[[], None],
        wake: Callable[[], object],
    ) -> None:
        super().__init__()
        self.agent, self.inp, self.enter = agent, inp, enter
        self.on_return, self.wake = on_return, wake
        self.finished = threading.Event()
        self._state = threading.Lock()
        self._abandoned = False

    def __call__(self) -> bool:
        """Run the agent to its end (on the worker); False when it was abandoned meanwhile."""
        error: BaseException | None
        try:
            self.enter()
        except BaseException as exc:  # noqa: BLE001 - reported like the agent's own failure
            returned, value, error = False, None, exc
        else:
            returned, value, error = call_agent(self.agent, self.inp)
        self.on_return()
        self.has_returned, self.returned, self.error = returned, value, error
        with self._state:
            self.finished.set()
            keep = not self._abandoned
        self.wake()
        return keep

    def abandon(self) -> None:
        """Give the agent up unless it finished: its worker then exits when it returns."""
        with self._state:
            if not self.finished.is_set():
                self._abandoned = True


async def _awaited(value: Any) -> Any:
    return await value


# Each worker thread's event loop and the tasks made on it (resources of the thread, like its
# stack; never results).
_THREAD_LOOP = threading.local()


def _thread_loop() -> tuple[asyncio.AbstractEventLoop, weakref.WeakSet[asyncio.Task[Any]]]:
    """This thread's event loop (made on first use) and the tasks created on it."""
    loop: asyncio.AbstractEventLoop | None = getattr(_THREAD_LOOP, "loop", None)
    if loop is not None and not loop.is_closed():
        return loop, _THREAD_LOOP.tasks
    loop = asyncio.new_event_loop()
    tasks: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()

    def factory(
        loop: asyncio.AbstractEventLoop, coro: Any, context: contextvars.Context | None = None
    ) -> asyncio.Task[Any]:
        task = asyncio.Task(coro, loop=loop, context=context)
        tasks.add(task)
        return task

    # asyncio.all_tasks(loop) scans every task of every loop in the process: with hundreds
    # of rollouts in flight that scan, once per rollout, was O(rollouts in flight).
    loop.set_task_factory(factory)
    _THREAD_LOOP.loop, _THREAD_LOOP.tasks, _THREAD_LOOP.factory = loop, tasks, factory
    return loop, tasks


def _run_on_thread_loop(awaitable: Any) -> Any:
    """Await ``awaitable`` on this thread's event loop, then cancel the tasks it left behind."""
    loop, made = _thread_loop()
    asyncio.set_event_loop(loop)
    try:
        return loop.run_until_complete(_awaited(awaitable))
    finally:
        if loop.get_task_factory() is _THREAD_LOOP.factory:
            left = {task for task in made if not task.done()}
        else:  # the agent set a task factory of its own: ask asyncio
            left = asyncio.all_tasks(loop)
            loop.set_task_factory(_THREAD_LOOP.factory)
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


Job = Callable[[], bool]
"""What a worker runs: True when its thread may take the next job."""


class _AgentWorker:
    """A daemon thread that runs jobs one after another, so a rollout needs no new thread."""

    __slots__ = ("_go", "_job", "_workers", "thread")

    def __init__(self, workers: AgentWorkers) -> None:
        self._go = threading.Lock()
        self._go.acquire()
        self._job: Job | None = None
        self._workers = workers
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
            # A fresh, empty context per job, as a new thread would start with.
            keep = contextvars.Context().run(job)
            del job  # let the finished rollout's objects go
            if not keep:  # its agent was abandoned: this thread is not the pool's any more
                return
            self._workers.idle(self)

    def submit(self, name: str, job: Job) -> None:
        self.thread.name = name
        self._job = job
        self._go.release()

    def retire(self) -> None:
        """End the thread once it is idle (it closes its event loop on the way out)."""
        self._job = None
        self._go.release()


class AgentWorkers:
    """The idle agent threads of this process, handed out one per rollout in flight."""

    def __init__(self) -> None:
        self._idle: list[_AgentWorker] = []
        self._lock = threading.Lock()

    def start(self, job: Job, name: str) -> None:
        """Run ``job`` on an idle worker (a new one if none is idle)."""
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _AgentWorker(self)
        worker.submit(name, job)

    def idle(self, worker: _AgentWorker) -> None:
        """Take ``worker`` back: its job ended and its thread may run the next one."""
        with self._lock:
            self._idle.append(worker)

    def forget(self) -> None:
        """Drop every idle worker: in a forked child their threads do not exist."""
        self._idle = []
        self._lock = threading.Lock()

    def retire_idle(self, wait_s: float = 1.0) -> None:
        """End every idle worker's thread, each closing its own event loop, waiting ``wait_s``.

        Run at the process's exit: a loop left open is collected while the interpreter
        tears down, in no fixed order, and closing it then prints "Exception ignored".
        """
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.retire()
        until = time.monotonic() + wait_s
        for worker in idle:
            worker.thread.join(max(0.0, until - time.monotonic()))


WORKERS = AgentWorkers()
"""The process's agent threads (a thread pool: it holds idle threads, never results)."""

atexit.register(WORKERS.retire_idle)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=WORKERS.forget)
