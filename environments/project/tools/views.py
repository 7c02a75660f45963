"""Read models: records as tools show them, with derived figures attached.

Contract: each view returns a new dict holding the stored fields of a record plus the figures
derived from the world at read time (status name, done and blocked flags, unresolved
dependencies, days in status, overdue, load and capacity, sprint points, hours). Views never
write to the state, and nothing they add is ever stored.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .. import state as derived
from .common import name_of

View = dict[str, Any]
World = Mapping[str, Any]
Row = Mapping[str, Any]


def _fields(row: Row, *, skip: str = "") -> View:
    """A detached copy of a stored record's fields.

    Nested lists are copied too, so a view never hands out a live part of the world.
    """
    return {key: copy.deepcopy(value) for key, value in row.items() if key != skip}


def item_view(state: World, item: Row) -> View:
    """A work item with its status, blocked/overdue flags, assignee name and hours.

    Comments are only counted here; get_work_item and list_comments show them.
    """
    return {
        **_fields(item, skip="comments"),
        "statusName": derived.status_of(state, item)["name"],
        "isDone": derived.is_done(state, item),
        "isBlocked": derived.is_blocked(state, item),
        "unresolvedDependencies": derived.unresolved_dependencies(state, item),
        "daysInStatus": derived.days_in_status(state, item),
        "isOverdue": derived.is_overdue(state, item),
        "assigneeName": name_of(state, "members", item["assigneeId"]),
        "hoursLogged": derived.item_hours(state, item["id"]),
        "commentCount": len(item["comments"]),
    }


def member_view(state: World, member: Row) -> View:
    """A member with load, remaining capacity and whether they are over capacity."""
    remaining = derived.remaining_capacity(state, member)
    return {
        **_fields(member),
        "teamName": name_of(state, "teams", member["teamId"]),
        "load": derived.member_load(state, member["id"]),
        "remainingCapacity": remaining,
        "overCapacity": remaining < 0,
        "overCapacityBy": derived.over_capacity_by(state, member),
    }


def sprint_view(state: World, sprint: Row) -> View:
    """A sprint with its scope, delivered and remaining points and whether its end has passed."""
    items = derived.sprint_items(state, sprint["id"])
    scope = derived.points_of(items)
    delivered = derived.done_points(state, items)
    return {
        **_fields(sprint),
        "projectName": name_of(state, "projects", sprint["projectId"]),
        "itemCount": len(items),
        "scopePoints": scope,
        "donePoints": delivered,
        "remainingPoints": scope - delivered,
        "isPastEnd": sprint["status"] != "completed" and sprint["endDate"] < state["now"],
    }


def project_view(state: World, project: Row) -> View:
    """A project with its lead's name and counts of its work items."""
    items = derived.ITEMS_BY_PROJECT.rows(state, project["id"])
    unfinished = [item for item in items if not derived.is_done(state, item)]
    return {
        **_fields(project),
        "leadName": name_of(state, "members", project["leadId"]),
        "itemCount": len(items),
        "openItemCount": len(unfinished),
        "openPoints": derived.points_of(unfinished),
    }


def team_view(state: World, team: Row) -> View:
    """A team with its lead's name and how many members it has."""
    members = [m for m in state["members"].values() if m["teamId"] == team["id"]]
    return {
        **_fields(team),
        "leadName": name_of(state, "members", team["leadId"]),
        "memberCount": len(members),
        "activeMemberCount": sum(1 for m in members if m["active"]),
    }


def log_view(state: World, log: Row) -> View:
    """A time log with the names of its member and work item."""
    item = state["workItems"].get(log["workItemId"]) or {}
    return {
        **_fields(log),
        "memberName": name_of(state, "members", log["memberId"]),
        "workItemTitle": item.get("title"),
        "projectId": item.get("projectId"),
    }
