"""Run artifacts: run ids, run folders and the JSON documents of a rollout.

Contract: :func:`allocate_run_dir` creates ``<runs_dir>/run_<UTC yyyymmddHHMMSS>_<suffix>`` with
an exclusive ``mkdir``, so concurrent processes never share or overwrite a folder. The builders
give ``result.json`` (fixed key order; no timestamps, no run ids) and ``run.json``; every JSON
file is written atomically. ``state-diff.json`` comes from the world (see ``silo.world.pool``).
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path
from typing import Any

from silo.verifiers import Score

__all__ = [
    "RESULT_KEYS",
    "allocate_run_dir",
    "build_result",
    "new_run_id",
]

RESULT_KEYS = (
    "passed",
    "reward",
    "requiredPassed",
    "requiredTotal",
    "failedRequired",
    "checksPassed",
    "checksFailed",
    "toolCalls",
    "toolErrors",
    "terminationReason",
    "agentOutput",
    "error",
    "checks",
)
_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


_STAMP: tuple[int, str] = (-1, "")


def _stamp() -> str:
    """``yyyymmddHHMMSS`` of now (UTC), formatted once per second."""
    global _STAMP
    now = int(time.time())
    cached = _STAMP
    if cached[0] != now:
        cached = _STAMP = (now, time.strftime("%Y%m%d%H%M%S", time.gmtime(now)))
    return cached[1]


def _suffix() -> str:
    """Six characters drawn uniformly from ``_ALPHABET`` with one call to the OS's RNG."""
    value = secrets.randbelow(_SPACE)
    chars = []
    for _ in range(6):
        value, digit = divmod(value, 36)
        chars.append(_ALPHABET[digit])
    return "".join(chars)


_SPACE = 36**6


def new_run_id(prefix: str = "run") -> str:
    return f"{prefix}_{_stamp()}_{_suffix()}"


def allocate_run_dir(runs_dir: Path, prefix: str = "run") -> tuple[str, Path]:
    """A new, empty run folder; never one that already exists."""
    base = os.fspath(runs_dir)
    if base not in _MADE:
        runs_dir.mkdir(parents=True, exist_ok=True)
        _MADE.add(base)
    while True:
        run_id = new_run_id(prefix)
        path = os.path.join(base, run_id)
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        except FileNotFoundError:  # the runs folder was removed since: make it again
            runs_dir.mkdir(parents=True, exist_ok=True)
            continue
        return run_id, runs_dir / run_id


# Runs folders this process has made (or found): a sweep pays for mkdir -p once, not per run.
_MADE: set[str] = set()


def build_result(
    score: Score | None,
    *,
    tool_calls: int,
    tool_errors: int,
    termination_reason: str,
    agent_output: Any,
    error: str | None,
) -> dict[str, Any]:
    """``result.json`` in its documented key order."""
    if score is None:
        graded: dict[str, Any] = {
            "passed": False,
            "reward": 0.0,
            "requiredPassed": 0,
            "requiredTotal": 0,
            "failedRequired": [],
            "checksPassed": 0,
            "checksFailed": 0,
        }
        checks: list[dict[str, Any]] = []
    else:
        graded = {
            "passed": score.passed,
            "reward": score.reward,
            "requiredPassed": score.required_passed,
            "requiredTotal": score.required_total,
            "failedRequired": list(score.failed_required),
            "checksPassed": score.checks_passed,
            "checksFailed": score.checks_failed,
        }
        checks = [c.to_json() for c in score.checks]
    return {
        **graded,
        "toolCalls": tool_calls,
        "toolErrors": tool_errors,
        "terminationReason": termination_reason,
        "agentOutput": agent_output,
        "error": error,
        "checks": checks,
    }
