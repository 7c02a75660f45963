"""Project-tracking rules on members, teams, projects and sprints: each refusal the reference
names (inactive members, one active sprint per project, closing with open work, completed
projects and sprints taking no work, ...) and the happy path around it."""

from __future__ import annotations

from typing import Any

from project_helpers import ACTOR, DEPARTED, DONE

# --- members -------------------------------------------------------------------------------------


def test_member_view_shows_load_and_overage(tracker: Any) -> None:
    carla = tracker("get_member", memberId="MEM-003")
    assert (carla["load"], carla["weeklyCapacity"], carla["remainingCapacity"]) == (21, 18, -3)
    assert carla["overCapacity"] is True and carla["overCapacityBy"] == 3
    assert [i["id"] for i in carla["assignedItems"]] == ["WI-006", "WI-007", "WI-010", "WI-023"]
    over = tracker("list_members", overCapacity=True)["results"]
    assert [m["name"] for m in over] == ["Carla Nunez"]
    assert [m["id"] for m in tracker("list_members", active=False)["results"]] == [DEPARTED]
    assert [m["id"] for m in tracker("list_members", role="lead")["results"]] == [
        "MEM-001",
        "MEM-005",
    ]
    assert tracker("search_members", query="SILO-WORKS.example")["total"] == 8


def test_create_member(tracker: Any) -> None:
    made = tracker(
        "create_member",
        actorId=ACTOR,
        name=" Ivy Park ",
        email="Ivy@Example.com",
        role="designer",
        weeklyCapacity=10,
    )
    assert (made["id"], made["name"], made["email"], made["active"]) == (
        "MEM-009",
        "Ivy Park",
        "ivy@example.com",
        True,
    )
    assert made["teamId"] is None and made["load"] == 0
    base = {"actorId": ACTOR, "name": "Ivy", "role": "engineer", "weeklyCapacity": 10}
    tracker.refused("create_member", "conflict", **base, email="ALICE.chen@silo-works.example")
    tracker.refused("create_member", "not_found", **base, email="x@y.example", teamId="TEAM-009")
    tracker.refused("create_member", "invalid_input", **{**base, "name": "  "}, email="z@y.example")


def test_update_member(tracker: Any) -> None:
    moved = tracker("update_member", actorId=ACTOR, memberId="MEM-008", teamId=None, role="lead")
    assert moved["teamId"] is None and moved["role"] == "lead"
    assert tracker.state["auditLog"][-1]["details"]["teamId"] == {"from": "TEAM-001", "to": None}
    tracker.refused("update_member", "invalid_input", actorId=ACTOR, memberId="MEM-008")
    tracker.refused("update_member", "conflict", actorId=ACTOR, memberId="MEM-008", role="lead")
    tracker.refused(
        "update_member", "not_found", actorId=ACTOR, memberId="MEM-008", teamId="TEAM-007"
    )
    tracker.refused("update_member", "not_found", actorId=ACTOR, memberId="MEM-077", role="lead")


def test_deactivate_and_reactivate(tracker: Any) -> None:
    gone = tracker("deactivate_member", actorId=ACTOR, memberId="MEM-003")
    assert gone["active"] is False and gone["deactivatedOn"] == "2026-03-16"
    assert gone["openItemIds"] == ["WI-006", "WI-007", "WI-010", "WI-023"]
    # A deactivated member keeps their items but can no longer act or take work.
    assert tracker.state["workItems"]["WI-006"]["assigneeId"] == "MEM-003"
    tracker.refused("add_comment", "not_allowed", actorId="MEM-003", workItemId="WI-006", body="hi")
    tracker.refused("deactivate_member", "invalid_state", actorId=ACTOR, memberId="MEM-003")
    tracker.refused("deactivate_member", "invalid_input", actorId=ACTOR, memberId=ACTOR)
    back = tracker("reactivate_member", actorId=ACTOR, memberId="MEM-003")
    assert back["active"] is True and back["deactivatedOn"] is None
    tracker.refused("reactivate_member", "invalid_state", actorId=ACTOR, memberId="MEM-003")


# --- teams ---------------------------------------------------------------------------------------


def test_teams(tracker: Any) -> None:
    teams = tracker("list_teams")["results"]
    assert [(t["name"], t["leadName"], t["memberCount"]) for t in teams] == [
        ("Platform", "Alice Chen", 4),
        ("Mobile", "Elena Petrov", 3),
    ]
    mobile = tracker("get_team", teamId="TEAM-002")
    assert mobile["activeMemberCount"] == 2
    assert (mobile["totalLoad"], mobile["totalCapacity"]) == (10, 42)  # Devon's load is left out


def test_create_team(tracker: Any) -> None:
    made = tracker("create_team", actorId=ACTOR, name="Data", description="Warehouse.")
    assert (made["id"], made["leadId"], made["memberCount"]) == ("TEAM-003", None, 0)
    tracker.refused("create_team", "conflict", actorId=ACTOR, name="platform")
    tracker.refused("create_team", "not_allowed", actorId=ACTOR, name="Ops", leadId=DEPARTED)


def test_reassign_team_lead(tracker: Any) -> None:
    team = tracker("reassign_team_lead", actorId=ACTOR, teamId="TEAM-002", newLeadId="MEM-006")
    assert team["leadName"] == "Farid Haddad"
    args = {"actorId": ACTOR, "teamId": "TEAM-002"}
    tracker.refused("reassign_team_lead", "conflict", **args, newLeadId="MEM-006")
    tracker.refused("reassign_team_lead", "not_allowed", **args, newLeadId=DEPARTED)
    tracker.refused("reassign_team_lead", "invalid_input", **args, newLeadId="MEM-002")


# --- projects ------------------------------------------------------------------------------------


def test_project_reads(tracker: Any) -> None:
    atlas = tracker("get_project", projectId="PROJ-001")
    assert (atlas["key"], atlas["leadName"], atlas["itemCount"], atlas["openItemCount"]) == (
        "ATL",
        "Alice Chen",
        12,
        10,
    )
    assert [s["name"] for s in atlas["sprints"]] == [
        "Atlas Sprint 11",
        "Atlas Sprint 12",
        "Atlas Sprint 13",
    ]
    assert [p["key"] for p in tracker("search_projects", query="LED")["results"]] == ["LED"]
    assert [p["id"] for p in tracker("list_projects", leadId="MEM-007")["results"]] == ["PROJ-003"]
    lead = tracker("get_project_lead", projectId="PROJ-003")
    assert (lead["name"], lead["projectKey"], lead["load"]) == ("Grace Kim", "LED", 0)


def test_create_project(tracker: Any) -> None:
    made = tracker("create_project", actorId=ACTOR, name="Payments", key=" pay ", leadId="MEM-002")
    assert (made["id"], made["key"], made["status"], made["startDate"]) == (
        "PROJ-004",
        "PAY",
        "active",
        "2026-03-16",
    )
    base = {"actorId": ACTOR, "name": "X", "leadId": "MEM-002"}
    tracker.refused("create_project", "conflict", **base, key="atl")
    tracker.refused("create_project", "invalid_input", **base, key="A")
    tracker.refused("create_project", "invalid_input", **base, key="9LIVES")
    tracker.refused("create_project", "not_allowed", **{**base, "leadId": DEPARTED}, key="NEW")
    tracker.refused("create_project", "invalid_input", **base, key="NEW", targetDate="2026-02-30")


def test_update_project(tracker: Any) -> None:
    held = tracker(
        "update_project", actorId=ACTOR, projectId="PROJ-002", status="on_hold", name="Nimbus"
    )
    assert (held["status"], held["name"]) == ("on_hold", "Nimbus")
    tracker.refused("update_project", "invalid_input", actorId=ACTOR, projectId="PROJ-002")
    assert not tracker.schema_accepts(
        "update_project", {"actorId": ACTOR, "projectId": "PROJ-002", "status": "completed"}
    )


def test_close_project_refused_while_work_is_open_then_closes(tracker: Any) -> None:
    error = tracker.refused("close_project", "invalid_state", actorId=ACTOR, projectId="PROJ-003")
    assert error.details == {"unfinishedItemIds": ["WI-023", "WI-024"]}
    for item in ("WI-023", "WI-024"):
        tracker("set_work_item_status", actorId=ACTOR, workItemId=item, statusId=DONE)
    closed = tracker("close_project", actorId=ACTOR, projectId="PROJ-003")
    assert (closed["status"], closed["completedOn"], closed["openItemCount"]) == (
        "completed",
        "2026-03-16",
        0,
    )
    # A completed project takes no new work and cannot be changed.
    args = {"actorId": ACTOR, "projectId": "PROJ-003"}
    tracker.refused("close_project", "invalid_state", **args)
    tracker.refused("update_project", "invalid_state", **args, name="Ledger")
    tracker.refused("reassign_project_lead", "invalid_state", **args, newLeadId="MEM-001")
    tracker.refused("create_work_item", "invalid_state", **args, title="More", type="task")
    tracker.refused(
        "create_sprint",
        "invalid_state",
        **args,
        name="S1",
        startDate="2026-03-20",
        endDate="2026-03-27",
    )


def test_reassign_project_lead(tracker: Any) -> None:
    args = {"actorId": ACTOR, "projectId": "PROJ-001"}
    assert tracker("reassign_project_lead", **args, newLeadId="MEM-002")["leadName"] == "Brian Osei"
    tracker.refused("reassign_project_lead", "conflict", **args, newLeadId="MEM-002")
    tracker.refused("reassign_project_lead", "not_allowed", **args, newLeadId=DEPARTED)


# --- sprints -------------------------------------------------------------------------------------


def test_sprint_reads(tracker: Any) -> None:
    names = [s["name"] for s in tracker("list_sprints")["results"]]
    assert names == [
        "Atlas Sprint 11",
        "Nimbus Sprint 4",
        "Atlas Sprint 12",
        "Nimbus Sprint 5",
        "Atlas Sprint 13",
    ]
    twelve = tracker("get_sprint", sprintId="SPR-002")
    assert twelve["isPastEnd"] is True and twelve["status"] == "active"
    assert (twelve["scopePoints"], twelve["donePoints"], twelve["remainingPoints"]) == (41, 0, 41)
    four = tracker("get_sprint", sprintId="SPR-004")
    assert (four["donePoints"], four["remainingPoints"], four["isPastEnd"]) == (8, 2, False)
    assert [s["id"] for s in tracker("list_sprints", status="active")["results"]] == [
        "SPR-002",
        "SPR-005",
    ]


def test_create_sprint(tracker: Any) -> None:
    base = {"actorId": ACTOR, "projectId": "PROJ-003"}
    made = tracker(
        "create_sprint", **base, name="Cutover", startDate="2026-03-16", endDate="2026-03-16"
    )
    assert (made["id"], made["status"], made["itemCount"]) == ("SPR-006", "planned", 0)
    tracker.refused(
        "create_sprint",
        "invalid_input",
        **base,
        name="Late",
        startDate="2026-03-20",
        endDate="2026-03-19",
    )
    tracker.refused(
        "create_sprint",
        "conflict",
        **base,
        name="CUTOVER",
        startDate="2026-03-20",
        endDate="2026-03-27",
    )


def test_one_active_sprint_per_project(tracker: Any) -> None:
    start = {"actorId": ACTOR, "sprintId": "SPR-003"}
    error = tracker.refused("start_sprint", "conflict", **start)
    assert error.details == {"activeSprintId": "SPR-002"}
    done = tracker("complete_sprint", actorId=ACTOR, sprintId="SPR-002")
    assert done["status"] == "completed" and done["completedOn"] == "2026-03-16"
    assert done["carriedOverItemIds"] == [
        "WI-003",
        "WI-004",
        "WI-005",
        "WI-006",
        "WI-007",
        "WI-010",
        "WI-012",
    ]
    # Unfinished items stay attached to the completed sprint.
    assert tracker.state["workItems"]["WI-004"]["sprintId"] == "SPR-002"
    assert tracker("start_sprint", **start)["status"] == "active"
    tracker.refused("start_sprint", "invalid_state", **start)
    tracker.refused("complete_sprint", "invalid_state", actorId=ACTOR, sprintId="SPR-002")
    tracker.refused("complete_sprint", "invalid_state", actorId=ACTOR, sprintId="SPR-001")
