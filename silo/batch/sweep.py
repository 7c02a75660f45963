"""Running many rollouts: points × repeats, resume, progress.

Contract: for points (:class:`silo.batch.point.Point`: environment, task, agent, budget, seed),
:func:`run_points` runs each point ``runs`` times in this process (repeat *i* gets seed
``seed + i``), every rollout in its own folder under ``group_dir``, and returns one
:class:`Outcome` per rollout. A point that cannot start (bad config, missing agent) is an
*infrastructure* failure, recorded in ``group_dir/infra-errors.jsonl`` and never counted as an
agent failure. With ``resume`` a rollout whose ``pointId`` already completed anywhere under
``runs_root`` is skipped and listed in ``group_dir/resumed.jsonl`` instead.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from silo.agents.resolve import ResolvedAgent, resolve_agent
from silo.batch.point import Point, expand_tasks, point_id, run_point
from silo.errors import SiloError
from silo.loading.environment import Environment, load_environment
from silo.rollout.run import _project

# Point, run_point, point_id and expand_tasks live in silo.batch.point and are re-exported here.
__all__ = [
    "Outcome",
    "Point",
    "completed_points",
    "expand_tasks",
    "point_id",
    "record_infra_error",
    "run_point",
    "run_points",
]


@dataclass(frozen=True, slots=True)  # a sweep keeps one per rollout: no __dict__ each
class Outcome:
    """One rollout of a sweep. The run folder is kept as text (``run_path``): a ``Path`` costs
    about three times the memory of its ``str``, and a sweep holds one outcome per rollout."""

    point: Point
    repeat: int
    run_path: str | None
    passed: bool
    infra_error: str | None = None
    resumed: bool = False

    @property
    def run_dir(self) -> Path | None:
        """The rollout's run folder (``None`` when it could not start)."""
        return None if self.run_path is None else Path(self.run_path)


def completed_points(runs_root: Path) -> dict[str, Path]:
    """Every finished rollout under ``runs_root`` (two levels deep) by its pointId."""
    found: dict[str, Path] = {}
    for run_json in [*runs_root.glob("*/run.json"), *runs_root.glob("*/*/run.json")]:
        try:
            run = json.loads(run_json.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if run.get("pointId") and (run_json.parent / "result.json").is_file():
            found.setdefault(run["pointId"], run_json.parent)
    return found


class _Progress:
    def __init__(self, total: int, mode: Any) -> None:
        on_terminal = sys.stderr.isatty() and not os.environ.get("CI")
        self.enabled = total > 1 and (mode is True or (mode in ("auto", None) and on_terminal))
        self.total, self.done = total, 0

    def step(self, label: str) -> None:
        self.done += 1
        if self.enabled:
            end = "\n" if self.done == self.total else ""
            sys.stderr.write(f"\r\033[K[{self.done}/{self.total}] {label}{end}")
            sys.stderr.flush()


def record_infra_error(
    group_dir: Path,
    *,
    environment: str | None,
    task_id: str,
    agent: Any,
    error: str,
    point_id: str | None = None,
    repeat: int | None = None,
) -> None:
    """Append a rollout that could not start to ``group_dir/infra-errors.jsonl``, the one
    record the group summary counts apart from agent failures."""
    record = {
        "pointId": point_id,
        "environment": environment,
        "taskId": task_id,
        "agent": agent,
        "repeat": repeat,
        "error": error,
    }
    _append_jsonl(group_dir / "infra-errors.jsonl", record)


def _append_jsonl(path: Path, record: Mapping[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


class _PointAgent:
    """A point's agent for each repeat, resolved once when that is all resolving does.

    The first two repeats resolve the spec as ``run_task`` would; when both give the very same
    callable (a function, a module's ``agent``), later repeats reuse it. A spec that builds a
    new agent each time (a class, a factory with keyword arguments) keeps being resolved per
    repeat, and one that fails is left to ``run_task`` to report exactly as before.
    """

    __slots__ = ("spec", "environment", "project_dir", "seen", "stable", "tries")

    def __init__(self, spec: Any, environment: Environment | None, project_dir: Path) -> None:
        self.spec, self.environment, self.project_dir = spec, environment, project_dir
        self.seen: ResolvedAgent | None = None
        self.stable: ResolvedAgent | None = None
        self.tries = 0 if environment is not None else 2

    def next(self) -> Any:
        if self.stable is not None:
            return self.stable
        if self.tries >= 2:
            return self.spec
        self.tries += 1
        try:
            resolved = resolve_agent(self.spec, self.environment, _project(self.project_dir))
        except Exception:  # noqa: BLE001 - run_task resolves again and reports it as always
            self.tries = 2
            return self.spec
        if self.seen is not None and self.seen.fn is resolved.fn:
            self.stable = resolved
        self.seen = resolved
        return resolved


def run_points(
    points: list[Point],
    runs: int,
    *,
    project_dir: Path,
    group_dir: Path,
    group_id: str,
    runs_root: Path | None = None,
    resume: bool = False,
    progress: Any = "auto",
) -> list[Outcome]:
    group_dir.mkdir(parents=True, exist_ok=True)
    done_before = completed_points(runs_root or group_dir.parent) if resume else {}
    bar = _Progress(len(points) * runs, progress)
    outcomes: list[Outcome] = []
    for point in points:
        try:  # once per point; a point whose environment cannot load reports it per rollout
            environment: Environment | None = load_environment(point.env, project_dir)
        except SiloError:
            environment = None
        agents = _PointAgent(point.agent, environment, project_dir)
        for repeat in range(runs):
            pid = point_id(point, repeat)
            label = f"{point.task} {point.agent_label} #{repeat + 1}"
            if pid in done_before:
                _append_jsonl(
                    group_dir / "resumed.jsonl", {"pointId": pid, "runDir": str(done_before[pid])}
                )
                outcomes.append(Outcome(point, repeat, str(done_before[pid]), True, resumed=True))
                bar.step(f"{label} (resumed)")
                continue
            try:
                result = run_point(
                    point,
                    repeat,
                    project_dir=project_dir,
                    runs_dir=group_dir,
                    group_id=group_id,
                    environment=environment,
                    agent=agents.next(),
                )
            except SiloError as exc:
                record_infra_error(
                    group_dir,
                    environment=point.env,
                    task_id=point.task,
                    agent=point.agent_label,
                    error=exc.message,
                    point_id=pid,
                    repeat=repeat,
                )
                outcomes.append(Outcome(point, repeat, None, False, infra_error=exc.message))
                bar.step(f"{label} ERROR")
                continue
            run_path = None if result.run_dir is None else str(result.run_dir)
            outcomes.append(Outcome(point, repeat, run_path, result.passed))
            bar.step(f"{label} {'PASS' if result.passed else 'FAIL'}")
    return outcomes
