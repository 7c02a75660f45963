"""The combined reward: a task's opt-in mix of the checks' reward and its judged items.

Contract: a task file may declare ``"combinedReward": {"checks": a, "judged": b}`` (weights,
numbers >= 0 summing to 1), and an environment's manifest may declare one for all its tasks
(a task's own wins). :func:`combined_formula` reads the task's, else the ``default`` given
(the manifest's), None when neither has one; a malformed one raises ``task_invalid`` naming
the file that holds it; :func:`judged_task` gives a task its environment's formula when it
has none; :func:`combine` applies it to a run:
``checks`` is ``result.json``'s reward and ``judged`` the share of the graded items that
passed (``passed / (passed + failed)``; abstentions and judge errors count in neither), giving
``{"formula", "checks", "judged", "reward"}`` (``reward`` and ``judged`` None when no item was
graded). The result goes to ``judgement.json`` and to ``run.json`` (``combinedReward``);
``result.json``'s reward stays the checks' own, and by default nothing is combined.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from silo.errors import TaskError
from silo.loading.definition import MANIFEST, Environment
from silo.tasks import Task

__all__ = ["Formula", "combine", "combined_formula", "judged_task"]

_PARTS = ("checks", "judged")


@dataclass(frozen=True)
class Formula:
    """The weights of the checks' reward and of the judged items' pass share."""

    checks: float
    judged: float

    @property
    def text(self) -> str:
        """The formula as ``run.json`` and ``judgement.json`` record it."""
        return f"{self.checks:g} * checks + {self.judged:g} * judged"


def combined_formula(
    task: Task, default: Mapping[str, Any] | None = None, default_source: str = ""
) -> Formula | None:
    """The task's ``combinedReward`` formula (else ``default``'s, from ``default_source``).

    None when the task keeps the checks' reward.
    """
    raw = task.extra.get("combinedReward")
    source = task.source
    if raw is None:
        raw, source = default, default_source
    if raw is None:
        return None
    weights = [raw.get(p) for p in _PARTS] if isinstance(raw, Mapping) else []
    numbers = [w for w in weights if isinstance(w, int | float) and not isinstance(w, bool)]
    exact = isinstance(raw, Mapping) and set(raw) == set(_PARTS)
    if not exact or len(numbers) != 2 or min(numbers) < 0 or abs(sum(numbers) - 1) > 1e-9:
        raise TaskError(
            "task_invalid",
            f'{source}: "combinedReward" must be {{"checks": a, "judged": b}} with '
            'weights >= 0 that sum to 1, e.g. {"checks": 0.8, "judged": 0.2}',
        )
    return Formula(float(numbers[0]), float(numbers[1]))


def combine(formula: Formula, checks_reward: float, passed: int, failed: int) -> dict[str, Any]:
    """The combined reward of one run (see the module docstring)."""
    judged = round(passed / (passed + failed), 6) if passed + failed else None
    reward = None
    if judged is not None:
        reward = round(formula.checks * checks_reward + formula.judged * judged, 6)
    return {"formula": formula.text, "checks": checks_reward, "judged": judged, "reward": reward}


def judged_task(task: Task, environment: Environment) -> Task:
    """``task``, with its environment's ``combinedReward`` when it has none of its own.

    The formula is checked here, so a malformed one is one line naming its file.
    """
    default = environment.manifest.combined_reward
    where = str(environment.root / MANIFEST)
    if combined_formula(task, default, where) is None or "combinedReward" in task.extra:
        return task
    return dataclasses.replace(task, extra={**task.extra, "combinedReward": dict(default or {})})
