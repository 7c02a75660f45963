"""Verifiers for the eighteen ERP tasks and the templates TASK-020/021: the registry.

Contract: :data:`VERIFIERS` holds one verifier per task, ``VER-nnn`` for ``TASK-nnn``. Each
check function grades ``(final, initial, context)`` by inspecting the worlds, never the
transcript (no ERP task asks for an answer). Ids the instruction states and facts it gives
(quantities, prices, an email) come from the task file's ``entities``; everything else a check
expects is derived from the initial world with the domain helpers the tools use (which invoice
falls due this week, the cheapest valid quotation, what was received, the agreed price, the
largest overdue debtor). Required and optional checks follow the reference's table (§11.4):
required checks decide pass/fail, optional ones only move the reward. The check functions live
by family in ``verifiers_records``, ``verifiers_finance``, ``verifiers_invoices`` and
``verifiers_p2p``.
"""

from __future__ import annotations

from silo import define_verifier

from . import verifiers_finance as finance
from . import verifiers_invoices as invoices
from . import verifiers_p2p as p2p
from . import verifiers_records as records
from . import verifiers_variants as variants

__all__ = ["VERIFIERS"]

VERIFIERS = [
    define_verifier(f"VER-{task[5:]}", name, fn)
    for task, name, fn in [
        ("TASK-001", "Vendor payment terms updated", records.vendor_terms),
        ("TASK-002", "Vendor blocked with a reason", records.vendor_blocked),
        ("TASK-003", "Largest overdue debtor placed on credit hold", records.credit_hold),
        (
            "TASK-004",
            "Shortage escalated as a requisition, stock untouched",
            records.shortage_requisition,
        ),
        (
            "TASK-005",
            "Requisition rejected because the budget cannot cover it",
            finance.budget_rejection,
        ),
        ("TASK-006", "Stock rebalanced above the reorder point", records.rebalanced),
        ("TASK-007", "Outstanding delivery received and order completed", records.received_balance),
        ("TASK-008", "Invoice due this week paid in full", finance.paid_due_this_week),
        ("TASK-009", "Unapproved purchase order cancelled", finance.po_cancelled),
        ("TASK-010", "Shipped order invoiced", finance.shipment_invoiced),
        ("TASK-011", "Cheapest valid quotation awarded and order raised", p2p.awarded),
        ("TASK-012", "Quantity mismatch corrected and invoice approved", invoices.quantity_fixed),
        ("TASK-013", "Price mismatch corrected to the agreed rate", invoices.price_fixed),
        ("TASK-014", "Order filled from multiple warehouses", p2p.split_shipment),
        ("TASK-015", "Requisition escalated and approved by an authorised user", p2p.escalated),
        (
            "TASK-016",
            "Failed payment recovered and invoice settled",
            finance.failed_payment_recovered,
        ),
        ("TASK-017", "Full procure-to-pay cycle completed", p2p.procure_to_pay),
        (
            "TASK-018",
            "Invoice against a cancelled order closed out",
            finance.cancelled_order_closed,
        ),
        ("TASK-020", "Customer credit limit set (template)", variants.credit_limit_set),
        ("TASK-021", "Stock adjusted by the stated quantity (template)", variants.stock_adjusted),
    ]
]
