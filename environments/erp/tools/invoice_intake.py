"""Registering a vendor invoice: ``create_vendor_invoice``.

Contract: an invoice starts ``pending_match``. With a purchase order (approved or sent, never
cancelled), its lines bill PO lines: omitted lines bill every unit received and not yet
invoiced, at the PO price, and each line's quantity is added to the PO line's
``invoicedQuantity``. Without one it needs ``vendorId`` and lines with product, quantity and
price (the match will then report ``no_purchase_order``). The vendor's invoice number may not
repeat for that vendor among live invoices (``conflict``); the invoice date may not be in the
future; the due date follows the vendor's payment terms. One audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.schema import day, obj, text

from ..domain.documents import due_date, line_of
from ..domain.money import round2
from ..state import mint_id, today
from . import payables
from .common import WRITES, State, audit, fetch, parse_day
from .lines import product_lines, reprice
from .schema import actor, amount, line_id, lines, long_text, quantity, record_id

INVOICEABLE_PO = ("approved", "sent", "partially_received", "received")


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
    return payables.shown(state, invoice)


def _line_item() -> dict[str, Any]:
    return {
        "poLineId": line_id("PO line billed, e.g. PO-203-L1 (omit only without a PO)."),
        "productId": record_id("product", "Product billed (needed only without a PO)."),
        "quantity": quantity("Units billed (default: received and not yet invoiced)."),
        "unitPrice": amount("Price per unit billed (default: the PO price)."),
    }


CREATE_TOOL: Tool = WRITES.tool(
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
)

__all__ = ["CREATE_TOOL", "INVOICEABLE_PO"]
