"""The project-tracking world: how it is loaded, and every figure derived from it.

Contract:

* :func:`create_state` returns a fresh, independent world built from the nine ``data/*.json``
  files plus the frozen clock ``now``. Collections of records are dicts keyed by id; ``auditLog``
  is a list and ``sequences`` a dict of id counters. Only plain JSON values live in the state.
* Derived figures (done-ness, blocked-ness, unresolved dependencies, days in status, overdue,
  member load and over-capacity, sprint scope, velocity and remaining points, logged hours) are
  computed here on read and never stored. Tools and verifiers share these helpers, so both always
  agree on what a number means.
* :func:`mint_id` and :data:`AUDIT` are the only ways tools create ids and audit rows
  (:mod:`silo.toolkit`'s sequences and audit trail, with this world's padding); write tools reach
  the audit trail through ``tools.common.WRITES``.
* Lookups by a foreign key go through :class:`silo.Index`, so their cost follows the matches.

Every helper that only reads accepts any ``Mapping`` view of the state, so verifiers can pass the
engine's read-only snapshots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from silo import Index
from silo.toolkit.facts import FactFiles
from silo.toolkit.records import AuditTrail, Sequences

__all__ = [
    "AUDIT",
    "COLLECTIONS",
    "ITEMS_BY_ASSIGNEE",
    "ITEMS_BY_PROJECT",
    "ITEMS_BY_SPRINT",
    "LOGS_BY_ITEM",
    "LOGS_BY_MEMBER",
    "SIMULATION_NOW",
    "create_state",
    "days_between",
    "days_in_status",
    "done_points",
    "hours_of",
    "is_blocked",
    "is_done",
    "is_overdue",
    "item_hours",
    "member_load",
    "mint_id",
    "ordered_states",
    "over_capacity_by",
    "points_of",
    "project_hours",
    "remaining_capacity",
    "round_half_up",
    "sprint_items",
    "state_named",
    "status_of",
    "unresolved_dependencies",
]

SIMULATION_NOW = "2026-03-16"
"""The only clock in this world. No tool reads the real time."""

COLLECTIONS = (
    "projects",
    "workItems",
    "sprints",
    "members",
    "teams",
    "workflowStates",
    "timeLogs",
)
"""Datasets stored as a list of records in ``data/`` and held as dicts keyed by id in state."""

ITEMS_BY_ASSIGNEE = Index("workItems", "assigneeId")
ITEMS_BY_PROJECT = Index("workItems", "projectId")
ITEMS_BY_SPRINT = Index("workItems", "sprintId")
LOGS_BY_ITEM = Index("timeLogs", "workItemId")
LOGS_BY_MEMBER = Index("timeLogs", "memberId")

SEQUENCES = Sequences(widths={"AUD": 4})
"""Id counters; zero padding is three digits except the audit log's four."""

AUDIT = AuditTrail(SEQUENCES)
"""This world's audit log: one row per change, ids ``AUD-0001`` from :data:`SEQUENCES`."""

_FACTS = FactFiles(Path(__file__).resolve().parent / "data")

State = dict[str, Any]
World = Mapping[str, Any]
Row = Mapping[str, Any]


def create_state() -> State:
    """A new world: every call parses the cached JSON again, so worlds never share objects."""
    return _FACTS.world(COLLECTIONS, head={"now": SIMULATION_NOW}, after=("auditLog", "sequences"))


# --- ids, audit, numbers and dates -----------------------------------------------------------

mint_id = SEQUENCES.mint
"""``mint_id(state, prefix)``: the next id for ``prefix`` (``WI-025``, ``AUD-0003``)."""


def round_half_up(value: float, places: int = 1) -> float:
    """``value`` rounded half away from zero for positives (2.25 -> 2.3), not banker's rounding."""
    scale: int = 10**places
    return math.floor(value * scale + 0.5 + 1e-9) / scale


def days_between(earlier: str, later: str) -> int:
    """Whole days from ``earlier`` to ``later`` (ISO dates); negative when reversed."""
    return (date.fromisoformat(later) - date.fromisoformat(earlier)).days


# --- workflow and work items -----------------------------------------------------------------


def ordered_states(world: World) -> list[Row]:
    """All workflow states in board order (Backlog first, Done last)."""
    return sorted(world["workflowStates"].values(), key=lambda st: st["order"])


def state_named(world: World, name: str) -> Row | None:
    """The workflow state called ``name`` (any case), or None."""
    wanted = name.casefold()
    return next((st for st in ordered_states(world) if st["name"].casefold() == wanted), None)


def status_of(world: World, item: Row) -> Row:
    """The workflow state record a work item sits in."""
    found: Row = world["workflowStates"][item["statusId"]]
    return found


def is_done(world: World, item: Row) -> bool:
    """Whether the item sits in a done state."""
    return bool(status_of(world, item)["isDone"])


def unresolved_dependencies(world: World, item: Row) -> list[str]:
    """Ids of the items ``item`` depends on that are not done (unknown ids count as open)."""
    items = world["workItems"]
    return [dep for dep in item["dependsOn"] if dep not in items or not is_done(world, items[dep])]


def is_blocked(world: World, item: Row) -> bool:
    """Whether the item is unfinished with at least one dependency that is not done.

    The "Blocked" workflow state is a label people set by hand; it does not make an item blocked.
    """
    return not is_done(world, item) and bool(unresolved_dependencies(world, item))


def days_in_status(world: World, item: Row) -> int:
    """Days since the item entered its current workflow state."""
    return days_between(item["statusChangedOn"], world["now"])


def is_overdue(world: World, item: Row) -> bool:
    """Not done, with a due date already behind the world's clock."""
    due = item.get("dueDate")
    return bool(due) and not is_done(world, item) and due < world["now"]


def points_of(items: Iterable[Row]) -> int | float:
    """Sum of the estimates of ``items`` (unestimated items count 0)."""
    return sum(item.get("estimate") or 0 for item in items)


# --- members ---------------------------------------------------------------------------------


def member_load(world: World, member_id: str) -> int | float:
    """Points of unfinished work assigned to the member, across every project."""
    return points_of(
        item for item in ITEMS_BY_ASSIGNEE.rows(world, member_id) if not is_done(world, item)
    )


def remaining_capacity(world: World, member: Row) -> int | float:
    """Weekly capacity minus load; negative when the member is over capacity."""
    capacity: int | float = member["weeklyCapacity"]
    return capacity - member_load(world, member["id"])


def over_capacity_by(world: World, member: Row) -> int | float:
    """How many points the member's load exceeds their capacity by (0 when within it)."""
    return max(0, -remaining_capacity(world, member))


# --- sprints ---------------------------------------------------------------------------------


def sprint_items(world: World, sprint_id: str) -> list[Row]:
    """The items attached to a sprint, in id order (unfinished ones stay after it completes)."""
    return sorted(ITEMS_BY_SPRINT.rows(world, sprint_id), key=lambda item: item["id"])


def done_points(world: World, items: Iterable[Row]) -> int | float:
    """Points of the done items among ``items`` (a sprint's velocity when they are its items)."""
    return points_of(item for item in items if is_done(world, item))


# --- time ------------------------------------------------------------------------------------


def hours_of(logs: Iterable[Row]) -> float:
    """Total hours of ``logs``, to one decimal."""
    return round_half_up(sum(float(log["hours"]) for log in logs))


def item_hours(world: World, item_id: str) -> float:
    """Hours logged on one work item."""
    return hours_of(LOGS_BY_ITEM.rows(world, item_id))


def project_hours(world: World, project_id: str) -> float:
    """Hours logged on every work item of a project."""
    return hours_of(
        log
        for item_id in ITEMS_BY_PROJECT.keys(world, project_id)
        for log in LOGS_BY_ITEM.rows(world, item_id)
    )
