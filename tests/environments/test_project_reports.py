"""Project-tracking read-side figures: the reports and time summaries agents answer from, each
checked against the seed's known answers and against the records it summarises."""

from __future__ import annotations

from typing import Any

from project_helpers import NOW


def test_clock_and_workflow(tracker: Any) -> None:
    assert tracker("get_current_date") == {"today": NOW}
    states = tracker("list_workflow_states")["results"]
    assert [s["name"] for s in states][:2] == ["Backlog", "To Do"] and states[-1]["isDone"]


def test_blocked_items_longest_stuck_first(tracker: Any) -> None:
    report = tracker("blocked_items")
    rows = [
        (r["id"], r["daysInStatus"], [b["id"] for b in r["blockedBy"]]) for r in report["results"]
    ]
    assert report["total"] == 2
    assert rows == [("WI-004", 14, ["WI-005"]), ("WI-006", 13, ["WI-007"])]
    assert tracker("blocked_items", projectId="PROJ-002")["total"] == 0


def test_overdue_items_with_and_without_the_active_qualifier(tracker: Any) -> None:
    everyone = tracker("overdue_items")
    held = tracker("overdue_items", activeAssigneesOnly=True)
    assert (everyone["overduePoints"], held["overduePoints"]) == (26, 21)
    assert [r["id"] for r in everyone["results"]][:2] == ["WI-015", "WI-023"]  # earliest due first
    dropped = {r["id"] for r in everyone["results"]} - {r["id"] for r in held["results"]}
    assert dropped == {"WI-014", "WI-015"}
    assert all(r["heldByActiveMember"] for r in held["results"])
    assert everyone["results"][0]["daysOverdue"] == 15
    assert tracker("overdue_items", projectId="PROJ-003")["overduePoints"] == 6


def test_velocity_report(tracker: Any) -> None:
    report = tracker("velocity_report", completedOnly=True)
    rows = {
        r["name"]: (r["deliveredPoints"], r["scopePoints"], r["carriedOverPoints"])
        for r in report["sprints"]
    }
    assert rows == {"Atlas Sprint 11": (7, 7, 0), "Nimbus Sprint 4": (8, 10, 2)}
    assert report["averageVelocity"] == 7.5
    every = tracker("velocity_report", projectId="PROJ-001")["sprints"]
    assert [r["name"] for r in every] == ["Atlas Sprint 11", "Atlas Sprint 12", "Atlas Sprint 13"]
    assert every[1]["carriedOverItemIds"] == []  # an active sprint carries nothing over yet


def test_sprint_burndown(tracker: Any) -> None:
    four = tracker("sprint_burndown", sprintId="SPR-004")
    assert (four["scopePoints"], four["donePoints"], four["remainingPoints"]) == (10, 8, 2)
    days = four["days"]
    assert (days[0]["date"], days[-1]["date"], len(days)) == ("2026-02-16", "2026-03-01", 14)
    assert days[0]["idealRemaining"] == 10 and days[-1]["idealRemaining"] == 0
    # WI-017 (3) was done on 02-25 and WI-013 (5) on 02-26.
    by_day = {d["date"]: d["remainingPoints"] for d in days}
    assert (by_day["2026-02-24"], by_day["2026-02-25"], by_day["2026-02-26"]) == (10, 7, 2)
    assert tracker("sprint_burndown", sprintId="SPR-003")["days"] == [
        {"date": "2026-03-16", "remainingPoints": 0, "idealRemaining": 0}
    ]


def test_member_load_and_capacity_check(tracker: Any) -> None:
    report = tracker("member_load", activeOnly=True)
    loads = {r["name"]: (r["load"], r["remainingCapacity"]) for r in report["results"]}
    assert loads["Brian Osei"] == (18, 7) and loads["Carla Nunez"] == (21, -3)
    assert "Devon Ito" not in loads and report["overCapacityIds"] == ["MEM-003"]
    assert len(tracker("member_load", teamId="TEAM-001")["results"]) == 4
    brian = tracker("member_capacity_check", memberId="MEM-002", workItemId="WI-008")
    assert (brian["requestedPoints"], brian["remainingAfter"], brian["fits"]) == (5, 2, True)
    assert tracker("member_capacity_check", memberId="MEM-003", points=0)["fits"] is False
    assert tracker("member_capacity_check", memberId="MEM-004", points=1)["fits"] is False
    tracker.refused("member_capacity_check", "invalid_input", memberId="MEM-002")
    tracker.refused(
        "member_capacity_check", "invalid_input", memberId="MEM-002", points=1, workItemId="WI-008"
    )


def test_project_time_report(tracker: Any) -> None:
    atlas = tracker("project_time_report", projectId="PROJ-001")
    assert atlas["totalHours"] == 44
    assert {m["name"]: m["hours"] for m in atlas["byMember"]} == {
        "Alice Chen": 15,
        "Brian Osei": 16,
        "Carla Nunez": 13,
    }
    assert sum(i["hours"] for i in atlas["byWorkItem"]) == 44
    assert tracker("project_time_report", projectId="PROJ-002")["totalHours"] == 25.5


def test_time_log_listing_and_summaries(tracker: Any) -> None:
    atlas = tracker("list_time_logs", projectId="PROJ-001", limit=2)
    assert (atlas["total"], atlas["count"], atlas["totalHours"]) == (11, 2, 44)
    march = tracker(
        "list_time_logs", memberId="MEM-003", fromDate="2026-03-06", toDate="2026-03-11"
    )
    assert [log["id"] for log in march["results"]] == ["TL-009", "TL-019"] and march[
        "totalHours"
    ] == 7.5
    tracker.refused("list_time_logs", "invalid_input", fromDate="2026-13-01")
    carla = tracker("member_time_summary", memberId="MEM-003")
    assert carla["totalHours"] == 18.5
    assert carla["byProject"] == {"PROJ-001": 13, "PROJ-003": 5.5}
    assert (
        tracker("member_time_summary", memberId="MEM-003", toDate="2026-03-05")["totalHours"] == 6
    )
    summary = tracker("work_item_time_summary", workItemId="WI-013")
    assert (summary["totalHours"], summary["byMember"], summary["estimate"]) == (
        10,
        {"MEM-004": 10},
        5,
    )


def test_workload_forecast(tracker: Any) -> None:
    rows = {r["key"]: r for r in tracker("workload_forecast")["projects"]}
    atlas = rows["ATL"]
    assert (atlas["openPoints"], atlas["blockedPoints"], atlas["unassignedPoints"]) == (51, 7, 10)
    assert atlas["overduePoints"] == 15 and atlas["inactiveAssigneePoints"] == 0
    assert rows["NIM"]["inactiveAssigneePoints"] == 8
    assert sum(r["overduePoints"] for r in rows.values()) == 26
    assert tracker("workload_forecast", projectId="PROJ-003")["projects"][0]["openItemCount"] == 2
