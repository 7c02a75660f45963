"""Document rules: status from receipts and shipments, payments, terms and lateness.

Contract: :func:`recompute_po_status` and :func:`recompute_so_status` are the only places a
purchase or sales order's delivery status is derived from its lines (rejected units count as
delivered). :func:`apply_payment` is the one way money reaches an invoice (vendor or customer)
and moves it to ``paid`` or ``partially_paid``; over-payment is refused. :func:`is_overdue`
is the shared overdue test (not paid, cancelled, written off, rejected or draft; due date
before today; something outstanding). :func:`due_date` turns payment terms into a date.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import ToolError

from ..state import add_days, today
from .money import round2

__all__ = [
    "CLOSED_INVOICE_STATUSES",
    "PAYMENT_TERMS",
    "apply_payment",
    "due_date",
    "is_late",
    "is_overdue",
    "line_of",
    "outstanding",
    "quotation_is_valid",
    "recompute_po_status",
    "recompute_so_status",
]

PAYMENT_TERMS = {"DUE_ON_RECEIPT": 0, "NET_15": 15, "NET_30": 30, "NET_45": 45, "NET_60": 60}
"""Payment terms and their days from invoice date to due date."""

CLOSED_INVOICE_STATUSES = ("paid", "cancelled", "written_off", "rejected", "draft")
"""Invoice statuses that are never overdue."""

DELIVERY_STATUSES = ("sent", "partially_received", "received")
SHIPPING_STATUSES = ("confirmed", "partially_fulfilled", "fulfilled")

Row = Mapping[str, Any]


def line_of(doc: Row, line_id: str) -> dict[str, Any]:
    """The line ``line_id`` of a document, or a ``not_found`` refusal listing the valid ids."""
    for line in doc["lines"]:
        if line["id"] == line_id:
            found: dict[str, Any] = line
            return found
    ids = ", ".join(line["id"] for line in doc["lines"])
    raise ToolError(
        "not_found", f"{doc['id']} has no line {line_id}; its lines are {ids}", {"id": line_id}
    )


def _progress(lines: list[dict[str, Any]], done: list[int], names: tuple[str, str, str]) -> str:
    """``names[0]`` when every line is done, ``names[1]`` when some units are, else ``names[2]``."""
    if all(units >= line["quantity"] for units, line in zip(done, lines, strict=True)):
        return names[0]
    return names[1] if any(units > 0 for units in done) else names[2]


def recompute_po_status(po: dict[str, Any]) -> str:
    """Set a sent PO to sent / partially_received / received from its delivered quantities."""
    if po["status"] in DELIVERY_STATUSES:
        delivered = [line["receivedQuantity"] + line["rejectedQuantity"] for line in po["lines"]]
        po["status"] = _progress(po["lines"], delivered, ("received", "partially_received", "sent"))
    return str(po["status"])


def recompute_so_status(so: dict[str, Any]) -> str:
    """Set a confirmed SO to confirmed / partially_fulfilled / fulfilled from shipped units."""
    if so["status"] in SHIPPING_STATUSES:
        shipped = [line["fulfilledQuantity"] for line in so["lines"]]
        names = ("fulfilled", "partially_fulfilled", "confirmed")
        so["status"] = _progress(so["lines"], shipped, names)
    return str(so["status"])


def outstanding(invoice: Row) -> float:
    """What is still owed on an invoice: total - amountPaid."""
    return round2(float(invoice["total"]) - float(invoice.get("amountPaid") or 0))


def apply_payment(invoice: dict[str, Any], amount: float) -> str:
    """Add ``amount`` to an invoice's ``amountPaid``; returns its new status.

    Raises:
        ToolError: ``invalid_input`` when the amount is not positive or exceeds what is owed.
    """
    owed = outstanding(invoice)
    if amount <= 0 or amount > owed + 0.005:
        raise ToolError(
            "invalid_input",
            f"{invoice['id']} has {owed} outstanding; apply a positive amount no larger than that",
            {"outstanding": owed},
        )
    invoice["amountPaid"] = round2(float(invoice.get("amountPaid") or 0) + amount)
    invoice["status"] = "paid" if outstanding(invoice) <= 0.005 else "partially_paid"
    return str(invoice["status"])


def is_overdue(state: Mapping[str, Any], invoice: Row) -> bool:
    """Open, past its due date as of the world's clock, and not settled."""
    due = invoice.get("dueDate")
    return (
        invoice["status"] not in CLOSED_INVOICE_STATUSES
        and bool(due)
        and str(due) < today(state)
        and abs(outstanding(invoice)) > 0.005
    )


def is_late(state: Mapping[str, Any], po: Row) -> bool:
    """A sent or partly received PO whose expected delivery date has passed."""
    return po["status"] in ("sent", "partially_received") and str(
        po.get("expectedDeliveryDate") or "9999"
    ) < today(state)


def due_date(start: str, terms: str) -> str:
    """The due date for payment ``terms`` counted from ``start`` (a date or timestamp)."""
    return str(add_days(start, PAYMENT_TERMS.get(terms, 30)))


def quotation_is_valid(state: Mapping[str, Any], quotation: Row) -> bool:
    """A quotation can be accepted: submitted or accepted, and its validity not yet past."""
    return quotation["status"] in ("submitted", "accepted") and str(
        quotation["validUntil"]
    ) >= today(state)
