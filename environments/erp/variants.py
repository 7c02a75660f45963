"""Parameter generators of the ERP's templated tasks (``tasks/TASK-019.json`` on).

Contract: each generator lists every valid parameter set of the initial world (active vendors
and the terms they are not on, customers and credit limits they do not have, stock rows and
adjustments that keep on hand at or above what is reserved);
:func:`silo.variants.candidates_generator` turns the list into ``fn(world, seed)`` with
distinct instances ``#0`` to ``#count-1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo.variants import Generator, candidates_generator

from .domain.documents import PAYMENT_TERMS

World = Mapping[str, Any]
Params = dict[str, Any]

__all__ = ["generators"]

TERMS_ACTORS = ("USR-001", "USR-002", "USR-003")  # admin and procurement
CREDIT_ACTOR = "USR-010"  # the sales manager
STOCK_ACTOR = "USR-005"  # a warehouse manager


def _user(world: World, user_id: str) -> Params:
    user = world["users"][user_id]
    return {"actorId": user_id, "actorName": user["name"], "role": user["role"].replace("_", " ")}


def vendor_terms(world: World) -> list[Params]:
    """TASK-019: an active vendor moves to payment terms it is not on yet."""
    return [
        {**_user(world, actor), "vendorId": v["id"], "vendorName": v["name"], "paymentTerms": t}
        for v in sorted(world["vendors"].values(), key=lambda v: v["id"])
        if v["status"] == "active"
        for t in sorted(PAYMENT_TERMS)
        if t != v["paymentTerms"]
        for actor in TERMS_ACTORS
    ]


def credit_limits(world: World) -> list[Params]:
    """TASK-020: a customer's credit limit set to 10,000 to 100,000 in steps of 5,000."""
    return [
        {
            **_user(world, CREDIT_ACTOR),
            "customerId": c["id"],
            "customerName": c["name"],
            "creditLimit": limit,
            "creditLimitText": f"{limit:,}",
        }
        for c in sorted(world["customers"].values(), key=lambda c: c["id"])
        for limit in range(10_000, 100_001, 5_000)
        if limit != c["creditLimit"]
    ]


def stock_adjustments(world: World) -> list[Params]:
    """TASK-021: a stock row corrected by -5 to +5 units (never below what is reserved)."""
    found = []
    for row in sorted(world["inventory"].values(), key=lambda r: r["id"]):
        product = world["products"][row["productId"]]
        for change in (*range(-5, 0), *range(1, 6)):
            if row["onHand"] + change < row["reserved"]:
                continue
            found.append(
                {
                    **_user(world, STOCK_ACTOR),
                    "productId": row["productId"],
                    "productName": product["name"],
                    "warehouseId": row["warehouseId"],
                    "quantityChange": change,
                    "what": f"counted {abs(change)} {'more' if change > 0 else 'fewer'}",
                    "difficulty": "easy" if change > 0 else "medium",
                }
            )
    return found


generators: dict[str, Generator] = {
    "vendor_terms": candidates_generator(vendor_terms),
    "credit_limits": candidates_generator(credit_limits),
    "stock_adjustments": candidates_generator(stock_adjustments),
}
