"""A point: one configuration to roll out, and one rollout of it.

Contract: a :class:`Point` is one (environment, task, agent, budget, seed) combination;
:func:`run_point` runs repeat *i* of it (seed ``seed + i``) through :func:`silo.run_task`;
:func:`point_id` is the stable id of a point's repeat that ``resume`` matches on; and
:func:`expand_tasks` turns ``all`` or a glob into task ids. Groups of points are
:mod:`silo.batch.sweep`'s; a single ``silo-run`` needs only this module.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from silo.agents.resolve import AgentChoice, ResolvedAgent
from silo.errors import TaskError
from silo.json_types import JSON
from silo.jsonio import canonical
from silo.loading.environment import Environment
from silo.rollout.run import Budget, RolloutResult, StopRequest, run_task
from silo.users.resolve import UserChoice
from silo.world.pool import WorldPools

__all__ = ["Point", "expand_tasks", "point_arguments", "point_id", "run_point"]


@dataclass(frozen=True)
class Point:
    """One configuration to roll out: environment, task, agent (and its label), budget, seed."""

    env: str
    task: str
    agent: AgentChoice  # a name, a path, a target or a config mapping (see silo.agents)
    agent_label: str
    budget: Budget
    seed: int = 0
    user: UserChoice = None  # a conversational task's simulated user (None: not one, or scripted)


def point_id(point: Point, repeat: int) -> str:
    """A stable id for a rollout's resolved config, used by ``resume``."""
    agent = point.agent if isinstance(point.agent, (str, Mapping)) else repr(point.agent)
    text = canonical(
        {
            "env": point.env,
            "task": point.task,
            "agent": agent,
            "budget": [point.budget.max_tool_calls, point.budget.timeout_ms],
            "seed": point.seed,
            "repeat": repeat,
            **({"user": point.user} if point.user is not None else {}),
            **({"maxUserTurns": point.budget.max_user_turns} if point.user is not None else {}),
        }
    )
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def expand_tasks(pattern: str, known: Iterable[str]) -> list[str]:
    """``all`` → every task; a glob (``TASK-00*``) → the matching tasks; else the id itself."""
    import fnmatch

    ids = list(known)
    if pattern == "all":
        return ids
    if any(ch in pattern for ch in "*?["):
        matched = [t for t in ids if fnmatch.fnmatchcase(t, pattern)]
        if not matched:
            raise TaskError(
                "task_not_found", f'no task matches "{pattern}"; known: {", ".join(ids)}'
            )
        return matched
    return [pattern]


def run_point(
    point: Point,
    repeat: int = 0,
    *,
    project_dir: Path,
    runs_dir: Path | None,
    group_id: str | None = None,
    environment: Environment | None = None,
    agent: ResolvedAgent | None = None,
    worlds: WorldPools | None = None,
    interrupt: StopRequest | None = None,
    pid: str | None = None,
) -> RolloutResult:
    """Run repeat ``repeat`` of ``point`` (seed ``point.seed + repeat``).

    ``runs_dir=None`` keeps the artifacts in memory. ``environment`` is ``point.env`` already
    loaded and ``agent`` ``point.agent`` already resolved, so repeats skip finding them again.
    ``worlds`` and ``interrupt`` are the sweep's world pools and stop request (see run_task);
    ``pid`` is ``point_id(point, repeat)`` when the caller has it already.
    """
    return run_task(
        **point_arguments(point, repeat, runs_dir=runs_dir, group_id=group_id,
                          environment=environment, agent=agent, pid=pid),
        project_dir=project_dir, worlds=worlds, interrupt=interrupt,
    )  # fmt: skip


def point_arguments(
    point: Point,
    repeat: int,
    *,
    runs_dir: Path | None,
    group_id: str | None,
    environment: Environment | None,
    agent: ResolvedAgent | None,
    pid: str | None = None,
) -> dict[str, JSON]:
    """:func:`silo.run_task`'s arguments for repeat ``repeat`` of ``point`` (see run_point)."""
    pid = (pid or point_id(point, repeat)) if group_id else None
    fields = None if pid is None else {"pointId": pid, "repeat": repeat}
    return {
        "env": environment if environment is not None else point.env,
        "task": point.task,
        "agent": point.agent if agent is None else agent,
        "budget": point.budget,
        "runs_dir": runs_dir,
        "write_artifacts": runs_dir is not None,
        "seed": point.seed + repeat,
        "group_id": group_id,
        "agent_label": point.agent_label,
        "run_fields": fields,
        "user": point.user,
    }
