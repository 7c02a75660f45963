"""Project-tracking tasks end to end through the rollout engine: the reference solver passes all
fifteen, the no-op agent fails all fifteen, and plausible wrong solutions (dodging a rule,
taking the trap answer, doing half the job) fail or lose reward for the reason they should."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import silo
from tests.environments.task_runs import run as run_in


def run(task: str, agent: Any) -> silo.RolloutResult:
    return run_in("project", task, agent)


def scripted(calls: list[tuple[str, dict[str, Any]]], answer: str = "") -> Callable[[Any], Any]:
    """An agent that makes ``calls`` in order (each must succeed) and answers ``answer``."""

    def agent(inp: Any) -> dict[str, str]:
        for name, args in calls:
            result = inp.call_tool(name, args)
            assert not result["isError"], result["output"]
        return {"output": answer}

    return agent


def answering(text: str) -> Callable[[Any], Any]:
    return scripted([], text)


def failed(result: Any) -> list[str]:
    return list(result.result["failedRequired"])


def test_task_001_exact_diff() -> None:
    result = run("TASK-001", "solver")
    assert result.state_diff == {
        "scalars": [],
        "collections": {
            "workItems": {"added": [], "removed": [], "changed": ["WI-003"]},
            "auditLog": {"added": ["AUD-0003"], "removed": [], "changed": []},
            "sequences": {"added": [], "removed": [], "changed": ["AUD"]},
        },
    }


def test_solver_answers() -> None:
    expected = {
        "TASK-009": "2 items are blocked: WI-004, WI-006.",
        "TASK-010": "Nimbus Sprint 4 delivered the most: 8 points.",
        "TASK-011": "Hours logged on Atlas Billing Platform: 44",
        "TASK-012": "Overdue work held by active members: 21 points.",
        "TASK-013": "Carla Nunez is over capacity by 3 points",
        "TASK-014": "Work items in Backlog: 3",
        "TASK-015": "Nimbus Sprint 4 closed with 2 points of unfinished work",
    }
    for task, text in expected.items():
        assert run(task, "solver").result["agentOutput"] == text, task


def test_dodging_the_dependency_rule_fails_task_002() -> None:
    dodge = scripted(
        [
            (
                "remove_work_item_dependency",
                {"actorId": "MEM-002", "workItemId": "WI-004", "dependsOnId": "WI-005"},
            ),
            (
                "set_work_item_status",
                {"actorId": "MEM-002", "workItemId": "WI-004", "statusId": "WS-06"},
            ),
        ]
    )
    result = run("TASK-002", dodge)
    assert failed(result) == ["Every dependency that was unfinished is now done"]
    assert not result.result["checks"][3]["passed"]  # the dependency was deleted


def test_half_a_handover_fails_task_003() -> None:
    partial = scripted(
        [
            (
                "assign_work_item",
                {"actorId": "MEM-005", "workItemId": "WI-014", "assigneeId": "MEM-006"},
            ),
            (
                "assign_work_item",
                {"actorId": "MEM-005", "workItemId": "WI-015", "assigneeId": "MEM-006"},
            ),
        ]
    )
    assert failed(run("TASK-003", partial)) == [
        "Every unfinished item of the departed member now belongs to the successor",
        "The departed member holds no unfinished work",
    ]


def test_the_roomiest_member_is_the_wrong_owner_for_task_004() -> None:
    roomy = scripted(
        [
            (
                "assign_work_item",
                {"actorId": "MEM-001", "workItemId": "WI-008", "assigneeId": "MEM-008"},
            )
        ]
    )
    assert failed(run("TASK-004", roomy)) == ["The item is assigned to the tightest-fitting member"]


def test_a_comment_without_the_blocker_id_fails_task_005() -> None:
    vague = scripted(
        [("add_comment", {"actorId": "MEM-008", "workItemId": "WI-006", "body": "Still blocked."})]
    )
    assert failed(run("TASK-005", vague)) == ["A new comment names the blocking item by id"]


def test_moving_extra_items_costs_reward_on_task_006() -> None:
    calls = [
        (
            "move_work_item_to_sprint",
            {"actorId": "MEM-001", "workItemId": item, "sprintId": "SPR-003"},
        )
        for item in ("WI-008", "WI-009", "WI-011")
    ]
    result = run("TASK-006", scripted(calls))
    assert result.passed and result.reward < 1
    assert result.result["checks"][2]["label"] == "Nothing else was put in the sprint"


def test_starting_without_completing_fails_task_007() -> None:
    result = run(
        "TASK-007", scripted([("complete_sprint", {"actorId": "MEM-001", "sprintId": "SPR-002"})])
    )
    assert failed(result) == [
        "The next sprint is active",
        "Exactly one sprint of the project is active",
    ]


def test_closing_is_the_last_step_of_task_008() -> None:
    finish = scripted(
        [
            (
                "set_work_item_status",
                {"actorId": "MEM-007", "workItemId": item, "statusId": "WS-06"},
            )
            for item in ("WI-023", "WI-024")
        ]
    )
    assert failed(run("TASK-008", finish)) == ["The project is completed"]


@pytest.mark.parametrize(
    ("task", "answer", "passes"),
    [
        ("TASK-009", "2 blocked: WI-004 and WI-006.", True),
        ("TASK-009", "3 blocked: WI-004, WI-006 and WI-012.", False),  # the Blocked label trap
        ("TASK-009", "2 blocked: WI-004 and WI-005.", False),
        ("TASK-010", "Nimbus Sprint 4, with 8 points.", True),
        ("TASK-010", "Atlas Sprint 11, with 7 points.", False),
        ("TASK-011", "44.0 hours", True),
        ("TASK-011", "82 hours across all projects", False),
        ("TASK-012", "21", True),
        ("TASK-012", "26", False),
        ("TASK-012", "21 points, or 26 counting Devon's items.", False),
        ("TASK-013", "carla nunez, over by 3", True),
        ("TASK-013", "Carla Nunez carries 21 points", False),
        ("TASK-014", "3", True),
        ("TASK-014", "24", False),
        ("TASK-015", "Nimbus Sprint 4 has 2 points left.", True),
        ("TASK-015", "Atlas Sprint 12 has 41 points left.", False),
    ],
)
def test_answer_grading(task: str, answer: str, passes: bool) -> None:
    result = run(task, answering(answer))
    assert result.passed is passes, result.result["checks"]


def test_a_report_that_changes_the_world_loses_reward() -> None:
    meddling = scripted(
        [("add_comment", {"actorId": "MEM-001", "workItemId": "WI-004", "body": "Counted."})],
        "2 blocked: WI-004, WI-006",
    )
    result = run("TASK-009", meddling)
    assert result.passed and result.result["checks"][-1]["passed"] is False
