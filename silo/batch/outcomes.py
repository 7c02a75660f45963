"""What became of a rollout: passed, failed, or not graded for a reason that is not the agent's.

Contract: every group summary (``silo-run``'s table and ``summary.json``, ``silo-baseline``,
``silo-compare``, the viewer) counts rollouts by the five outcomes of :data:`OUTCOMES`:

* ``passed`` / ``failed``: graded; only these count in pass rates and pass^k;
* ``environmentError``: the environment's code failed (its verifier raised, its
  ``create_state()`` or module failed): fix the environment;
* ``modelError``: the model endpoint failed the agent (refused, kept failing after its
  retries, timed out, answered with no completion: termination reason ``model_error``);
* ``couldNotStart``: a configuration mistake stopped the rollout before it began (an agent
  or task that cannot be found, a bad override).

The three last are *not graded*: left out of the rates, listed apart with their one-line
reason, and a command that meets one exits 2. :func:`rollout_outcome` classifies a finished
rollout from its ``run.json`` and ``result.json``; :func:`start_outcome` one that never began
from the error that stopped it; :func:`count_line` is the one-line headline of a set of counts.
"""

from __future__ import annotations

from collections.abc import Mapping

from silo.errors import EnvironmentLoadError
from silo.json_types import JSON

__all__ = [
    "COULD_NOT_START",
    "ENVIRONMENT_ERROR",
    "FAILED",
    "LABELS",
    "MODEL_ERROR",
    "NOT_GRADED",
    "OUTCOMES",
    "PASSED",
    "count_line",
    "rollout_outcome",
    "start_outcome",
]

PASSED = "passed"
FAILED = "failed"
ENVIRONMENT_ERROR = "environmentError"
MODEL_ERROR = "modelError"
COULD_NOT_START = "couldNotStart"
OUTCOMES = (PASSED, FAILED, ENVIRONMENT_ERROR, MODEL_ERROR, COULD_NOT_START)
NOT_GRADED = (ENVIRONMENT_ERROR, MODEL_ERROR, COULD_NOT_START)
LABELS = {
    PASSED: "passed",
    FAILED: "failed",
    ENVIRONMENT_ERROR: "environment error",
    MODEL_ERROR: "model error",
    COULD_NOT_START: "could not start",
}


def rollout_outcome(run: Mapping[str, JSON], result: Mapping[str, JSON]) -> tuple[str, str | None]:
    """The outcome of a finished rollout and, when it is not graded, its one-line reason."""
    broken = run.get("environmentError")
    if broken:  # checked first: a verifier that raised spoils any verdict
        return ENVIRONMENT_ERROR, str(broken)
    if result.get("terminationReason") == "model_error":
        return MODEL_ERROR, str(result.get("error") or "the model endpoint failed")
    return (PASSED if result.get("passed") is True else FAILED), None


def start_outcome(error: BaseException) -> str:
    """The outcome of a rollout that ``error`` kept from starting.

    An environment that does not load or whose ``create_state()`` raised is the environment's
    failure; any other refusal (agent, task, override) is a rollout that could not start.
    """
    return ENVIRONMENT_ERROR if isinstance(error, EnvironmentLoadError) else COULD_NOT_START


def count_line(counts: Mapping[str, int]) -> str:
    """``5 rollouts: 2 passed, 1 failed, 1 environment error, 1 model error``.

    Passed and failed are always shown; a not-graded outcome only when some rollout had it.
    With any not graded, the pass rate over the graded ones follows in brackets.
    """
    total = sum(counts.get(o, 0) for o in OUTCOMES)
    shown = [
        f"{n} {LABELS[o]}{'s' if n != 1 and o in (ENVIRONMENT_ERROR, MODEL_ERROR) else ''}"
        for o in OUTCOMES
        if o in (PASSED, FAILED) or counts.get(o, 0)
        for n in [counts.get(o, 0)]
    ]
    line = f"{total} rollout{'' if total == 1 else 's'}: {', '.join(shown)}"
    graded = counts.get(PASSED, 0) + counts.get(FAILED, 0)
    if graded == 0 and total:
        line += " (none graded)"
    elif graded != total:
        line += f" (pass rate {counts.get(PASSED, 0) / graded:.2f} over the {graded} graded)"
    return line
