"""Verifiers of the eight state-changing tasks (TASK-001..008).

Contract: each function grades ``(final, initial, context)`` by inspecting the worlds, never the
transcript. Entities are found by the title, name or key the task file's ``entities`` give
(:mod:`answers` lookups), and everything expected is derived from the initial world with the
helpers the tools use. Required checks decide pass/fail; optional checks guard against
collateral damage (other items touched, rules dodged by deleting links).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, optional

from . import answers
from . import state as derived
from .grading import same, task_entities

World = Mapping[str, Any]
Row = Mapping[str, Any]
EMPTY: Row = {}


def _item(world: World, ctx: VerifierContext) -> Row:
    return answers.find_item(world, task_entities(ctx).get("workItemTitle", "")) or EMPTY


def _done(world: World, item_id: str) -> bool:
    item = world["workItems"].get(item_id)
    return item is not None and derived.is_done(world, item)


def _status_changes(final: World, initial: World, exempt: set[str]) -> list[str]:
    """Items other than ``exempt`` whose workflow state differs between the worlds."""
    return sorted(
        i
        for i, before in initial["workItems"].items()
        if i not in exempt
        and (final["workItems"].get(i) or EMPTY).get("statusId") != before["statusId"]
    )


def _others_status(final: World, initial: World, exempt: set[str]) -> Check:
    moved = _status_changes(final, initial, exempt)
    return optional("No other work item changed status", not moved, f"changed: {moved}")


def signed_off(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-001: the named item is done and was not before."""
    item = _item(initial, ctx)
    item_id = item.get("id", "")
    return [
        check(
            "The item is in a done state", _done(final, item_id), f"item {item_id or '(not found)'}"
        ),
        check("The item was not already done", bool(item) and not derived.is_done(initial, item)),
        _others_status(final, initial, {item_id}),
    ]


def landed_with_dependencies(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-002: the item's unfinished dependencies and then the item itself are done."""
    item = _item(initial, ctx)
    item_id = item.get("id", "")
    waiting = derived.unresolved_dependencies(initial, item) if item else []
    after = final["workItems"].get(item_id) or EMPTY
    finished = [dep for dep in waiting if _done(final, dep)]
    left = derived.unresolved_dependencies(final, after) if after else ["(missing)"]
    return [
        check(
            "Every dependency that was unfinished is now done",
            bool(waiting) and finished == waiting,
            f"done {finished} of {waiting}",
        ),
        check("The item itself is done", _done(final, item_id), f"item {item_id or '(not found)'}"),
        check("No unresolved dependency remains on it", not left, f"unresolved: {left}"),
        optional(
            "Its dependencies were kept, not deleted to dodge the rule",
            len(after.get("dependsOn", ())) == len(item.get("dependsOn", ())),
        ),
        _others_status(final, initial, {item_id, *waiting}),
    ]


def rehomed_work(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-003: every unfinished item of the departed member now belongs to the successor."""
    facts = task_entities(ctx)
    gone = (answers.find_member(initial, facts.get("fromMemberName", "")) or EMPTY).get("id")
    heir = (answers.find_member(initial, facts.get("toMemberName", "")) or EMPTY).get("id")
    held = [i for i in initial["workItems"].values() if gone and i["assigneeId"] == gone]
    to_move = {i["id"] for i in held if not derived.is_done(initial, i)}
    finished = {i["id"] for i in held} - to_move
    after = {i: final["workItems"].get(i) or EMPTY for i in to_move}
    moved = {i for i, row in after.items() if heir and row.get("assigneeId") == heir}
    still_open = {i for i, row in after.items() if row and not derived.is_done(final, row)}
    left = sorted(
        i["id"]
        for i in final["workItems"].values()
        if gone and i["assigneeId"] == gone and not derived.is_done(final, i)
    )
    others = sorted(
        i
        for i, row in initial["workItems"].items()
        if i not in to_move | finished
        and (final["workItems"].get(i) or EMPTY).get("assigneeId") != row["assigneeId"]
    )
    return [
        check(
            "Every unfinished item of the departed member now belongs to the successor",
            bool(to_move) and moved == to_move,
            f"moved {sorted(moved)} of {sorted(to_move)}",
        ),
        check("The departed member holds no unfinished work", not left, f"still holds {left}"),
        check("The moved items are still unfinished", still_open == to_move),
        optional(
            "The departed member's finished items kept his name",
            all((final["workItems"].get(i) or EMPTY).get("assigneeId") == gone for i in finished),
        ),
        optional("Nobody else's items changed hands", not others, f"changed: {others}"),
    ]


def owner_found(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-004: the item went to the team member it fits most tightly."""
    facts = task_entities(ctx)
    item = _item(initial, ctx)
    team = answers.find_team(initial, facts.get("teamName", "")) or EMPTY
    expected = answers.tightest_fit(initial, item, team.get("id", "")) if item and team else None
    after = final["workItems"].get(item.get("id", "")) or EMPTY
    pushed = sorted(
        m["id"]
        for m in initial["members"].values()
        if m["active"]
        and derived.over_capacity_by(final, final["members"][m["id"]])
        > derived.over_capacity_by(initial, m)
    )
    want = (expected or EMPTY).get("id")
    return [
        check(
            "The item is assigned to the tightest-fitting member",
            want is not None and after.get("assigneeId") == want,
            f"assignee {after.get('assigneeId')}, expected {want}",
        ),
        check("The item started unassigned", bool(item) and item.get("assigneeId") is None),
        optional("No active member was pushed further over capacity", not pushed, f"{pushed}"),
        optional("The estimate is unchanged", after.get("estimate") == item.get("estimate")),
    ]


def blocker_noted(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-005: one new comment on the item names the item blocking it."""
    item = _item(initial, ctx)
    item_id = item.get("id", "")
    blockers = derived.unresolved_dependencies(initial, item) if item else []
    before = list(item.get("comments", ()))
    after = list((final["workItems"].get(item_id) or EMPTY).get("comments", ()))
    known = {c["id"] for c in before}
    added = [c for c in after if c["id"] not in known]
    others = sorted(
        i
        for i, row in initial["workItems"].items()
        if i != item_id
        and len((final["workItems"].get(i) or EMPTY).get("comments", ())) != len(row["comments"])
    )
    return [
        check("Exactly one comment was added", len(added) == 1, f"{len(added)} new comments"),
        check(
            "A new comment names the blocking item by id",
            bool(blockers) and any(b in str(c["body"]) for c in added for b in blockers),
            f"blockers {blockers}",
        ),
        optional("The earlier comments are untouched", same(after[: len(before)], before)),
        optional("No other item gained a comment", not others, f"changed: {others}"),
    ]


def sprint_filled(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-006: the project's unassigned backlog items now sit in the named sprint."""
    facts = task_entities(ctx)
    sprint = (answers.find_sprint(initial, facts.get("sprintName", "")) or EMPTY).get("id")
    project = (answers.find_project(initial, facts.get("projectKey", "")) or EMPTY).get("id")
    wanted = {
        i["id"]
        for i in answers.backlog_items(initial)
        if project and i["projectId"] == project and i["assigneeId"] is None
    }
    in_sprint = {i["id"] for i in derived.sprint_items(final, sprint)} if sprint else set()
    extra = sorted(in_sprint - wanted)
    statuses = all(
        (final["workItems"].get(i) or EMPTY).get("statusId") == initial["workItems"][i]["statusId"]
        for i in wanted
    )
    return [
        check(
            "Every unassigned backlog item of the project is in the sprint",
            bool(wanted) and wanted <= in_sprint,
            f"in sprint {sorted(in_sprint)}, wanted {sorted(wanted)}",
        ),
        check(
            "The sprint was empty at the start",
            bool(sprint) and not derived.sprint_items(initial, sprint or ""),
        ),
        optional("Nothing else was put in the sprint", not extra, f"extra: {extra}"),
        optional("The moved items kept their workflow state", statuses),
    ]


def sprint_turned_over(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-007: the ending sprint is completed and the next one is the only active one."""
    facts = task_entities(ctx)
    ending = answers.find_sprint(initial, facts.get("endingSprintName", "")) or EMPTY
    upcoming = answers.find_sprint(initial, facts.get("nextSprintName", "")) or EMPTY
    status = {
        s: (final["sprints"].get(s) or EMPTY).get("status")
        for s in (ending.get("id"), upcoming.get("id"))
    }
    active = sorted(
        s["id"]
        for s in final["sprints"].values()
        if s["projectId"] == ending.get("projectId") and s["status"] == "active"
    )
    carried = [
        i["id"]
        for i in derived.sprint_items(initial, ending.get("id", ""))
        if not derived.is_done(initial, i)
    ]
    kept = all(
        (final["workItems"].get(i) or EMPTY).get("sprintId") == ending.get("id") for i in carried
    )
    return [
        check("The ending sprint is completed", status[ending.get("id")] == "completed"),
        check("The next sprint is active", status[upcoming.get("id")] == "active"),
        check("Exactly one sprint of the project is active", len(active) == 1, f"active: {active}"),
        optional("Unfinished items stayed attached to the completed sprint", kept, f"{carried}"),
    ]


def project_closed(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-008: the project's unfinished items are done and the project is completed."""
    project = answers.find_project(initial, task_entities(ctx).get("projectKey", "")) or EMPTY
    pid = project.get("id", "")
    unfinished = (
        [
            i["id"]
            for i in derived.ITEMS_BY_PROJECT.rows(initial, pid)
            if not derived.is_done(initial, i)
        ]
        if pid
        else []
    )
    missing = [i for i in initial["workItems"] if i not in final["workItems"]]
    others = sorted(
        p
        for p, row in initial["projects"].items()
        if p != pid and (final["projects"].get(p) or EMPTY).get("status") != row["status"]
    )
    return [
        check(
            "The project is completed",
            (final["projects"].get(pid) or EMPTY).get("status") == "completed",
        ),
        check(
            "Every item that was unfinished is done",
            bool(unfinished) and all(_done(final, i) for i in unfinished),
            f"items {unfinished}",
        ),
        check("The project was not already completed", project.get("status") != "completed"),
        optional("Every work item still exists", not missing, f"missing: {missing}"),
        optional("No other project changed status", not others, f"changed: {others}"),
    ]


__all__ = [
    "blocker_noted",
    "landed_with_dependencies",
    "owner_found",
    "project_closed",
    "rehomed_work",
    "signed_off",
    "sprint_filled",
    "sprint_turned_over",
]
