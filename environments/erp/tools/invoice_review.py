"""Vendor invoice review: three-way match, approval, rejection and disputes.

Contract: ``run_three_way_match`` stores a ``MATCH`` record of the comparison made by
:func:`payables.three_way_match` (price tolerance 2 %, quantity 0 % unless given) and moves the
invoice to ``matched`` (clean) or ``exception``. ``submit_vendor_invoice_for_approval`` and
``approve_vendor_invoice`` are refused unless the invoice's current match passed; approval
needs the approver's limit to cover the invoice total (:func:`finance.approve_document`).
``reject_vendor_invoice`` and disputes act only before approval; a rejection releases the
invoiced quantities, a dispute blocks the invoice until ``resolve_vendor_invoice_dispute``
returns it to ``pending_match``. :func:`close_out` is the one way an invoice is cancelled or
rejected. Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args, non_blank
from silo.toolkit.results import snapshot, sorted_by_id
from silo.toolkit.schema import Schema, obj, text

from ..domain import approvals
from ..state import mint_id
from . import finance, payables
from .common import WRITES, State, audit, page, require_status
from .crud import get_tool
from .invoice_blocks import FIX_WITH
from .schema import acting_on, actor, listing, long_text, reason, record_id


def _invoice(state: State, args: Args) -> dict[str, Any]:
    return finance.acted_on(state, args, "vendorInvoices", "vendorInvoiceId", None, "")


def _run_match(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args)
    require_status(invoice, payables.MATCHABLE, "matched (correct or resolve it first)")
    tol = payables.tolerances(state, args)
    receipts, problems = payables.three_way_match(state, invoice, tol)
    match = {
        "id": mint_id(state, "MATCH"),
        "vendorInvoiceId": invoice["id"],
        "purchaseOrderId": invoice.get("purchaseOrderId"),
        "status": "failed" if problems else "matched",
        "runAt": state["now"],
        "runBy": args["actorId"],
        "priceTolerancePct": tol[0],
        "quantityTolerancePct": tol[1],
        "goodsReceiptIds": receipts,
        "discrepancies": problems,
    }
    state["threeWayMatches"][match["id"]] = match
    invoice["matchId"] = match["id"]
    invoice["status"] = "exception" if problems else "matched"
    details = {"matchId": match["id"], "status": match["status"]}
    WRITES.audit(state, args, "three_way_match.run", "vendor_invoice", invoice["id"], details)
    return snapshot({**match, "vendorInvoiceStatus": invoice["status"], "total": invoice["total"]})


def finance_view(state: State, invoice: Any) -> dict[str, Any]:
    """The invoice as a mutating tool returns it (a detached copy)."""
    return payables.shown(state, invoice)


def _discrepancies(state: State, args: Args) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for invoice in sorted_by_id(state["vendorInvoices"].values()):
        match = payables.current_match(state, invoice)
        if invoice["status"] != "exception" or match is None or match["status"] != "failed":
            continue
        if args.get("vendorId", invoice["vendorId"]) != invoice["vendorId"]:
            continue
        if args.get("vendorInvoiceId", invoice["id"]) != invoice["id"]:
            continue
        rows.extend(
            {
                "vendorInvoiceId": invoice["id"],
                "vendorId": invoice["vendorId"],
                "invoiceStatus": invoice["status"],
                "matchId": match["id"],
                **problem,
                "fixWith": FIX_WITH.get(problem["type"], []),
            }
            for problem in match["discrepancies"]
        )
    return page(rows, args)


def _submit(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args)
    require_status(invoice, ("matched",), "submitted for approval (run the match first)")
    payables.require_passing_match(state, invoice, "submitted")
    approver = finance.require_approver(state, args["approverId"])
    approval = approvals.pending_approval(state, "vendor_invoice", invoice["id"])
    if approval is not None and approval["approverId"] == approver["id"]:
        # A request raised before the invoice was corrected stands; it now asks for the new total.
        approval["amount"] = invoice["total"]
    else:
        approval = approvals.request_approval(
            state,
            "vendor_invoice",
            invoice["id"],
            approver["id"],
            invoice["total"],
            args["actorId"],
        )
    invoice["status"] = "pending_approval"
    audit(state, args, "vendor_invoice.submitted", invoice, {"approvalId": approval["id"]})
    return finance_view(state, invoice)


def _approve(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args)
    require_status(invoice, ("matched", "pending_approval"), "approved")
    payables.require_passing_match(state, invoice, "approved")
    decider = state["users"][args["actorId"]]
    approval = finance.approve_document(
        state,
        "vendor_invoice",
        invoice,
        decider,
        payables.total_billed(invoice),
        args.get("note", ""),
    )
    invoice["status"] = "approved"
    audit(state, args, "vendor_invoice.approved", invoice, {"approvalId": approval["id"]})
    return finance_view(state, invoice)


def close_out(state: State, args: Args, allowed: tuple[str, ...], status: str) -> dict[str, Any]:
    """Cancel or reject an invoice: no live payments, pending approval closed, units released.

    ``status`` is ``cancelled`` (the approval is cancelled) or ``rejected`` (its approver's
    rejection decides it); the reason is kept in ``cancelReason`` or ``rejectionReason``.
    """
    invoice = _invoice(state, args)
    verb = status
    require_status(invoice, allowed, verb)
    finance.require_no_live_payments(state, invoice, verb)
    note = non_blank(args["reason"], "reason")
    actor_user = state["users"][args["actorId"]]
    if status == "rejected":
        finance.reject_document(state, "vendor_invoice", invoice, actor_user, note)
    else:
        approvals.cancel_pending(state, "vendor_invoice", invoice["id"], actor_user["id"], note)
    payables.shift_invoiced(state, invoice, -1)
    invoice["status"] = status
    invoice["cancelReason" if status == "cancelled" else "rejectionReason"] = note
    audit(state, args, f"vendor_invoice.{status}", invoice, {"reason": note})
    return finance_view(state, invoice)


def _reject(state: State, args: Args) -> dict[str, Any]:
    return close_out(state, args, payables.EDITABLE, "rejected")


def _dispute(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args)
    require_status(
        invoice, ("pending_match", "matched", "exception", "pending_approval"), "disputed"
    )
    note = non_blank(args["reason"], "reason")
    approvals.cancel_pending(state, "vendor_invoice", invoice["id"], args["actorId"], note)
    invoice["status"] = "disputed"
    invoice["disputeReason"] = note
    audit(state, args, "vendor_invoice.disputed", invoice, {"reason": note})
    return finance_view(state, invoice)


def _resolve(state: State, args: Args) -> dict[str, Any]:
    invoice = _invoice(state, args)
    require_status(invoice, ("disputed",), "resolved")
    resolution = non_blank(args["resolution"], "resolution")
    details = {"disputeReason": invoice["disputeReason"], "resolution": resolution}
    invoice["status"] = "pending_match"
    invoice["matchId"] = None
    invoice["disputeReason"] = None
    audit(state, args, "vendor_invoice.dispute_resolved", invoice, details)
    return finance_view(state, invoice)


def _tolerance(description: str) -> Schema:
    return {"type": "number", "description": description, "minimum": 0, "maximum": 10}


def _invoice_input(description: str, extra: dict[str, Schema], required: tuple[str, ...]) -> Schema:
    return obj(
        {"actorId": actor(), "vendorInvoiceId": record_id("vendor_invoice", description), **extra},
        ["actorId", "vendorInvoiceId", *required],
    )


MATCH_TOOLS: list[Tool] = [
    WRITES.tool(
        "run_three_way_match",
        "Compare an invoice with its purchase order and posted goods receipts. Records a MATCH "
        "and sets the invoice to matched (clean) or exception (discrepancies listed). "
        "Tolerances default to the company's 2% on price and 0% on quantity.",
        _invoice_input(
            "Invoice to match.",
            {
                "priceTolerancePct": _tolerance("Allowed overbilling on unit price, percent."),
                "quantityTolerancePct": _tolerance("Allowed overbilling on quantity, percent."),
            },
            (),
        ),
        _run_match,
    ),
    get_tool(
        "get_three_way_match",
        "One three-way match record with its tolerances, receipts considered and discrepancies.",
        "threeWayMatches",
        "match",
        "matchId",
        example="MATCH-003",
    ),
    define_tool(
        "list_invoice_discrepancies",
        "Discrepancies of every invoice whose current match failed, each with the tools that "
        "fix it. Filter by vendor or invoice.",
        listing(
            {
                "vendorId": record_id("vendor", "Only this vendor's invoices."),
                "vendorInvoiceId": record_id("vendor_invoice", "Only this invoice."),
            }
        ),
        _discrepancies,
        read_only=True,
    ),
    WRITES.tool(
        "submit_vendor_invoice_for_approval",
        "Send a matched invoice to a named approver (creates a pending approval, or keeps the "
        "one already pending with that approver). Refused while the match is missing or failing.",
        _invoice_input(
            "Matched invoice to submit.",
            {"approverId": record_id("user", "User who should approve it.")},
            ("approverId",),
        ),
        _submit,
    ),
    WRITES.tool(
        "approve_vendor_invoice",
        "Approve an invoice whose current three-way match passed. The acting user must be the "
        "named approver of a pending approval (if any) and have a limit covering the total.",
        _invoice_input("Invoice to approve.", {"note": long_text("Optional approval note.")}, ()),
        _approve,
    ),
    WRITES.tool(
        "reject_vendor_invoice",
        "Reject an invoice before approval; its invoiced quantities return to the PO.",
        acting_on(
            "vendor_invoice",
            "vendorInvoiceId",
            "Invoice to reject.",
            reason=reason("Why it is rejected."),
        ),
        _reject,
    ),
    WRITES.tool(
        "dispute_vendor_invoice",
        "Put an unapproved invoice in dispute with the vendor; it cannot be approved or paid "
        "until the dispute is resolved.",
        acting_on(
            "vendor_invoice",
            "vendorInvoiceId",
            "Invoice to dispute.",
            reason=reason("What is disputed."),
        ),
        _dispute,
    ),
    WRITES.tool(
        "resolve_vendor_invoice_dispute",
        "Close a dispute; the invoice returns to pending_match and must be matched again.",
        acting_on(
            "vendor_invoice",
            "vendorInvoiceId",
            "Disputed invoice.",
            resolution=text("How the dispute was settled.", max_length=2000),
        ),
        _resolve,
    ),
]

__all__ = ["MATCH_TOOLS", "close_out"]
