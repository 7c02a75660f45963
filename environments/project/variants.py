"""Parameter generators of the project tracker's templated tasks (``tasks/TASK-016.json`` on).

Contract: each generator lists every valid parameter set of the initial world (unfinished work
items, their active assignee or the manager, hours in half-hour steps, due dates after
``now``, comments from a fixed list); :func:`silo.variants.candidates_generator` turns the
list into ``fn(world, seed)`` with distinct instances ``#0`` to ``#count-1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo.variants import Generator, candidates_generator

World = Mapping[str, Any]
Params = dict[str, Any]

__all__ = ["generators"]

MANAGER = "MEM-007"  # Grace Kim: acts for items whose assignee is away or absent
COMMENTS = (
    "Picked this up today, will report progress at stand-up.",
    "Needs a second pair of eyes before it moves on.",
    "Scope confirmed with the product owner.",
)


def _open_items(world: World) -> list[Params]:
    done = {s["id"] for s in world["workflowStates"].values() if s.get("isDone")}
    found = []
    for item in sorted(world["workItems"].values(), key=lambda i: i["id"]):
        if item["statusId"] in done:
            continue
        assignee = world["members"].get(item.get("assigneeId") or "")
        actor = assignee if assignee and assignee["active"] else world["members"][MANAGER]
        found.append(
            {
                "workItemTitle": item["title"],
                "workItemId": item["id"],
                "actorId": actor["id"],
                "actorName": actor["name"],
                "assigned": actor is assignee,
            }
        )
    return found


def time_logs(world: World) -> list[Params]:
    """TASK-016: the assignee logs 0.5 to 8 hours on an unfinished item they hold."""
    return [
        {**item, "hours": step // 2 if step % 2 == 0 else step / 2}
        for item in _open_items(world)
        if item["assigned"]
        for step in range(1, 17)
    ]


def _days(now: str, months: int) -> list[str]:
    year, month = int(now[:4]), int(now[5:7])
    days = []
    for _ in range(months):
        month, year = (1, year + 1) if month == 12 else (month + 1, year)
        last = 31 if month in (1, 3, 5, 7, 8, 10, 12) else 30 if month != 2 else 28
        days += [f"{year:04d}-{month:02d}-15", f"{year:04d}-{month:02d}-{last:02d}"]
    return days


def due_dates(world: World) -> list[Params]:
    """TASK-017: an unfinished item gets a due date on a 15th or month end of the next 6 months."""
    by_id = world["workItems"]
    return [
        {**item, "dueDate": day}
        for item in _open_items(world)
        for day in _days(world["now"], 6)
        if by_id[item["workItemId"]].get("dueDate") != day
    ]


def comments(world: World) -> list[Params]:
    """TASK-018: any active member leaves one of three comments on any work item."""
    members = sorted(m["id"] for m in world["members"].values() if m["active"])
    return [
        {
            "workItemTitle": item["title"],
            "workItemId": item["id"],
            "actorId": member,
            "actorName": world["members"][member]["name"],
            "comment": text,
        }
        for item in sorted(world["workItems"].values(), key=lambda i: i["id"])
        for member in members
        for text in COMMENTS
    ]


generators: dict[str, Generator] = {
    "time_logs": candidates_generator(time_logs),
    "due_dates": candidates_generator(due_dates),
    "comments": candidates_generator(comments),
}
