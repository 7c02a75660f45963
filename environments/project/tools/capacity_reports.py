"""Capacity and effort reports: who carries what, where the time went, what is at risk.

Contract: read-only tools over figures derived at call time. ``member_load`` lists members with
capacity, load, remaining capacity and overage (team and active filters);
``project_time_report`` totals a project's logged hours by member and by item;
``workload_forecast`` splits each project's open points into blocked, overdue, unassigned and
held-by-a-deactivated-member; ``member_capacity_check`` answers whether a member can take a
number of points (or a given item) and what room would be left.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, Any

from pydantic import Field

from silo import Tool, ToolError, define_tool, tool
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import flag, obj

from .. import state as derived
from ..state import round_half_up
from .common import fetch
from .schema import by_id, ref
from .views import member_view

State = dict[str, Any]
Args = dict[str, Any]


def _member_load(state: State, args: Args) -> dict[str, Any]:
    rows = [
        member_view(state, m)
        for m in sorted_by_id(state["members"].values())
        if ("teamId" not in args or m["teamId"] == args["teamId"])
        and (not args.get("activeOnly") or m["active"])
    ]
    over = [row["id"] for row in rows if row["overCapacity"]]
    return {"total": len(rows), "overCapacityIds": over, "results": rows}


def _project_time_report(state: State, args: Args) -> dict[str, Any]:
    project = fetch(state, "projects", args["projectId"])
    by_member: dict[str, float] = defaultdict(float)
    by_item = []
    logs = []
    for item in sorted_by_id(derived.ITEMS_BY_PROJECT.rows(state, project["id"])):
        item_logs = derived.LOGS_BY_ITEM.rows(state, item["id"])
        logs.extend(item_logs)
        for log in item_logs:
            by_member[log["memberId"]] += float(log["hours"])
        if item_logs:
            by_item.append(
                {
                    "workItemId": item["id"],
                    "title": item["title"],
                    "hours": derived.hours_of(item_logs),
                }
            )
    members = state["members"]
    return {
        "projectId": project["id"],
        "key": project["key"],
        "name": project["name"],
        "totalHours": derived.hours_of(logs),
        "byMember": [
            {"memberId": mid, "name": members[mid]["name"], "hours": round_half_up(hours)}
            for mid, hours in sorted(by_member.items())
        ],
        "byWorkItem": by_item,
    }


def _workload_forecast(state: State, args: Args) -> dict[str, Any]:
    projects = sorted_by_id(state["projects"].values())
    if "projectId" in args:
        projects = [fetch(state, "projects", args["projectId"])]
    members = state["members"]
    rows = []
    for project in projects:
        items = [
            i
            for i in derived.ITEMS_BY_PROJECT.rows(state, project["id"])
            if not derived.is_done(state, i)
        ]
        held_by_gone = [
            i for i in items if i["assigneeId"] and not members[i["assigneeId"]]["active"]
        ]
        rows.append(
            {
                "projectId": project["id"],
                "key": project["key"],
                "openItemCount": len(items),
                "openPoints": derived.points_of(items),
                "blockedPoints": derived.points_of(
                    i for i in items if derived.is_blocked(state, i)
                ),
                "overduePoints": derived.points_of(
                    i for i in items if derived.is_overdue(state, i)
                ),
                "unassignedPoints": derived.points_of(i for i in items if not i["assigneeId"]),
                "inactiveAssigneePoints": derived.points_of(held_by_gone),
            }
        )
    return {"projects": rows}


@tool(read_only=True)
def member_capacity_check(
    state: dict[str, Any],
    memberId: Annotated[str, Field(pattern=r"^MEM-\d{2,6}$")],
    points: Annotated[int | None, Field(ge=0, le=100)] = None,
    workItemId: Annotated[str | None, Field(pattern=r"^WI-\d{2,6}$")] = None,
) -> dict[str, Any]:
    """Whether a member has room for some points or a work item; deactivated members never fit.

    The answer shows their load and capacity, the points asked about and the room left after.

    Args:
        state: The world; Silo passes it, the agent never does.
        memberId: Id of the member, e.g. MEM-002.
        points: Points of extra work to check (give this or workItemId).
        workItemId: A work item whose estimate to check (give this or points).
    """
    if (points is None) == (workItemId is None):
        raise ToolError("invalid_input", "give exactly one of points or workItemId")
    member = fetch(state, "members", memberId)
    extra = points if points is not None else fetch(state, "workItems", str(workItemId))["estimate"]
    remaining_after = derived.remaining_capacity(state, member) - (extra or 0)
    return {
        **member_view(state, member),
        "requestedPoints": extra,
        "remainingAfter": remaining_after,
        "fits": bool(member["active"]) and remaining_after >= 0,
    }


TOOLS: list[Tool] = [
    define_tool(
        "member_load",
        "Every member's weekly capacity, load (points of unfinished assigned work), remaining "
        "capacity and overage, plus the ids of those over capacity.",
        obj(
            {
                "teamId": ref("team", "Only members of this team."),
                "activeOnly": flag("true to leave out deactivated members."),
            }
        ),
        _member_load,
        read_only=True,
    ),
    define_tool(
        "project_time_report",
        "Hours logged on a project's work items: the total, by member and by item.",
        by_id("project", "projectId", "PROJ-001"),
        _project_time_report,
        read_only=True,
    ),
    define_tool(
        "workload_forecast",
        "Each project's open points split into blocked, overdue, unassigned and held by a "
        "deactivated member (a point can fall in several).",
        obj({"projectId": ref("project", "Only this project (default: every project).")}),
        _workload_forecast,
        read_only=True,
    ),
    member_capacity_check,
]
