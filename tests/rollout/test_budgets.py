"""Budgets and termination: tool-call limits, timeouts with uncooperative agents, errors."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from silo import RunLimitError, run_task

ARTIFACTS = (
    "trace.jsonl", "result.json", "state-diff.json", "state-changes.json", "run.json",
)  # fmt: skip


def test_call_over_the_limit_is_refused_and_not_recorded(toy_project: Path) -> None:
    errors: list[str] = []

    def agent(inp: Any) -> str:
        for _ in range(5):
            try:
                inp.call_tool("read", {"id": "C-1"})
            except RunLimitError as exc:
                errors.append(f"{exc.reason}: {exc}")
        return "stopped"

    result = run_task("toy", "TASK-001", agent, {"max_tool_calls": 2}, project_dir=toy_project)
    assert result.result["toolCalls"] == 2
    assert result.termination_reason == "max_tool_calls"
    assert errors[0] == "max_tool_calls: Tool call limit exceeded (2)."
    assert errors[1:] == ["max_tool_calls: Run ended: max_tool_calls."] * 2
    assert result.agent_output == "stopped"
    trace = (result.run_dir / "trace.jsonl").read_text().splitlines()
    assert sum('"type":"tool_call"' in line for line in trace) == 2


def test_limit_error_escaping_the_agent_sets_the_reason(toy_project: Path) -> None:
    def agent(inp: Any) -> None:
        while True:
            inp.call_tool("read", {"id": "C-1"})

    result = run_task(
        "toy",
        "TASK-001",
        agent,
        {"max_tool_calls": 3},
        project_dir=toy_project,
        write_artifacts=False,
    )
    assert result.termination_reason == "max_tool_calls"
    assert result.error == "Tool call limit exceeded (3)."
    assert result.agent_output is None


def _uncooperative(kind: str, released: threading.Event) -> Any:
    """An agent that ignores its signal: spins, sleeps, or spins in async code that never awaits.

    It spins until ``released`` (set when the test ends), never for the rest of the session.
    """

    def spin(inp: Any) -> None:
        while not released.is_set():
            pass

    def sleep(inp: Any) -> None:
        time.sleep(3600)

    async def async_spin(inp: Any) -> None:
        while not released.is_set():
            pass

    agents: dict[str, Any] = {"spin": spin, "sleep": sleep, "async-spin": async_spin}
    return agents[kind]


async def _cooperative(inp: Any) -> str:
    while not inp.signal.aborted:
        await asyncio.sleep(0.01)
    return f"stopped: {inp.signal.reason}"


@pytest.mark.parametrize("kind", ["spin", "sleep", "async-spin"])
def test_uncooperative_agent_times_out_with_all_artifacts(
    toy_project: Path, kind: str, released: threading.Event
) -> None:
    agent = _uncooperative(kind, released)
    started = time.monotonic()
    result = run_task("toy", "TASK-001", agent, {"timeout_ms": 300}, project_dir=toy_project)
    elapsed = time.monotonic() - started
    assert elapsed >= 0.3  # ended at the budget, without waiting for the agent to return
    assert result.termination_reason == "timeout"
    assert "abandoned" in (result.error or "")
    assert not result.passed  # graded all the same: C-1 was never bumped
    assert result.result["requiredTotal"] == 1
    for name in ARTIFACTS:
        assert (result.run_dir / name).is_file(), name
    events = [json.loads(x) for x in (result.run_dir / "trace.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events] == [
        "run_start",
        "agent_output",
        "run_end",
        "verifier_result",
    ]


def test_cooperative_agent_returns_its_output_at_timeout(toy_project: Path) -> None:
    result = run_task(
        "toy",
        "TASK-001",
        _cooperative,
        {"timeout_ms": 200},
        project_dir=toy_project,
        write_artifacts=False,
    )
    assert result.termination_reason == "timeout"
    assert result.agent_output == "stopped: timeout"
    assert result.error is None


def test_raising_agent_is_agent_error_and_still_graded(toy_project: Path) -> None:
    def agent(inp: Any) -> None:
        inp.call_tool("bump", {"id": "C-1"})
        raise ValueError("model said no")

    result = run_task("toy", "TASK-001", agent, project_dir=toy_project)
    assert result.termination_reason == "agent_error"
    assert result.error.endswith("ValueError: model said no")
    assert "test_budgets.py:" in result.error  # where it was raised
    assert result.result["checks"][0]["detail"] == "1 -> 2"
    assert all((result.run_dir / name).is_file() for name in ARTIFACTS)


@pytest.mark.parametrize(
    "budget", [{"max_tool_calls": 0}, {"timeout_ms": -5}, {"max_tool_calls": "3"}, {"max_calls": 3}]
)
def test_bad_budgets_are_one_line_errors(toy_project: Path, budget: dict[str, Any]) -> None:
    from silo import SiloError

    with pytest.raises(SiloError) as info:
        run_task("toy", "TASK-001", "solver", budget, project_dir=toy_project)
    assert "\n" not in str(info.value) and "budget" in str(info.value)
