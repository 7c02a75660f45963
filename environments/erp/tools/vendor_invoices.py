"""Vendor invoice tools: reading, correcting and closing out what suppliers bill.

Contract: list (status, vendor, PO), search (id, vendor's invoice number, PO) and get show
invoices through :func:`payables.vendor_invoice_view`. ``update_vendor_invoice_line`` corrects
a quantity or price before approval, re-prices the invoice, moves the PO line's invoiced
quantity by the change, clears the match and returns the invoice to ``pending_match``.
``cancel_vendor_invoice`` (no payments) releases the invoiced quantities. The due-soon and
overdue listings read the same overdue rule as every other tool. Registration lives in
:mod:`.invoice_intake`, the match, approval and disputes in :mod:`.invoice_review` and the
blockers in :mod:`.invoice_blocks`; :data:`TOOLS` lists all seventeen in the reference's
order. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, apply_changes, changes
from silo.toolkit.results import sorted_by_id
from silo.toolkit.schema import choice, integer, obj

from ..domain.documents import is_overdue, line_of, outstanding
from ..domain.money import round2
from ..state import add_days, days_between, today
from . import invoice_blocks, invoice_intake, invoice_review, payables
from .common import WRITES, State, audit, fetch, page
from .crud import get_tool, list_tool, search_tool
from .lines import reprice
from .schema import (
    VENDOR_INVOICE_STATUSES,
    acting_on,
    actor,
    amount,
    line_id,
    listing,
    quantity,
    reason,
    record_id,
)

CANCELLABLE = (*payables.EDITABLE, "approved")


def _view(state: Any, invoice: Any) -> dict[str, Any]:
    return payables.vendor_invoice_view(state, invoice)


def _update_line(state: State, args: Args) -> dict[str, Any]:
    invoice = fetch(state, "vendorInvoices", args["vendorInvoiceId"])
    if invoice["status"] not in payables.EDITABLE:
        raise ToolError(
            "invalid_state",
            f"{invoice['id']} is {invoice['status']}; lines can be corrected only before approval",
            {"id": invoice["id"], "status": invoice["status"]},
        )
    line = line_of(invoice, args["lineId"])
    updates = changes(args, ("quantity", "unitPrice"))
    if "unitPrice" in updates:
        updates["unitPrice"] = round2(updates["unitPrice"])
    before = int(line["quantity"])
    diff = apply_changes(line, updates)
    delta = int(line["quantity"]) - before
    if delta:
        payables.shift_invoiced(state, invoice, 1, [{**line, "quantity": delta}])
    reprice(invoice, taxed=True)
    invoice["matchId"] = None
    invoice["status"] = "pending_match"
    audit(state, args, "vendor_invoice.line_updated", invoice, {"lineId": line["id"], **diff})
    return payables.shown(state, invoice)


def _cancel(state: State, args: Args) -> dict[str, Any]:
    return invoice_review.close_out(state, args, CANCELLABLE, "cancelled")


def _due_soon(state: State, args: Args) -> dict[str, Any]:
    horizon = add_days(today(state), int(args.get("days", 7)))
    rows = [
        {**_view(state, inv), "daysUntilDue": days_between(today(state), str(inv["dueDate"]))}
        for inv in sorted_by_id(state["vendorInvoices"].values())
        if inv["status"] in ("approved", "partially_paid")
        and today(state) <= str(inv["dueDate"]) <= horizon
        and args.get("vendorId", inv["vendorId"]) == inv["vendorId"]
        and outstanding(inv) > 0
    ]
    return {"asOf": today(state), "through": horizon, **page(rows, args)}


def _overdue(state: State, args: Args) -> dict[str, Any]:
    rows = [
        inv
        for inv in sorted_by_id(state["vendorInvoices"].values())
        if is_overdue(state, inv) and args.get("vendorId", inv["vendorId"]) == inv["vendorId"]
    ]
    result = page(rows, args, lambda inv: _view(state, inv))
    result["totalOverdue"] = round2(sum(outstanding(row) for row in rows))
    return {"asOf": today(state), **result}


_VENDOR_FILTER = {"vendorId": record_id("vendor", "Only this vendor's invoices.")}

_LIST = list_tool(
    "list_vendor_invoices",
    "List vendor invoices with outstanding amount, overdue flag, current match and approval. "
    "Filter by status, vendor or purchase order.",
    "vendorInvoices",
    {
        "status": choice(VENDOR_INVOICE_STATUSES, "Only invoices in this status."),
        **_VENDOR_FILTER,
        "purchaseOrderId": record_id("purchase_order", "Only invoices billing this PO."),
    },
    view=_view,
)
_SEARCH = search_tool(
    "search_vendor_invoices",
    "Find vendor invoices whose id, vendor invoice number, vendor id or PO id contains the query.",
    "vendorInvoices",
    lambda inv: (inv["id"], inv["vendorInvoiceNumber"], inv["purchaseOrderId"], inv["vendorId"]),
    view=_view,
)
_GET = get_tool(
    "get_vendor_invoice",
    "One vendor invoice: lines, current three-way match, approval, payments, outstanding "
    "amount and whether it is overdue.",
    "vendorInvoices",
    "vendor_invoice",
    "vendorInvoiceId",
    view=_view,
    example="VINV-103",
)

TOOLS: list[Tool] = [
    _LIST,
    _SEARCH,
    _GET,
    invoice_intake.CREATE_TOOL,
    *invoice_review.MATCH_TOOLS,
    WRITES.tool(
        "update_vendor_invoice_line",
        "Correct the quantity or unit price of an invoice line before approval. Totals are "
        "recalculated, the current match is cleared and the invoice returns to pending_match: "
        "re-run run_three_way_match afterwards.",
        obj(
            {
                "actorId": actor(),
                "vendorInvoiceId": record_id("vendor_invoice", "Invoice to correct."),
                "lineId": line_id("Invoice line to correct, e.g. VINV-103-L1."),
                "quantity": quantity("Corrected number of units billed."),
                "unitPrice": amount("Corrected price per unit."),
            },
            ["actorId", "vendorInvoiceId", "lineId"],
        ),
        _update_line,
    ),
    WRITES.tool(
        "cancel_vendor_invoice",
        "Cancel an invoice that must never be paid (e.g. billed against a cancelled order). "
        "Refused once any payment is on it; the invoiced quantities return to the PO.",
        acting_on(
            "vendor_invoice",
            "vendorInvoiceId",
            "Invoice to cancel.",
            reason=reason("Why the invoice is cancelled."),
        ),
        _cancel,
    ),
    define_tool(
        "list_invoices_due_soon",
        "Approved or part-paid vendor invoices with money owed that fall due between today and "
        "the given number of days ahead (default 7).",
        listing({"days": integer("Days ahead to look (default 7).", 0, 365, 7), **_VENDOR_FILTER}),
        _due_soon,
        read_only=True,
    ),
    define_tool(
        "list_overdue_vendor_invoices",
        "Vendor invoices past their due date with money still owed, with days overdue.",
        listing(dict(_VENDOR_FILTER)),
        _overdue,
        read_only=True,
    ),
    invoice_blocks.EXPLAIN_TOOL,
]

__all__ = ["TOOLS"]
