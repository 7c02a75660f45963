"""Grading a rollout's final world, and naming the environment's line that failed.

Contract: :func:`grade` has the task's verifier score the final world against the initial one
and returns the score, or the one-line reason it could not grade, and whether the
environment's code raised (its fault, not the agent's; the line is named). :func:`world_failed`
is the one-line error of a world the environment's ``create_state()`` or ``bind_tools()``
could not build. The verifier gets copies of the diff and the transcript: nothing it does
reaches the artifacts.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from silo.agents.contract import output_text
from silo.errors import EnvironmentLoadError
from silo.json_types import JSON
from silo.jsonio import plain_copy
from silo.loading.environment import MANIFEST, Environment
from silo.loading.modules import describe_exception
from silo.redact import safe_str
from silo.rollout.bridge import json_value
from silo.tasks import Task
from silo.verifiers import Score, Verifier, VerifierContext, VerifierError, score
from silo.world.pool import World

__all__ = ["grade", "world_failed"]


def grade(
    verifier: Verifier,
    world: World,
    output: JSON,
    task: Task,
    state_diff: dict[str, JSON],
    conversation: tuple[Mapping[str, str], ...] = (),
    environment: Environment | None = None,
) -> tuple[Score | None, str | None, bool]:
    """The verifier's score of the final world, or the one-line reason it could not grade.

    The third value is True when the verifier raised (the environment's fault): the reason then
    names the line of the environment's code that raised (``environment`` given). The reward
    is in the task's reward mode (``weighted`` or ``binary``; the environment's by default).
    """
    try:
        # The verifier gets its own copies: what it does to them must not reach the artifacts.
        # The diff is plain JSON the rollout built; the transcript a tuple of plain messages
        # (copied as a list: a tuple never reads back from JSON equal to itself).
        context = VerifierContext(
            output_text(output), task, plain_copy(state_diff), json_value(list(conversation))
        )
        checks = verifier.check(world.state, world.initial(), context)
        mode = environment.reward_mode(task) if environment is not None else task.reward
        return score(verifier.id, checks, mode or "weighted"), None, False
    except VerifierError as exc:  # it graded nothing required: a failed grade, as before
        return None, f"verifier {verifier.id} failed: {type(exc).__name__}: {safe_str(exc)}", False
    except Exception as exc:
        where = _where(exc, environment)
        why = f"{type(exc).__name__}: {safe_str(exc)}"
        return None, f"verifier {verifier.id} failed at {where}{why}", True


def world_failed(environment: Environment, exc: Exception) -> EnvironmentLoadError:
    """The one-line error of a world the environment's code could not build."""
    why = f"{_where(exc, environment)}{type(exc).__name__}: {safe_str(exc)}"
    return EnvironmentLoadError(
        "runtime_load_failed",
        f"environments/{environment.root.name}: building the world failed at {why}; "
        "fix the environment's create_state() or bind_tools()",
    )


def _where(exc: BaseException, environment: Environment | None) -> str:
    """``path:line: `` of the innermost frame in the environment's folder ("" without one)."""
    if environment is None:
        return ""
    text = describe_exception(exc, environment.root / MANIFEST)
    located = text[: len(text) - len(f"{type(exc).__name__}: {safe_str(exc)}")]
    project = f"{environment.root.parent.parent}{os.sep}"
    return located.replace(project, "", 1)
