"""Delivery reports: how sprints went and what is stuck or late.

Contract: read-only tools over figures derived at call time. ``sprint_burndown`` gives a
sprint's scope, done and remaining points, the ideal line and the actual remaining points per
day (an item counts as done from the day it entered its done state); ``velocity_report`` gives
delivered, scope and carried-over points per sprint (optionally completed sprints only) and the
average velocity of completed sprints; ``blocked_items`` lists items with an unfinished
dependency, longest-stuck first, with what blocks them; ``overdue_items`` lists unfinished items
past their due date with their total ``overduePoints``, optionally only those held by an active
member.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, timedelta
from typing import Any

from silo import Tool, define_tool
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import flag, obj

from .. import state as derived
from ..state import round_half_up
from .common import fetch
from .schema import by_id, ref
from .views import item_view

State = dict[str, Any]
Args = dict[str, Any]
Row = Mapping[str, Any]


def _items_in_scope(state: State, args: Args) -> list[Row]:
    if "projectId" in args:
        fetch(state, "projects", args["projectId"])
        return sorted_by_id(derived.ITEMS_BY_PROJECT.rows(state, args["projectId"]))
    return sorted_by_id(state["workItems"].values())


def _sprint_burndown(state: State, args: Args) -> dict[str, Any]:
    sprint = fetch(state, "sprints", args["sprintId"])
    items = derived.sprint_items(state, sprint["id"])
    scope = derived.points_of(items)
    start, end = date.fromisoformat(sprint["startDate"]), date.fromisoformat(sprint["endDate"])
    last = min(end, date.fromisoformat(state["now"]))
    total_days = (end - start).days or 1
    days = []
    for offset in range(max(0, (last - start).days + 1)):
        today = (start + timedelta(days=offset)).isoformat()
        burnt = derived.points_of(
            i for i in items if derived.is_done(state, i) and i["statusChangedOn"] <= today
        )
        ideal = round_half_up(scope * max(0.0, 1 - offset / total_days))
        days.append({"date": today, "remainingPoints": scope - burnt, "idealRemaining": ideal})
    delivered = derived.done_points(state, items)
    return {
        "sprintId": sprint["id"],
        "name": sprint["name"],
        "status": sprint["status"],
        "scopePoints": scope,
        "donePoints": delivered,
        "remainingPoints": scope - delivered,
        "days": days,
    }


def _velocity_report(state: State, args: Args) -> dict[str, Any]:
    sprints = sorted(
        (
            s
            for s in state["sprints"].values()
            if ("projectId" not in args or s["projectId"] == args["projectId"])
            and (not args.get("completedOnly") or s["status"] == "completed")
        ),
        key=lambda s: (s["startDate"], s["id"]),
    )
    rows = []
    for sprint in sprints:
        items = derived.sprint_items(state, sprint["id"])
        unfinished = [i for i in items if not derived.is_done(state, i)]
        completed = sprint["status"] == "completed"
        rows.append(
            {
                "sprintId": sprint["id"],
                "name": sprint["name"],
                "projectId": sprint["projectId"],
                "status": sprint["status"],
                "scopePoints": derived.points_of(items),
                "deliveredPoints": derived.done_points(state, items),
                "carriedOverPoints": derived.points_of(unfinished) if completed else 0,
                "carriedOverItemIds": [i["id"] for i in unfinished] if completed else [],
            }
        )
    done = [row["deliveredPoints"] for row in rows if row["status"] == "completed"]
    average = round_half_up(sum(done) / len(done)) if done else None
    return {"sprints": rows, "averageVelocity": average}


def _blocked_items(state: State, args: Args) -> dict[str, Any]:
    items = state["workItems"]
    rows = [
        {
            **item_view(state, item),
            "blockedBy": [
                {"id": dep, "title": items[dep]["title"] if dep in items else None}
                for dep in derived.unresolved_dependencies(state, item)
            ],
        }
        for item in _items_in_scope(state, args)
        if derived.is_blocked(state, item)
    ]
    rows.sort(key=lambda row: (-row["daysInStatus"], row["id"]))
    return {"total": len(rows), "results": rows}


def _overdue_items(state: State, args: Args) -> dict[str, Any]:
    members = state["members"]

    def held_by_active(item: Row) -> bool:
        holder = members.get(item["assigneeId"]) if item["assigneeId"] else None
        return holder is not None and holder["active"]

    found = [
        item
        for item in _items_in_scope(state, args)
        if derived.is_overdue(state, item)
        and (not args.get("activeAssigneesOnly") or held_by_active(item))
    ]
    found.sort(key=lambda item: (item["dueDate"], item["id"]))
    rows = [
        {
            **item_view(state, item),
            "daysOverdue": derived.days_between(item["dueDate"], state["now"]),
            "heldByActiveMember": held_by_active(item),
        }
        for item in found
    ]
    return {"total": len(rows), "overduePoints": derived.points_of(found), "results": rows}


def _scope_filter() -> dict[str, Any]:
    return {"projectId": ref("project", "Only this project (default: every project).")}


TOOLS: list[Tool] = [
    define_tool(
        "sprint_burndown",
        "A sprint's scope, done and remaining points with the ideal and actual remaining points "
        "for each day from its start to its end (or today).",
        by_id("sprint", "sprintId", "SPR-002"),
        _sprint_burndown,
        read_only=True,
    ),
    define_tool(
        "velocity_report",
        "Per sprint: scope, delivered (done) points and, for completed sprints, the points and "
        "ids of unfinished items carried over; plus the average velocity of completed sprints.",
        obj(
            {
                **_scope_filter(),
                "completedOnly": flag("true to include only completed sprints."),
            }
        ),
        _velocity_report,
        read_only=True,
    ),
    define_tool(
        "blocked_items",
        "Unfinished items waiting on an unfinished dependency, longest in their status first, "
        "with the items blocking each. The 'Blocked' workflow label alone does not count.",
        obj(_scope_filter()),
        _blocked_items,
        read_only=True,
    ),
    define_tool(
        "overdue_items",
        "Unfinished items whose due date has passed, earliest due first, with overduePoints (the "
        "sum of their estimates). activeAssigneesOnly keeps items held by an active member.",
        obj(
            {
                **_scope_filter(),
                "activeAssigneesOnly": flag(
                    "true to keep only items assigned to an active member (drops unassigned "
                    "items and those held by deactivated members)."
                ),
            }
        ),
        _overdue_items,
        read_only=True,
    ),
]
