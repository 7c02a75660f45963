"""Verifiers of the ERP's templated tasks TASK-020 and TASK-021 (TASK-019 reuses VER-001).

Contract: each grades one instance from its parameters (``context.params``); expectations
come from the initial world, and :func:`silo.grading.nothing_else_changed` guards every other
row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check
from silo.grading import nothing_else_changed

World = Mapping[str, Any]

__all__ = ["credit_limit_set", "stock_adjusted"]


def credit_limit_set(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-020: the customer's credit limit is the one asked for; nothing else changed."""
    params = ctx.params
    customer = final["customers"].get(params["customerId"]) or {}
    return [
        check(
            f"{params['customerId']} has a credit limit of {params['creditLimit']}",
            customer.get("creditLimit") == params["creditLimit"],
            f"creditLimit = {customer.get('creditLimit')!r}",
        ),
        nothing_else_changed(
            ctx,
            {"customers": [params["customerId"]], "sequences": None},
            appendable=["auditLog"],
            worlds=(final, initial),
        ),  # fmt: skip
    ]


def stock_adjusted(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-021: on hand moved by exactly the change asked for, with one movement recorded."""
    params = ctx.params
    row_id = next(
        r["id"]
        for r in initial["inventory"].values()
        if r["productId"] == params["productId"] and r["warehouseId"] == params["warehouseId"]
    )
    before, after = initial["inventory"][row_id], final["inventory"].get(row_id) or {}
    moves = [
        m for i, m in final["inventoryMovements"].items() if i not in initial["inventoryMovements"]
    ]
    return [
        check(
            "On hand changed by the quantity asked for",
            after.get("onHand") == before["onHand"] + params["quantityChange"],
            f"on hand {before['onHand']} -> {after.get('onHand')!r}",
        ),
        check(
            "Exactly one stock movement was recorded", len(moves) == 1, f"{len(moves)} movements"
        ),
        nothing_else_changed(
            ctx,
            {"inventory": [row_id], "sequences": None},
            appendable=["inventoryMovements", "auditLog"],
            worlds=(final, initial),
        ),  # fmt: skip
    ]
