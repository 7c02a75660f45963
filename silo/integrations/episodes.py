"""Episodes: the rollouts an integration has open, one per client handle, on fresh worlds.

Contract: an :class:`EpisodeSpec` says what every episode of a server is (environment, task or
None for the client's choice, seed, budget, runs folder, and the simulated user of
conversational tasks, chosen as ``open_session``'s ``user``: default scripted, ``"none"`` for
no user channel). :class:`EpisodeTable` keeps one
:class:`~silo.rollout.session.Session` per handle (an MCP session id, ``"stdio"``), opened
lazily on first use so listing tools costs no world; :meth:`EpisodeTable.close_idle` and
:meth:`EpisodeTable.close_all` end the ones a client abandoned, which then still leave a
complete record (``agent_error``, "closed without finish()"). :func:`outcome` is the answer an
integration returns when an episode ends; :func:`call_or_end`, :func:`message_or_end` and
:func:`close_if_open` are the steps and the abandonment every action-by-action driver
(Gymnasium, OpenEnv) shares, and :func:`invalid_action` their refusal of an action that is not
one (nothing happens in the rollout). :func:`served_tasks` reads which tasks a driver serving
many tasks (``tasks="all"`` or a list) plays. A rollout a budget ends (``max_tool_calls``,
``timeout``, ``max_user_turns`` over) is graded as the world stands, in every surface: its
reward is ``result.json``'s.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silo.agents.contract import RunLimitError
from silo.errors import ConfigError, SessionError
from silo.loading.environment import Environment, find_project_dir, load_environment
from silo.rollout.core import RolloutResult
from silo.rollout.session import Session, open_session
from silo.tasks import Task
from silo.users.resolve import resolve_user

__all__ = [
    "EpisodeSpec",
    "EpisodeTable",
    "call_or_end",
    "close_if_open",
    "invalid_action",
    "message_or_end",
    "outcome",
    "served_tasks",
]


@dataclass(frozen=True)
class EpisodeSpec:
    """What every episode of one server or env is: where it runs and under which budget."""

    env: str
    task: str | None = None
    seed: int = 0
    budget: Mapping[str, Any] = field(default_factory=dict)
    runs_dir: Path | None = None
    project_dir: Path | None = None
    write_artifacts: bool = True
    agent_label: str = "session"
    user: Any = None

    def opening(self, task: Task) -> str | None:
        """The user's first message when ``task``'s rollouts talk to a user, else None.

        They do when the task has a ``user`` block and ``user`` is not ``none``; resolving the
        user checks the choice too (one-line ``ConfigError`` when it is wrong).
        """
        if task.user is None or resolve_user(self.user) is None:
            return None
        return task.user.opening

    def load(self) -> Environment:
        """Load the environment, checking the fixed task and its user (one-line SiloError)."""
        project = Path(self.project_dir).resolve() if self.project_dir else find_project_dir()
        environment = load_environment(self.env, project)
        if self.task is not None:
            self.opening(environment.task(self.task))  # a bad user= fails here, not later
        return environment

    def open(self, environment: Environment, task: str | None = None) -> Session:
        """Open one rollout of ``task`` (or the fixed task) on a fresh world."""
        chosen = task or self.task
        if chosen is None:
            raise SessionError("task_not_chosen", "no task chosen yet; call start_task first")
        return open_session(
            environment,
            environment.task(chosen),
            seed=self.seed,
            budget=dict(self.budget),
            runs_dir=self.runs_dir,
            write_artifacts=self.write_artifacts,
            project_dir=self.project_dir,
            agent_label=self.agent_label,
            user=self.user,
        )


def served_tasks(
    environment: Environment, task: str | None, tasks: str | Sequence[str] | None
) -> tuple[str, ...]:
    """The task ids a driver serves: ``task`` alone, ``tasks`` (``"all"`` or ids), else all.

    Every id is checked (an unknown one is the loader's one-line ``task_not_found``).
    """
    if task is not None and tasks is not None:
        raise ConfigError("config_invalid", "give task= (one task) or tasks= (several), not both")
    if task is not None:
        chosen: tuple[str, ...] = (task,)
    elif tasks is None or tasks == "all":
        chosen = tuple(environment.tasks)
    elif isinstance(tasks, str) or not all(isinstance(t, str) for t in tasks) or not tasks:
        raise ConfigError("config_invalid", 'tasks= is "all" or a non-empty list of task ids')
    else:
        chosen = tuple(tasks)
    for task_id in chosen:
        environment.task(task_id)
    return chosen


def outcome(result: RolloutResult) -> dict[str, Any]:
    """What a client learns when its episode ends: verdict, reward, checks, run folder."""
    record = result.result
    return {
        "passed": record["passed"],
        "reward": record["reward"],
        "terminationReason": record["terminationReason"],
        "error": record["error"],
        "toolCalls": record["toolCalls"],
        "checks": record["checks"],
        "runDir": None if result.run_dir is None else str(result.run_dir),
    }


def call_or_end(
    session: Session, name: str, arguments: Any
) -> tuple[dict[str, Any], RolloutResult | None]:
    """One tool call's ToolResult and None, or the refusal and the graded rollout.

    Once a budget (tool calls, deadline) ended the rollout, the call's refusal comes back as an
    error ToolResult, with the result of the rollout it ended, graded and written.
    """
    try:
        return dict(session.call_tool(name, arguments)), None
    except RunLimitError as exc:
        return _refused_at_end(session, exc)


def message_or_end(session: Session, text: Any) -> tuple[dict[str, Any], RolloutResult | None]:
    """One message to the user: the reply and None, or a refusal (and the rollout it ended).

    The reply is the session's ``{"text", "ended", "isError"}`` (a message after the user
    ended, or over ``budget.max_user_turns``, is an error reply, as an agent gets). A task
    without a user or a ``text`` that is not a non-empty string is an :func:`invalid_action`
    carrying the session's one line: nothing was sent. A deadline or a failing user that ends
    the rollout is refused like a tool call over budget, with the graded rollout.
    """
    try:
        return dict(session.message_user(text)), None
    except SessionError as exc:
        return invalid_action(exc.message), None
    except RunLimitError as exc:
        return _refused_at_end(session, exc)


def invalid_action(message: str) -> dict[str, Any]:
    """The error observation of an action that is not one: ``invalid_action`` and why."""
    return {"output": {"code": "invalid_action", "message": message}, "isError": True}


def _refused_at_end(
    session: Session, exc: RunLimitError
) -> tuple[dict[str, Any], RolloutResult | None]:
    ended = session.result if session.finished else session.finish(None)
    return {"output": {"code": exc.reason, "message": str(exc)}, "isError": True}, ended


def close_if_open(session: Session | None) -> None:
    """End an episode a driver abandons (reset mid-episode, close): recorded, not lost."""
    if session is not None:
        session.close()


class EpisodeTable:
    """One session per client handle; thread-safe, since HTTP requests may run concurrently."""

    def __init__(self, spec: EpisodeSpec, environment: Environment) -> None:
        self.spec = spec
        self.environment = environment
        self._sessions: dict[str, Session] = {}
        self._last_use: dict[str, float] = {}
        self._lock = threading.Lock()

    def get(self, handle: str) -> Session | None:
        """The handle's session if one was started (finished ones stay until closed)."""
        with self._lock:
            self._last_use[handle] = time.monotonic()
            return self._sessions.get(handle)

    def start(self, handle: str, task: str | None = None) -> Session:
        """The handle's session, opening it on the fixed task (or ``task``) if none yet.

        Raises SiloError when ``task`` is asked for but the handle already has a rollout: one
        client handle is one rollout.
        """
        with self._lock:
            self._last_use[handle] = time.monotonic()
            session = self._sessions.get(handle)
            if session is not None:
                if task is not None:
                    raise SessionError(
                        "task_already_started",
                        f'this connection already rolls out task "{session.task.id}"; one '
                        "connection is one rollout, so reconnect to start another task",
                    )
                return session
            session = self.spec.open(self.environment, task)
            self._sessions[handle] = session
            return session

    def close_idle(self, idle_s: float) -> int:
        """Close (record as abandoned) every session unused for ``idle_s``; return how many."""
        now = time.monotonic()
        with self._lock:
            stale = [h for h, t in self._last_use.items() if now - t >= idle_s]
            sessions = [self._sessions.pop(h, None) for h in stale]
            for handle in stale:
                del self._last_use[handle]
        for session in sessions:
            if session is not None:
                session.close()
        return sum(s is not None for s in sessions)

    def close_all(self) -> None:
        """Close every session still open (a server shutting down or a client gone)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
            self._last_use.clear()
        for session in sessions:
            session.close()
