"""Agent threads: run an agent on a reusable daemon thread, abandon it if it hangs.

Contract: :func:`start_agent` runs ``agent.fn(inp)`` (awaiting it when it returns an
awaitable) on an idle worker thread in a fresh ``contextvars`` context and returns the worker,
a :class:`Done` flag and the box that receives ``returned`` or ``error``. :func:`release_worker`
gives the worker back when its agent returned; a worker whose agent is still running (abandoned
after a timeout) is retired and exits when that agent finally returns. Starting a thread per
rollout cost more than a whole scripted rollout, hence the reuse.
"""

from __future__ import annotations

import _thread
import contextvars
import os
import threading
from typing import Any

from silo.agents.contract import AgentInput
from silo.agents.resolve import ResolvedAgent

__all__ = ["Done", "release_worker", "start_agent"]


class Done:
    """A one-shot "the agent returned" flag (an Event without the Condition machinery)."""

    __slots__ = ("_lock", "flag")

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()
        self.flag = False

    def set(self) -> None:
        self.flag = True
        self._lock.release()

    def is_set(self) -> bool:
        return self.flag

    def wait(self, timeout: float) -> bool:
        if self.flag:
            return True
        if self._lock.acquire(True, timeout):
            self._lock.release()  # every later wait returns at once
        return self.flag


class _AgentWorker:
    """A daemon thread that runs agents one after another, so a rollout needs no new thread.

    A worker whose agent is still running when its rollout ends (abandoned after a timeout) is
    retired: it exits once that agent returns, and a new worker takes its place.
    """

    __slots__ = ("_go", "_job", "_mutex", "_retired", "thread")

    def __init__(self) -> None:
        self._go = _thread.allocate_lock()
        self._go.acquire()
        self._job: tuple[Any, ...] | None = None
        self._mutex = _thread.allocate_lock()
        self._retired = False
        self.thread = threading.Thread(target=self._loop, daemon=True, name="silo-agent")
        self.thread.start()

    def _loop(self) -> None:
        go = self._go
        while True:
            go.acquire()
            job, self._job = self._job, None
            if job is None:
                return
            # A fresh, empty context per agent, as a new thread would start with.
            contextvars.Context().run(_run_agent, *job)
            del job  # let the finished rollout's objects go
            with self._mutex:
                if self._retired:
                    return

    def submit(self, name: str, job: tuple[Any, ...]) -> None:
        self.thread.name = name
        self._job = job
        self._go.release()

    def finish(self, done: Done) -> bool:
        """After a rollout: True when the agent returned (the worker is free again)."""
        with self._mutex:
            if done.is_set():
                return True
            self._retired = True
            return False


_IDLE: list[_AgentWorker] = []
_IDLE_LOCK = _thread.allocate_lock()


def _take_worker() -> _AgentWorker:
    with _IDLE_LOCK:
        if _IDLE:
            return _IDLE.pop()
    return _AgentWorker()


def _return_worker(worker: _AgentWorker, done: Done) -> None:
    if worker.finish(done):
        with _IDLE_LOCK:
            _IDLE.append(worker)


def _forget_workers() -> None:
    global _IDLE_LOCK
    _IDLE.clear()  # their threads do not exist in a forked child
    _IDLE_LOCK = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def _run_agent(agent: ResolvedAgent, inp: AgentInput, box: dict[str, Any], done: Done) -> None:
    try:
        returned = agent.fn(inp)
        if hasattr(returned, "__await__"):
            import asyncio

            async def _await() -> Any:
                return await returned

            returned = asyncio.run(_await())
        box["returned"] = returned
    except BaseException as exc:  # noqa: BLE001 - any failure of the agent is reported
        box["error"] = exc
    finally:
        done.set()


def start_agent(
    agent: ResolvedAgent, inp: AgentInput, name: str
) -> tuple[_AgentWorker, Done, dict[str, Any]]:
    box: dict[str, Any] = {}
    done = Done()
    worker = _take_worker()
    worker.submit(name, (agent, inp, box, done))
    return worker, done, box


def release_worker(worker: _AgentWorker, done: Done) -> None:
    _return_worker(worker, done)
