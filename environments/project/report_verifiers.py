"""Verifiers of the seven answer-producing tasks (TASK-009..015).

Contract: each function derives the expected answer from the initial world (:mod:`answers`),
then looks for it in the agent's final text: names and ids case-insensitively, numbers within
a tolerance after dropping thousands separators. Every verifier also carries the optional
check that the world was left unchanged, plus an optional sanity check on the seed (a unique
winner, a qualifier that matters) so a broken seed shows up in the grade.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, optional

from . import answers
from . import state as derived
from .grading import last_number_is, mentions, states_number, task_entities, world_unchanged

World = Mapping[str, Any]


def _named_with_number(ctx: VerifierContext, name: str, number: float, what: str) -> list[Check]:
    """The two required checks of a "name it and give the figure" task."""
    text = ctx.agent_output
    return [
        check(f"The answer names the {what}", mentions(text, name), f"expected {name or '(none)'}"),
        check(
            f"The answer states the {what}'s figure",
            states_number(text, number),
            f"expected {number:g}",
        ),
    ]


def blocked_reported(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-009: the count and ids of the blocked items."""
    blocked = [i["id"] for i in answers.blocked_items(initial)]
    resolved = [
        i["id"]
        for i in initial["workItems"].values()
        if i["dependsOn"] and not derived.unresolved_dependencies(initial, i)
    ]
    text = ctx.agent_output
    named_wrongly = sorted(i for i in resolved if mentions(text, i))
    return [
        check(
            "The answer states how many items are blocked",
            states_number(text, len(blocked)),
            f"expected {len(blocked)}",
        ),
        check(
            "The answer names every blocked item",
            bool(blocked) and all(mentions(text, i) for i in blocked),
            f"expected {blocked}",
        ),
        optional(
            "No item whose dependencies are all done is named",
            not named_wrongly,
            f"named {named_wrongly}",
        ),
        world_unchanged(final, initial),
    ]


def strongest_sprint(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-010: the completed sprint that delivered the most points, and those points."""
    ranked = answers.sprint_velocities(initial)
    points, sprint = ranked[0] if ranked else (0, {"name": ""})
    return [
        *_named_with_number(ctx, sprint["name"], points, "sprint"),
        optional(
            "The starting world has a single winner", len(ranked) < 2 or ranked[1][0] < points
        ),
        world_unchanged(final, initial),
    ]


def project_time(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-011: total hours logged on the project's items."""
    key = task_entities(ctx).get("projectKey", "")
    project = answers.find_project(initial, key) or {"id": ""}
    hours = derived.project_hours(initial, project["id"])
    others = [derived.project_hours(initial, p) for p in initial["projects"] if p != project["id"]]
    text = ctx.agent_output
    return [
        check(
            "The answer states the project's total hours",
            bool(project["id"]) and states_number(text, hours),
            f"expected {hours:g}",
        ),
        optional("The total is the last number given", last_number_is(text, hours)),
        optional("Other projects' totals differ from it", hours not in others, f"others {others}"),
        world_unchanged(final, initial),
    ]


def overdue_held(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-012: overdue points held by active members, not the unqualified total."""
    held = answers.overdue_points(initial, active_only=True)
    total = answers.overdue_points(initial, active_only=False)
    text = ctx.agent_output
    return [
        check(
            "The answer states the overdue points held by active members",
            states_number(text, held),
            f"expected {held:g}",
        ),
        check(
            "The answer does not give the total that ignores the qualifier",
            held == total or not states_number(text, total),
            f"unqualified total {total:g}",
        ),
        optional("The qualifier changes the answer", held != total, f"{held:g} vs {total:g}"),
        world_unchanged(final, initial),
    ]


def over_committed(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-013: the over-capacity member and by how much."""
    over = answers.over_capacity_members(initial)
    overage, member = over[0] if over else (0, {"name": ""})
    return [
        *_named_with_number(ctx, member["name"], overage, "over-capacity member"),
        optional(
            "Exactly one member is over capacity", len(over) == 1, f"{len(over)} over capacity"
        ),
        world_unchanged(final, initial),
    ]


def backlog_size(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-014: how many items sit in Backlog."""
    count = len(answers.backlog_items(initial))
    text = ctx.agent_output
    return [
        check(
            "The answer states the backlog count", states_number(text, count), f"expected {count}"
        ),
        optional("The count is the last number given", last_number_is(text, count, 0)),
        world_unchanged(final, initial),
    ]


def closed_with_work_left(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-015: the completed sprint with unfinished work, and its remaining points."""
    found = answers.completed_sprints_with_work_left(initial)
    points, sprint = found[0] if found else (0, {"name": ""})
    return [
        *_named_with_number(ctx, sprint["name"], points, "sprint"),
        optional(
            "Exactly one completed sprint has work left", len(found) == 1, f"{len(found)} found"
        ),
        world_unchanged(final, initial),
    ]


__all__ = [
    "backlog_size",
    "blocked_reported",
    "closed_with_work_left",
    "over_committed",
    "overdue_held",
    "project_time",
    "strongest_sprint",
]
