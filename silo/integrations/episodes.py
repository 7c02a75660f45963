"""Episodes: the rollouts an integration has open, one per client handle, on fresh worlds.

Contract: an :class:`EpisodeSpec` says what every episode of a server is (environment, task or
None for the client's choice, seed, budget, runs folder, and the simulated user of
conversational tasks, chosen as ``open_session``'s ``user``: default scripted, ``"none"`` for
no user channel). :class:`EpisodeTable` keeps one
:class:`~silo.rollout.session.Session` per handle (an MCP session id, ``"stdio"``, or an episode
id it handed out with :meth:`EpisodeTable.reserve`), opened lazily on first use so listing
tools costs no world, at most ``max_episodes`` at once (past it the least recently used is
ended and recorded); :meth:`EpisodeTable.close`, :meth:`EpisodeTable.close_idle` and
:meth:`EpisodeTable.close_all` end the ones a client left, which then still leave a complete
record (``agent_error``, "the session was <why> without finish()"). :func:`outcome` is the answer an
integration returns when an episode ends; :func:`call_or_end`, :func:`message_or_end` and
:func:`close_if_open` are the steps and the abandonment every action-by-action driver
(Gymnasium, OpenEnv) shares, and :func:`invalid_action` their refusal of an action that is not
one (nothing happens in the rollout). :func:`served_tasks` reads which tasks a driver serving
many tasks (``tasks="all"`` or a list) plays. A rollout a budget ends (``max_tool_calls``,
``timeout``, ``max_user_turns`` over) is graded as the world stands, in every surface: its
reward is ``result.json``'s.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from silo.agents.contract import RunLimitError
from silo.errors import ConfigError, SessionError
from silo.json_types import JSON
from silo.loading.environment import Environment, find_project_dir, load_environment
from silo.rollout.result import RolloutResult
from silo.rollout.session import Session, open_session
from silo.tasks import Task
from silo.users.resolve import UserChoice, resolve_user

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
    budget: Mapping[str, JSON] = field(default_factory=dict)
    runs_dir: Path | None = None
    project_dir: Path | None = None
    write_artifacts: bool = True
    agent_label: str = "session"
    user: UserChoice = None

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

    def open(
        self,
        environment: Environment,
        task: str | None = None,
        run_fields: Mapping[str, JSON] | None = None,
    ) -> Session:
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
            run_fields=run_fields,
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


def outcome(result: RolloutResult) -> dict[str, JSON]:
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
) -> tuple[dict[str, JSON], RolloutResult | None]:
    """One tool call's ToolResult and None, or the refusal and the graded rollout.

    Once a budget (tool calls, deadline) ended the rollout, the call's refusal comes back as an
    error ToolResult, with the result of the rollout it ended, graded and written.
    """
    try:
        return dict(session.call_tool(name, arguments)), None
    except RunLimitError as exc:
        return _refused_at_end(session, exc)


def message_or_end(session: Session, text: Any) -> tuple[dict[str, JSON], RolloutResult | None]:
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


def invalid_action(message: str) -> dict[str, JSON]:
    """The error observation of an action that is not one: ``invalid_action`` and why."""
    return {"output": {"code": "invalid_action", "message": message}, "isError": True}


def _refused_at_end(
    session: Session, exc: RunLimitError
) -> tuple[dict[str, JSON], RolloutResult | None]:
    ended = session.result if session.finished else session.finish(None)
    return {"output": {"code": exc.reason, "message": str(exc)}, "isError": True}, ended


def close_if_open(session: Session | None) -> None:
    """End an episode a driver abandons (reset mid-episode, close): recorded, not lost."""
    if session is not None:
        session.close()


class EpisodeTable:
    """One session per client handle; thread-safe, since HTTP requests may run concurrently.

    At most ``max_episodes`` handles are held (open sessions and episode ids handed out but not
    used yet): a new one past the cap first ends the least recently used, recorded as evicted,
    so a flood of clients never locks new ones out.
    """

    def __init__(
        self, spec: EpisodeSpec, environment: Environment, max_episodes: int | None = None
    ) -> None:
        self.spec = spec
        self.environment = environment
        self.max_episodes = max_episodes
        self._sessions: dict[str, Session] = {}
        # Every handle held, oldest use first (dicts keep insertion order; a use moves it last).
        self._last_use: dict[str, float] = {}
        self._reserved: set[str] = set()
        self._lock = threading.Lock()

    def _touch(self, handle: str) -> None:
        self._last_use.pop(handle, None)
        self._last_use[handle] = time.monotonic()

    def reserve(self) -> str:
        """A new episode id, held (no world yet) until used, closed or evicted."""
        handle = secrets.token_urlsafe(12)
        with self._lock:
            self._reserved.add(handle)
            self._touch(handle)
            evicted = self._evict_over_cap(keep=handle)
        _close_all(evicted, "evicted (silo-mcp's max_episodes reached)")
        return handle

    def known(self, handle: str) -> bool:
        """True while ``handle`` was handed out by :meth:`reserve` and is not closed."""
        with self._lock:
            return handle in self._reserved

    def get(self, handle: str) -> Session | None:
        """The handle's session if one was started (finished ones stay until closed)."""
        with self._lock:
            if handle in self._last_use:
                self._touch(handle)
            return self._sessions.get(handle)

    def start(
        self, handle: str, task: str | None = None, run_fields: Mapping[str, JSON] | None = None
    ) -> Session:
        """The handle's session, opening it on the fixed task (or ``task``) if none yet.

        ``run_fields`` go into a new session's ``run.json``. Raises SiloError when ``task`` is
        asked for but the handle already has a rollout: one client handle is one rollout.
        """
        with self._lock:
            self._touch(handle)
            session = self._sessions.get(handle)
            if session is not None:
                if task is not None:
                    raise SessionError(
                        "task_already_started",
                        f'this connection already rolls out task "{session.task.id}"; one '
                        "connection is one rollout, so reconnect to start another task",
                    )
                return session
            session = self.spec.open(self.environment, task, run_fields)
            self._sessions[handle] = session
            evicted = self._evict_over_cap(keep=handle)
        _close_all(evicted, "evicted (silo-mcp's max_episodes reached)")
        return session

    def _evict_over_cap(self, keep: str) -> list[Session]:
        """Forget the least recently used handles past the cap (lock held); their sessions."""
        evicted: list[Session] = []
        if self.max_episodes is None:
            return evicted
        while len(self._last_use) > self.max_episodes:
            oldest = next(h for h in self._last_use if h != keep)
            evicted.extend(self._forget(oldest))
        return evicted

    def _forget(self, handle: str) -> list[Session]:
        self._last_use.pop(handle, None)
        self._reserved.discard(handle)
        session = self._sessions.pop(handle, None)
        return [] if session is None else [session]

    def close(self, handle: str, why: str = "closed", untouched: bool = False) -> Session | None:
        """End the handle's episode now (its client left); the session, recorded, if any.

        With ``untouched``, an episode id handed out by :meth:`reserve` whose client never
        called a tool is recorded too (as a rollout of no calls, on the fixed task): whoever
        asked for the episode learns that its client did nothing, rather than finding no run.
        """
        with self._lock:
            reserved = handle in self._reserved
            sessions = self._forget(handle)
        if not sessions and untouched and reserved and self.spec.task is not None:
            sessions = [self.spec.open(self.environment)]
        _close_all(sessions, why)
        return sessions[0] if sessions else None

    def close_idle(self, idle_s: float) -> int:
        """Close (record as abandoned) every episode unused for ``idle_s``; return how many.

        An episode id handed out whose client never came is recorded as a rollout of no calls
        (on a server with a fixed task), as :meth:`close` records it with ``untouched``.
        """
        now = time.monotonic()
        with self._lock:
            stale = [h for h, t in self._last_use.items() if now - t >= idle_s]
            never_used = sum(1 for h in stale if h in self._reserved and h not in self._sessions)
            sessions = [s for h in stale for s in self._forget(h)]
        if self.spec.task is not None:
            sessions += [self.spec.open(self.environment) for _ in range(never_used)]
        _close_all(sessions, f"closed after {idle_s:g} s without a request")
        return len(sessions)

    def close_all(self, why: str = "closed") -> list[Session]:
        """Close every session still open (a server shutting down or a client gone)."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
            self._last_use.clear()
            self._reserved.clear()
        _close_all(sessions, why)
        return sessions


def _close_all(sessions: list[Session], why: str) -> None:
    for session in sessions:
        session.close(why)
