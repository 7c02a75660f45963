"""Budgets: headroom, and the commitments and spend documents draw on them.

Contract: headroom = allocated - committed - spent. A document (requisition, purchase order,
expense) that holds money on a budget records it in its own ``committedAmount``;
:func:`commit` refuses to go beyond headroom (``limit_exceeded``) or to draw on a budget that
is not active (``invalid_state``), :func:`release` returns whatever the document holds, and
:func:`move_commitment` hands a requisition's commitment to the purchase order that replaces
it without touching the budget. :func:`charge_spend` books spend straight against headroom
(expenses); :func:`spend_commitment` turns committed money into spend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import ToolError

from .money import round2

__all__ = [
    "availability",
    "budget_of",
    "charge_spend",
    "commit",
    "commit_amount",
    "headroom",
    "move_commitment",
    "release",
    "release_amount",
    "spend_commitment",
    "utilisation_pct",
]

Row = Mapping[str, Any]


def headroom(budget: Row) -> float:
    """Money still free on a budget: allocated - committed - spent."""
    return round2(float(budget["allocated"]) - float(budget["committed"]) - float(budget["spent"]))


def utilisation_pct(budget: Row) -> float:
    """Committed plus spent as a percentage of the allocation (one decimal; 0 if unallocated)."""
    allocated = float(budget["allocated"])
    if allocated <= 0:
        return 0
    return round(float(budget["committed"] + budget["spent"]) / allocated * 100, 1)


def budget_of(state: Mapping[str, Any], budget_id: str) -> dict[str, Any]:
    """The budget ``budget_id``, or a ``not_found`` refusal."""
    budget: dict[str, Any] | None = state["budgets"].get(budget_id)
    if budget is None:
        raise ToolError(
            "not_found", f"no budget has id {budget_id}; see list_budgets", {"id": budget_id}
        )
    return budget


def availability(budget: Row, amount: float) -> dict[str, Any]:
    """Whether ``amount`` fits the budget's headroom, and the shortfall when it does not."""
    room = headroom(budget)
    return {
        "budgetId": budget["id"],
        "amount": round2(amount),
        "headroom": room,
        "sufficient": amount <= room + 0.005 and budget["status"] == "active",
        "shortfall": round2(max(0.0, amount - room)),
        "status": budget["status"],
    }


def _active(budget: Row) -> None:
    if budget["status"] != "active":
        raise ToolError(
            "invalid_state",
            f"{budget['id']} is {budget['status']}; only active budgets can be drawn on",
            {"id": budget["id"], "status": budget["status"]},
        )


def _fits(budget: Row, amount: float, what: str) -> None:
    room = headroom(budget)
    if amount > room + 0.005:
        raise ToolError(
            "limit_exceeded",
            f"{what} of {round2(amount)} exceeds {budget['id']} headroom of {room} (shortfall "
            f"{round2(amount - room)}); raise the allocation with update_budget or reduce the "
            "amount",
            {"budgetId": budget["id"], "headroom": room, "shortfall": round2(amount - room)},
        )


def commit_amount(budget: dict[str, Any], amount: float, what: str) -> float:
    """Add ``amount`` to a budget's committed money; returns it.

    Raises:
        ToolError: ``limit_exceeded`` beyond headroom, ``invalid_state`` on an inactive budget.
    """
    amount = round2(amount)
    if amount <= 0:
        return 0
    _active(budget)
    _fits(budget, amount, what)
    budget["committed"] = round2(float(budget["committed"]) + amount)
    return amount


def commit(state: Mapping[str, Any], doc: dict[str, Any], amount: float) -> float:
    """Hold ``amount`` more on the document's budget (``doc["budgetId"]``); returns it.

    Raises:
        ToolError: as :func:`commit_amount`; nothing is written when it refuses.
    """
    budget = budget_of(state, doc["budgetId"])
    held = commit_amount(budget, amount, f"committing {doc['id']}")
    if held:
        doc["committedAmount"] = round2(float(doc.get("committedAmount") or 0) + held)
    return held


def _within_committed(budget: Mapping[str, Any], amount: float, verb: str) -> float:
    """``amount`` rounded; refuses more than the budget has committed."""
    amount = round2(amount)
    if amount > float(budget["committed"]) + 0.005:
        raise ToolError(
            "invalid_input",
            f"{budget['id']} has only {budget['committed']} committed; {verb} at most that much",
            {"committed": budget["committed"]},
        )
    return amount


def release_amount(budget: dict[str, Any], amount: float) -> float:
    """Take ``amount`` off a budget's committed money; refuses more than is committed."""
    amount = _within_committed(budget, amount, "release")
    budget["committed"] = round2(float(budget["committed"]) - amount)
    return amount


def release(state: Mapping[str, Any], doc: dict[str, Any]) -> float:
    """Return everything the document holds to its budget; returns the amount released."""
    held = round2(float(doc.get("committedAmount") or 0))
    if held <= 0 or not doc.get("budgetId"):
        return 0
    budget = budget_of(state, doc["budgetId"])
    budget["committed"] = round2(max(0.0, float(budget["committed"]) - held))
    doc["committedAmount"] = 0
    return held


def move_commitment(source: dict[str, Any], target: dict[str, Any]) -> float:
    """Hand ``source``'s commitment to ``target`` when both draw on the same budget.

    Returns the amount moved (0 when the budgets differ or nothing is held); the budget's
    committed total is unchanged either way.
    """
    held = round2(float(source.get("committedAmount") or 0))
    if held <= 0 or source.get("budgetId") != target.get("budgetId"):
        return 0
    source["committedAmount"] = 0
    target["committedAmount"] = round2(float(target.get("committedAmount") or 0) + held)
    return held


def charge_spend(state: Mapping[str, Any], budget_id: str, amount: float, what: str) -> float:
    """Book ``amount`` as spend without a prior commitment (expenses); refuses beyond headroom."""
    budget = budget_of(state, budget_id)
    amount = round2(amount)
    _active(budget)
    _fits(budget, amount, what)
    budget["spent"] = round2(float(budget["spent"]) + amount)
    return amount


def spend_commitment(budget: dict[str, Any], amount: float) -> float:
    """Move ``amount`` from committed to spent; refuses more than is committed."""
    amount = _within_committed(budget, amount, "record spend from commitments")
    budget["committed"] = round2(float(budget["committed"]) - amount)
    budget["spent"] = round2(float(budget["spent"]) + amount)
    return amount
