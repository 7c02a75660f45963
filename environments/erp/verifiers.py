"""Verifiers for the eighteen ERP tasks.

Contract: each check function grades ``(final, initial, context)`` by inspecting the worlds, never
the transcript (no ERP task asks for an answer). Ids the instruction states and facts it gives
(quantities, prices, an email) come from the task file's ``entities``; everything else a check
expects is derived from the initial world with the domain helpers the tools use (which invoice
falls due this week, the cheapest valid quotation, what was received, the agreed price, the
largest overdue debtor). Required and optional checks follow the reference's table (§11.4):
required checks decide pass/fail, optional ones only move the reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, define_verifier, optional

from .domain.documents import is_overdue
from .domain.money import round2
from .domain.stock import inbound_quantity, reorder_point, stock_of
from .grading import (
    amount,
    approvals_for,
    completed_payments_for,
    has_text,
    line_for,
    lines_of,
    new_rows,
    on_hand,
    same_money,
    show,
    task_entities,
    transfer_movements_since,
)
from .verifiers_p2p import (
    awarded,
    escalated,
    price_fixed,
    procure_to_pay,
    quantity_fixed,
    split_shipment,
)
from .verifiers_support import (
    World,
    invoice_paid_checks,
    invoices_due_within,
    largest_overdue_customer,
    row,
)

__all__ = ["VERIFIERS"]


def _vendor_terms(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    vendor = row(final, "vendors", facts.get("vendorId"))
    terms = facts.get("paymentTerms")
    return [
        check(
            f"{facts.get('vendorId')} is on {terms}",
            vendor.get("paymentTerms") == terms,
            f"paymentTerms = {show(vendor.get('paymentTerms'))}",
        ),
        optional(
            "The vendor is still active",
            vendor.get("status") == "active",
            f"status = {show(vendor.get('status'))}",
        ),
    ]


def _status_with_reason(
    label: str, record: Mapping[str, Any], status: str, *, reason_required: bool
) -> list[Check]:
    """A record put in ``status``, and the non-blank ``statusReason`` recorded with it."""
    reason = check if reason_required else optional
    return [
        check(label, record.get("status") == status, f"status = {show(record.get('status'))}"),
        reason(
            "A reason was recorded",
            has_text(record.get("statusReason")),
            f"statusReason = {show(record.get('statusReason'))}",
        ),
    ]


def _vendor_blocked(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    vendor_id = task_entities(ctx).get("vendorId")
    vendor = row(final, "vendors", vendor_id)
    return _status_with_reason(f"{vendor_id} is blocked", vendor, "blocked", reason_required=True)


def _credit_hold(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
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


def _shortage_requisition(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
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


def _pending_approval(initial: World, entity_type: str, entity_id: Any) -> str | None:
    """The approval a document was waiting on at the start (the one the task must settle)."""
    pending = [
        a for a in approvals_for(initial, entity_type, entity_id) if a.get("status") == "pending"
    ]
    return str(pending[-1]["id"]) if pending else None


def _budget_rejection(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    requisition = row(final, "requisitions", facts.get("requisitionId"))
    approval_id = _pending_approval(initial, "requisition", facts.get("requisitionId"))
    approval = row(final, "approvals", approval_id)
    committed = amount(row(final, "budgets", facts.get("budgetId")).get("committed"))
    was = amount(row(initial, "budgets", facts.get("budgetId")).get("committed"))
    notes = approval.get("notes") or ()
    return [
        check(
            f"{facts.get('requisitionId')} was rejected, not approved",
            requisition.get("status") == "rejected",
            f"status = {show(requisition.get('status'))}",
        ),
        optional(
            "The approval records the rejection",
            approval.get("status") == "rejected"
            and approval.get("decidedBy") == facts.get("actorId"),
            f"approval {show(approval_id)} = {show(approval.get('status'))}, "
            f"by {show(approval.get('decidedBy'))}",
        ),
        optional("A reason was captured", len(notes) > 0, f"{len(notes)} note(s)"),
        check(
            "No budget was committed",
            abs(committed - was) < 0.005,
            f"committed = {show(committed)} (was {show(was)})",
        ),
    ]


def _rebalanced(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
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


def _received_balance(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
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
        check(
            f"{po_id} is fully received",
            after.get("status") == "received",
            f"status = {show(after.get('status'))}",
        ),
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


def _paid_due_this_week(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    days = int(task_entities(ctx).get("withinDays") or 7)
    due = invoices_due_within(initial, days)
    invoice_id = due[0]["id"] if len(due) == 1 else None
    return invoice_paid_checks(
        final, invoice_id, f"{len(due)} approved invoice(s) due in {days} days"
    )


def _po_cancelled(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    po_id = facts.get("purchaseOrderId")
    order, before = row(final, "purchaseOrders", po_id), row(initial, "purchaseOrders", po_id)
    approval_id = _pending_approval(initial, "purchase_order", po_id)
    approval = row(final, "approvals", approval_id)
    budget_id = before.get("budgetId")
    committed = amount(row(final, "budgets", budget_id).get("committed"))
    was = amount(row(initial, "budgets", budget_id).get("committed"))
    return [
        check(
            f"{po_id} is cancelled",
            order.get("status") == "cancelled",
            f"status = {show(order.get('status'))}",
        ),
        check(
            "A cancellation reason was recorded",
            has_text(order.get("cancelReason")),
            f"reason = {show(order.get('cancelReason'))}",
        ),
        optional(
            "Its pending approval is no longer outstanding",
            bool(approval) and approval.get("status") != "pending",
            f"approval {show(approval_id)} = {show(approval.get('status'))}",
        ),
        optional(
            f"No budget was left committed for it on {show(budget_id)}",
            abs(committed - was) < 0.005,
            f"committed = {show(committed)} (was {show(was)})",
        ),
    ]


def _shipment_invoiced(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    so_id = task_entities(ctx).get("salesOrderId")
    order = row(initial, "salesOrders", so_id)
    invoice = next(
        (i for i in new_rows(final, initial, "customerInvoices") if i.get("salesOrderId") == so_id),
        None,
    )
    first_shipped = (lines_of(order) or [{}])[0].get("fulfilledQuantity")
    shipped_value = round2(
        sum(
            (ln.get("fulfilledQuantity") or 0) * amount(ln.get("unitPrice"))
            for ln in lines_of(order)
        )
    )
    line = (lines_of(invoice) or [{}])[0]
    status = (invoice or {}).get("status")
    so_status = row(final, "salesOrders", so_id).get("status")
    return [
        check(
            f"An invoice was raised against {so_id}",
            invoice is not None,
            f"invoice {invoice['id']}" if invoice else "none found",
        ),
        check(
            f"It bills the {show(first_shipped)} units that shipped",
            invoice is not None and line.get("quantity") == first_shipped,
            f"quantity = {show(line.get('quantity'))}",
        ),
        check(
            "The invoice was issued, not left in draft",
            status in ("issued", "paid", "partially_paid"),
            f"status = {show(status)}",
        ),
        optional(
            "Invoice value matches what shipped",
            invoice is not None and same_money(invoice.get("subtotal"), shipped_value),
            f"subtotal = {show((invoice or {}).get('subtotal'))} (expected {show(shipped_value)})",
        ),
        optional(
            f"{so_id} is marked invoiced", so_status == "invoiced", f"status = {show(so_status)}"
        ),
    ]


def _failed_payment_recovered(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    invoice_id = str(facts.get("vendorInvoiceId"))
    failed = [
        p["id"]
        for p in (initial.get("payments") or {}).values()
        if p.get("status") == "failed"
        and any(a.get("invoiceId") == invoice_id for a in p.get("allocations") or ())
    ]
    still = [pid for pid in failed if row(final, "payments", pid).get("status") == "failed"]
    vendor = row(final, "vendors", facts.get("vendorId"))
    email = (vendor.get("contact") or {}).get("email")
    invoice = row(final, "vendorInvoices", invoice_id)
    paid = invoice_paid_checks(final, invoice_id, "")
    return [
        paid[0],
        paid[2],
        check(
            "The original failed payment was left on record",
            bool(failed) and still == failed,
            f"failed before: {failed}; still failed: {still}",
        ),
        check(
            "The vendor's contact email was corrected",
            email == facts.get("email"),
            f"email = {show(email)}",
        ),
        optional(
            "The invoice is no longer overdue",
            bool(invoice) and not is_overdue(final, invoice),
            f"status = {show(invoice.get('status'))}",
        ),
    ]


def _cancelled_order_closed(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    facts = task_entities(ctx)
    invoice_id, po_id = facts.get("vendorInvoiceId"), facts.get("purchaseOrderId")
    invoice, order = row(final, "vendorInvoices", invoice_id), row(final, "purchaseOrders", po_id)
    paid = completed_payments_for(final, str(invoice_id))
    received = sum(line.get("receivedQuantity") or 0 for line in lines_of(order))
    log = list(final.get("auditLog") or ())[len(initial.get("auditLog") or ()) :]
    return [
        check(
            f"{invoice_id} can no longer be paid",
            invoice.get("status") in ("cancelled", "rejected"),
            f"status = {show(invoice.get('status'))}",
        ),
        optional(
            f"{po_id} is still cancelled",
            order.get("status") == "cancelled",
            f"status = {show(order.get('status'))}",
        ),
        optional(
            f"Nothing was received against {po_id}",
            received == 0,
            f"received units = {show(received)}",
        ),
        check(
            "No money was paid against the invoice", paid == 0, f"completed payments = {show(paid)}"
        ),
        optional(
            "The action was recorded in the audit log",
            any(event.get("entityId") == invoice_id for event in log),
            f"{len(log)} new audit event(s)",
        ),
    ]


VERIFIERS = [
    define_verifier(f"VER-{task[5:]}", task, name, fn)
    for task, name, fn in [
        ("TASK-001", "Vendor payment terms updated", _vendor_terms),
        ("TASK-002", "Vendor blocked with a reason", _vendor_blocked),
        ("TASK-003", "Largest overdue debtor placed on credit hold", _credit_hold),
        ("TASK-004", "Shortage escalated as a requisition, stock untouched", _shortage_requisition),
        ("TASK-005", "Requisition rejected because the budget cannot cover it", _budget_rejection),
        ("TASK-006", "Stock rebalanced above the reorder point", _rebalanced),
        ("TASK-007", "Outstanding delivery received and order completed", _received_balance),
        ("TASK-008", "Invoice due this week paid in full", _paid_due_this_week),
        ("TASK-009", "Unapproved purchase order cancelled", _po_cancelled),
        ("TASK-010", "Shipped order invoiced", _shipment_invoiced),
        ("TASK-011", "Cheapest valid quotation awarded and order raised", awarded),
        ("TASK-012", "Quantity mismatch corrected and invoice approved", quantity_fixed),
        ("TASK-013", "Price mismatch corrected to the agreed rate", price_fixed),
        ("TASK-014", "Order filled from multiple warehouses", split_shipment),
        ("TASK-015", "Requisition escalated and approved by an authorised user", escalated),
        ("TASK-016", "Failed payment recovered and invoice settled", _failed_payment_recovered),
        ("TASK-017", "Full procure-to-pay cycle completed", procure_to_pay),
        ("TASK-018", "Invoice against a cancelled order closed out", _cancelled_order_closed),
    ]
]
