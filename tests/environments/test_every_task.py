"""Every tool-only task of every shipped environment: its reference solver passes it cleanly
and the no-op agent fails it without a call (so no task is graded as done before anyone acts)."""

from __future__ import annotations

import pytest

from tests.environments.task_runs import TOOL_TASKS, run

CASES = [(env, task) for env, tasks in TOOL_TASKS.items() for task in tasks]


@pytest.mark.parametrize(("env", "task"), CASES)
def test_the_solver_passes_with_full_reward_and_no_tool_errors(env: str, task: str) -> None:
    result = run(env, task, "solver")
    assert result.passed, result.result["failedRequired"]
    assert result.reward == 1.0
    assert result.result["toolErrors"] == 0 and result.result["error"] is None


@pytest.mark.parametrize(("env", "task"), CASES)
def test_the_noop_agent_fails_without_a_call(env: str, task: str) -> None:
    result = run(env, task, "noop")
    assert not result.passed
    assert result.result["toolCalls"] == 0
