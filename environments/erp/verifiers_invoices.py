"""Verifiers of the two invoice corrections (TASK-012 quantity, TASK-013 price).

Contract: state-only checks of ``(final, initial, context)``; the quantity an over-billed line
may bill (received less what other live invoices billed) and the agreed price of a mis-priced
line come from the initial world's purchase order, and the corrected totals from the domain's
tax rate. Both end with the shared "latest match passes, invoice approved" checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, optional

from .domain.money import TAX_RATE, round2
from .grading import (
    amount,
    latest_match_for,
    line_for,
    lines_of,
    same_money,
    show,
    status_check,
    task_entities,
)
from .verifiers_support import World, row

Row = Mapping[str, Any]

__all__ = ["price_fixed", "quantity_fixed"]


_DEAD_INVOICES = ("cancelled", "rejected")


def _billed_elsewhere(world: World, invoice_id: str, po_line_id: Any) -> float:
    return sum(
        ln.get("quantity") or 0
        for inv in (world.get("vendorInvoices") or {}).values()
        if inv.get("id") != invoice_id and inv.get("status") not in _DEAD_INVOICES
        for ln in lines_of(inv)
        if ln.get("poLineId") == po_line_id
    )


def _po_line(world: World, po_id: Any, line_id: Any) -> Row:
    return line_for(row(world, "purchaseOrders", po_id), id=line_id) or {}


def _approved_after_match(final: World, invoice_id: str) -> list[Check]:
    invoice = row(final, "vendorInvoices", invoice_id)
    match = latest_match_for(final, invoice_id) or {}
    return [
        check(
            "The latest three-way match passes",
            match.get("status") == "matched",
            f"match {show(match.get('id'))} = {show(match.get('status'))}",
        ),
        status_check("The invoice is approved", invoice, "approved", "paid"),
    ]


def quantity_fixed(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-012: the over-billed line bills what was received, re-matched and approved."""
    invoice_id = str(task_entities(ctx).get("vendorInvoiceId"))
    before = row(initial, "vendorInvoices", invoice_id)
    po_id = before.get("purchaseOrderId")
    expected: dict[Any, float] = {}
    subtotal = 0.0
    for line in lines_of(before):
        po_line = _po_line(initial, po_id, line.get("poLineId"))
        billable = (po_line.get("receivedQuantity") or 0) - _billed_elsewhere(
            initial, invoice_id, line.get("poLineId")
        )
        quantity = line.get("quantity") or 0
        if po_line and quantity > billable:
            expected[line.get("id")] = billable
            quantity = billable
        subtotal += quantity * amount(line.get("unitPrice"))
    invoice = row(final, "vendorInvoices", invoice_id)
    over_id, billable = next(iter(expected.items()), (None, None))
    now_line = line_for(invoice, id=over_id) or {}
    po_line = _po_line(final, po_id, now_line.get("poLineId"))
    return [
        check(
            f"The over-billed line now bills the {show(billable)} units received",
            over_id is not None and now_line.get("quantity") == billable,
            f"{show(over_id)} quantity = {show(now_line.get('quantity'))}",
        ),
        optional(
            "Invoice totals were recalculated",
            same_money(invoice.get("subtotal"), round2(subtotal)),
            f"subtotal = {show(invoice.get('subtotal'))} (expected {show(round2(subtotal))})",
        ),
        check(
            "The purchase order no longer shows over-invoicing",
            bool(po_line)
            and (po_line.get("invoicedQuantity") or 0) <= (po_line.get("receivedQuantity") or 0),
            f"invoiced {show(po_line.get('invoicedQuantity'))} vs received "
            f"{show(po_line.get('receivedQuantity'))}",
        ),
        *_approved_after_match(final, invoice_id),
    ]


def price_fixed(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-013: the mis-priced line is at the agreed PO price, re-matched and approved."""
    invoice_id = str(task_entities(ctx).get("vendorInvoiceId"))
    before = row(initial, "vendorInvoices", invoice_id)
    po_id = before.get("purchaseOrderId")
    wrong = next(
        (
            ln
            for ln in lines_of(before)
            if not same_money(
                ln.get("unitPrice"),
                _po_line(initial, po_id, ln.get("poLineId")).get("unitPrice"),
            )
        ),
        {},
    )
    agreed = _po_line(initial, po_id, wrong.get("poLineId")).get("unitPrice")
    subtotal = sum(
        (ln.get("quantity") or 0) * amount(agreed if ln is wrong else ln.get("unitPrice"))
        for ln in lines_of(before)
    )
    total = round2(round2(subtotal) + round2(subtotal * TAX_RATE))
    invoice = row(final, "vendorInvoices", invoice_id)
    line = line_for(invoice, id=wrong.get("id")) or {}
    return [
        check(
            f"The line is priced at the agreed {show(agreed)}",
            bool(wrong) and same_money(line.get("unitPrice"), agreed),
            f"unitPrice = {show(line.get('unitPrice'))}",
        ),
        check(
            f"The quantity was left at {show(wrong.get('quantity'))}",
            bool(wrong) and line.get("quantity") == wrong.get("quantity"),
            f"quantity = {show(line.get('quantity'))}",
        ),
        optional(
            f"Invoice total was recalculated to {show(total)}",
            same_money(invoice.get("total"), total),
            f"total = {show(invoice.get('total'))}",
        ),
        *_approved_after_match(final, invoice_id),
    ]
