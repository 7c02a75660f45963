"""Verifiers for the three conversational CRM tasks (TASK-007 to TASK-009).

Contract: the facts these tasks need (which deal the customer means, the new amount or date)
reach the agent only through the simulated user; the task file's ``entities`` hold them for
grading. The write tasks grade the final world (the deal's new field, every other deal left
alone); the answer task grades what the agent told the user (``context.told_user``), since its
answer is said in the conversation, and that the CRM was left unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, define_verifier
from silo.grading import (
    nothing_else_changed,
    same,
    states_number,
    task_entities,
    world_unchanged,
)

World = Mapping[str, Any]


def _deal(
    final: World, initial: World, ctx: VerifierContext
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    opp_id = str(task_entities(ctx).get("opportunityId", ""))
    return (
        opp_id,
        final["opportunities"].get(opp_id) or {},
        initial["opportunities"].get(opp_id) or {},
    )


def _only_deal_changed(ctx: VerifierContext, opp_id: str) -> Check:
    return nothing_else_changed(
        ctx, {"opportunities": [opp_id], "sequences": None}, appendable=["auditLog"],
        label="Nothing but the deal changed (an audit entry may be added)",
    )  # fmt: skip


def _amount_updated(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    opp_id, opp, before = _deal(final, initial, ctx)
    wanted = float(task_entities(ctx).get("newAmount", -1))
    return [
        check(
            "The deal the customer named carries the amount they gave",
            abs(float(opp.get("amount") or 0) - wanted) <= 0.01,
            f"{opp_id} amount {opp.get('amount')!r} (was {before.get('amount')!r}); expected {wanted:g}",
        ),
        check(
            "The deal is still open",
            opp.get("stageId") == before.get("stageId"),
            f"stage {opp.get('stageId')!r}, was {before.get('stageId')!r}",
        ),
        _only_deal_changed(ctx, opp_id),
    ]


def _close_date_moved(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    opp_id, opp, before = _deal(final, initial, ctx)
    facts = task_entities(ctx)
    wanted = facts.get("newCloseDate")
    others = [str(i) for i in facts.get("otherOpportunityIds", [])]
    touched = [
        i
        for i in others
        if not same(final["opportunities"].get(i), initial["opportunities"].get(i))
    ]
    return [
        check(
            "The deal the customer named closes on the date they gave",
            opp.get("expectedCloseDate") == wanted,
            f"{opp_id} expectedCloseDate {opp.get('expectedCloseDate')!r} "
            f"(was {before.get('expectedCloseDate')!r}); expected {wanted!r}",
        ),
        check(
            "The company's other deal is untouched",
            not touched,
            f"changed: {touched}" if touched else f"{', '.join(others)} unchanged",
        ),
        _only_deal_changed(ctx, opp_id),
    ]


def _value_told(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    opp_id, _, before = _deal(final, initial, ctx)
    amount = float(before.get("amount") or -1)
    return [
        check(
            "The agent told the customer the deal's amount",
            states_number(ctx.told_user, amount),
            f"expected {amount:g} for {opp_id} in the agent's messages",
        ),
        world_unchanged(final, initial, "The CRM was left exactly as it was"),
    ]


CONVERSATION_VERIFIERS = [
    define_verifier(
        "VER-007", "Deal named by its nickname updated to the customer's amount", _amount_updated
    ),
    define_verifier(
        "VER-008",
        "Deal named by its nickname moved to the customer's close date",
        _close_date_moved,
    ),
    define_verifier("VER-009", "Deal value told to the customer who asked", _value_told),
]
