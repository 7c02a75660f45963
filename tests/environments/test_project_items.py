"""Project-tracking work items and time: derived flags, the done-needs-dependencies rule,
capacity-checked assignment, dependency links, comments, sprint moves, due dates, time logs."""

from __future__ import annotations

from typing import Any

from project_helpers import ACTOR, DEPARTED, DONE

IN_PROGRESS = "WS-03"


def _item(tracker: Any, item_id: str) -> dict[str, Any]:
    return dict(tracker("get_work_item", workItemId=item_id))


def test_item_view_derives_flags(tracker: Any) -> None:
    blocked = _item(tracker, "WI-004")
    assert blocked["isBlocked"] is True and blocked["unresolvedDependencies"] == ["WI-005"]
    assert blocked["isOverdue"] is True and blocked["daysInStatus"] == 14
    assert blocked["dependencies"] == [
        {"id": "WI-002", "title": "Card vault tokenisation", "isDone": True},
        {"id": "WI-005", "title": "Idempotency keys for charges", "isDone": False},
    ]
    labelled = _item(tracker, "WI-012")
    assert labelled["statusName"] == "Blocked" and labelled["isBlocked"] is False
    assert _item(tracker, "WI-019")["isOverdue"] is False  # due today is not overdue
    assert _item(tracker, "WI-001")["isOverdue"] is False  # done items are never overdue
    engine = _item(tracker, "WI-003")
    assert engine["childIds"] == ["WI-011"] and engine["hoursLogged"] == 8.5
    assert [log["id"] for log in engine["timeLogs"]] == ["TL-005", "TL-006"]


def test_list_filters(tracker: Any) -> None:
    def ids(**args: Any) -> list[str]:
        return [i["id"] for i in tracker("list_work_items", limit=500, **args)["results"]]

    assert ids(blocked=True) == ["WI-004", "WI-006"]
    assert ids(overdue=True) == ["WI-004", "WI-006", "WI-010", "WI-014", "WI-015", "WI-023"]
    assert ids(unassigned=True, projectId="PROJ-001") == ["WI-008", "WI-009", "WI-011"]
    assert ids(statusId="WS-01") == ["WI-008", "WI-009", "WI-021"]
    assert ids(assigneeId=DEPARTED, open=True) == ["WI-014", "WI-015", "WI-016"]
    assert ids(sprintId="SPR-004", open=False) == ["WI-013", "WI-017"]
    assert ids(type="bug") == ["WI-006"]
    assert ids(priority="critical", open=True) == ["WI-004"]
    assert [i["id"] for i in tracker("search_work_items", query="RETRY")["results"]] == ["WI-004"]


def test_done_is_refused_while_dependencies_are_open(tracker: Any) -> None:
    error = tracker.refused(
        "set_work_item_status", "invalid_state", actorId=ACTOR, workItemId="WI-004", statusId=DONE
    )
    assert error.details == {"unresolvedDependencies": ["WI-005"]} and "WI-005" in error.message
    tracker("set_work_item_status", actorId=ACTOR, workItemId="WI-005", statusId=DONE)
    done = tracker("set_work_item_status", actorId=ACTOR, workItemId="WI-004", statusId=DONE)
    assert done["isDone"] is True and done["daysInStatus"] == 0 and done["isBlocked"] is False
    assert tracker.state["workItems"]["WI-004"]["statusChangedOn"] == "2026-03-16"
    tracker.refused(
        "set_work_item_status", "conflict", actorId=ACTOR, workItemId="WI-004", statusId=DONE
    )
    tracker.refused(
        "set_work_item_status", "not_found", actorId=ACTOR, workItemId="WI-004", statusId="WS-09"
    )
    # Any state other than done is allowed while blocked.
    moved = tracker("set_work_item_status", actorId=ACTOR, workItemId="WI-006", statusId="WS-04")
    assert moved["statusName"] == "Blocked"


def test_assignment_is_capacity_checked(tracker: Any) -> None:
    args = {"actorId": ACTOR, "workItemId": "WI-008"}
    error = tracker.refused("assign_work_item", "limit_exceeded", **args, assigneeId="MEM-003")
    assert error.details == {"load": 21, "capacity": 18, "requested": 5}
    tracker.refused("assign_work_item", "not_allowed", **args, assigneeId=DEPARTED)
    tracker.refused("assign_work_item", "not_found", **args, assigneeId="MEM-099")
    given = tracker("assign_work_item", **args, assigneeId="MEM-002")  # 18 + 5 <= 25
    assert given["assigneeName"] == "Brian Osei"
    assert tracker("get_member", memberId="MEM-002")["remainingCapacity"] == 2
    tracker.refused("assign_work_item", "conflict", **args, assigneeId="MEM-002")
    # Filling a member exactly to capacity is allowed; one point more is not.
    tracker("assign_work_item", actorId=ACTOR, workItemId="WI-010", assigneeId="MEM-001")  # 12 + 8
    tracker.refused(
        "assign_work_item",
        "limit_exceeded",
        actorId=ACTOR,
        workItemId="WI-011",
        assigneeId="MEM-001",
    )
    tracker.refused(
        "assign_work_item",
        "invalid_state",
        actorId=ACTOR,
        workItemId="WI-001",
        assigneeId="MEM-002",
    )


def test_unassign(tracker: Any) -> None:
    freed = tracker("unassign_work_item", actorId=ACTOR, workItemId="WI-010")
    assert freed["assigneeId"] is None
    assert tracker("get_member", memberId="MEM-003")["overCapacity"] is False
    tracker.refused("unassign_work_item", "invalid_state", actorId=ACTOR, workItemId="WI-010")


def test_create_work_item(tracker: Any) -> None:
    base = {"actorId": ACTOR, "projectId": "PROJ-001", "type": "task"}
    made = tracker("create_work_item", **base, title="Audit trail")
    assert (made["id"], made["statusName"], made["priority"], made["estimate"]) == (
        "WI-025",
        "Backlog",
        "medium",
        0,
    )
    assert made["dependsOn"] == [] and made["createdOn"] == "2026-03-16"
    tracker.refused(
        "create_work_item", "limit_exceeded", **base, title="x", estimate=1, assigneeId="MEM-003"
    )
    tracker.refused("create_work_item", "not_allowed", **base, title="x", assigneeId=DEPARTED)
    tracker.refused("create_work_item", "invalid_state", **base, title="x", sprintId="SPR-001")
    tracker.refused("create_work_item", "invalid_input", **base, title="x", sprintId="SPR-005")
    tracker.refused("create_work_item", "invalid_input", **base, title="x", statusId=DONE)
    tracker.refused("create_work_item", "invalid_input", **base, title="x", dueDate="2026-03-15")
    tracker.refused("create_work_item", "invalid_input", **base, title="x", parentId="WI-013")
    tracker.refused("create_work_item", "invalid_input", **base, title="   ")


def test_update_work_item(tracker: Any) -> None:
    args = {"actorId": ACTOR, "workItemId": "WI-007"}
    tracker.refused("update_work_item", "limit_exceeded", **args, estimate=6)  # Carla is over
    smaller = tracker("update_work_item", **args, estimate=3, title="Email provider upgrade")
    assert (smaller["estimate"], smaller["title"]) == (3, "Email provider upgrade")
    cleared = tracker("update_work_item", **args, dueDate=None, parentId="WI-006")
    assert cleared["dueDate"] is None and cleared["parentId"] == "WI-006"
    tracker.refused(
        "update_work_item", "invalid_input", actorId=ACTOR, workItemId="WI-006", parentId="WI-007"
    )
    tracker.refused("update_work_item", "invalid_input", **args, parentId="WI-007")
    tracker.refused(
        "update_work_item", "invalid_state", actorId=ACTOR, workItemId="WI-001", estimate=5
    )
    tracker.refused("update_work_item", "invalid_input", **args)
    tracker.refused("update_work_item", "conflict", **args, estimate=3)


def test_dependencies(tracker: Any) -> None:
    args = {"actorId": ACTOR, "workItemId": "WI-009"}
    linked = tracker("add_work_item_dependency", **args, dependsOnId="WI-008")
    assert linked["dependsOn"] == ["WI-008"] and linked["isBlocked"] is True
    tracker.refused("add_work_item_dependency", "conflict", **args, dependsOnId="WI-008")
    tracker.refused("add_work_item_dependency", "invalid_input", **args, dependsOnId="WI-009")
    tracker.refused(
        "add_work_item_dependency",
        "invalid_input",
        actorId=ACTOR,
        workItemId="WI-005",
        dependsOnId="WI-004",
    )
    tracker.refused(
        "add_work_item_dependency",
        "invalid_state",
        actorId=ACTOR,
        workItemId="WI-001",
        dependsOnId="WI-002",
    )
    tracker.refused("add_work_item_dependency", "not_found", **args, dependsOnId="WI-099")
    freed = tracker("remove_work_item_dependency", **args, dependsOnId="WI-008")
    assert freed["dependsOn"] == [] and freed["isBlocked"] is False
    tracker.refused("remove_work_item_dependency", "not_found", **args, dependsOnId="WI-008")


def test_comments(tracker: Any) -> None:
    added = tracker(
        "add_comment", actorId="MEM-008", workItemId="WI-006", body=" Waiting on WI-007. "
    )
    assert (added["id"], added["authorId"], added["body"], added["createdOn"]) == (
        "CMT-004",
        "MEM-008",
        "Waiting on WI-007.",
        "2026-03-16",
    )
    comments = tracker("list_comments", workItemId="WI-006")
    assert [c["id"] for c in comments["results"]] == ["CMT-001", "CMT-004"] and comments[
        "total"
    ] == 2
    assert _item(tracker, "WI-006")["commentCount"] == 2
    tracker.refused("add_comment", "invalid_input", actorId=ACTOR, workItemId="WI-006", body="  ")


def test_sprint_moves(tracker: Any) -> None:
    args = {"actorId": ACTOR, "workItemId": "WI-008"}
    assert tracker("move_work_item_to_sprint", **args, sprintId="SPR-003")["sprintId"] == "SPR-003"
    tracker.refused("move_work_item_to_sprint", "conflict", **args, sprintId="SPR-003")
    tracker.refused("move_work_item_to_sprint", "invalid_state", **args, sprintId="SPR-001")
    tracker.refused("move_work_item_to_sprint", "invalid_input", **args, sprintId="SPR-005")
    tracker.refused(
        "move_work_item_to_sprint",
        "invalid_state",
        actorId=ACTOR,
        workItemId="WI-001",
        sprintId="SPR-003",
    )
    assert tracker("remove_work_item_from_sprint", **args)["sprintId"] is None
    tracker.refused("remove_work_item_from_sprint", "invalid_state", **args)
    tracker.refused(
        "remove_work_item_from_sprint", "invalid_state", actorId=ACTOR, workItemId="WI-015"
    )


def test_due_dates(tracker: Any) -> None:
    args = {"actorId": ACTOR, "workItemId": "WI-010"}
    assert tracker("set_work_item_due_date", **args, dueDate="2026-03-16")["isOverdue"] is False
    assert tracker("set_work_item_due_date", **args, dueDate=None)["dueDate"] is None
    tracker.refused("set_work_item_due_date", "conflict", **args, dueDate=None)
    tracker.refused("set_work_item_due_date", "invalid_input", **args, dueDate="2026-03-15")
    tracker.refused("set_work_item_due_date", "invalid_input", **args, dueDate="2026-04-31")


def test_log_time(tracker: Any) -> None:
    args = {"actorId": "MEM-003", "workItemId": "WI-007"}
    log = tracker("log_time", **args, hours=1.25)
    assert (log["id"], log["memberId"], log["date"], log["hours"]) == (
        "TL-020",
        "MEM-003",
        "2026-03-16",
        1.3,
    )
    earlier = tracker("log_time", **args, hours=2, date="2026-03-13", note="Bounces.")
    assert earlier["date"] == "2026-03-13" and earlier["projectId"] == "PROJ-001"
    tracker.refused("log_time", "invalid_input", **args, hours=1, date="2026-03-17")
    tracker.refused("log_time", "invalid_state", actorId="MEM-001", workItemId="WI-001", hours=1)
    assert tracker("work_item_time_summary", workItemId="WI-007")["totalHours"] == 11.3


def test_update_time_log(tracker: Any) -> None:
    args = {"actorId": "MEM-001", "timeLogId": "TL-005"}
    fixed = tracker("update_time_log", **args, hours=4, note="EU VAT tables.")
    assert (fixed["hours"], fixed["note"]) == (4, "EU VAT tables.")
    tracker.refused(
        "update_time_log", "not_allowed", actorId="MEM-002", timeLogId="TL-005", hours=2
    )
    tracker.refused("update_time_log", "invalid_input", **args)
    tracker.refused("update_time_log", "invalid_input", **args, date="2026-04-01")
    tracker.refused("update_time_log", "conflict", **args, hours=4)
    tracker.refused("update_time_log", "not_found", actorId="MEM-001", timeLogId="TL-099", hours=1)
