"""What a task's answer is in a given world: entity lookups by name and the report figures.

Contract: pure, read-only functions over a world (any ``Mapping`` view). Lookups find entities
the way the tasks name them (a work item by title, a member, sprint or team by name, a project
by key; case-insensitive) and return None when nothing matches, so a verifier can fail a check
instead of crashing. The figure functions compute each report task's expected answer with the
helpers of ``state.py``; verifiers call them on the initial world, and the tests check them
against the seed facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import state as derived

World = Mapping[str, Any]
Row = Mapping[str, Any]

__all__ = [
    "backlog_items",
    "blocked_items",
    "completed_sprints_with_work_left",
    "find_item",
    "find_member",
    "find_project",
    "find_sprint",
    "find_team",
    "over_capacity_members",
    "overdue_points",
    "sprint_velocities",
    "tightest_fit",
]


def _find(world: World, collection: str, field: str, value: str) -> Row | None:
    wanted = value.casefold()
    rows = sorted(world[collection].values(), key=lambda row: row["id"])
    return next((row for row in rows if str(row[field]).casefold() == wanted), None)


def find_item(world: World, title: str) -> Row | None:
    """The work item with this title."""
    return _find(world, "workItems", "title", title)


def find_member(world: World, name: str) -> Row | None:
    """The member with this name."""
    return _find(world, "members", "name", name)


def find_sprint(world: World, name: str) -> Row | None:
    """The sprint with this name."""
    return _find(world, "sprints", "name", name)


def find_team(world: World, name: str) -> Row | None:
    """The team with this name."""
    return _find(world, "teams", "name", name)


def find_project(world: World, key: str) -> Row | None:
    """The project with this key."""
    return _find(world, "projects", "key", key)


def blocked_items(world: World) -> list[Row]:
    """Unfinished items waiting on an unfinished dependency, in id order."""
    rows = sorted(world["workItems"].values(), key=lambda row: row["id"])
    return [item for item in rows if derived.is_blocked(world, item)]


def sprint_velocities(world: World) -> list[tuple[int | float, Row]]:
    """``(delivered points, sprint)`` for every completed sprint, most delivered first."""
    completed = [s for s in world["sprints"].values() if s["status"] == "completed"]
    scored = [
        (derived.done_points(world, derived.sprint_items(world, s["id"])), s) for s in completed
    ]
    return sorted(scored, key=lambda pair: (-pair[0], pair[1]["id"]))


def overdue_points(world: World, active_only: bool) -> int | float:
    """Points of overdue items; with ``active_only``, only those held by an active member."""
    members = world["members"]

    def counts(item: Row) -> bool:
        if not active_only:
            return True
        holder = members.get(item["assigneeId"]) if item["assigneeId"] else None
        return holder is not None and bool(holder["active"])

    return derived.points_of(
        item
        for item in world["workItems"].values()
        if derived.is_overdue(world, item) and counts(item)
    )


def over_capacity_members(world: World) -> list[tuple[int | float, Row]]:
    """``(overage, member)`` for every member over capacity, largest overage first."""
    over = [
        (derived.over_capacity_by(world, m), m)
        for m in world["members"].values()
        if derived.over_capacity_by(world, m) > 0
    ]
    return sorted(over, key=lambda pair: (-pair[0], pair[1]["id"]))


def backlog_items(world: World) -> list[Row]:
    """Items in the workflow state named Backlog."""
    backlog = derived.state_named(world, "Backlog")
    if backlog is None:
        return []
    return [i for i in world["workItems"].values() if i["statusId"] == backlog["id"]]


def completed_sprints_with_work_left(world: World) -> list[tuple[int | float, Row]]:
    """``(unfinished points, sprint)`` for completed sprints with unfinished items attached."""
    found = []
    for sprint in sorted(world["sprints"].values(), key=lambda s: s["id"]):
        if sprint["status"] != "completed":
            continue
        left = [
            i for i in derived.sprint_items(world, sprint["id"]) if not derived.is_done(world, i)
        ]
        if left:
            found.append((derived.points_of(left), sprint))
    return found


def tightest_fit(world: World, item: Row, team_id: str) -> Row | None:
    """The member of ``team_id`` that ``item`` fits most tightly, or None.

    Only active members who can absorb the estimate count; the least room left afterwards wins
    and ties go to the lower id.
    """
    estimate = item.get("estimate") or 0
    fits = [
        (derived.remaining_capacity(world, m) - estimate, m["id"], m)
        for m in world["members"].values()
        if m["active"]
        and m["teamId"] == team_id
        and derived.remaining_capacity(world, m) - estimate >= 0
    ]
    return min(fits, key=lambda fit: (fit[0], fit[1]))[2] if fits else None
