"""Verifiers: how a task is graded.

Contract: a :class:`Verifier` grades the final world against the initial one and returns a list
of :class:`Check` records built with :func:`check` (required) and :func:`optional`
(corroborating). It inspects the world, never the transcript; the context carries only the
agent's final output as text and the task. :func:`score` turns checks into the graded outcome:
``passed`` when every required check passed; ``reward`` is ``weighted`` by default (passed
checks / all checks, rounded half-up to two decimals) or ``binary`` (1.0 when passed, else 0.0),
as a task or its environment chooses (:data:`REWARD_MODES`). A verifier with no required check
cannot grade and is an error.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any, overload

from silo.errors import SiloException
from silo.json_types import JSON

if TYPE_CHECKING:
    from silo.tasks import Task

__all__ = [
    "REWARD_MODES",
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


REWARD_MODES = ("weighted", "binary")
"""How checks become a reward: share of checks passed, or 1/0 on the required checks."""


@dataclass(frozen=True)
class Check:
    """One graded fact about the final world; build it with :func:`check` or :func:`optional`.

    Attributes:
        label: What was checked, as a person reads it in ``result.json`` ("The deal is won").
        passed: Whether the world satisfies it.
        detail: Evidence for the verdict (what was found instead), empty when there is none.
        required: True when the task fails unless it passes; False when it only counts toward
            the reward.
    """

    label: str
    passed: bool
    detail: str = ""
    required: bool = True

    def to_json(self) -> dict[str, JSON]:
        """The check as ``result.json`` lists it: label, passed, detail and required."""
        return asdict(self)  # the fields, in that order, are the document's keys


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
    of comparing every row of the world. ``conversation`` is the transcript of a conversational
    task (empty otherwise); :attr:`told_user` is what the agent said in it.
    """

    agent_output: str
    task: Task
    state_diff: Mapping[str, JSON] = field(default_factory=dict)
    # A conversational task's transcript ({"role": "user"|"agent", "text"}, the opening first).
    conversation: Sequence[Mapping[str, str]] = ()

    @property
    def params(self) -> Mapping[str, JSON]:
        """The parameters of a template's instance (``TASK-010#17``); empty for a fixed task."""
        return self.task.params

    @property
    def told_user(self) -> str:
        """Every message the agent sent the user, one per line: what an answer task may grade."""
        return "\n".join(m.get("text", "") for m in self.conversation if m.get("role") == "agent")


CheckFn = Callable[[Any, Any, VerifierContext], Iterable[Check]]
"""A verifier's body: ``check(final, initial, context)`` returns the task's checks.

``final`` and ``initial`` are read-only snapshots of the world after and before the run.
"""


@dataclass(frozen=True)
class Verifier:
    """How one task is graded; build it with :func:`define_verifier`.

    A task names its verifier by ``id`` in its ``verifierId``: that is the only link needed.

    Attributes:
        id: The verifier's own id, named in ``result.json`` and in its errors.
        task_id: Empty unless a deprecated ``define_verifier`` call restated the task; when
            set, ``silo-validate`` reports a task whose ``verifierId`` points here from another.
        name: A short human name for reports.
        check: The body (see :data:`CheckFn`).
    """

    id: str
    task_id: str
    name: str
    check: CheckFn


@overload
def define_verifier(id: str, name: str, check: CheckFn) -> Verifier: ...
@overload
def define_verifier(id: str, task_id: str, name: str, check: CheckFn) -> Verifier: ...


def define_verifier(id: str, *args: Any, **kwargs: Any) -> Verifier:
    """Declare a verifier: ``define_verifier(id, name, check)``.

    ``check(final, initial, context)`` returns checks. The task links to the verifier through its
    ``verifierId``, so the verifier does not name the task; the older form
    ``define_verifier(id, task_id, name, check)`` (or ``task_id=``) still works and warns, and
    is removed in 0.2 (CHANGELOG.md).
    """
    names = (
        ("task_id", "name", "check") if len(args) > 2 or "task_id" in kwargs else ("name", "check")
    )
    if len(args) > len(names):
        raise TypeError(f"define_verifier takes id, name, check; got {1 + len(args)} arguments")
    given = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in names or key in given:
            raise TypeError(f"define_verifier got an unexpected or repeated argument {key!r}")
        given[key] = value
    missing = [key for key in names if key not in given]
    if missing:
        raise TypeError(f"define_verifier({id!r}, ...) is missing {', '.join(missing)}")
    if "task_id" in given:
        warnings.warn(
            f"define_verifier({id!r}, {given['task_id']!r}, ...): the task id is no longer "
            "needed (the task's verifierId links it) and this form goes in Silo 0.2; use "
            "define_verifier(id, name, check)",
            DeprecationWarning,
            stacklevel=2,
        )
    return Verifier(
        id=id, task_id=str(given.get("task_id", "")), name=given["name"], check=given["check"]
    )


class VerifierError(SiloException):
    """The verifier could not grade: it raised, or returned no required check."""


@dataclass(frozen=True)
class Score:
    """The graded outcome of a list of checks, as :func:`score` computes it.

    Attributes:
        passed: Every required check passed.
        reward: Passed checks over all checks, rounded half-up to two decimals (``weighted``),
            or 1.0 when passed and 0.0 otherwise (``binary``).
        required_passed: How many required checks passed.
        required_total: How many checks were required.
        failed_required: Labels of the required checks that failed, in order.
        checks_passed: How many checks passed, required or not.
        checks_failed: How many checks failed, required or not.
        checks: Every check, in the order the verifier returned them.
    """

    passed: bool
    reward: float
    required_passed: int
    required_total: int
    failed_required: list[str]
    checks_passed: int
    checks_failed: int
    checks: list[Check]


def round_half_up(value: float, places: int = 2) -> float:
    """``value`` rounded to ``places`` decimals with halves going up (0.125 -> 0.13).

    Python's ``round`` goes to even and works on the binary float, so 2/3 of checks or an exact
    half could round differently from what a person computing the reward by hand expects.
    """
    quantum = Decimal(1).scaleb(-places)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def score(verifier_id: str, checks: Iterable[JSON], reward: str = "weighted") -> Score:
    """Grade a list of checks; raises :class:`VerifierError` when none is required.

    ``reward`` is one of :data:`REWARD_MODES`: ``weighted`` counts every check, ``binary`` is
    1.0 exactly when every required check passed.
    """
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
    passed = all(c.passed for c in required)
    weighted = round_half_up(passed_count / len(items))
    return Score(
        passed=passed,
        reward=(1.0 if passed else 0.0) if reward == "binary" else weighted,
        required_passed=sum(1 for c in required if c.passed),
        required_total=len(required),
        failed_required=[c.label for c in required if not c.passed],
        checks_passed=passed_count,
        checks_failed=len(items) - passed_count,
        checks=items,
    )
