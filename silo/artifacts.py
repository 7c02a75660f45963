"""Run artifacts: run ids, run folders and the JSON documents of a rollout.

Contract: :func:`allocate_run_dir` creates ``<runs_dir>/run_<UTC yyyymmddHHMMSS>_<suffix>`` with
an exclusive ``mkdir``, so concurrent processes never share or overwrite a folder. The builders
give ``result.json`` (fixed key order; no timestamps, no run ids) and ``run.json``; every JSON
file is written atomically. ``state-diff.json`` comes from the world (see ``silo._world``).
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


def new_run_id(prefix: str = "run") -> str:
    stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime())
    suffix = "".join(secrets.choice(_ALPHABET) for _ in range(6))
    return f"{prefix}_{stamp}_{suffix}"


def allocate_run_dir(runs_dir: Path, prefix: str = "run") -> tuple[str, Path]:
    """A new, empty run folder; never one that already exists."""
    runs_dir.mkdir(parents=True, exist_ok=True)
    while True:
        run_id = new_run_id(prefix)
        path = runs_dir / run_id
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        return run_id, path


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
