"""Rolling out a shipped environment's tasks the way its tests do: one budget, in memory.

``run(env, task, agent)`` is :func:`silo.run_task` with the tests' budget and no artifacts;
:data:`TOOL_TASKS` lists each environment's tasks that an agent solves with tools alone (the
conversational ones need a simulated user and are tested apart).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import silo

PROJECT = Path(__file__).resolve().parents[2]
BUDGET = {"max_tool_calls": 100, "timeout_ms": 120000}
TOOL_TASKS = {
    "crm": [f"TASK-{n:03d}" for n in range(1, 7)],
    "project": [f"TASK-{n:03d}" for n in range(1, 16)],
    "erp": [f"TASK-{n:03d}" for n in range(1, 19)],
}


def run(env: str, task: str, agent: Any) -> silo.RolloutResult:
    """One rollout of ``task`` in ``env`` by ``agent``, kept in memory."""
    return silo.run_task(
        env=env, task=task, agent=agent, budget=BUDGET, project_dir=PROJECT,
        write_artifacts=False,
    )  # fmt: skip
