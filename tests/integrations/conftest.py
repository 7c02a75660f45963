"""Shared by the integration tests: a task's solver calls, and run_task making the same calls.

A step named :data:`MESSAGE_USER` with ``{"text": ...}`` is a message to the task's simulated
user (silo-mcp's control tool of that name; Gymnasium's and OpenEnv's ``message_user``
action), so one list of steps drives a conversation through every integration and run_task.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from silo import run_task
from silo.batch.baseline import tool_events

REPO = Path(__file__).resolve().parents[2]
Calls = list[tuple[str, Any]]
# Calls a careless client makes: invalid input for a real tool and a tool that does not exist.
BAD_CALLS: Calls = [("get_user", {"user_id": 7, "extra": True}), ("no_such_tool", {})]
MESSAGE_USER = "silo_message_user"


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``ray`` marker of the opt-in Ray cluster test (test_ray_cluster.py)."""
    config.addinivalue_line("markers", "ray: needs the ray extra and starts a local Ray head")


@pytest.fixture
def solver_calls(tmp_path: Path) -> Callable[[str], tuple[Calls, Any]]:
    """The tool calls and answer of the CRM solver on a task (from its trace)."""

    def calls_of(task_id: str) -> tuple[Calls, Any]:
        solved = run_task("crm", task_id, "solver", project_dir=REPO, runs_dir=tmp_path / "solver")
        lines = (solved.run_dir / "trace.jsonl").read_text().splitlines()
        calls = [(e["tool"], e["input"]) for e in tool_events(lines) if e["type"] == "tool_call"]
        return calls, solved.agent_output

    return calls_of


@pytest.fixture
def solver_steps(tmp_path: Path) -> Callable[[str], tuple[Calls, Any]]:
    """The solver's tool calls and messages to the user on a task, in order, and its answer."""

    def steps_of(task_id: str) -> tuple[Calls, Any]:
        solved = run_task("crm", task_id, "solver", project_dir=REPO, runs_dir=tmp_path / "steps")
        steps: Calls = []
        for line in (solved.run_dir / "trace.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event["type"] == "tool_call":
                steps.append((event["tool"], event["input"]))
            elif event["type"] == "user_message" and event["role"] == "agent":
                steps.append((MESSAGE_USER, {"text": event["text"]}))
        return steps, solved.agent_output

    return steps_of


def run_task_bytes(task_id: str, calls: Calls, answer: Any, runs_dir: Path) -> tuple[bytes, bytes]:
    """result.json and state-diff.json of run_task with an agent making exactly ``calls``."""

    def scripted(inp: Any) -> Any:
        for name, args in calls:
            if name == MESSAGE_USER:
                inp.user.send(args["text"])
            else:
                inp.call_tool(name, args)
        return {"output": answer}

    result = run_task("crm", task_id, scripted, project_dir=REPO, runs_dir=runs_dir)
    return record_bytes(result.run_dir)


def record_bytes(run_dir: Path) -> tuple[bytes, bytes]:
    """The two oracle documents of a run folder, as bytes."""
    return (run_dir / "result.json").read_bytes(), (run_dir / "state-diff.json").read_bytes()


@pytest.fixture
def scripted_record() -> Callable[[str, Calls, Any, Path], tuple[bytes, bytes]]:
    """:func:`run_task_bytes`, for tests to compare an integration's record with."""
    return run_task_bytes


@pytest.fixture
def bad_calls() -> Calls:
    """Calls a careless client makes (see BAD_CALLS)."""
    return list(BAD_CALLS)
