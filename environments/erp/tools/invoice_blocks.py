"""Why a vendor invoice cannot move on: ``explain_invoice_block``.

Contract: read-only. A blocker is ``{type, message, fixWith}``: the invoice's status (cancelled,
rejected, disputed), a cancelled purchase order behind it, a missing current match, each discrepancy of a failed match (with the
tools in :data:`FIX_WITH`) and, for a matched invoice, the approval it waits for (including an
approver whose limit is below the total, to be fixed with ``reassign_approval``). The answer
also says whether the invoice can be approved or paid now and names its pending approval.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, define_tool
from silo.toolkit.guards import Args

from ..domain import approvals
from . import payables
from .common import State, fetch
from .schema import by_id

FIX_WITH = {
    "quantity_mismatch": ["update_vendor_invoice_line", "receive_goods", "run_three_way_match"],
    "price_mismatch": ["update_vendor_invoice_line", "run_three_way_match"],
    "no_receipt": ["receive_goods", "cancel_vendor_invoice", "reject_vendor_invoice"],
    "no_purchase_order": ["reject_vendor_invoice", "cancel_vendor_invoice"],
    "unknown_po_line": ["update_vendor_invoice_line", "reject_vendor_invoice"],
}
"""The tools that clear each kind of match discrepancy."""


def _blocker(kind: str, message: str, fix_with: list[str]) -> dict[str, Any]:
    return {"type": kind, "message": message, "fixWith": fix_with}


def _status_blockers(state: State, invoice: Any) -> list[dict[str, Any]]:
    status = invoice["status"]
    if status in ("cancelled", "rejected"):
        return [_blocker(status, f"The invoice is {status}; it can never be approved or paid", [])]
    if status == "disputed":
        return [
            _blocker(
                "disputed",
                f"In dispute: {invoice['disputeReason']}",
                ["resolve_vendor_invoice_dispute"],
            )
        ]
    found = _order_blockers(state, invoice)
    match = payables.current_match(state, invoice)
    if match is None:
        found.append(_blocker("not_matched", "No current three-way match", ["run_three_way_match"]))
    elif match["status"] != "matched":
        found.extend(
            _blocker(problem["type"], problem["message"], FIX_WITH.get(problem["type"], []))
            for problem in match["discrepancies"]
        )
    return found


def _order_blockers(state: State, invoice: Any) -> list[dict[str, Any]]:
    """A billed purchase order that was cancelled: such an invoice should be closed out."""
    po = payables.purchase_order_of(state, invoice)
    if po is None or po["status"] != "cancelled":
        return []
    message = f"{po['id']} was cancelled ({po.get('cancelReason')}); nothing more will arrive"
    return [
        _blocker(
            "purchase_order_cancelled", message, ["cancel_vendor_invoice", "reject_vendor_invoice"]
        )
    ]


def _approval_blockers(state: State, invoice: Any) -> list[dict[str, Any]]:
    if invoice["status"] not in ("matched", "pending_approval"):
        return []
    pending = approvals.pending_approval(state, "vendor_invoice", invoice["id"])
    if pending is None:
        return [
            _blocker(
                "awaiting_approval",
                "Matched; an authorised user must approve it",
                ["approve_vendor_invoice", "submit_vendor_invoice_for_approval"],
            )
        ]
    approver = state["users"][pending["approverId"]]
    fix = ["approve_vendor_invoice"]
    message = f"Awaiting {pending['id']} by {approver['name']} ({approver['id']})"
    if not approvals.authorised(approver, float(invoice["total"])):
        message += f", whose limit {approver['approvalLimit']} is below {invoice['total']}"
        fix = ["reassign_approval", "approve_vendor_invoice"]
    return [_blocker("awaiting_approval", message, fix)]


def _explain(state: State, args: Args) -> dict[str, Any]:
    invoice = fetch(state, "vendorInvoices", args["vendorInvoiceId"])
    blockers = _status_blockers(state, invoice) + _approval_blockers(state, invoice)
    pending = approvals.pending_approval(state, "vendor_invoice", invoice["id"])
    return {
        "vendorInvoiceId": invoice["id"],
        "status": invoice["status"],
        "total": invoice["total"],
        "blocked": bool(blockers),
        "canBeApproved": invoice["status"] in ("matched", "pending_approval"),
        "canBePaid": invoice["status"] in ("approved", "partially_paid"),
        "pendingApprovalId": pending["id"] if pending else None,
        "blockers": blockers,
    }


EXPLAIN_TOOL: Tool = define_tool(
    "explain_invoice_block",
    "Why a vendor invoice cannot be approved or paid: each blocker (match discrepancies, "
    "missing match, cancelled order, dispute, pending approval, an approver without authority) "
    "with the tools that fix it.",
    by_id("vendor_invoice", "vendorInvoiceId", "Invoice to explain, e.g. VINV-104."),
    _explain,
    read_only=True,
)

__all__ = ["EXPLAIN_TOOL", "FIX_WITH"]
