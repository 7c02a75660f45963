"""The three conversational CRM tasks: the facts come only from the customer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import silo

PROJECT = Path(__file__).resolve().parents[2]
TASKS = ["TASK-007", "TASK-008", "TASK-009"]


def run(task: str, agent: Any) -> Any:
    return silo.run_task("crm", task, agent, project_dir=PROJECT, write_artifacts=False)


@pytest.mark.parametrize("task", TASKS)
def test_solver_passes_by_asking_the_customer(task: str) -> None:
    result = run(task, "solver")
    assert result.passed and result.reward == 1.0, result.result
    assert result.run["conversationEndedBy"] == "user"
    spec = result.task.user
    said = " ".join(
        e["text"]
        for e in map(json.loads, result.trace_lines)
        if e["type"] == "user_message" and e["role"] == "user"
    )
    # Every fact the task needs was said by the customer (and only after being asked).
    assert all(fact.value in said for fact in spec.facts)


@pytest.mark.parametrize("task", TASKS)
def test_noop_fails(task: str) -> None:
    result = run(task, "noop")
    assert not result.passed and result.run["conversationEndedBy"] == "agent"


@pytest.mark.parametrize("task", TASKS)
def test_the_instruction_and_opening_do_not_state_the_facts(task: str) -> None:
    found = silo.load_environment("crm", PROJECT).task(task)
    assert found.user is not None
    for fact in found.user.facts:
        for number in ("132", "2026-06-30", "Northwind", "Tidewell", "Kestrel"):
            if number in fact.value:
                assert number not in found.instruction and number not in found.user.opening


def test_a_guess_without_asking_the_amount_fails() -> None:
    def guesser(inp: Any) -> str:
        inp.call_tool(
            "update_opportunity",
            {"actorId": "USR-002", "opportunityId": "OPP-001", "amount": 130000},
        )
        return "updated"

    assert not run("TASK-007", guesser).passed
