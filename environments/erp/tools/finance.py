"""Money-side helpers shared by the invoice, payment and expense tools.

Contract:

* Payments are linked to what they pay through ``allocations`` (``[{invoiceId, amount}]``);
  :func:`payments_for` finds them, :func:`in_flight` sums what drafts, pending and approved
  payments already promise to an invoice, and :func:`payable` is what may still be proposed
  (outstanding less in flight), so two payments can never over-pay one invoice.
* :func:`approve_document` is the one approval step of invoices, payments and expenses: it
  decides the document's pending approval (only its named approver may), or, when none is
  pending, records an approval decided on the spot by the acting user. Either way the decider
  needs authority for the document's current amount, and nothing is written before every
  check has passed.
* :func:`aging_bucket` and :func:`days_overdue` are the one definition of how late an invoice
  is; :func:`aging_report` sums open invoices into those buckets (AR and AP aging).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from silo import ToolError

from ..domain import approvals
from ..domain.documents import is_overdue, outstanding
from ..domain.money import round2
from ..state import days_between, today
from .common import State, fetch, require_status

__all__ = [
    "AGING_BUCKETS",
    "IN_FLIGHT",
    "acted_on",
    "aging_bucket",
    "approve_document",
    "days_overdue",
    "in_flight",
    "latest_approval",
    "aging_report",
    "money_figures",
    "payable",
    "payments_for",
    "reject_document",
    "require_approver",
    "require_no_live_payments",
    "total_of",
]

Row = Mapping[str, Any]

IN_FLIGHT = ("draft", "pending_approval", "approved")
"""Payment statuses that still promise money to their invoices."""

AGING_BUCKETS = ("current", "1-30", "31-60", "61-90", "90+")
"""Aging buckets by days past the due date (``current`` = not yet due)."""


def payments_for(state: Mapping[str, Any], invoice_id: str) -> list[Row]:
    """Every payment with an allocation to ``invoice_id`` (vendor, customer or expense), by id."""
    found = [
        payment
        for payment in state["payments"].values()
        if any(share["invoiceId"] == invoice_id for share in payment["allocations"])
    ]
    return sorted(found, key=lambda payment: payment["id"])


def _allocated(payment: Row, invoice_id: str) -> float:
    return sum(
        float(share["amount"])
        for share in payment["allocations"]
        if share["invoiceId"] == invoice_id
    )


def in_flight(state: Mapping[str, Any], invoice_id: str, *, skip: str | None = None) -> float:
    """Money promised to ``invoice_id`` by payments not yet completed (``skip`` one payment)."""
    return round2(
        sum(
            _allocated(payment, invoice_id)
            for payment in payments_for(state, invoice_id)
            if payment["status"] in IN_FLIGHT and payment["id"] != skip
        )
    )


def payable(state: Mapping[str, Any], invoice: Row, *, skip: str | None = None) -> float:
    """What a new payment may still cover: outstanding less money already in flight."""
    return round2(max(0.0, outstanding(invoice) - in_flight(state, invoice["id"], skip=skip)))


def days_overdue(state: Mapping[str, Any], invoice: Row) -> int:
    """Whole days an overdue invoice is past its due date (0 when it is not overdue)."""
    if not is_overdue(state, invoice):
        return 0
    return days_between(str(invoice["dueDate"]), today(state))


def aging_bucket(days_late: int) -> str:
    """The aging bucket of an open invoice that is ``days_late`` past due."""
    if days_late <= 0:
        return "current"
    if days_late <= 30:
        return "1-30"
    if days_late <= 60:
        return "31-60"
    if days_late <= 90:
        return "61-90"
    return "90+"


def money_figures(state: Mapping[str, Any], invoice: Row) -> dict[str, Any]:
    """The derived money fields every invoice view shows, with the payments on the invoice."""
    return {
        "outstanding": outstanding(invoice),
        "isOverdue": is_overdue(state, invoice),
        "daysOverdue": days_overdue(state, invoice),
        "payments": [
            {"id": p["id"], "status": p["status"], "amount": p["amount"]}
            for p in payments_for(state, invoice["id"])
        ],
    }


def aging_report(
    state: Mapping[str, Any], invoices: Iterable[Row], party: str, collection: str
) -> dict[str, Any]:
    """Open ``invoices`` summed into :data:`AGING_BUCKETS` per ``party`` field and in total.

    Args:
        state: the world.
        invoices: the open invoices to age (their outstanding amounts are summed).
        party: the invoice field naming the counterparty (``vendorId``, ``customerId``).
        collection: where that party's name is found (``vendors``, ``customers``).
    """
    totals = dict.fromkeys(AGING_BUCKETS, 0.0)
    rows: dict[str, dict[str, Any]] = {}
    for invoice in sorted(invoices, key=lambda row: row["id"]):
        owed = outstanding(invoice)
        bucket = aging_bucket(days_overdue(state, invoice))
        party_id = invoice[party]
        party_name = state[collection][party_id]["name"] if party_id in state[collection] else None
        row = rows.setdefault(
            party_id,
            {
                party: party_id,
                "name": party_name,
                **dict.fromkeys(AGING_BUCKETS, 0.0),
                "total": 0.0,
            },
        )
        for target in (row, totals):
            target[bucket] = round2(target[bucket] + owed)
        row["total"] = round2(row["total"] + owed)
    return {
        "asOf": today(state),
        "buckets": list(AGING_BUCKETS),
        "rows": list(rows.values()),
        "totals": {**totals, "total": round2(sum(totals.values()))},
    }


def acted_on(
    state: Mapping[str, Any],
    args: Mapping[str, Any],
    collection: str,
    field: str,
    allowed: Sequence[str] | None,
    verb: str,
) -> dict[str, Any]:
    """The record ``args[field]`` a write tool acts on (``WRITES.tool`` checked the actor).

    Raises:
        ToolError: ``not_found`` for an unknown record, ``invalid_state`` when the record's
            status is not in ``allowed`` (``None`` accepts any status).
    """
    record = fetch(state, collection, args[field])
    if allowed is not None:
        require_status(record, allowed, verb)
    return record


def latest_approval(state: Mapping[str, Any], entity_type: str, entity_id: str) -> Row | None:
    """The most recent approval of a document (highest id), or None."""
    rows = [
        approval
        for approval in approvals.APPROVALS_BY_ENTITY.rows(state, entity_id)
        if approval["entityType"] == entity_type
    ]
    return max(rows, key=lambda approval: approval["id"]) if rows else None


def approve_document(
    state: State,
    entity_type: str,
    doc: Row,
    decider: Row,
    amount: float,
    note: str = "",
) -> dict[str, Any]:
    """Approve ``doc`` as ``decider`` for ``amount``; returns the decided approval.

    Raises:
        ToolError: ``forbidden`` when another user is the named approver of the pending
            approval or the decider's limit is below ``amount``.
    """
    pending = approvals.pending_approval(state, entity_type, doc["id"])
    if pending is not None:
        approvals.check_decidable(state, {**pending, "amount": amount}, decider, True)
        pending["amount"] = amount
        return approvals.decide(state, pending, decider, approve=True, note=note)
    approvals.require_authority(state, decider, amount)
    created = approvals.request_approval(
        state, entity_type, doc["id"], decider["id"], amount, decider["id"]
    )
    return approvals.decide(state, created, decider, approve=True, note=note)


def reject_document(state: State, entity_type: str, doc: Row, actor: Row, note: str) -> str | None:
    """Close ``doc``'s pending approval: rejected when the actor is its approver, else cancelled.

    Returns the approval's id, or None when nothing was pending.
    """
    pending = approvals.pending_approval(state, entity_type, doc["id"])
    if pending is None:
        return None
    if pending["approverId"] == actor["id"]:
        approvals.decide(state, pending, actor, approve=False, note=note)
        return str(pending["id"])
    return approvals.cancel_pending(state, entity_type, doc["id"], actor["id"], note)


def require_no_live_payments(state: Mapping[str, Any], invoice: Row, verb: str) -> None:
    """Refuse (``invalid_state``) while a payment has paid or promised money to ``invoice``."""
    live = [
        payment["id"]
        for payment in payments_for(state, invoice["id"])
        if payment["status"] in (*IN_FLIGHT, "completed")
    ]
    if live:
        raise ToolError(
            "invalid_state",
            f"{invoice['id']} cannot be {verb}: payments {', '.join(live)} are on it; cancel "
            "open payments first (cancel_payment) — completed ones cannot be undone",
            {"id": invoice["id"], "paymentIds": live},
        )


def require_approver(state: Mapping[str, Any], approver_id: str) -> Row:
    """A user who can be named as an approver: exists, active and has an approval limit."""
    user: Row | None = state["users"].get(approver_id)
    if user is None or not user["active"] or user.get("approvalLimit") is None:
        raise ToolError(
            "invalid_input",
            f"{approver_id} cannot approve anything (unknown, inactive or no approval limit); "
            "name an active user with a limit (see check_approval_authority)",
            {"id": approver_id},
        )
    return user


def total_of(rows: Sequence[Row], field: str = "total") -> float:
    """Sum of ``field`` over ``rows``, rounded to cents."""
    return round2(sum(float(row[field]) for row in rows))
