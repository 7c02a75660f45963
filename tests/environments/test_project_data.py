"""Project-tracking seed world: every fact the tasks rely on, derived from the raw data files.

The checks here recompute each answer from ``data/*.json`` with plain code of their own (not the
environment's helpers), so a seed edit that breaks a task's premise fails here by name; the
environment's ``answers`` module is then held to the same figures.
"""

from __future__ import annotations

import importlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

PROJECT = Path(__file__).resolve().parents[2]
DATA = PROJECT / "environments" / "project" / "data"
NOW = "2026-03-16"


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    files = {path.stem: json.loads(path.read_text()) for path in DATA.glob("*.json")}
    keyed = {
        name: {row["id"]: row for row in rows}
        for name, rows in files.items()
        if name not in ("auditLog", "sequences")
    }
    return {**keyed, "auditLog": files["auditLog"], "sequences": files["sequences"]}


def _done_ids(raw: dict[str, Any]) -> set[str]:
    done_states = {s["id"] for s in raw["workflowStates"].values() if s["isDone"]}
    return {i["id"] for i in raw["workItems"].values() if i["statusId"] in done_states}


def _load(raw: dict[str, Any]) -> dict[str, int]:
    done = _done_ids(raw)
    load: dict[str, int] = defaultdict(int)
    for item in raw["workItems"].values():
        if item["assigneeId"] and item["id"] not in done:
            load[item["assigneeId"]] += item["estimate"]
    return load


def _by_name(rows: dict[str, Any], field: str, value: str) -> dict[str, Any]:
    [row] = [r for r in rows.values() if r[field] == value]
    return row


def test_counts_and_sequences(raw: dict[str, Any]) -> None:
    counts = {name: len(raw[name]) for name in raw if name != "sequences"}
    assert counts == {
        "projects": 3,
        "workItems": 24,
        "sprints": 5,
        "members": 8,
        "teams": 2,
        "workflowStates": 6,
        "timeLogs": 19,
        "auditLog": 2,
    }
    comments = [c for i in raw["workItems"].values() for c in i["comments"]]
    assert len(comments) == 3
    expected = {"PROJ": 3, "WI": 24, "SPR": 5, "MEM": 8, "TEAM": 2, "TL": 19, "CMT": 3, "AUD": 2}
    assert raw["sequences"] == expected
    ids = {
        "PROJ": raw["projects"],
        "WI": raw["workItems"],
        "SPR": raw["sprints"],
        "MEM": raw["members"],
        "TEAM": raw["teams"],
        "TL": raw["timeLogs"],
        "CMT": {c["id"]: c for c in comments},
        "AUD": {a["id"]: a for a in raw["auditLog"]},
    }
    for prefix, rows in ids.items():
        assert max(int(i.split("-")[1]) for i in rows) == raw["sequences"][prefix], prefix


def test_no_derived_value_is_stored(raw: dict[str, Any]) -> None:
    text = json.dumps(raw)
    for name in ("isBlocked", "isOverdue", "load", "velocity", "hoursLogged", "remaining"):
        assert f'"{name}"' not in text


def test_people_projects_and_workflow(raw: dict[str, Any]) -> None:
    members = raw["members"]
    assert [m["name"] for m in members.values()] == [
        "Alice Chen",
        "Brian Osei",
        "Carla Nunez",
        "Devon Ito",
        "Elena Petrov",
        "Farid Haddad",
        "Grace Kim",
        "Hassan Ali",
    ]
    assert [m["name"] for m in members.values() if not m["active"]] == ["Devon Ito"]
    assert members["MEM-007"]["role"] == "manager" and members["MEM-007"]["teamId"] is None
    assert raw["teams"]["TEAM-001"]["name"] == "Platform"
    keys = {p["key"]: (p["name"], p["leadId"]) for p in raw["projects"].values()}
    assert keys == {
        "ATL": ("Atlas Billing Platform", "MEM-001"),
        "NIM": ("Nimbus Mobile App", "MEM-005"),
        "LED": ("Ledger Data Migration", "MEM-007"),
    }
    states = sorted(raw["workflowStates"].values(), key=lambda s: s["order"])
    assert [s["name"] for s in states] == [
        "Backlog",
        "To Do",
        "In Progress",
        "Blocked",
        "In Review",
        "Done",
    ]
    assert [s["name"] for s in states if s["isDone"]] == ["Done"]
    assert [s["name"] for s in states if s["isBlockedState"]] == ["Blocked"]


def test_sprints(raw: dict[str, Any]) -> None:
    sprints = {s["name"]: s for s in raw["sprints"].values()}
    assert sprints["Atlas Sprint 11"]["status"] == "completed"
    twelve = sprints["Atlas Sprint 12"]
    assert twelve["status"] == "active" and twelve["endDate"] < NOW  # active though ended
    assert sprints["Atlas Sprint 13"]["status"] == "planned"
    assert not [
        i for i in raw["workItems"].values() if i["sprintId"] == sprints["Atlas Sprint 13"]["id"]
    ]
    assert sprints["Nimbus Sprint 5"]["status"] == "active"
    for project in raw["projects"]:
        active = [
            s
            for s in raw["sprints"].values()
            if s["projectId"] == project and s["status"] == "active"
        ]
        assert len(active) <= 1


def test_blocked_items_are_wi_004_and_wi_006(raw: dict[str, Any]) -> None:
    done = _done_ids(raw)
    blocked = sorted(
        i["id"]
        for i in raw["workItems"].values()
        if i["id"] not in done and any(dep not in done for dep in i["dependsOn"])
    )
    assert blocked == ["WI-004", "WI-006"]
    # The trap: an item labelled Blocked whose dependencies are all done is not blocked.
    labelled = [i["id"] for i in raw["workItems"].values() if i["statusId"] == "WS-04"]
    assert labelled and not set(labelled) & set(blocked)


def test_sprint_velocity_and_work_left(raw: dict[str, Any]) -> None:
    done = _done_ids(raw)
    delivered: dict[str, int] = defaultdict(int)
    left: dict[str, int] = defaultdict(int)
    for item in raw["workItems"].values():
        if item["sprintId"]:
            bucket = delivered if item["id"] in done else left
            bucket[item["sprintId"]] += item["estimate"]
    completed = {s["id"]: s["name"] for s in raw["sprints"].values() if s["status"] == "completed"}
    best = max(completed, key=lambda s: delivered[s])
    assert (completed[best], delivered[best]) == ("Nimbus Sprint 4", 8)
    assert sorted(delivered[s] for s in completed)[-2] < 8
    unfinished = {completed[s]: left[s] for s in completed if left[s]}
    assert unfinished == {"Nimbus Sprint 4": 2}


def test_hours_on_atlas_are_44(raw: dict[str, Any]) -> None:
    hours: dict[str, float] = defaultdict(float)
    for log in raw["timeLogs"].values():
        hours[raw["workItems"][log["workItemId"]]["projectId"]] += log["hours"]
    atlas = _by_name(raw["projects"], "key", "ATL")["id"]
    assert hours[atlas] == 44
    assert sorted(v for p, v in hours.items() if p != atlas) == [12.5, 25.5]


def test_overdue_points_21_held_by_active_members_26_in_all(raw: dict[str, Any]) -> None:
    done = _done_ids(raw)
    overdue = [
        i
        for i in raw["workItems"].values()
        if i["id"] not in done and i["dueDate"] and i["dueDate"] < NOW
    ]
    active = {m["id"] for m in raw["members"].values() if m["active"]}
    assert sum(i["estimate"] for i in overdue if i["assigneeId"] in active) == 21
    assert sum(i["estimate"] for i in overdue) == 26


def test_carla_nunez_is_the_only_member_over_capacity_by_3(raw: dict[str, Any]) -> None:
    load = _load(raw)
    over = {
        m["name"]: load[m["id"]] - m["weeklyCapacity"]
        for m in raw["members"].values()
        if load[m["id"]] > m["weeklyCapacity"]
    }
    assert over == {"Carla Nunez": 3}


def test_backlog_holds_3_items(raw: dict[str, Any]) -> None:
    backlog = _by_name(raw["workflowStates"], "name", "Backlog")["id"]
    assert sum(1 for i in raw["workItems"].values() if i["statusId"] == backlog) == 3


def test_usage_metering_fits_brian_osei_tightest(raw: dict[str, Any]) -> None:
    load = _load(raw)
    item = _by_name(raw["workItems"], "title", "Usage metering")
    platform = _by_name(raw["teams"], "name", "Platform")["id"]
    room = {
        m["id"]: m["weeklyCapacity"] - load[m["id"]] - item["estimate"]
        for m in raw["members"].values()
        if m["active"] and m["teamId"] == platform
    }
    assert item["assigneeId"] is None
    fits = {mid: left for mid, left in room.items() if left >= 0}
    assert min(fits, key=lambda mid: (fits[mid], mid)) == "MEM-002"
    assert room["MEM-003"] < 0  # the over-capacity member cannot take it
    assert max(fits, key=lambda mid: fits[mid]) != "MEM-002"  # "most room" is the wrong pick


def test_devons_unfinished_items_fit_farid(raw: dict[str, Any]) -> None:
    done = _done_ids(raw)
    devon = _by_name(raw["members"], "name", "Devon Ito")
    farid = _by_name(raw["members"], "name", "Farid Haddad")
    held = [i for i in raw["workItems"].values() if i["assigneeId"] == devon["id"]]
    unfinished = sorted(i["id"] for i in held if i["id"] not in done)
    assert unfinished == ["WI-014", "WI-015", "WI-016"]
    assert any(i["id"] in done for i in held)  # a finished item that must keep his name
    extra = sum(i["estimate"] for i in held if i["id"] not in done)
    assert _load(raw)[farid["id"]] + extra <= farid["weeklyCapacity"]


def test_answers_module_agrees_with_the_data(
    project_world: dict[str, Any], project_env: Any
) -> None:
    answers = importlib.import_module(f"{project_env.package}.answers")
    world = project_world
    assert [i["id"] for i in answers.blocked_items(world)] == ["WI-004", "WI-006"]
    points, sprint = answers.sprint_velocities(world)[0]
    assert (sprint["name"], points) == ("Nimbus Sprint 4", 8)
    assert answers.overdue_points(world, active_only=True) == 21
    assert answers.overdue_points(world, active_only=False) == 26
    assert [(n, m["name"]) for n, m in answers.over_capacity_members(world)] == [(3, "Carla Nunez")]
    assert len(answers.backlog_items(world)) == 3
    assert [(n, s["name"]) for n, s in answers.completed_sprints_with_work_left(world)] == [
        (2, "Nimbus Sprint 4")
    ]
    item = answers.find_item(world, "usage METERING")
    team = answers.find_team(world, "Platform")
    assert answers.tightest_fit(world, item, team["id"])["id"] == "MEM-002"
    assert answers.find_member(world, "nobody") is None
    state = importlib.import_module(f"{project_env.package}.state")
    assert state.project_hours(world, answers.find_project(world, "ATL")["id"]) == 44
