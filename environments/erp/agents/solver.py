"""Scripted reference solver for the eighteen ERP tasks.

Contract: ``agent(inp)`` recognises the task by a phrase of its instruction and solves it through
the tools alone, the way a careful clerk would: it reads before it writes (availability, budget
sufficiency, the cheapest valid quotation, what was received) and takes every id and figure it
needs from the instruction or from a tool result — which invoice falls due this week, which
customer owes the most, which line is mis-billed and how far a budget falls short are read from
the tools, never known in advance. It returns ``{"output": <what it did>}``. A refused call
raises :class:`SolverError` (see ``solver_kit``). This module holds the router and the
single-document tasks; the multi-step flows live in ``solver_flows``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .solver_flows import (
    escalate_requisition,
    fix_invoice_price,
    fix_invoice_quantity,
    pay_due_this_week,
    recover_failed_payment,
    ship_from_several_sites,
)
from .solver_kit import Call, SolverError, caller, first
from .solver_p2p import procure_to_pay

__all__ = ["agent"]


def _actor(task: str) -> str:
    return first(r"You are [^(]+\(user (USR-\d+)\)", task)


def update_terms(task: str, call: Call) -> str:
    vendor = first(r"\(vendor (VEN-\d+)\)", task)
    terms = first(r"payment terms to (NET_\d+|DUE_ON_RECEIPT)", task)
    call("update_vendor", {"actorId": _actor(task), "vendorId": vendor, "paymentTerms": terms})
    return f"{vendor} is now on {terms}."


def block_vendor(task: str, call: Call) -> str:
    vendor = call("get_vendor", {"vendorId": first(r"\(vendor (VEN-\d+)\)", task)})
    reason = "Failed repeated quality audits; no new purchase orders until requalified."
    call("block_vendor", {"actorId": _actor(task), "vendorId": vendor["id"], "reason": reason})
    return f"Blocked {vendor['id']} ({vendor['name']}): {reason}"


def hold_largest_debtor(task: str, call: Call) -> str:
    floor = float(first(r"above \$([\d,]+)", task).replace(",", ""))
    large = call("list_overdue_customer_invoices", {"minimumAmount": floor})["results"]
    balances: dict[str, float] = {}
    for invoice in call("list_overdue_customer_invoices", {})["results"]:
        balances[invoice["customerId"]] = balances.get(invoice["customerId"], 0) + float(
            invoice["outstanding"]
        )
    debtor = max(balances, key=lambda cid: (balances[cid], cid))
    call(
        "block_customer",
        {
            "actorId": _actor(task),
            "customerId": debtor,
            "status": "credit_hold",
            "reason": f"Non-payment: {balances[debtor]:.2f} overdue",
        },
    )
    ids = ", ".join(inv["id"] for inv in large)
    return f"Overdue above ${floor:,.0f}: {ids}. {debtor} owes the most and is on credit hold."


def requisition_for_shortage(task: str, call: Call) -> str:
    product = first(r"\(product (PRD-\d+)\)", task)
    warehouse = first(r"\((WH-\d+)\)", task)
    wanted = int(first(r"wants (\d+)", task))
    stock = call("get_available_quantity", {"productId": product, "warehouseId": warehouse})
    if stock["available"] >= wanted:
        return f"{stock['available']} available at {warehouse}: no requisition needed."
    reorder = call("get_product", {"productId": product})["reorderQuantity"]
    requester = first(r"requested by [^(]+\(user (USR-\d+)\)", task)
    made = call(
        "create_requisition",
        {
            "actorId": requester,
            "requesterId": requester,
            "departmentId": first(r"\((DEPT-[A-Z]+)\)", task),
            "budgetId": first(r"\((BUD-\d+)\)", task),
            "title": f"Replenish {product} at {warehouse}",
            "lines": [{"productId": product, "quantity": reorder}],
        },
    )
    return f"Only {stock['available']} available; raised {made['id']} for {reorder} units."


def reject_over_budget(task: str, call: Call) -> str:
    requisition = first(r"Requisition (PR-\d+)", task)
    budget = call("check_requisition_budget", {"requisitionId": requisition})
    actor = _actor(task)
    if budget["sufficient"]:
        call("approve_requisition", {"actorId": actor, "requisitionId": requisition})
        return f"{requisition} approved within budget."
    reason = (
        f"Budget {budget['budgetId']} has {budget['headroom']:.2f} headroom against "
        f"{budget['amount']:.2f}: shortfall {budget['shortfall']:.2f}."
    )
    call("reject_requisition", {"actorId": actor, "requisitionId": requisition, "reason": reason})
    return f"Rejected {requisition}. {reason}"


def transfer_stock(task: str, call: Call) -> str:
    product = first(r"\(product (PRD-\d+)\)", task)
    source = first(r"from the [^(]+\((WH-\d+)\)", task)
    dest = first(r"at the [^(]+\((WH-\d+)\)", task)
    quantity = int(first(r"Move (\d+)", task))
    call(
        "transfer_inventory",
        {
            "actorId": _actor(task),
            "productId": product,
            "fromWarehouseId": source,
            "toWarehouseId": dest,
            "quantity": quantity,
            "reason": "Rebalance below reorder point",
        },
    )
    return f"Moved {quantity} x {product} from {source} to {dest}."


def receive_balance(task: str, call: Call) -> str:
    po = call("get_purchase_order", {"purchaseOrderId": first(r"order (PO-\d+)", task)})
    receipt = call(
        "receive_goods",
        {"actorId": _actor(task), "purchaseOrderId": po["id"], "warehouseId": po["warehouseId"]},
    )
    return f"Received the outstanding balance of {po['id']} on {receipt['id']}."


def cancel_po(task: str, call: Call) -> str:
    po = first(r"order (PO-\d+)", task)
    call(
        "cancel_purchase_order",
        {"actorId": _actor(task), "purchaseOrderId": po, "reason": "Duplicate request"},
    )
    return f"Cancelled {po} as a duplicate request."


def invoice_shipment(task: str, call: Call) -> str:
    actor = _actor(task)
    order = first(r"Sales order (SO-\d+)", task)
    draft = call("create_customer_invoice", {"actorId": actor, "salesOrderId": order})
    issued = call("issue_customer_invoice", {"actorId": actor, "customerInvoiceId": draft["id"]})
    return f"Issued {issued['id']} for what shipped on {order}."


def award_and_order(task: str, call: Call) -> str:
    rfq = first(r"on (RFQ-\d+)", task)
    buyer = first(r"Daniel Reyes \(user (USR-\d+)\)", task)
    approver = first(r"Priya Nair \(user (USR-\d+)\)", task)
    best = call("find_cheapest_valid_quotation", {"rfqId": rfq})
    call("accept_quotation", {"actorId": buyer, "quotationId": best["id"]})
    po = call(
        "create_purchase_order",
        {
            "actorId": buyer,
            "vendorId": best["vendorId"],
            "quotationId": best["id"],
            "warehouseId": first(r"\((WH-\d+)\)", task),
            "budgetId": first(r"\((BUD-\d+)\)", task),
        },
    )
    call(
        "submit_purchase_order_for_approval",
        {"actorId": buyer, "purchaseOrderId": po["id"], "approverId": approver},
    )
    call("approve_purchase_order", {"actorId": approver, "purchaseOrderId": po["id"]})
    return f"Awarded {rfq} to {best['id']}; {po['id']} approved, not sent."


def close_cancelled_order_invoice(task: str, call: Call) -> str:
    actor = _actor(task)
    po = first(r"order (PO-\d+)", task)
    invoice = first(r"invoice (VINV-\d+)", task)
    receipts = call("list_receipts_for_purchase_order", {"purchaseOrderId": po})["results"]
    if receipts:
        raise SolverError(f"{po} has receipts {receipts}; the task expects none")
    reason = f"{po} was cancelled and nothing was ever received against it; not payable."
    call("cancel_vendor_invoice", {"actorId": actor, "vendorInvoiceId": invoice, "reason": reason})
    return f"Confirmed no receipts on {po}; cancelled {invoice}: {reason}"


def set_credit_limit(task: str, call: Call) -> str:
    """TASK-020 (template): set the named customer's credit limit to the stated amount."""
    customer = first(r"\(customer (CUS-\d+)\)", task)
    limit = float(first(r"credit limit to \$([\d,]+)", task).replace(",", ""))
    call("update_customer", {"actorId": _actor(task), "customerId": customer, "creditLimit": limit})
    return f"{customer} now has a credit limit of ${limit:,.0f}."


def adjust_stock(task: str, call: Call) -> str:
    """TASK-021 (template): adjust the stated stock row by the stated signed quantity."""
    args = {
        "actorId": _actor(task),
        "productId": first(r"\(product (PRD-\d+)\)", task),
        "warehouseId": first(r"in warehouse (WH-\d+)", task),
        "quantityChange": int(first(r"on-hand stock by (-?\d+) units", task)),
        "reason": "Cycle count correction",
    }
    call("adjust_inventory", args)
    return f"Adjusted {args['productId']} in {args['warehouseId']} by {args['quantityChange']}."


ROUTES: list[tuple[str, Callable[[str, Call], str]]] = [
    ("set its credit limit to", set_credit_limit),
    ("Adjust the on-hand stock by", adjust_stock),
    ("change its payment terms", update_terms),
    ("Block the vendor", block_vendor),
    ("single largest overdue balance", hold_largest_debtor),
    ("Check whether that many are available", requisition_for_shortage),
    ("Approve it only if", reject_over_budget),
    ("fallen below their reorder point", transfer_stock),
    ("was only partly delivered", receive_balance),
    ("was raised in error", cancel_po),
    ("never invoiced", invoice_shipment),
    ("cheapest quotation that is still valid", award_and_order),
    ("Work out why", fix_invoice_quantity),
    ("billed the wrong rate", fix_invoice_price),
    ("no single warehouse holds that many", ship_from_several_sites),
    ("above her approval limit", escalate_requisition),
    ("falls due within the next", pay_due_this_week),
    ("payment against invoice", recover_failed_payment),
    ("Run the whole cycle", procure_to_pay),
    ("still on file against it", close_cancelled_order_invoice),
]


def agent(inp: Any) -> dict[str, str]:
    """Solve the task in ``inp`` and return what was done."""
    task = inp.task
    for phrase, solve in ROUTES:
        if phrase.casefold() in task.casefold():
            return {"output": solve(task, caller(inp))}
    raise SolverError("this solver does not recognise the task")
