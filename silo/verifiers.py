"""Verifiers: how a task is graded.

Contract: a :class:`Verifier` grades the final world against the initial one and returns a list
of :class:`Check` records built with :func:`check` (required) and :func:`optional`
(corroborating). It inspects the world, never the transcript; the context carries only the
agent's final output as text and the task. :func:`score` turns checks into the graded outcome:
``passed`` when every required check passed, ``reward`` = passed checks / all checks rounded
half-up to two decimals. A verifier with no required check cannot grade and is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from silo.tasks import Task

__all__ = [
    "Check",
    "Score",
    "Verifier",
    "VerifierContext",
    "VerifierError",
    "check",
    "define_verifier",
    "optional",
    "score",
]


@dataclass(frozen=True)
class Check:
    label: str
    passed: bool
    detail: str = ""
    required: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "passed": self.passed,
            "detail": self.detail,
            "required": self.required,
        }


def check(label: str, passed: bool, detail: str = "") -> Check:
    """A required check: the task fails unless it passes."""
    return Check(str(label), bool(passed), str(detail), True)


def optional(label: str, passed: bool, detail: str = "") -> Check:
    """An optional check: counts toward the reward, not toward pass/fail."""
    return Check(str(label), bool(passed), str(detail), False)


@dataclass(frozen=True)
class VerifierContext:
    """What a verifier may know besides the two worlds.

    ``state_diff`` is the run's ``state-diff.json`` document (which rows of which collections
    were added, removed or changed), so a collateral-damage check can read what changed instead
    of comparing every row of the world.
    """

    agent_output: str
    task: Task
    state_diff: Mapping[str, Any] = field(default_factory=dict)


CheckFn = Callable[[Any, Any, VerifierContext], Iterable[Check]]


@dataclass(frozen=True)
class Verifier:
    id: str
    task_id: str
    name: str
    check: CheckFn


def define_verifier(id: str, task_id: str, name: str, check: CheckFn) -> Verifier:
    """Register how ``task_id`` is graded; ``check(final, initial, context)`` returns checks."""
    return Verifier(id=id, task_id=task_id, name=name, check=check)


class VerifierError(Exception):
    """The verifier could not grade: it raised, or returned no required check."""


@dataclass(frozen=True)
class Score:
    passed: bool
    reward: float
    required_passed: int
    required_total: int
    failed_required: list[str]
    checks_passed: int
    checks_failed: int
    checks: list[Check]


def round_half_up(value: float, places: int = 2) -> float:
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def score(verifier_id: str, checks: Iterable[Any]) -> Score:
    """Grade a list of checks; raises :class:`VerifierError` when none is required."""
    items = list(checks)
    for item in items:
        if not isinstance(item, Check):
            raise VerifierError(
                f"{verifier_id} returned {type(item).__name__} where a check was expected; "
                "build each result with check(...) or optional(...)"
            )
    required = [c for c in items if c.required]
    if not required:
        raise VerifierError(
            f"{verifier_id} returned no required checks; a task cannot be graded on optional "
            "evidence alone"
        )
    passed_count = sum(1 for c in items if c.passed)
    return Score(
        passed=all(c.passed for c in required),
        reward=round_half_up(passed_count / len(items)),
        required_passed=sum(1 for c in required if c.passed),
        required_total=len(required),
        failed_required=[c.label for c in required if not c.passed],
        checks_passed=passed_count,
        checks_failed=len(items) - passed_count,
        checks=items,
    )
