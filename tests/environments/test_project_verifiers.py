"""Project-tracking verifiers graded directly on hand-made worlds: when the starting world says
otherwise, the expected answer moves with it (nothing is hard-coded), and entities are found by
the name, title or key the task file gives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import silo

PROJECT = Path(__file__).resolve().parents[2]
World = dict[str, Any]


def grade(
    env: Any, task_id: str, initial: World, answer: str = "", final: World | None = None
) -> bool:
    """Whether every required check of ``task_id``'s verifier passes."""
    task = env.tasks[task_id]
    verifier = env.verifiers[task.verifier_id]
    context = silo.VerifierContext(agent_output=answer, task=task)
    checks = list(verifier.check(final if final is not None else initial, initial, context))
    assert any(c.required for c in checks)
    return all(c.passed for c in checks if c.required)


def _finish_wi_005(world: World) -> None:
    world["workItems"]["WI-005"]["statusId"] = "WS-06"


def _log_on_atlas(world: World) -> None:
    world["timeLogs"]["TL-020"] = {
        "id": "TL-020",
        "workItemId": "WI-008",
        "memberId": "MEM-002",
        "date": "2026-03-13",
        "hours": 6,
        "note": "",
    }


def _devon_was_carlas_cover(world: World) -> None:
    world["workItems"]["WI-010"]["assigneeId"] = "MEM-004"  # 8 overdue points leave the active set


def _raise_carla_capacity(world: World) -> None:
    world["members"]["MEM-003"]["weeklyCapacity"] = 16


def _one_more_backlog_item(world: World) -> None:
    world["workItems"]["WI-011"]["statusId"] = "WS-01"


def _atlas_11_left_work(world: World) -> None:
    world["workItems"]["WI-012"]["sprintId"] = "SPR-001"


@pytest.mark.parametrize(
    ("task_id", "change", "old", "new"),
    [
        ("TASK-009", _finish_wi_005, "2 blocked: WI-004, WI-006", "1 blocked: WI-006"),
        ("TASK-011", _log_on_atlas, "44", "50"),
        ("TASK-012", _devon_was_carlas_cover, "21", "13"),
        ("TASK-013", _raise_carla_capacity, "Carla Nunez, 3", "Carla Nunez, 5"),
        ("TASK-014", _one_more_backlog_item, "3", "4"),
        ("TASK-015", _atlas_11_left_work, "Nimbus Sprint 4, 2", "Atlas Sprint 11, 8"),
    ],
)
def test_report_answers_follow_the_starting_world(
    project_env: Any, task_id: str, change: Callable[[World], None], old: str, new: str
) -> None:
    seed = project_env.create_state()
    assert grade(project_env, task_id, seed, old) and not grade(project_env, task_id, seed, new)
    changed = project_env.create_state()
    change(changed)
    assert grade(project_env, task_id, changed, new) and not grade(
        project_env, task_id, changed, old
    )


def test_strongest_sprint_follows_the_starting_world(project_env: Any) -> None:
    world = project_env.create_state()
    world["workItems"]["WI-012"]["sprintId"] = "SPR-001"
    world["workItems"]["WI-012"]["statusId"] = "WS-06"  # Atlas Sprint 11 now delivered 7 + 8
    assert grade(project_env, "TASK-010", world, "Atlas Sprint 11 with 15 points")
    assert not grade(project_env, "TASK-010", world, "Nimbus Sprint 4 with 8 points")


def test_tightest_fit_follows_capacity(project_env: Any) -> None:
    initial = project_env.create_state()
    initial["members"]["MEM-001"]["weeklyCapacity"] = 18  # Alice: 18 - 12 - 5 = 1 beats Brian's 2
    final = project_env.create_state()
    final["members"]["MEM-001"]["weeklyCapacity"] = 18
    final["workItems"]["WI-008"]["assigneeId"] = "MEM-001"
    assert grade(project_env, "TASK-004", initial, final=final)
    final["workItems"]["WI-008"]["assigneeId"] = "MEM-002"
    assert not grade(project_env, "TASK-004", initial, final=final)


def test_entities_are_found_by_title_not_id(project_env: Any) -> None:
    initial = project_env.create_state()
    items = initial["workItems"]
    items["WI-003"]["title"], items["WI-001"]["title"] = (
        items["WI-001"]["title"],
        "Tax rules engine",
    )
    items["WI-001"]["statusId"] = "WS-05"  # the item now titled "Tax rules engine" is WI-001
    final = project_env.create_state()
    final["workItems"]["WI-001"].update(title="Tax rules engine", statusId="WS-06")
    final["workItems"]["WI-003"]["title"] = "Invoice PDF renderer"
    assert grade(project_env, "TASK-001", initial, final=final)
    final["workItems"]["WI-003"]["statusId"] = "WS-06"
    final["workItems"]["WI-001"]["statusId"] = "WS-05"
    assert not grade(project_env, "TASK-001", initial, final=final)


def test_a_world_without_the_named_entities_fails_cleanly(project_env: Any) -> None:
    world = project_env.create_state()
    for item in world["workItems"].values():
        item["title"] = f"Renamed {item['id']}"
    for member in world["members"].values():
        member["name"] = f"Renamed {member['id']}"
    for task_id in ("TASK-001", "TASK-002", "TASK-003", "TASK-004", "TASK-005"):
        assert not grade(project_env, task_id, world), task_id
