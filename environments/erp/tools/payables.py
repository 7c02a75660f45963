"""Vendor-invoice rules shared by the invoice, matching and payment tools.

Contract:

* A vendor invoice's lines bill purchase-order lines (``poLineId``). The PO line's
  ``invoicedQuantity`` always equals what live invoices (not cancelled or rejected) bill on
  it: :func:`shift_invoiced` is the one writer, called when an invoice is created, re-quantified,
  cancelled or rejected.
* :func:`three_way_match` compares an invoice with its purchase order and the posted goods
  receipts and returns the discrepancies found, without writing anything: no purchase order,
  no posted receipt, a line not on the PO, billing more units than were received and not yet
  billed by other invoices (beyond the quantity tolerance), billing above the PO price beyond
  the price tolerance. Messages format money with two decimals (``86.00``, ``4.88%``).
* :func:`vendor_invoice_view` is how every tool shows an invoice: stored fields plus vendor
  name, current match, latest approval, payments and the money figures. It shares nested
  parts with the state (listings copy once, when they page); :func:`shown` is the detached
  copy mutating tools return.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Index, ToolError
from silo.toolkit.results import snapshot

from ..domain.money import round2
from . import finance
from .common import State, name_of

__all__ = [
    "EDITABLE",
    "MATCHABLE",
    "MATCHES_BY_INVOICE",
    "RECEIPTS_BY_PO",
    "current_match",
    "purchase_order_of",
    "shift_invoiced",
    "three_way_match",
    "tolerances",
    "shown",
    "vendor_invoice_view",
]

Row = Mapping[str, Any]

MATCHES_BY_INVOICE = Index("threeWayMatches", "vendorInvoiceId")
RECEIPTS_BY_PO = Index("goodsReceipts", "purchaseOrderId")

EDITABLE = ("pending_match", "matched", "exception", "pending_approval", "disputed")
"""Statuses in which an invoice has not been approved and may still be corrected."""

MATCHABLE = ("pending_match", "matched", "exception")
"""Statuses in which a three-way match may be run."""


def _num(value: float) -> str:
    """A tolerance as people write it: ``2`` rather than ``2.0``."""
    return str(int(value)) if float(value).is_integer() else str(value)


def purchase_order_of(state: Mapping[str, Any], invoice: Row) -> Row | None:
    """The purchase order an invoice bills, or None when it has none (or a dangling one)."""
    po_id = invoice.get("purchaseOrderId")
    found: Row | None = state["purchaseOrders"].get(po_id) if po_id else None
    return found


def _po_line(po: Row | None, line_id: str | None) -> dict[str, Any] | None:
    if po is None or not line_id:
        return None
    for line in po["lines"]:
        if line["id"] == line_id:
            found: dict[str, Any] = line
            return found
    return None


def shift_invoiced(state: State, invoice: Row, sign: int, lines: Any = None) -> None:
    """Add (``sign`` 1) or remove (-1) ``lines``' quantities (default the invoice's) on the PO."""
    po = purchase_order_of(state, invoice)
    for line in invoice["lines"] if lines is None else lines:
        target = _po_line(po, line.get("poLineId"))
        if target is not None:
            moved = int(target["invoicedQuantity"]) + sign * int(line["quantity"])
            target["invoicedQuantity"] = max(0, moved)


def tolerances(state: Mapping[str, Any], args: Mapping[str, Any]) -> tuple[float, float]:
    """Price and quantity tolerance (percent) of a match: the arguments, else the company's."""
    company = state["company"]
    return (
        float(args.get("priceTolerancePct", company["priceTolerancePct"])),
        float(args.get("quantityTolerancePct", company["quantityTolerancePct"])),
    )


def _received(receipts: list[Row], po_line_id: str) -> int:
    return sum(
        int(line["quantityReceived"])
        for receipt in receipts
        for line in receipt["lines"]
        if line["poLineId"] == po_line_id
    )


def _unit(state: Mapping[str, Any], product_id: str) -> str:
    product = state["products"].get(product_id)
    return str(product["unit"]) if product else "unit"


def _line_checks(
    state: Mapping[str, Any], line: Row, po_line: Row, received: int, tol: tuple[float, float]
) -> list[dict[str, Any]]:
    """Quantity and price discrepancies of one invoice line against its PO line."""
    found = []
    unit = _unit(state, str(line["productId"]))
    others = int(po_line["invoicedQuantity"]) - int(line["quantity"])
    billable = max(0, received - max(0, others))
    quantity = int(line["quantity"])
    if quantity > billable * (1 + tol[1] / 100) + 1e-9:
        found.append(
            {
                "type": "quantity_mismatch",
                "invoiceLineId": line["id"],
                "poLineId": po_line["id"],
                "expected": billable,
                "actual": quantity,
                "message": f"Billed {quantity} units ({unit}); {billable} received on posted receipts "
                f"and not billed on other invoices (tolerance {_num(tol[1])}%)",
            }
        )
    agreed, billed = float(po_line["unitPrice"]), float(line["unitPrice"])
    over = (billed - agreed) / agreed * 100 if agreed else 0.0
    if over > tol[0] + 1e-9:
        found.append(
            {
                "type": "price_mismatch",
                "invoiceLineId": line["id"],
                "poLineId": po_line["id"],
                "expected": agreed,
                "actual": billed,
                "message": f"Billed {billed:.2f} per {unit}; the PO price is {agreed:.2f}, "
                f"{over:.2f}% over (tolerance {_num(tol[0])}%)",
            }
        )
    return found


def three_way_match(
    state: Mapping[str, Any], invoice: Row, tol: tuple[float, float]
) -> tuple[list[str], list[dict[str, Any]]]:
    """The posted receipt ids considered and the discrepancies of ``invoice`` (none = matched)."""
    po = purchase_order_of(state, invoice)
    if po is None:
        problem = {
            "type": "no_purchase_order",
            "invoiceLineId": None,
            "poLineId": None,
            "expected": None,
            "actual": invoice.get("purchaseOrderId"),
            "message": "The invoice names no existing purchase order; nothing to match against",
        }
        return [], [problem]
    receipts = [r for r in RECEIPTS_BY_PO.rows(state, po["id"]) if r["status"] == "posted"]
    found: list[dict[str, Any]] = []
    if not receipts:
        found.append(
            {
                "type": "no_receipt",
                "invoiceLineId": None,
                "poLineId": None,
                "expected": None,
                "actual": None,
                "message": f"No posted goods receipt exists for {po['id']} ({po['status']})",
            }
        )
    for line in invoice["lines"]:
        po_line = _po_line(po, line.get("poLineId"))
        if po_line is None:
            found.append(
                {
                    "type": "unknown_po_line",
                    "invoiceLineId": line["id"],
                    "poLineId": line.get("poLineId"),
                    "expected": None,
                    "actual": line.get("poLineId"),
                    "message": f"Line {line['id']} bills {line.get('poLineId')}, which is not a "
                    f"line of {po['id']}",
                }
            )
            continue
        found.extend(_line_checks(state, line, po_line, _received(receipts, po_line["id"]), tol))
    return [str(receipt["id"]) for receipt in receipts], found


def current_match(state: Mapping[str, Any], invoice: Row) -> Row | None:
    """The match the invoice currently rests on (its ``matchId``), or None."""
    match_id = invoice.get("matchId")
    found: Row | None = state["threeWayMatches"].get(match_id) if match_id else None
    return found


def latest_match(state: Mapping[str, Any], invoice_id: str) -> Row | None:
    """The most recent match run for an invoice (highest id), or None."""
    rows = MATCHES_BY_INVOICE.rows(state, invoice_id)
    return max(rows, key=lambda match: match["id"]) if rows else None


def require_passing_match(state: Mapping[str, Any], invoice: Row, verb: str) -> Row:
    """The invoice's current match when it passed; otherwise an ``invalid_state`` refusal."""
    match = current_match(state, invoice)
    if match is None:
        raise ToolError(
            "invalid_state",
            f"{invoice['id']} cannot be {verb}: no current three-way match; run "
            "run_three_way_match first",
            {"id": invoice["id"], "status": invoice["status"]},
        )
    if match["status"] != "matched":
        kinds = ", ".join(sorted({d["type"] for d in match["discrepancies"]}))
        raise ToolError(
            "invalid_state",
            f"{invoice['id']} cannot be {verb}: {match['id']} failed ({kinds}); see "
            "explain_invoice_block, correct the invoice and re-run the match",
            {"id": invoice["id"], "matchId": match["id"]},
        )
    return match


def vendor_invoice_view(state: Mapping[str, Any], invoice: Row) -> dict[str, Any]:
    """An invoice with vendor name, current match, latest approval, payments and balances."""
    approval = finance.latest_approval(state, "vendor_invoice", invoice["id"])
    return {
        **invoice,
        "vendorName": name_of(state, "vendors", invoice["vendorId"]),
        **finance.money_figures(state, invoice),
        "match": current_match(state, invoice),
        "approval": approval,
        "inFlight": finance.in_flight(state, invoice["id"]),
    }


def shown(state: Mapping[str, Any], invoice: Row) -> dict[str, Any]:
    """A detached copy of the view, for tools that return the invoice they changed."""
    return snapshot(vendor_invoice_view(state, invoice))


def total_billed(invoice: Row) -> float:
    """The invoice's total, as the number approvals are sized by."""
    return round2(float(invoice["total"]))
