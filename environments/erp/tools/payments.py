"""Payment tools: the approval life cycle of money paid out to vendors.

Contract: a vendor payment is created ``draft`` against one approved or part-paid invoice for
at most what is still payable (outstanding less other payments in flight; default all of it,
method ``bank_transfer``), then ``submit_payment_for_approval`` (named approver),
``approve_payment`` (approver's limit covers the amount) and ``complete_payment``, which
applies the allocations to the invoices (paid / partially paid). ``fail_payment`` records a
failure and leaves balances untouched; ``retry_failed_payment`` raises a new draft for what is
still owed and keeps the failure on record; ``cancel_payment`` stops one not yet completed.
Customer receipts, payment history and the payment run live in :mod:`.cash_flows`;
:data:`TOOLS` lists all twelve in the reference's order. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot
from silo.toolkit.schema import Schema, choice, obj, text

from ..domain import approvals
from ..domain.documents import apply_payment, outstanding
from ..domain.money import round2
from . import cash_flows, finance
from .cash_flows import INVOICE_COLLECTIONS, METHOD, new_payment
from .common import WRITES, State, audit, fetch, require_status
from .crud import get_tool, list_tool
from .schema import (
    PAYMENT_METHODS,
    PAYMENT_STATUSES,
    acting_on,
    actor,
    amount,
    long_text,
    reason,
    record_id,
)


def _payable_invoice(state: State, invoice_id: str, wanted: float | None) -> tuple[Any, float]:
    """An approved or part-paid vendor invoice and the amount to pay on it (checked)."""
    invoice = fetch(state, "vendorInvoices", invoice_id)
    require_status(invoice, ("approved", "partially_paid"), "paid (approve it first)")
    room = finance.payable(state, invoice)
    pay = round2(room if wanted is None else wanted)
    if room <= 0 or pay > room + 0.005:
        raise ToolError(
            "invalid_input",
            f"{invoice['id']} has {room} payable ({outstanding(invoice)} outstanding, "
            f"{finance.in_flight(state, invoice['id'])} already in other open payments); pay at "
            "most that",
            {"payable": room},
        )
    return invoice, pay


def _create(state: State, args: Args) -> dict[str, Any]:
    invoice, pay = _payable_invoice(state, args["vendorInvoiceId"], args.get("amount"))
    allocations = [{"invoiceId": invoice["id"], "amount": pay}]
    payment = new_payment(state, args, ("vendor", invoice["vendorId"]), allocations)
    audit(state, args, "payment.created", payment, {"invoiceId": invoice["id"], "amount": pay})
    return snapshot(payment)


def _payment(state: State, args: Args, allowed: tuple[str, ...], verb: str) -> dict[str, Any]:
    return finance.acted_on(state, args, "payments", "paymentId", allowed, verb)


def _submit(state: State, args: Args) -> dict[str, Any]:
    payment = _payment(state, args, ("draft",), "submitted")
    approver = finance.require_approver(state, args["approverId"])
    approval = approvals.request_approval(
        state, "payment", payment["id"], approver["id"], payment["amount"], args["actorId"]
    )
    payment["status"] = "pending_approval"
    audit(state, args, "payment.submitted", payment, {"approvalId": approval["id"]})
    return snapshot(payment)


def _approve(state: State, args: Args) -> dict[str, Any]:
    payment = _payment(state, args, ("draft", "pending_approval"), "approved")
    decider = state["users"][args["actorId"]]
    approval = finance.approve_document(
        state, "payment", payment, decider, float(payment["amount"]), args.get("note", "")
    )
    payment["status"] = "approved"
    payment["approvedBy"] = decider["id"]
    payment["approvedAt"] = state["now"]
    audit(state, args, "payment.approved", payment, {"approvalId": approval["id"]})
    return snapshot(payment)


def _targets(state: State, payment: Any) -> list[tuple[Any, float]]:
    """Each allocated invoice with its share, checked to still accept that much."""
    found = []
    for share in payment["allocations"]:
        invoice = fetch(
            state, INVOICE_COLLECTIONS[share["invoiceId"].split("-")[0]], share["invoiceId"]
        )
        require_status(invoice, ("approved", "partially_paid"), "paid")
        if float(share["amount"]) > outstanding(invoice) + 0.005:
            raise ToolError(
                "invalid_state",
                f"{invoice['id']} has only {outstanding(invoice)} outstanding; cancel "
                f"{payment['id']} and raise a new payment",
                {"id": invoice["id"]},
            )
        found.append((invoice, float(share["amount"])))
    return found


def _complete(state: State, args: Args) -> dict[str, Any]:
    payment = _payment(state, args, ("approved",), "completed (approve it first)")
    targets = _targets(state, payment)
    for invoice, share in targets:
        apply_payment(invoice, share)
    payment["status"] = "completed"
    payment["completedAt"] = state["now"]
    if "reference" in args:
        payment["reference"] = args["reference"]
    audit(state, args, "payment.completed", payment, {"amount": payment["amount"]})
    return snapshot(payment)


def _fail(state: State, args: Args) -> dict[str, Any]:
    payment = _payment(state, args, ("approved",), "marked failed")
    payment["status"] = "failed"
    payment["failedAt"] = state["now"]
    payment["failureReason"] = non_blank(args["reason"], "reason")
    audit(state, args, "payment.failed", payment, {"reason": payment["failureReason"]})
    return snapshot(payment)


def _retry(state: State, args: Args) -> dict[str, Any]:
    failed = _payment(state, args, ("failed",), "retried")
    allocations = []
    for share in failed["allocations"]:
        invoice, pay = _payable_invoice(state, share["invoiceId"], None)
        allocations.append({"invoiceId": invoice["id"], "amount": pay})
    retry = new_payment(
        state,
        {**args, "method": args.get("method", failed["method"])},
        (failed["partyType"], failed["partyId"]),
        allocations,
    )
    retry["retryOfPaymentId"] = failed["id"]
    audit(state, args, "payment.retried", retry, {"retryOfPaymentId": failed["id"]})
    return snapshot(retry)


def _cancel(state: State, args: Args) -> dict[str, Any]:
    payment = _payment(state, args, ("draft", "pending_approval", "approved"), "cancelled")
    note = non_blank(args["reason"], "reason")
    approvals.cancel_pending(state, "payment", payment["id"], args["actorId"], note)
    payment["status"] = "cancelled"
    audit(state, args, "payment.cancelled", payment, {"reason": note})
    return snapshot(payment)


def _payment_input(description: str, **extra: Schema) -> Schema:
    return acting_on("payment", "paymentId", description, **extra)


TOOLS: list[Tool] = [
    list_tool(
        "list_payments",
        "List payments (vendor, customer and expense reimbursements). Filter by status, "
        "direction, party or method.",
        "payments",
        {
            "status": choice(PAYMENT_STATUSES, "Only payments in this status."),
            "direction": choice(("inbound", "outbound"), "inbound (received) or outbound (paid)."),
            "partyId": text("Vendor, customer or user id paid or paying.", max_length=20),
            "method": choice(PAYMENT_METHODS, "Only this payment method."),
        },
    ),
    get_tool(
        "get_payment",
        "One payment with its allocations, approval and completion.",
        "payments",
        "payment",
        "paymentId",
        example="PAY-003",
    ),
    WRITES.tool(
        "create_vendor_payment",
        "Raise a draft payment of an approved or part-paid vendor invoice. amount defaults to "
        "everything still payable and may not exceed it. Then submit, approve and complete it.",
        obj(
            {
                "actorId": actor(),
                "vendorInvoiceId": record_id("vendor_invoice", "Invoice to pay."),
                "amount": amount("Amount to pay (default: the full payable amount)."),
                "method": METHOD,
                "reference": text("Remittance reference.", max_length=100),
            },
            ["actorId", "vendorInvoiceId"],
        ),
        _create,
    ),
    WRITES.tool(
        "submit_payment_for_approval",
        "Send a draft payment to a named approver (creates a pending approval).",
        _payment_input("Draft payment.", approverId=record_id("user", "User who should approve.")),
        _submit,
    ),
    WRITES.tool(
        "approve_payment",
        "Approve a payment. The acting user must be the named approver of its pending approval "
        "(if any) and have a limit covering the amount.",
        obj(
            {
                "actorId": actor(),
                "paymentId": record_id("payment", "Payment to approve."),
                "note": long_text("Optional approval note."),
            },
            ["actorId", "paymentId"],
        ),
        _approve,
    ),
    WRITES.tool(
        "complete_payment",
        "Mark an approved payment as sent: its amounts are applied to the invoices, which "
        "become paid or partially_paid.",
        obj(
            {
                "actorId": actor(),
                "paymentId": record_id("payment", "Approved payment."),
                "reference": text("Bank reference of the transfer.", max_length=100),
            },
            ["actorId", "paymentId"],
        ),
        _complete,
    ),
    WRITES.tool(
        "fail_payment",
        "Record that an approved payment failed (e.g. returned by the bank). Invoice balances "
        "are untouched.",
        _payment_input("Approved payment that failed.", reason=reason("Why it failed.")),
        _fail,
    ),
    WRITES.tool(
        "retry_failed_payment",
        "Raise a new draft payment for what is still owed on a failed payment's invoices. The "
        "failed payment stays on record.",
        obj(
            {
                "actorId": actor(),
                "paymentId": record_id("payment", "The failed payment."),
                "method": METHOD,
            },
            ["actorId", "paymentId"],
        ),
        _retry,
    ),
    WRITES.tool(
        "cancel_payment",
        "Cancel a payment that has not been completed; its pending approval is cancelled.",
        _payment_input("Payment to cancel.", reason=reason("Why it is cancelled.")),
        _cancel,
    ),
    *cash_flows.TOOLS,
]

__all__ = ["TOOLS"]
