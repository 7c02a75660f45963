"""The reference solver's full procure-to-pay cycle (TASK-017), one clerk step at a time.

Contract: :func:`procure_to_pay` raises a requisition, checks it against its budget and — when
the budget falls short — raises the allocation by exactly the shortfall (as the budget holder
named in the instruction) before anyone approves; then orders at the stated price, approves and
sends, receives everything, registers the vendor's invoice for what was received, matches,
approves and pays it. Budget shortfalls are read from ``check_requisition_budget`` and
``get_purchase_order_budget_impact``, never assumed.
"""

from __future__ import annotations

from typing import Any

from .solver_flows import approve_invoice, settle
from .solver_kit import Call, dollars, first, user_after

__all__ = ["procure_to_pay"]


def _people(task: str) -> dict[str, str]:
    names = {
        "buyer": "Daniel Reyes",
        "approver": "Priya Nair",
        "receiver": "Tom Braddock",
        "clerk": "Marcus Lindqvist",
        "payer": "Sofia Duarte",
        "controller": "Ken Adeyemi",
        "requester": "Rina Kapoor",
    }
    return {role: user_after(name, task) for role, name in names.items()}


def _cover(call: Call, controller: str, budget_id: str, shortfall: float, why: str) -> str:
    """Raise a budget's allocation by ``shortfall``; returns what was done (or "")."""
    if shortfall <= 0:
        return ""
    budget = call("get_budget", {"budgetId": budget_id})
    raised = round(float(budget["allocated"]) + shortfall, 2)
    call(
        "update_budget",
        {"actorId": controller, "budgetId": budget_id, "allocated": raised, "reason": why},
    )
    return f"raised {budget_id} allocation by {shortfall:.2f} to {raised:.2f} ({why}); "


def _requisition(task: str, call: Call, who: dict[str, str]) -> tuple[dict[str, Any], str]:
    product = first(r"\(product (PRD-\d+)\)", task)
    budget_id = first(r"budget (BUD-\d+)", task)
    department = call("get_budget", {"budgetId": budget_id})["departmentId"]
    requisition = call(
        "create_requisition",
        {
            "actorId": who["requester"],
            "requesterId": who["requester"],
            "departmentId": department,
            "budgetId": budget_id,
            "title": f"{product} for Facilities",
            "lines": [
                {
                    "productId": product,
                    "quantity": int(first(r"need (\d+) cases", task)),
                    "unitPrice": dollars(task),
                }
            ],
        },
    )
    call(
        "submit_requisition",
        {
            "actorId": who["requester"],
            "requisitionId": requisition["id"],
            "approverId": who["approver"],
        },
    )
    check = call("check_requisition_budget", {"requisitionId": requisition["id"]})
    note = _cover(call, who["controller"], budget_id, float(check["shortfall"]), "requisition")
    call("approve_requisition", {"actorId": who["approver"], "requisitionId": requisition["id"]})
    return requisition, note


def _order(
    task: str, call: Call, who: dict[str, str], requisition: dict[str, Any]
) -> tuple[str, str]:
    line = requisition["lines"][0]
    po = call(
        "create_purchase_order",
        {
            "actorId": who["buyer"],
            "vendorId": first(r"\(vendor (VEN-\d+)\)", task),
            "requisitionId": requisition["id"],
            "warehouseId": first(r"\((WH-\d+)\)", task),
            "lines": [
                {
                    "productId": line["productId"],
                    "quantity": line["quantity"],
                    "unitPrice": dollars(task),
                }
            ],
        },
    )
    impact = call("get_purchase_order_budget_impact", {"purchaseOrderId": po["id"]})
    note = _cover(
        call, who["controller"], po["budgetId"], float(impact["shortfall"]), "purchase order tax"
    )
    call(
        "submit_purchase_order_for_approval",
        {"actorId": who["buyer"], "purchaseOrderId": po["id"], "approverId": who["approver"]},
    )
    call("approve_purchase_order", {"actorId": who["approver"], "purchaseOrderId": po["id"]})
    call("send_purchase_order", {"actorId": who["buyer"], "purchaseOrderId": po["id"]})
    return str(po["id"]), note


def procure_to_pay(task: str, call: Call) -> str:
    """Requisition to payment for the goods, quantity, vendor and price the instruction states."""
    who = _people(task)
    requisition, note = _requisition(task, call, who)
    po_id, po_note = _order(task, call, who, requisition)
    receipt = call("receive_goods", {"actorId": who["receiver"], "purchaseOrderId": po_id})
    invoice = call(
        "create_vendor_invoice",
        {"actorId": who["clerk"], "purchaseOrderId": po_id, "vendorInvoiceNumber": f"INV-{po_id}"},
    )
    approve_invoice(call, invoice["id"], who["clerk"], who["payer"])
    payment = call(
        "create_vendor_payment", {"actorId": who["clerk"], "vendorInvoiceId": invoice["id"]}
    )
    settle(call, payment["id"], who["clerk"], who["payer"])
    return (
        f"{note}{po_note}{requisition['id']} approved; {po_id} approved and sent; received on "
        f"{receipt['id']}; {invoice['id']} matched, approved and paid by {payment['id']}."
    )
