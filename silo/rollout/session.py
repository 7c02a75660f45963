"""Sessions: one rollout that outside code drives (a trainer, an evaluation harness, a REPL).

Contract: :func:`open_session` opens the same rollout :func:`~silo.rollout.run.run_task`
performs and returns a :class:`Session` with the task's ``instruction``, the offered ``tools``
and ``call_tool`` / ``acall_tool``, which return exactly what an agent's ``call_tool`` returns.
``finish(output)`` (or ``afinish``) ends it once: the verifier grades the world, the four
artifacts are written and the :class:`~silo.rollout.result.RolloutResult` is returned. For the
same calls and output, ``result.json`` and ``state-diff.json`` are byte-identical to
``run_task`` with a scripted agent making those calls: both end in one
:class:`~silo.rollout.core.Rollout`.

A conversational task's session has a user: ``instruction`` is the user's opening message and
``message_user(text)`` / ``amessage_user`` send one message through the same channel an agent
gets (``user`` in :func:`open_session` chooses the simulated user; default scripted). Calling
them on a session whose task has no user raises :class:`~silo.errors.SessionError`
``session_no_user``.

Budgets hold: the call over ``max_tool_calls`` is refused; a session still open at its
deadline ends as ``timeout`` (graded, written) and every later call raises
:class:`RunLimitError`. A session closed without ``finish`` (``close``, leaving a ``with``
block, garbage collection, interpreter exit) ends as ``agent_error`` saying so, so every
session leaves a complete, honest record. Using a finished session, finishing twice or calling
a session's tools from another rollout's agent raises :class:`~silo.errors.SessionError`.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import NoReturn

from silo.agents.contract import RunLimitError, ToolResult, UserReply
from silo.errors import SessionError
from silo.json_types import JSON
from silo.loading.discovery import locate
from silo.loading.environment import Environment
from silo.rollout.bridge import json_value
from silo.rollout.core import ACTIVE_ROLLOUT, Rollout
from silo.rollout.deadlines import DEADLINES, Deadline
from silo.rollout.result import Budget, RolloutResult
from silo.tasks import Task
from silo.users.resolve import UserChoice
from silo.world.pool import WorldPools

__all__ = ["Session", "open_session"]

_TOOL_WAIT_S = 0.5  # how long ending a session waits for a tool call still running


def open_session(
    env: str | Path | Environment,
    task: str | Task,
    *,
    seed: int = 0,
    budget: Budget | Mapping[str, JSON] | None = None,
    runs_dir: Path | None = None,
    write_artifacts: bool = True,
    project_dir: Path | None = None,
    group_id: str | None = None,
    agent_label: str = "session",
    run_fields: Mapping[str, JSON] | None = None,
    worlds: WorldPools | None = None,
    user: UserChoice = None,
) -> Session:
    """Open one rollout of ``task`` for outside code to drive (see the module docstring).

    ``runs_dir`` defaults to ``<project>/.silo/runs``; ``write_artifacts=False`` keeps the
    trace in memory. ``agent_label`` names the driver in ``run.json`` and the trace.
    """
    _, environment, the_task, folder = locate(env, task, project_dir, runs_dir, write_artifacts)
    limits = Budget.of(budget)
    rollout = Rollout.open(
        environment,
        the_task,
        limits=limits,
        seed=seed,
        agent_label=agent_label,
        agent_path=None,
        runs_dir=folder,
        group_id=group_id,
        run_fields=run_fields,
        worlds=worlds,
        user=user,
    )
    return Session(rollout)


def _expire_soon(rollout: Rollout) -> None:
    """On the timer thread at the deadline: end the session on a thread of its own.

    Grading may wait for a running tool; the process's timer thread never waits.
    """
    rollout.bridge.end("timeout")  # no call starts from now on
    threading.Thread(
        target=_expire, args=(rollout,), name="silo-session-timeout", daemon=True
    ).start()


def _expire(rollout: Rollout) -> None:
    """The deadline passed with the session still open: end it as ``timeout``."""
    rollout.bridge.end("timeout")
    reusable = rollout.stop_calls(_TOOL_WAIT_S)
    timeout_ms = rollout.limits.timeout_ms
    error = f"the session was still open at its timeout ({timeout_ms} ms)"
    rollout.finish("timeout", error, None, reusable)


def _abandon(rollout: Rollout, timer: Deadline, why: str) -> None:
    """End a session nobody finished, saying why, so it still leaves its whole record."""
    timer.cancel()
    if rollout.finished:
        return
    rollout.bridge.end("agent_error")
    reusable = rollout.stop_calls(_TOOL_WAIT_S)
    rollout.finish("agent_error", f"the session was {why} without finish()", None, reusable)


class Session:
    """One rollout driven from outside: its tools, its calls and its ending (see the module)."""

    def __init__(self, rollout: Rollout) -> None:
        self._rollout = rollout
        # One timer thread for every session and rollout of the process, not a thread each.
        self._timer = DEADLINES.at(rollout.deadline, partial(_expire_soon, rollout))
        # Holds the rollout and the timer, never the session, so the session can be collected.
        self._finalizer = weakref.finalize(
            self, _abandon, rollout, self._timer, "garbage collected"
        )

    @property
    def instruction(self) -> str:
        """The task as an agent receives it: the instruction, or the user's opening message."""
        return self._rollout.agent_task

    @property
    def has_user(self) -> bool:
        """True when the task is a conversation with a simulated user."""
        return self._rollout.user_channel is not None

    @property
    def task(self) -> Task:
        """The task being rolled out."""
        return self._rollout.task

    @property
    def tools(self) -> list[dict[str, JSON]]:
        """The offered tools: ``name``, ``description``, ``inputSchema`` (a fresh copy)."""
        return [dict(spec) for spec in self._rollout.tool_specs]

    @property
    def deadline(self) -> float:
        """``time.monotonic()`` at which the session ends as ``timeout``."""
        return self._rollout.deadline

    @property
    def run_dir(self) -> Path | None:
        """The run folder (None when the artifacts stay in memory)."""
        return self._rollout.run_dir

    @property
    def result(self) -> RolloutResult | None:
        """The graded result once the session ended (by ``finish``, timeout or close).

        While another thread is writing it (the deadline's), waits the moment that takes.
        """
        rollout = self._rollout
        if rollout.result is None and rollout.finished:
            rollout.recorded.wait()
        return rollout.result

    @property
    def finished(self) -> bool:
        """True once the session ended, whichever way."""
        return self._rollout.finished

    def call_tool(self, name: str, input: JSON = None) -> ToolResult:
        """Call a tool: the same result an agent's ``call_tool`` gives.

        A bad call is an error result, never an exception. Raises :class:`RunLimitError` once
        the budget or the deadline ended the session, :class:`~silo.errors.SessionError` after it finished.
        """
        rollout = self._rollout
        self._check_rollout("call_tool")
        if rollout.finished:
            self._raise_ended()
        return rollout.bridge.call_tool(name, input)

    async def acall_tool(self, name: str, input: JSON = None) -> ToolResult:
        """:meth:`call_tool` for ``async`` code (tools run in process and do not block)."""
        return self.call_tool(name, input)

    def message_user(self, text: str) -> UserReply:
        """Send the simulated user one message: the reply an agent's ``user.send`` gets.

        Raises :class:`~silo.errors.SessionError` when the task has no user, ``text`` is not a
        non-empty string or the session ended, :class:`RunLimitError` once the deadline (or a
        failed user) ended it.
        """
        channel = self._rollout.user_channel
        if channel is None:
            task = self._rollout.task
            why = (
                "has no user block"
                if task.user is None
                else 'has a user block, but this session was opened with user="none"'
            )
            raise SessionError(
                "session_no_user",
                f"task {task.id} {why}, so there is no one to message; "
                "call its tools and finish(output)",
            )
        if not isinstance(text, str) or not text.strip():
            raise SessionError(
                "invalid_input", "a message to the user is a non-empty string; nothing was sent"
            )
        self._check_rollout("message_user")
        if self._rollout.finished:
            self._raise_ended()
        return channel.send(text)

    async def amessage_user(self, text: str) -> UserReply:
        """:meth:`message_user` for ``async`` code."""
        return self.message_user(text)

    def finish(self, output: JSON = None) -> RolloutResult:
        """End the session with the agent's answer: grade, write the artifacts, return them."""
        rollout = self._rollout
        if rollout.finished:
            self._raise_ended()
        self._timer.cancel()
        reusable = rollout.stop_calls(_TOOL_WAIT_S)
        ended = rollout.bridge.reason
        reason = ended if ended not in (None, "completed") else "completed"
        result = rollout.finish(reason, None, json_value(output), reusable)
        if result is None:  # the deadline won the race
            return self._raise_ended()
        self._finalizer.detach()
        return result

    async def afinish(self, output: JSON = None) -> RolloutResult:
        """:meth:`finish` for ``async`` code."""
        return self.finish(output)

    def close(self, why: str = "closed") -> None:
        """End the session if it is still open, recorded as ``why`` ("closed") without finish."""
        if self._finalizer.alive:
            self._finalizer.detach()
            _abandon(self._rollout, self._timer, why)

    def _check_rollout(self, what: str) -> None:
        active = ACTIVE_ROLLOUT.get()
        if active is not None and active is not self._rollout:
            raise SessionError(
                "session_wrong_rollout",
                f"this {what} belongs to another rollout's session; use the session (or the "
                "AgentInput) of the rollout you are in",
            )

    def _raise_ended(self) -> NoReturn:
        rollout = self._rollout
        if rollout.bridge.reason == "timeout":
            raise RunLimitError(
                "timeout",
                f"Run ended: timeout. The session passed its {rollout.limits.timeout_ms} ms "
                "budget and was graded; its record is in session.result.",
            )
        raise SessionError(
            "session_finished",
            "this session has already ended; its record is in session.result. Open a new one "
            "with silo.open_session(...)",
        )

    def __enter__(self) -> Session:
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        self._exit(exc)

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        self._exit(exc)

    def _exit(self, exc: BaseException | None) -> None:
        if self._finalizer.alive:
            self._finalizer.detach()
            why = "closed" if exc is None else f"closed by {type(exc).__name__}: {exc}"
            _abandon(self._rollout, self._timer, why)
