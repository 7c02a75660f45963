"""Verifiers of the project tracker's templated tasks (TASK-016 to TASK-018).

Contract: each grades one instance from its parameters (``context.params``): the item, the
acting member and the value asked for; expectations come from the initial world, and
:func:`silo.grading.nothing_else_changed` guards every other row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check
from silo.grading import nothing_else_changed

World = Mapping[str, Any]


def time_logged(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-016: one new time log by the member on the item, with the hours asked for."""
    params = ctx.params
    added = [log for i, log in final["timeLogs"].items() if i not in initial["timeLogs"]]
    mine = [
        log
        for log in added
        if log["workItemId"] == params["workItemId"] and log["memberId"] == params["actorId"]
    ]
    return [
        check("Exactly one time log was added", len(added) == 1, f"{len(added)} new logs"),
        check(
            "It is the member's, on the item, with the hours asked for",
            len(mine) == 1 and abs(float(mine[0]["hours"]) - float(params["hours"])) < 1e-9,
            f"{mine}",
        ),
        check("It is dated today", all(log["date"] == final["now"] for log in mine)),
        nothing_else_changed(
            ctx, {"sequences": None}, appendable=["timeLogs", "auditLog"], worlds=(final, initial)
        ),
    ]


def due_date_set(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-017: the item is due on the date asked for; nothing else changed."""
    params = ctx.params
    item = final["workItems"].get(params["workItemId"]) or {}
    return [
        check(
            "The item is due on the date asked for",
            item.get("dueDate") == params["dueDate"],
            f"dueDate {item.get('dueDate')!r}",
        ),
        _only_the_item_changed(final, initial, ctx),
    ]


def comment_left(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-018: one new comment by the member on the item, in the words asked for."""
    params = ctx.params
    before = {c["id"] for c in initial["workItems"][params["workItemId"]]["comments"]}
    after = (final["workItems"].get(params["workItemId"]) or {}).get("comments", [])
    added = [c for c in after if c["id"] not in before]
    return [
        check("Exactly one comment was added", len(added) == 1, f"{len(added)} new comments"),
        check(
            "The member wrote it, in the words asked for",
            any(
                c["authorId"] == params["actorId"] and c["body"].strip() == params["comment"]
                for c in added
            ),
            f"{added}",
        ),
        _only_the_item_changed(final, initial, ctx),
    ]


def _only_the_item_changed(final: World, initial: World, ctx: VerifierContext) -> Check:
    """Nothing changed but the item the task names (and new audit rows, the id sequences)."""
    return nothing_else_changed(
        ctx,
        {"workItems": [ctx.params["workItemId"]], "sequences": None},
        appendable=["auditLog"],
        worlds=(final, initial),
    )
