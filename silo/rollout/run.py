"""The rollout engine's agent driver: one agent, one task, one budget, one graded world.

Contract of :func:`run_task`:

1. Load the environment and task, resolve the agent, open a :class:`~silo.rollout.core.Rollout`.
2. Run the agent on its own thread with ``call_tool`` as its only way to act. Every call is
   validated against the tool's schema before the tool runs; unknown tools, invalid input, tool
   refusals (``ToolError``) and tool crashes come back as error results, never exceptions. The
   call over ``max_tool_calls`` is refused and not recorded; after a limit or timeout every
   further call raises :class:`RunLimitError`, and so does every call made once the agent has
   returned (its stray threads cannot act). A timeout ends the run even when the agent does
   not cooperate (a hung thread is abandoned) within ``timeout_ms`` + 1 s.
3. Grade the final world with the task's verifier, whatever happened; a verifier that raises
   or returns no required check fails the run with the reason in ``error``.
4. Write ``trace.jsonl`` (streamed), ``state-diff.json``, ``result.json`` and ``run.json``.

A :class:`StopRequest` (Ctrl-C in a sweep) ends a rollout in flight as ``interrupted`` with its
complete record. The engine knows nothing of Hydra; the CLI composes a config and calls this.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TypedDict, Unpack

from silo.agents.contract import (
    AgentError,
    AgentInput,
    ModelError,
    RunLimitError,
    unwrap_output,
)
from silo.agents.resolve import AgentChoice, ResolvedAgent, resolve_agent
from silo.json_types import JSON
from silo.loading.discovery import locate, project_path
from silo.loading.environment import Environment
from silo.loading.modules import describe_exception
from silo.rollout.bridge import json_value
from silo.rollout.core import ACTIVE_ROLLOUT, Rollout
from silo.rollout.isolation import check_isolated
from silo.rollout.result import Budget, RolloutResult
from silo.rollout.worker import WORKERS, AgentJob, AgentOutcome
from silo.tasks import Task
from silo.users.resolve import UserChoice
from silo.world.pool import WorldPools

__all__ = [
    "GRACE_S",
    "TOOL_WAIT_S",
    "Budget",
    "Interrupt",
    "StopRequest",
    "RolloutResult",
    "TaskSettings",
    "agent_input",
    "drive_agent",
    "finish_driven",
    "open_task",
    "run_task",
]

GRACE_S = 0.3
"""How long a timed-out (or interrupted) agent may take to return on its own."""
TOOL_WAIT_S = 0.5
"""How long grading waits for a tool still running at the timeout."""
_INTERRUPTED = "interrupted (Ctrl-C) before the agent returned"


class StopRequest:
    """A stop request shared by the rollouts of a sweep: firing it wakes every one in flight.

    Each woken rollout ends its agent (``signal.reason`` ``interrupted``), grades the world
    and writes its complete record, so an interrupted sweep leaves no half-written folder.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: set[Callable[[], object]] = set()
        self.requested = False

    def watch(self, wake: Callable[[], object]) -> None:
        """Call ``wake()`` (quick: it runs on the interrupting thread) when the interrupt fires.

        At once if it already has.
        """
        with self._lock:
            self._waiting.add(wake)
            fired = self.requested
        if fired:
            wake()

    def unwatch(self, wake: Callable[[], object]) -> None:
        """Stop watching ``wake`` (its rollout has ended)."""
        with self._lock:
            self._waiting.discard(wake)

    def fire(self) -> None:
        """Request the stop and wake every rollout in flight."""
        with self._lock:
            self.requested = True
            waiting = list(self._waiting)
        for wake in waiting:
            wake()


Interrupt = StopRequest
"""The earlier name of :class:`StopRequest` (it is a request, not an exception); kept as an alias."""


def run_task(
    env: str | Path | Environment,
    task: str | Task,
    agent: AgentChoice | ResolvedAgent = "solver",
    budget: Budget | Mapping[str, JSON] | None = None,
    *,
    project_dir: Path | None = None,
    runs_dir: Path | None = None,
    write_artifacts: bool = True,
    seed: int = 0,
    group_id: str | None = None,
    agent_label: str | None = None,
    run_fields: Mapping[str, JSON] | None = None,
    worlds: WorldPools | None = None,
    interrupt: StopRequest | None = None,
    user: UserChoice = None,
) -> RolloutResult:
    """Run one rollout and return its graded result (see the module docstring).

    ``user`` is the simulated user of a conversational task (default scripted; see
    :func:`silo.users.resolve.resolve_user`).

    ``agent`` is a callable, a name (``solver``, ``noop``, ...), a file or a target (see
    :func:`silo.agents.resolve_agent`). ``run_fields`` are extra keys for ``run.json``;
    ``worlds`` the pools to take the world from (default: the process's shared ones).
    """
    rollout, resolved = open_task(
        env, task, agent, budget, project_dir=project_dir, runs_dir=runs_dir,
        write_artifacts=write_artifacts, seed=seed, group_id=group_id, agent_label=agent_label,
        run_fields=run_fields, worlds=worlds, user=user,
    )  # fmt: skip
    return drive_agent(rollout, resolved, seed, interrupt)


class TaskSettings(TypedDict, total=False):
    """:func:`run_task`'s keywords that say how its rollout opens (the same defaults)."""

    project_dir: Path | None
    runs_dir: Path | None
    write_artifacts: bool
    seed: int
    group_id: str | None
    agent_label: str | None
    run_fields: Mapping[str, JSON] | None
    worlds: WorldPools | None
    user: UserChoice


def open_task(
    env: str | Path | Environment,
    task: str | Task,
    agent: AgentChoice | ResolvedAgent = "solver",
    budget: Budget | Mapping[str, JSON] | None = None,
    **settings: Unpack[TaskSettings],
) -> tuple[Rollout, ResolvedAgent]:
    """Step 1 of :func:`run_task` (same arguments): the open rollout and its resolved agent."""
    project, environment, the_task, folder = locate(
        env,
        task,
        settings.get("project_dir"),
        settings.get("runs_dir"),
        settings.get("write_artifacts", True),
    )
    limits = Budget.of(budget)
    if isinstance(agent, ResolvedAgent):
        resolved = agent
    else:
        where = project or project_path(settings.get("project_dir"))
        resolved = resolve_agent(agent, environment, where)
    # A model agent says who answers (kind, model, base URL without credentials, sampling);
    # run.json keeps it so that two models' runs are never mistaken for repeats of one.
    identity = getattr(resolved.fn, "identity", None)
    run_fields = settings.get("run_fields")
    if isinstance(identity, Mapping):
        run_fields = {"agentIdentity": dict(identity), **(run_fields or {})}
    if resolved.isolation == "process":
        check_isolated(resolved)  # cannot pickle or load in a child: one line, before opening
        run_fields = {"agentIsolation": "process", **(run_fields or {})}
    rollout = Rollout.open(
        environment,
        the_task,
        limits=limits,
        seed=settings.get("seed", 0),
        agent_label=settings.get("agent_label") or resolved.label,
        agent_path=resolved.path,
        runs_dir=folder,
        group_id=settings.get("group_id"),
        run_fields=run_fields,
        worlds=settings.get("worlds"),
        user=settings.get("user"),
    )
    return rollout, resolved


def agent_input(rollout: Rollout, seed: int) -> AgentInput:
    """What the agent of ``rollout`` receives: its task, tools, ``call_tool`` and deadline."""
    bridge = rollout.bridge
    return AgentInput(
        task=rollout.agent_task,
        tools=list(map(dict, rollout.tool_specs)),
        call_tool=bridge.call_tool,
        signal=bridge.signal,
        seed=seed,
        task_id=rollout.task.id,
        environment=rollout.environment.name,
        deadline=rollout.deadline,
        emit=bridge.emit,
        user=rollout.user_channel,
    )


def drive_agent(
    rollout: Rollout, agent: ResolvedAgent, seed: int, interrupt: StopRequest | None = None
) -> RolloutResult:
    """Run ``agent`` on a worker thread against an open rollout, then finish the rollout."""
    bridge = rollout.bridge
    wake = threading.Event()
    job: AgentJob | None = None
    reusable = True
    try:
        job = AgentJob(
            agent,
            agent_input(rollout, seed),
            partial(ACTIVE_ROLLOUT.set, rollout),
            partial(bridge.end, "completed"),
            wake.set,
        )
        WORKERS.start(job, f"silo-agent-{rollout.run_id or rollout.task.id}")
        if interrupt is not None:
            interrupt.watch(wake.set)
        try:
            _await_agent(rollout, job, wake)
        except KeyboardInterrupt:  # Ctrl-C in a single run: still leave the whole record
            bridge.end("interrupted")
            job.finished.wait(GRACE_S)
            job.abandon()
            finish_driven(rollout, job, False)
            raise
        finally:
            if interrupt is not None:
                interrupt.unwatch(wake.set)
        reusable = rollout.stop_calls(TOOL_WAIT_S) and job.finished.is_set()
        job.abandon()
    except BaseException:
        if not rollout.finished:
            rollout.finish("agent_error", "the run failed before it finished", None, False)
        raise
    return finish_driven(rollout, job, reusable)


def _await_agent(rollout: Rollout, job: AgentJob, wake: threading.Event) -> None:
    """Wait for the agent to return, the timeout or an interrupt; end the bridge for the last two."""
    if not wake.wait(rollout.limits.timeout_ms / 1000):
        rollout.bridge.end("timeout")
        job.finished.wait(GRACE_S)
    elif not job.finished.is_set():  # woken by an interrupt
        rollout.bridge.end("interrupted")
        job.finished.wait(GRACE_S)


def finish_driven(rollout: Rollout, job: AgentOutcome, reusable: bool) -> RolloutResult:
    """Grade and record ``rollout`` by what became of its agent (``job``)."""
    reason, error, output = _settle(rollout.bridge.reason, job)
    if reason == "model_error" and isinstance(job.error, ModelError) and job.error.connect_failed:
        rollout.extra["modelUnreachable"] = True  # a sweep stops after several in a row
    result = rollout.finish(reason, error, output, reusable)
    assert result is not None  # only this driver finishes a run_task rollout
    return result


def _settle(ended: str | None, job: AgentOutcome) -> tuple[str, str | None, JSON]:
    """Termination reason, error and output once the agent returned, raised or was abandoned."""
    reason = ended if ended not in (None, "completed") else None
    failure = job.error
    if job.has_returned:
        return reason or "completed", None, json_value(unwrap_output(job.returned))
    if reason == "interrupted":
        return reason, _INTERRUPTED, None
    if isinstance(failure, RunLimitError):
        return reason or failure.reason, str(failure), None
    if isinstance(failure, ModelError):
        return reason or "model_error", str(failure), None
    if isinstance(failure, AgentError):
        return reason or "agent_error", str(failure), None
    if failure is not None:
        return reason or "agent_error", describe_exception(failure), None
    return reason or "timeout", "the agent was still running at the timeout and was abandoned", None
