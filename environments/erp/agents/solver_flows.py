"""The multi-step flows of the ERP reference solver: payments, invoice corrections, escalation,
split shipments and the full procure-to-pay cycle.

Contract: each flow is ``flow(task, call) -> summary`` as the router in ``solver.py`` expects;
every figure a flow writes (the corrected quantity, the agreed price, a budget shortfall, what
is still owed) is read from a tool first. :func:`settle` is the one payment path (raise, submit,
approve, complete) the payment flows share; :func:`approve_invoice` the one re-match and
approval path of the invoice flows.
"""

from __future__ import annotations

from typing import Any

from .solver_kit import Call, SolverError, first, user_after

__all__ = [
    "escalate_requisition",
    "fix_invoice_price",
    "fix_invoice_quantity",
    "pay_due_this_week",
    "recover_failed_payment",
    "settle",
    "ship_from_several_sites",
]

_CLERK, _APPROVER = "Marcus Lindqvist", "Sofia Duarte"


def settle(call: Call, payment_id: str, clerk: str, approver: str) -> dict[str, Any]:
    """Take a draft payment through approval to completion; returns the completed payment."""
    call(
        "submit_payment_for_approval",
        {"actorId": clerk, "paymentId": payment_id, "approverId": approver},
    )
    call("approve_payment", {"actorId": approver, "paymentId": payment_id})
    done: dict[str, Any] = call("complete_payment", {"actorId": clerk, "paymentId": payment_id})
    return done


def pay_due_this_week(task: str, call: Call) -> str:
    days = int(first(r"within the next (\d+) days", task))
    clerk, approver = user_after(_CLERK, task), user_after(_APPROVER, task)
    due = call("list_invoices_due_soon", {"days": days})["results"]
    if len(due) != 1:
        raise SolverError(f"expected exactly one invoice due within {days} days, found {due}")
    invoice = due[0]
    payment = call(
        "create_vendor_payment",
        {"actorId": clerk, "vendorInvoiceId": invoice["id"], "method": "bank_transfer"},
    )
    settle(call, payment["id"], clerk, approver)
    return f"Paid {invoice['id']} in full with {payment['id']} by bank transfer."


def recover_failed_payment(task: str, call: Call) -> str:
    clerk, approver = user_after(_CLERK, task), user_after(_APPROVER, task)
    invoice_id = first(r"invoice (VINV-\d+)", task)
    vendor = first(r"\(vendor (VEN-\d+)\)", task)
    email = first(r"email as (\S+@\S+?)[,.]? ", task)
    call("update_vendor", {"actorId": clerk, "vendorId": vendor, "contactEmail": email})
    failed = [
        p
        for p in call("list_payments_for_invoice", {"invoiceId": invoice_id})["results"]
        if p["status"] == "failed"
    ]
    if not failed:
        raise SolverError(f"{invoice_id} has no failed payment to recover")
    fresh = call("retry_failed_payment", {"actorId": clerk, "paymentId": failed[0]["id"]})
    settle(call, fresh["id"], clerk, approver)
    return f"Updated {vendor}'s email; {failed[0]['id']} stays failed; paid {invoice_id} with {fresh['id']}."


def approve_invoice(call: Call, invoice_id: str, clerk: str, approver: str) -> str:
    """Re-run the three-way match, submit the invoice and approve it; returns the match id."""
    match = call("run_three_way_match", {"actorId": clerk, "vendorInvoiceId": invoice_id})
    if match["status"] != "matched":
        raise SolverError(f"{invoice_id} still fails its match: {match}")
    call(
        "submit_vendor_invoice_for_approval",
        {"actorId": clerk, "vendorInvoiceId": invoice_id, "approverId": approver},
    )
    call("approve_vendor_invoice", {"actorId": approver, "vendorInvoiceId": invoice_id})
    return str(match["id"])


def _po_lines(call: Call, invoice: dict[str, Any]) -> dict[str, dict[str, Any]]:
    po = call("get_purchase_order", {"purchaseOrderId": invoice["purchaseOrderId"]})
    return {line["id"]: line for line in po["lines"]}


def _correct(task: str, call: Call, field: str) -> str:
    """Set the mis-billed ``field`` of an invoice to what the PO says, then re-match and approve."""
    clerk, approver = user_after(_CLERK, task), user_after(_APPROVER, task)
    invoice = call("get_vendor_invoice", {"vendorInvoiceId": first(r"[Ii]nvoice (VINV-\d+)", task)})
    po_lines = _po_lines(call, invoice)
    fixed = []
    for line in invoice["lines"]:
        po_line = po_lines[line["poLineId"]]
        # what this invoice may bill: received, less what other invoices already billed
        billable = po_line["receivedQuantity"] - po_line["invoicedQuantity"] + line["quantity"]
        right = po_line["unitPrice"] if field == "unitPrice" else billable
        if line[field] != right:
            call(
                "update_vendor_invoice_line",
                {
                    "actorId": clerk,
                    "vendorInvoiceId": invoice["id"],
                    "lineId": line["id"],
                    field: right,
                },
            )
            fixed.append(f"{line['id']} {field} {line[field]} -> {right}")
    if not fixed:
        raise SolverError(f"{invoice['id']} has no line whose {field} disagrees with the PO")
    match = approve_invoice(call, invoice["id"], clerk, approver)
    return f"Corrected {'; '.join(fixed)}; {match} matched; {invoice['id']} approved."


def fix_invoice_price(task: str, call: Call) -> str:
    return _correct(task, call, "unitPrice")


def fix_invoice_quantity(task: str, call: Call) -> str:
    return _correct(task, call, "quantity")


def escalate_requisition(task: str, call: Call) -> str:
    requisition = first(r"Requisition (PR-\d+)", task)
    holder = first(r"\(user (USR-\d+)\)", task)
    approval = call("list_requisition_approvals", {"requisitionId": requisition})["results"]
    pending = next(a for a in approval if a["status"] == "pending")
    authority = call("check_approval_authority", {"approvalId": pending["id"]})
    chosen = authority["authorisedUsers"][0]["id"]
    call(
        "reassign_approval",
        {
            "actorId": holder,
            "approvalId": pending["id"],
            "toUserId": chosen,
            "note": f"{pending['amount']} exceeds my limit; escalated to {chosen}",
        },
    )
    call("approve_requisition", {"actorId": chosen, "requisitionId": requisition})
    return f"Reassigned {pending['id']} to {chosen}, who approved {requisition}."


def ship_from_several_sites(task: str, call: Call) -> str:
    actor = first(r"You are [^(]+\(user (USR-\d+)\)", task)
    order = call("get_sales_order", {"salesOrderId": first(r"Sales order (SO-\d+)", task)})
    shipments = []
    for line in order["lines"]:
        need = line["quantity"] - line["fulfilledQuantity"]
        sites = call(
            "find_warehouses_with_stock", {"productId": line["productId"], "quantity": need}
        )
        for site in sorted(sites["warehouses"], key=lambda s: -s["available"]):
            take = min(need, site["available"])
            if take <= 0:
                continue
            shipped = call(
                "fulfill_sales_order",
                {
                    "actorId": actor,
                    "salesOrderId": order["id"],
                    "lines": [
                        {"lineId": line["id"], "quantity": take, "warehouseId": site["warehouseId"]}
                    ],
                },
            )
            shipments.append(f"{shipped['id']} {take} from {site['warehouseId']}")
            need -= take
        if need:
            raise SolverError(f"{line['id']} is still {need} short after every warehouse")
    return f"Shipped {order['id']} in full: {', '.join(shipments)}."
