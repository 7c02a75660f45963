"""Vendor invoice tools: registering, correcting and closing out what suppliers bill.

Contract: list (status, vendor, PO), search (id, vendor's invoice number, vendor name) and get
show invoices through :func:`payables.vendor_invoice_view`. ``create_vendor_invoice`` registers
an invoice ``pending_match``: its lines bill PO lines (omitted lines bill every unit received
and not yet invoiced, at the PO price), a cancelled or unapproved PO is refused, the vendor's
invoice number may not repeat for that vendor (``conflict``) and the due date follows the
vendor's terms. ``update_vendor_invoice_line`` corrects a quantity or price before approval,
re-prices the invoice, clears its match and returns it to ``pending_match``.
``cancel_vendor_invoice`` (no payments) releases the invoiced quantities. The due-soon and
overdue listings read the same overdue rule as every other tool. The review tools (match,
approval, disputes, rejection, blockers) live in :mod:`.invoice_review`; :data:`TOOLS` lists
all seventeen in the reference's order. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool

from ..domain.documents import due_date, is_overdue, line_of, outstanding
from ..domain.money import round2
from ..state import add_days, days_between, mint_id, today
from . import invoice_review, payables
from .common import (
    acting_user,
    apply_changes,
    audit,
    changes,
    fetch,
    non_blank,
    page,
    parse_day,
    sorted_by_id,
)
from .crud import get_tool, list_tool, search_tool
from .lines import product_lines, reprice
from .schema import (
    VENDOR_INVOICE_STATUSES,
    acting_on,
    actor,
    amount,
    choice,
    day,
    integer,
    line_id,
    lines,
    listing,
    long_text,
    obj,
    quantity,
    reason,
    record_id,
    text,
)

State = dict[str, Any]
Args = dict[str, Any]

INVOICEABLE_PO = ("approved", "sent", "partially_received", "received")
CANCELLABLE = (*payables.EDITABLE, "approved")


def _view(state: Any, invoice: Any) -> dict[str, Any]:
    return payables.vendor_invoice_view(state, invoice)


def _duplicate_number(state: State, vendor_id: str, number: str) -> None:
    for invoice in state["vendorInvoices"].values():
        if (
            invoice["vendorId"] == vendor_id
            and invoice["status"] not in ("cancelled", "rejected")
            and str(invoice["vendorInvoiceNumber"]).casefold() == number.casefold()
        ):
            raise ToolError(
                "conflict",
                f"{vendor_id} invoice number {number} is already registered as {invoice['id']}; "
                "check for a duplicate before registering it again",
                {"id": invoice["id"]},
            )


def _po_lines(po: dict[str, Any], given: list[Args] | None) -> list[dict[str, Any]]:
    """The lines an invoice on ``po`` bills: as given, or everything received-not-invoiced."""
    if given is None:
        picked = [
            {
                "poLineId": line["id"],
                "quantity": line["receivedQuantity"] - line["invoicedQuantity"],
            }
            for line in po["lines"]
            if line["receivedQuantity"] > line["invoicedQuantity"]
        ]
        if not picked:
            raise ToolError(
                "invalid_state",
                f"{po['id']} has nothing received and not yet invoiced; pass lines explicitly "
                "(poLineId, quantity)",
                {"id": po["id"]},
            )
        given = picked
    seen: set[str] = set()
    billed = []
    for item in given:
        if "poLineId" not in item:
            raise ToolError("invalid_input", "each line of a PO invoice needs its poLineId")
        if item["poLineId"] in seen:
            raise ToolError("invalid_input", f"{item['poLineId']} is listed twice; merge the lines")
        seen.add(item["poLineId"])
        po_line = line_of(po, item["poLineId"])
        units = item.get("quantity", po_line["receivedQuantity"] - po_line["invoicedQuantity"])
        if units <= 0:
            raise ToolError(
                "invalid_input",
                f"{po_line['id']} has nothing received-not-invoiced; give a positive quantity",
            )
        billed.append(
            {
                "poLineId": po_line["id"],
                "productId": po_line["productId"],
                "quantity": int(units),
                "unitPrice": round2(item.get("unitPrice", po_line["unitPrice"])),
            }
        )
    return billed


def _free_lines(state: State, given: list[Args] | None) -> list[dict[str, Any]]:
    """Lines of an invoice without a purchase order: product, quantity and price are required."""
    if not given or any(
        name not in item for item in given for name in ("productId", "quantity", "unitPrice")
    ):
        raise ToolError(
            "invalid_input",
            "an invoice without purchaseOrderId needs lines with productId, quantity, unitPrice",
        )
    return [{"poLineId": None, **line} for line in product_lines(state, given)]


def _create(state: State, args: Args) -> dict[str, Any]:
    acting_user(state, args["actorId"])
    po: dict[str, Any] | None = None
    if "purchaseOrderId" in args:
        po = fetch(state, "purchaseOrders", args["purchaseOrderId"])
        if po["status"] not in INVOICEABLE_PO:
            raise ToolError(
                "invalid_state",
                f"{po['id']} is {po['status']}; only approved or sent orders can be invoiced",
                {"id": po["id"], "status": po["status"]},
            )
        if args.get("vendorId", po["vendorId"]) != po["vendorId"]:
            raise ToolError(
                "invalid_input",
                f"{po['id']} is on vendor {po['vendorId']}, not "
                f"{args['vendorId']}; omit vendorId or fix it",
            )
    elif "vendorId" not in args:
        raise ToolError(
            "invalid_input",
            "pass purchaseOrderId, or vendorId for an invoice without a purchase order",
        )
    vendor = fetch(state, "vendors", po["vendorId"] if po else args["vendorId"])
    number = non_blank(args["vendorInvoiceNumber"], "vendorInvoiceNumber")
    _duplicate_number(state, vendor["id"], number)
    invoice_date = args.get("invoiceDate", today(state))
    parse_day(invoice_date, "invoiceDate")
    if invoice_date > today(state):
        raise ToolError(
            "invalid_input",
            f"invoiceDate {invoice_date} is after today "
            f"({today(state)}); register invoices once received",
        )
    billed = _po_lines(po, args.get("lines")) if po else _free_lines(state, args.get("lines"))
    invoice_id = mint_id(state, "VINV")
    invoice: dict[str, Any] = {
        "id": invoice_id,
        "vendorId": vendor["id"],
        "purchaseOrderId": po["id"] if po else None,
        "vendorInvoiceNumber": number,
        "status": "pending_match",
        "invoiceDate": invoice_date,
        "dueDate": due_date(invoice_date, vendor["paymentTerms"]),
        "receivedAt": state["now"],
        "lines": billed,
        "amountPaid": 0,
        "matchId": None,
        "disputeReason": None,
        "notes": args.get("notes", ""),
    }
    reprice(invoice, taxed=True)
    state["vendorInvoices"][invoice_id] = invoice
    payables.shift_invoiced(state, invoice, 1)
    audit(
        state,
        args,
        "vendor_invoice.created",
        invoice,
        {"purchaseOrderId": invoice["purchaseOrderId"]},
    )
    return _view(state, invoice)


def _update_line(state: State, args: Args) -> dict[str, Any]:
    acting_user(state, args["actorId"])
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
    return _view(state, invoice)


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


def _line_item() -> dict[str, Any]:
    return {
        "poLineId": line_id("PO line billed, e.g. PO-203-L1 (omit only without a PO)."),
        "productId": record_id("product", "Product billed (needed only without a PO)."),
        "quantity": quantity("Units billed (default: received and not yet invoiced)."),
        "unitPrice": amount("Price per unit billed (default: the PO price)."),
    }


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
    "Find vendor invoices whose id, vendor invoice number, vendor name or PO id contains the "
    "query.",
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
    define_tool(
        "create_vendor_invoice",
        "Register a supplier's invoice (status pending_match). With purchaseOrderId, omitted "
        "lines bill every unit received and not yet invoiced at the PO price; without a PO, "
        "give vendorId and lines with productId, quantity and unitPrice. The due date follows "
        "the vendor's payment terms. A repeated vendor invoice number is refused.",
        obj(
            {
                "actorId": actor(),
                "purchaseOrderId": record_id("purchase_order", "PO the invoice bills."),
                "vendorId": record_id("vendor", "Vendor billing (taken from the PO if given)."),
                "vendorInvoiceNumber": text("The vendor's own invoice number.", max_length=60),
                "invoiceDate": day("Date on the invoice (default today; not in the future)."),
                "lines": lines(
                    "What is billed (default: everything received, not invoiced).", _line_item(), []
                ),
                "notes": long_text("Free-text notes."),
            },
            ["actorId", "vendorInvoiceNumber"],
        ),
        _create,
    ),
    *invoice_review.MATCH_TOOLS,
    define_tool(
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
    define_tool(
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
    invoice_review.EXPLAIN_TOOL,
]

__all__ = ["TOOLS"]
