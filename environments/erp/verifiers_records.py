"""Verifiers of the vendor, customer and stock tasks (TASK-001 to 004, 006 and 007).

Contract: state-only checks of ``(final, initial, context)`` as described in ``verifiers.py``;
what a check expects comes from the task's ``entities`` (ids and stated facts) or from the
initial world with the domain's own rules (the largest overdue debtor, a product's reorder
quantity and point, what is still outstanding on an order).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, optional

from .domain.documents import is_overdue
from .domain.stock import inbound_quantity, reorder_point, stock_of
from .grading import (
    amount,
    has_text,
    line_for,
    lines_of,
    new_rows,
    on_hand,
    show,
    status_check,
    task_entities,
    transfer_movements_since,
)
from .verifiers_support import World, largest_overdue_customer, row

Row = Mapping[str, Any]

__all__ = [
    "credit_hold",
    "rebalanced",
    "received_balance",
    "shortage_requisition",
    "vendor_blocked",
    "vendor_terms",
]


def vendor_terms(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-001: the vendor is on the new payment terms and still active."""
    facts = task_entities(ctx)
    vendor = row(final, "vendors", facts.get("vendorId"))
    terms = facts.get("paymentTerms")
    return [
        check(
            f"{facts.get('vendorId')} is on {terms}",
            vendor.get("paymentTerms") == terms,
            f"paymentTerms = {show(vendor.get('paymentTerms'))}",
        ),
        status_check("The vendor is still active", vendor, "active", required=False),
    ]


def _status_with_reason(
    label: str, record: Mapping[str, Any], status: str, *, reason_required: bool
) -> list[Check]:
    """A record put in ``status``, and the non-blank ``statusReason`` recorded with it."""
    reason = check if reason_required else optional
    return [
        status_check(label, record, status),
        reason(
            "A reason was recorded",
            has_text(record.get("statusReason")),
            f"statusReason = {show(record.get('statusReason'))}",
        ),
    ]


def vendor_blocked(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-002: the vendor is blocked and the reason is on record."""
    vendor_id = task_entities(ctx).get("vendorId")
    vendor = row(final, "vendors", vendor_id)
    return _status_with_reason(f"{vendor_id} is blocked", vendor, "blocked", reason_required=True)


def credit_hold(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-003: the largest overdue debtor is on credit hold and nothing was written off."""
    threshold = float(task_entities(ctx).get("minimumAmount") or 0)
    debtor_id, balance = largest_overdue_customer(initial)
    customer = row(final, "customers", debtor_id)
    large = [
        inv
        for inv in (initial.get("customerInvoices") or {}).values()
        if is_overdue(initial, inv) and amount(inv.get("total")) > threshold
    ]
    written_off = [
        inv["id"]
        for inv in large
        if row(final, "customerInvoices", inv["id"]).get("status") == "written_off"
    ]
    held = f"{debtor_id} (largest overdue balance, {show(balance)}) is on credit hold"
    return [
        *_status_with_reason(held, customer, "credit_hold", reason_required=False),
        check(
            "No overdue invoice was written off",
            not written_off,
            f"{len(large)} invoice(s) above {show(threshold)} checked; written off: {written_off}",
        ),
    ]


def shortage_requisition(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-004: a requisition for the reorder quantity, with the stock left alone."""
    facts = task_entities(ctx)
    product_id, warehouse_id = facts.get("productId"), facts.get("warehouseId")
    raised = next(
        (r for r in new_rows(final, initial, "requisitions") if line_for(r, productId=product_id)),
        None,
    )
    line = line_for(raised, productId=product_id) or {}
    reorder = row(initial, "products", product_id).get("reorderQuantity")
    before = on_hand(initial, str(product_id), str(warehouse_id))
    after = on_hand(final, str(product_id), str(warehouse_id))
    budget, department = (raised or {}).get("budgetId"), (raised or {}).get("departmentId")
    return [
        check(
            f"A requisition was raised for {product_id}",
            raised is not None,
            f"requisition {raised['id']}" if raised else "no new requisition found",
        ),
        check(
            "It requests the product's reorder quantity",
            raised is not None and line.get("quantity") == reorder,
            f"quantity = {show(line.get('quantity'))}, reorderQuantity = {show(reorder)}",
        ),
        check(
            f"It is charged to {facts.get('budgetId')} for {facts.get('departmentId')}",
            budget == facts.get("budgetId") and department == facts.get("departmentId"),
            f"budgetId = {show(budget)}, departmentId = {show(department)}",
        ),
        check(
            "Stock was not altered to hide the shortage",
            after == before,
            f"on hand = {show(after)} (was {show(before)})",
        ),
    ]


def rebalanced(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-006: the stated units moved between the two sites, back above the reorder point."""
    facts = task_entities(ctx)
    product, source, dest = (
        str(facts.get("productId")),
        str(facts.get("fromWarehouseId")),
        str(facts.get("toWarehouseId")),
    )
    qty = float(facts.get("quantity") or 0)
    record = stock_of(final, product, dest)
    point = reorder_point(final, record) if record else None
    src_before, src_after = on_hand(initial, product, source), on_hand(final, product, source)
    dst_before, dst_after = on_hand(initial, product, dest), on_hand(final, product, dest)
    moved = transfer_movements_since(final, product, str(initial.get("now")))
    return [
        check(
            f"{dest} received {show(qty)} units",
            dst_after == dst_before + qty,
            f"{show(dst_before)} -> {show(dst_after)}",
        ),
        check(
            f"{source} gave up {show(qty)} units",
            src_after == src_before - qty,
            f"{show(src_before)} -> {show(src_after)}",
        ),
        check(
            f"{dest} is back at or above its reorder point",
            dst_after >= float(point or 0),
            f"on hand {show(dst_after)} vs reorder point {show(point)}",
        ),
        optional(
            "Movements were recorded for the transfer",
            bool(moved),
            f"{len(moved)} transfer movement(s) since {initial.get('now')}",
        ),
    ]


def received_balance(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-007: every outstanding line of the order received into stock."""
    facts = task_entities(ctx)
    po_id, warehouse = facts.get("purchaseOrderId"), str(facts.get("warehouseId"))
    before, after = row(initial, "purchaseOrders", po_id), row(final, "purchaseOrders", po_id)
    open_lines = [
        line
        for line in lines_of(before)
        if (line.get("receivedQuantity") or 0) < (line.get("quantity") or 0)
    ]
    now_lines = [line_for(after, id=line.get("id")) or {} for line in open_lines]
    complete = bool(open_lines) and all(
        line.get("receivedQuantity") == line.get("quantity") for line in now_lines
    )
    stock_ok, inbound, moves = True, [], []
    for line in open_lines:
        product = str(line.get("productId"))
        due = (line.get("quantity") or 0) - (line.get("receivedQuantity") or 0)
        was, now = on_hand(initial, product, warehouse), on_hand(final, product, warehouse)
        stock_ok = stock_ok and now == was + due
        moves.append(f"{product} {show(was)} -> {show(now)} (+{show(due)} expected)")
        inbound.append(inbound_quantity(final, product, warehouse))
    return [
        check(
            "Every outstanding line is now received in full",
            complete,
            "; ".join(
                f"{line.get('id')} received {show(line.get('receivedQuantity'))} of "
                f"{show(line.get('quantity'))}"
                for line in now_lines
            ),
        ),
        status_check(f"{po_id} is fully received", after, "received"),
        check(
            f"Stock at {warehouse} rose by the outstanding balance",
            stock_ok and bool(moves),
            "; ".join(moves),
        ),
        optional(
            "Nothing is still inbound for those lines",
            bool(inbound) and all(value == 0 for value in inbound),
            f"inbound = {[show(v) for v in inbound]}",
        ),
    ]
