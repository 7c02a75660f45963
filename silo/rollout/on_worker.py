"""``run_task`` whole on its agent's thread: the driver of rollouts kept in flight by a sweep.

Contract: :func:`start_task` takes :func:`~silo.rollout.run.run_task`'s arguments and a
``done`` callback, and returns at once. On an agent worker thread it opens the rollout, runs
the agent there, then grades and records the rollout exactly as ``run_task`` does (the same
:func:`~silo.rollout.run.open_task`, :func:`~silo.rollout.run.agent_input` and
:func:`~silo.rollout.run.finish_driven`), and calls ``done`` once with the
:class:`~silo.rollout.result.RolloutResult`, or with the exception that stopped it (a
:class:`~silo.errors.SiloError` when the rollout could not start).

No thread waits for the agent: the process's timer thread (:data:`DEADLINES`) ends the bridge at
the rollout's deadline (``timeout``), and when the agent has still not returned
:data:`~silo.rollout.run.GRACE_S` later it abandons that agent's thread and records the rollout
on a thread of its own, so a hung agent (CPU loop, blocking sleep, ``async`` code that never
awaits) ends as ``timeout`` as under ``run_task`` (a CPU-bound one still competes for the GIL
unless it runs with ``isolation: process``: see :mod:`silo.rollout.worker`). An :class:`~silo.rollout.run.Interrupt` ends the agent the same
way as ``interrupted``.

Silo's model agents (:func:`~silo.agents.model_loop.loop_native`) leave the worker thread once
the rollout is open: their conversation runs as a task of the process's model loop, which
records the rollout when it ends, and the deadline or interrupt cancels that task, so thousands
in flight cost no thread each; that task's grace period is counted on the loop, so a
loop busy with other rollouts does not turn a cancelled request into an abandoned agent. A conversational rollout whose simulated user is not
deterministic (a model playing the user answers synchronously, from the agent's side) keeps the
worker thread. Exactly one of the agent's thread and the abandoning one records the
rollout: the first to claim it under the rollout's lock. Measured against a driver thread per
rollout waiting on the agent (docs/performance.md), this saves two thread wake-ups and a
hand-off per rollout.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any, Unpack

from silo.agents.contract import RunLimitError
from silo.agents.model_loop import loop_native, model_loop
from silo.agents.resolve import AgentChoice, ResolvedAgent
from silo.loading.environment import Environment
from silo.rollout.core import ACTIVE_ROLLOUT, Rollout
from silo.rollout.deadlines import DEADLINES, Deadline
from silo.rollout.result import Budget, RolloutResult
from silo.rollout.run import (
    GRACE_S,
    TOOL_WAIT_S,
    Interrupt,
    TaskSettings,
    agent_input,
    finish_driven,
    open_task,
)
from silo.rollout.worker import WORKERS, AgentOutcome, call_agent
from silo.tasks import Task

__all__ = ["Done", "start_task"]

LOOP_STALL_S = 5.0
"""How long after its deadline a task on a model loop that stopped turning is abandoned."""

Done = Callable[[RolloutResult | BaseException], None]
"""Told once how a rollout ended: its result, or the exception that stopped it."""


def start_task(
    done: Done,
    env: str | Path | Environment,
    task: str | Task,
    agent: AgentChoice | ResolvedAgent = "solver",
    budget: Budget | Mapping[str, Any] | None = None,
    *,
    interrupt: Interrupt | None = None,
    **settings: Unpack[TaskSettings],
) -> None:
    """Run ``run_task(env, task, agent, budget, **settings)`` on an agent worker thread.

    Returns at once; ``done`` is called once, on whichever thread ends the rollout.
    """
    opener = partial(open_task, env, task, agent, budget, **settings)
    job = _OnItsWorker(done, opener, settings.get("seed", 0), interrupt)
    WORKERS.start(job, "silo-agent")


class _OnItsWorker(AgentOutcome):
    """One rollout from open to record on its agent's thread; its deadline on the timer's."""

    __slots__ = (
        "done",
        "opener",
        "seed",
        "interrupt",
        "rollout",
        "task",
        "_claim",
        "_claimed_by",
        "_deadline",
    )

    def __init__(
        self,
        done: Done,
        opener: Callable[[], tuple[Rollout, ResolvedAgent]],
        seed: int,
        interrupt: Interrupt | None,
    ) -> None:
        super().__init__()
        self.done, self.opener, self.seed, self.interrupt = done, opener, seed, interrupt
        self.rollout: Rollout | None = None
        self.task: asyncio.Task[Any] | None = None  # the agent's, on the model loop
        self._claim = threading.Lock()
        self._claimed_by: str | None = None  # "agent" (it returned) or "abandon"
        self._deadline: Deadline | None = None

    def __call__(self) -> bool:
        """The worker's job; False when the agent was abandoned (its thread then retires)."""
        try:
            rollout, agent = self.opener()
        except BaseException as exc:  # noqa: BLE001 - could not start: the caller reports it
            self.done(exc)
            return True
        arun = loop_native(agent.fn) if agent.isolation == "thread" else None
        conversation = rollout.conversation
        if arun is not None and (conversation is None or conversation.user.deterministic):
            self.rollout = rollout
            model_loop().call_soon_threadsafe(self._start_on_loop, rollout, arun)
            return True
        return self._run(rollout, agent)

    def _start_on_loop(self, rollout: Rollout, arun: Callable[[Any], Any]) -> None:
        """On the model loop: start the agent's task, its deadline and interrupt watched."""
        try:
            context = contextvars.Context()
            context.run(ACTIVE_ROLLOUT.set, rollout)
            inp = agent_input(rollout, self.seed)
            self.task = asyncio.get_running_loop().create_task(arun(inp), context=context)
            self.task.add_done_callback(self._task_ended)
            self._deadline = DEADLINES.at(rollout.deadline, self._expired)
            if self.interrupt is not None:
                self.interrupt.watch(self._interrupted)
        except BaseException as exc:  # noqa: BLE001 - still a record, as on a worker
            self._failed_to_start(rollout, exc)

    def _task_ended(self, task: asyncio.Task[Any]) -> None:
        """On the model loop: the agent's task returned, raised or was cancelled; record it."""
        rollout = self.rollout
        assert rollout is not None
        if task.cancelled():
            reason = rollout.bridge.reason or "cancelled"
            returned, value = False, None
            error: BaseException | None = RunLimitError(reason, f"the run was stopped ({reason})")
        else:
            error = task.exception()
            returned, value = error is None, None if error is not None else task.result()
        rollout.bridge.end("completed")  # no call is made for an agent that returned
        with self._claim:
            if self._claimed_by is not None:  # abandoned: the record is being written
                return
            self._claimed_by = "agent"
            self.has_returned, self.returned, self.error = returned, value, error
        self._stop_watching()
        self._record(rollout, rollout.stop_calls(TOOL_WAIT_S))

    def _run(self, rollout: Rollout, agent: ResolvedAgent) -> bool:
        self.rollout = rollout
        try:
            threading.current_thread().name = f"silo-agent-{rollout.run_id or rollout.task.id}"
            ACTIVE_ROLLOUT.set(rollout)  # this job's own context (see silo.rollout.worker)
            inp = agent_input(rollout, self.seed)
            self._deadline = DEADLINES.at(rollout.deadline, self._expired)
            if self.interrupt is not None:
                self.interrupt.watch(self._interrupted)
        except BaseException as exc:  # noqa: BLE001 - e.g. no thread left: still a record
            self._failed_to_start(rollout, exc)
            return True
        returned, value, error = call_agent(agent, inp)
        rollout.bridge.end("completed")  # no call is made for an agent that returned
        with self._claim:
            if self._claimed_by is not None:  # abandoned: the record is being written
                return False
            self._claimed_by = "agent"
            self.has_returned, self.returned, self.error = returned, value, error
        self._stop_watching()
        self._record(rollout, rollout.stop_calls(TOOL_WAIT_S))
        return True

    def _failed_to_start(self, rollout: Rollout, exc: BaseException) -> None:
        self._claimed_by = "agent"
        self._stop_watching()
        with contextlib.suppress(BaseException):  # the first failure is the one to report
            rollout.finish("agent_error", "the run failed before it finished", None, False)
        self.done(exc)

    def _expired(self) -> None:
        """On the timer thread at the deadline: end the bridge; abandon the agent soon after."""
        self._end("timeout")

    def _interrupted(self) -> None:
        self._end("interrupted")

    def _end(self, reason: str) -> None:
        rollout = self.rollout
        assert rollout is not None  # deadlines and interrupts are watched once it is open
        rollout.bridge.end(reason)
        if self.task is None:
            DEADLINES.at(time.monotonic() + GRACE_S, self._abandon)
            return
        # A coroutine's grace counts on its own loop: a loop busy recording other rollouts
        # delays the cancel, not the agent. The timer's later check is for a blocked loop.
        model_loop().call_soon_threadsafe(self._cancel_on_loop)
        DEADLINES.at(time.monotonic() + LOOP_STALL_S, self._abandon)

    def _cancel_on_loop(self) -> None:
        """On the model loop: cancel the agent's task; abandon it if it has not ended by then."""
        assert self.task is not None
        self.task.cancel()  # a coroutine waiting on its endpoint stops at its next step
        asyncio.get_running_loop().call_later(GRACE_S, self._abandon)

    def _abandon(self) -> None:
        """The agent did not return in the grace period: record the rollout without it."""
        with self._claim:
            if self._claimed_by is not None:
                return
            self._claimed_by = "abandon"
        self._stop_watching()
        recorder = threading.Thread(target=self._record_abandoned, name="silo-abandoned")
        recorder.daemon = True
        try:
            recorder.start()  # grading may wait for a running tool: never on the timer thread
        except RuntimeError:  # no thread left: record it here rather than never
            self._record_abandoned()

    def _record_abandoned(self) -> None:
        rollout = self.rollout
        assert rollout is not None
        rollout.stop_calls(TOOL_WAIT_S)
        self._record(rollout, False)  # the agent's thread may still touch what it was given

    def _stop_watching(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        if self.interrupt is not None:
            self.interrupt.unwatch(self._interrupted)

    def _record(self, rollout: Rollout, reusable: bool) -> None:
        try:
            result: RolloutResult | BaseException = finish_driven(rollout, self, reusable)
        except BaseException as exc:  # noqa: BLE001 - e.g. a full disk: the caller reports it
            result = exc
        self.done(result)
