"""Verifiers of the hard sourcing, fulfilment and procure-to-pay tasks (TASK-011, 014, 015, 017).

Contract: state-only checks of ``(final, initial, context)``; what a task expects is derived from
the initial world — the cheapest valid quotation of an RFQ, the ordered quantity of a sales
order line, the requisition's value — or stated by the task (TASK-017's quantity and price),
never written into the check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from silo import Check, VerifierContext, check, optional

from .domain.documents import quotation_is_valid
from .domain.money import round2
from .grading import (
    amount,
    approvals_for,
    completed_payments_for,
    line_for,
    lines_of,
    new_rows,
    on_hand,
    same_money,
    show,
    status_check,
    task_entities,
    transfer_movements_since,
)
from .verifiers_support import World, row

Row = Mapping[str, Any]

__all__ = ["awarded", "escalated", "procure_to_pay", "split_shipment"]


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
        status_check(
            f"{so_id} is fulfilled", order, "fulfilled", "invoiced", "closed", required=False
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
        status_check(f"{req_id} is approved", requisition, "approved"),
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
