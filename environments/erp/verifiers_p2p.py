"""Verifiers of the hard procure-to-pay and fulfilment tasks (TASK-011 to 015 and TASK-017).

Contract: as in ``verifiers.py``: state-only checks of ``(final, initial, context)``; what a task
expects is derived from the initial world — the cheapest valid quotation of an RFQ, the quantity
actually received on an over-billed line, the agreed PO price of a mis-priced line, the ordered
quantity of a sales order line — never written into the check. ``verifiers.py`` registers
these check functions with the others.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import Check, VerifierContext, check, optional

from .domain.documents import quotation_is_valid
from .domain.money import TAX_RATE, round2
from .grading import (
    amount,
    approvals_for,
    completed_payments_for,
    latest_match_for,
    line_for,
    lines_of,
    new_rows,
    on_hand,
    same_money,
    show,
    task_entities,
    transfer_movements_since,
)
from .verifiers_support import World, row

__all__ = [
    "awarded",
    "escalated",
    "price_fixed",
    "procure_to_pay",
    "quantity_fixed",
    "split_shipment",
]

Row = Mapping[str, Any]
_DEAD_INVOICES = ("cancelled", "rejected")


def _quotes(world: World, rfq_id: Any) -> list[Row]:
    return sorted(
        (q for q in (world.get("quotations") or {}).values() if q.get("rfqId") == rfq_id),
        key=lambda q: (amount(q.get("total")), str(q.get("id"))),
    )


def awarded(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-011: the cheapest valid quotation won, and an approved, unsent PO carries its lines."""
    facts = task_entities(ctx)
    rfq_id = facts.get("rfqId")
    quotes = _quotes(initial, rfq_id)
    winner = next((q for q in quotes if quotation_is_valid(initial, q)), {})
    cheapest = quotes[0] if quotes else {}
    rfq = row(final, "rfqs", rfq_id)
    won = row(final, "quotations", winner.get("id"))
    trap = row(final, "quotations", cheapest.get("id"))
    order = next(
        (
            po
            for po in new_rows(final, initial, "purchaseOrders")
            if po.get("vendorId") == winner.get("vendorId")
        ),
        None,
    )
    wanted = [
        (ln.get("productId"), ln.get("quantity"), ln.get("unitPrice")) for ln in lines_of(winner)
    ]
    got = [(line_for(order, productId=p) or {}) for p, _quantity, _price in wanted]
    lines_ok = bool(wanted) and all(
        line.get("quantity") == quantity and same_money(line.get("unitPrice"), price)
        for line, (_p, quantity, price) in zip(got, wanted, strict=True)
    )
    status, sent = (order or {}).get("status"), (order or {}).get("sentAt")
    return [
        check(
            f"{rfq_id} was awarded to {winner.get('id')}, the cheapest valid quotation",
            bool(winner)
            and rfq.get("awardedQuotationId") == winner.get("id")
            and won.get("status") == "accepted",
            f"awarded = {show(rfq.get('awardedQuotationId'))}, "
            f"{winner.get('id')} = {show(won.get('status'))}",
        ),
        check(
            f"The cheaper but invalid {cheapest.get('id')} was not accepted",
            cheapest.get("id") == winner.get("id") or trap.get("status") != "accepted",
            f"{cheapest.get('id')} = {show(trap.get('status'))}",
        ),
        check(
            f"A purchase order was raised on {winner.get('vendorId')}",
            order is not None,
            f"order {order['id']}" if order else "none found",
        ),
        check(
            "It carries the quoted quantities and prices",
            lines_ok,
            "; ".join(
                f"{p} {show(line.get('quantity'))} @ {show(line.get('unitPrice'))}"
                f" (quoted {show(q)} @ {show(price)})"
                for line, (p, q, price) in zip(got, wanted, strict=True)
            ),
        ),
        check(
            "It is approved but not yet sent",
            status == "approved" and sent is None,
            f"status = {show(status)}, sentAt = {show(sent)}",
        ),
        optional(
            f"It delivers to {facts.get('warehouseId')} against {facts.get('budgetId')}",
            order is not None
            and order.get("warehouseId") == facts.get("warehouseId")
            and order.get("budgetId") == facts.get("budgetId"),
            f"warehouse = {show((order or {}).get('warehouseId'))}, "
            f"budget = {show((order or {}).get('budgetId'))}",
        ),
    ]


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
        check(
            "The invoice is approved",
            invoice.get("status") in ("approved", "paid"),
            f"status = {show(invoice.get('status'))}",
        ),
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


def split_shipment(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-014: the order shipped in full from several warehouses, with no transfer first."""
    facts = task_entities(ctx)
    so_id, product = facts.get("salesOrderId"), str(facts.get("productId"))
    sites: Sequence[str] = facts.get("warehouseIds") or ()
    wanted = (line_for(row(initial, "salesOrders", so_id), productId=product) or {}).get("quantity")
    order = row(final, "salesOrders", so_id)
    line = line_for(order, productId=product) or {}
    shipped = sum(
        sl.get("quantity") or 0
        for ful in (final.get("fulfillments") or {}).values()
        if ful.get("salesOrderId") == so_id and ful.get("status") != "cancelled"
        for sl in lines_of(ful)
        if sl.get("productId") == product
    )
    drops = {
        site: on_hand(initial, product, site) - on_hand(final, product, site) for site in sites
    }
    moved = transfer_movements_since(final, product, str(initial.get("now")))
    shown = ", ".join(f"{site} -{show(drop)}" for site, drop in drops.items())
    return [
        check(
            f"All {show(wanted)} units shipped",
            wanted is not None and line.get("fulfilledQuantity") == wanted and shipped == wanted,
            f"line fulfilled = {show(line.get('fulfilledQuantity'))}, shipment units = {show(shipped)}",
        ),
        optional(
            f"{so_id} is fulfilled",
            order.get("status") in ("fulfilled", "invoiced", "closed"),
            f"status = {show(order.get('status'))}",
        ),
        check(
            "Stock came out of each of " + " and ".join(sites),
            len(drops) > 1 and all(drop > 0 for drop in drops.values()),
            shown,
        ),
        optional(
            f"The drops add up to {show(wanted)} units",
            sum(drops.values()) == wanted,
            " + ".join(show(drop) for drop in drops.values()),
        ),
        check(
            "No stock was transferred between warehouses first",
            not moved,
            f"{len(moved)} transfer movement(s)" if moved else "no transfers",
        ),
    ]


def escalated(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-015: approved by someone whose limit covers it, at the value it had."""
    facts = task_entities(ctx)
    req_id = facts.get("requisitionId")
    requisition = row(final, "requisitions", req_id)
    approved = [
        a for a in approvals_for(final, "requisition", req_id) if a.get("status") == "approved"
    ]
    deciding: Row = approved[0] if approved else {}
    decider = deciding.get("decidedBy")
    limit = row(final, "users", decider).get("approvalLimit")
    value = amount(requisition.get("estimatedTotal"))
    was = amount(row(initial, "requisitions", req_id).get("estimatedTotal"))
    return [
        check(
            f"{req_id} is approved",
            requisition.get("status") == "approved",
            f"status = {show(requisition.get('status'))}",
        ),
        check(
            "The approver was authorised for the amount",
            limit is not None and bool(requisition) and amount(limit) >= value,
            f"approver {show(decider)} limit {show(limit)} vs {show(value)}",
        ),
        optional(
            "It was not approved by the user who lacked authority",
            decider != facts.get("assigneeId"),
            f"decided by {show(decider)}",
        ),
        check(
            "The requisition value was not reduced to dodge the limit",
            bool(requisition) and same_money(value, was),
            f"total = {show(value)} (was {show(was)})",
        ),
    ]


def procure_to_pay(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-017: requisition, order, receipt, invoice and payment all completed."""
    facts = task_entities(ctx)
    product, vendor = facts.get("productId"), facts.get("vendorId")
    quantity, price = facts.get("quantity"), facts.get("unitPrice")
    warehouse = str(facts.get("warehouseId"))
    requisition = next(
        (r for r in new_rows(final, initial, "requisitions") if line_for(r, productId=product)), {}
    )
    order = next(
        (
            po
            for po in new_rows(final, initial, "purchaseOrders")
            if po.get("vendorId") == vendor and line_for(po, productId=product)
        ),
        {},
    )
    line = line_for(order, productId=product) or {}
    receipts = [
        gr
        for gr in (final.get("goodsReceipts") or {}).values()
        if order and gr.get("purchaseOrderId") == order.get("id") and gr.get("status") == "posted"
    ]
    invoice: Row = next(
        (
            inv
            for inv in sorted(
                (final.get("vendorInvoices") or {}).values(), key=lambda i: str(i.get("id"))
            )
            if order
            and inv.get("purchaseOrderId") == order.get("id")
            and inv.get("status") != "cancelled"
        ),
        {},
    )
    paid = completed_payments_for(final, str(invoice.get("id"))) if invoice else 0.0
    was, now = on_hand(initial, str(product), warehouse), on_hand(final, str(product), warehouse)
    expected_value = round2(float(quantity or 0) * float(price or 0))
    return [
        check(
            "A requisition was raised and approved",
            requisition.get("status") in ("approved", "converted"),
            f"requisition {show(requisition.get('id'))} = {show(requisition.get('status'))}",
        ),
        check(
            f"A purchase order was raised on {vendor} for {show(quantity)} @ {show(price)}",
            line.get("quantity") == quantity and same_money(line.get("unitPrice"), price),
            f"{show(line.get('quantity'))} @ {show(line.get('unitPrice'))}",
        ),
        check(
            "The goods were fully received",
            line.get("receivedQuantity") == quantity and bool(receipts),
            f"received = {show(line.get('receivedQuantity'))}, posted receipts = {len(receipts)}",
        ),
        check(
            f"Stock at {warehouse} rose by {show(quantity)}",
            now == was + float(quantity or 0),
            f"{show(was)} -> {show(now)}",
        ),
        optional(
            "An invoice was registered for what was received",
            bool(invoice) and same_money(invoice.get("subtotal"), expected_value),
            f"subtotal = {show(invoice.get('subtotal'))} (expected {show(expected_value)})",
        ),
        check(
            "The invoice is paid in full",
            bool(invoice)
            and invoice.get("status") == "paid"
            and paid == round2(amount(invoice.get("total"))),
            f"status = {show(invoice.get('status'))}, completed payments = {show(paid)}",
        ),
    ]
