"""Verifiers of the budget, cancellation, invoicing and payment tasks (TASK-005, 008, 009, 010,
016 and 018).

Contract: state-only checks of ``(final, initial, context)`` as described in ``verifiers.py``;
which approval a document was waiting on, which invoice falls due this week, what a sales order
shipped and which payment had failed are read from the initial world.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from silo import Check, VerifierContext, check, optional

from .domain.documents import is_overdue
from .domain.money import round2
from .grading import (
    amount,
    approvals_for,
    completed_payments_for,
    has_text,
    lines_of,
    new_rows,
    same_money,
    show,
    status_check,
    task_entities,
)
from .verifiers_support import World, invoice_paid_checks, invoices_due_within, row

Row = Mapping[str, Any]

__all__ = [
    "budget_rejection",
    "cancelled_order_closed",
    "failed_payment_recovered",
    "paid_due_this_week",
    "po_cancelled",
    "shipment_invoiced",
]


def _pending_approval(initial: World, entity_type: str, entity_id: Any) -> str | None:
    """The approval a document was waiting on at the start (the one the task must settle)."""
    pending = [
        a for a in approvals_for(initial, entity_type, entity_id) if a.get("status") == "pending"
    ]
    return str(pending[-1]["id"]) if pending else None


def budget_rejection(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-005: the requisition rejected with a reason and no money committed."""
    facts = task_entities(ctx)
    requisition = row(final, "requisitions", facts.get("requisitionId"))
    approval_id = _pending_approval(initial, "requisition", facts.get("requisitionId"))
    approval = row(final, "approvals", approval_id)
    committed = amount(row(final, "budgets", facts.get("budgetId")).get("committed"))
    was = amount(row(initial, "budgets", facts.get("budgetId")).get("committed"))
    notes = approval.get("notes") or ()
    return [
        status_check(
            f"{facts.get('requisitionId')} was rejected, not approved", requisition, "rejected"
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


def paid_due_this_week(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-008: the one approved invoice due within the window is paid in full."""
    days = int(task_entities(ctx).get("withinDays") or 7)
    due = invoices_due_within(initial, days)
    invoice_id = due[0]["id"] if len(due) == 1 else None
    return invoice_paid_checks(
        final, invoice_id, f"{len(due)} approved invoice(s) due in {days} days"
    )


def po_cancelled(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-009: the order cancelled with a reason, its approval and budget released."""
    facts = task_entities(ctx)
    po_id = facts.get("purchaseOrderId")
    order, before = row(final, "purchaseOrders", po_id), row(initial, "purchaseOrders", po_id)
    approval_id = _pending_approval(initial, "purchase_order", po_id)
    approval = row(final, "approvals", approval_id)
    budget_id = before.get("budgetId")
    committed = amount(row(final, "budgets", budget_id).get("committed"))
    was = amount(row(initial, "budgets", budget_id).get("committed"))
    return [
        status_check(f"{po_id} is cancelled", order, "cancelled"),
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


def shipment_invoiced(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-010: an issued invoice bills exactly what the sales order shipped."""
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
        status_check(
            "The invoice was issued, not left in draft",
            invoice or {},
            "issued",
            "paid",
            "partially_paid",
        ),
        optional(
            "Invoice value matches what shipped",
            invoice is not None and same_money(invoice.get("subtotal"), shipped_value),
            f"subtotal = {show((invoice or {}).get('subtotal'))} (expected {show(shipped_value)})",
        ),
        status_check(
            f"{so_id} is marked invoiced",
            row(final, "salesOrders", so_id),
            "invoiced",
            required=False,
        ),
    ]


def failed_payment_recovered(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-016: a fresh completed payment settles the invoice; the failure stays."""
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


def cancelled_order_closed(final: World, initial: World, ctx: VerifierContext) -> list[Check]:
    """TASK-018: the invoice of a cancelled order closed out unpaid, and audited."""
    facts = task_entities(ctx)
    invoice_id, po_id = facts.get("vendorInvoiceId"), facts.get("purchaseOrderId")
    invoice, order = row(final, "vendorInvoices", invoice_id), row(final, "purchaseOrders", po_id)
    paid = completed_payments_for(final, str(invoice_id))
    received = sum(line.get("receivedQuantity") or 0 for line in lines_of(order))
    log = list(final.get("auditLog") or ())[len(initial.get("auditLog") or ()) :]
    return [
        status_check(f"{invoice_id} can no longer be paid", invoice, "cancelled", "rejected"),
        status_check(f"{po_id} is still cancelled", order, "cancelled", required=False),
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
