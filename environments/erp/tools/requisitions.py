"""Requisition tools: internal requests to buy, their approval and budget commitment.

Contract: a requisition is created ``draft`` (lines default to the product's standard cost,
``neededBy`` to 30 days from today) and edited only while draft. ``submit_requisition`` moves
it to ``pending_approval`` with a pending approval for a named approver.
``approve_requisition`` needs the named approver, an approval limit covering the estimated
total, and budget headroom for it, which it commits (``limit_exceeded`` otherwise, nothing
written). ``reject_requisition`` records the reason as the approval's note;
``cancel_requisition`` releases the commitment and cancels a pending approval.
``convert_requisition_to_rfq`` turns an approved requisition into a draft RFQ (blocked or
inactive vendors refused). Each mutation appends one audit row.
"""

from __future__ import annotations

from typing import Any

from silo import Tool, ToolError, define_tool
from silo.toolkit.guards import Args, apply_changes, changes, non_blank
from silo.toolkit.results import snapshot, sorted_by_id
from silo.toolkit.schema import day, obj, text

from ..domain import approvals, budgets
from ..domain.approvals import APPROVALS_BY_ENTITY
from ..state import add_days, mint_id, today
from .common import WRITES, State, active_user, audit, fetch, page, require_status
from .crud import get_tool, list_tool, search_tool
from .lines import line_schema, product_lines, reprice
from .rfq_rules import invitable_vendors, new_rfq
from .schema import (
    REQUISITION_STATUSES,
    acting_on,
    actor,
    by_id,
    id_list,
    listing,
    long_text,
    reason,
    record_id,
)
from .views import requisition_view

UPDATABLE = ("title", "justification", "neededBy", "budgetId", "lines")


def _requisition(state: State, args: Args, allowed: tuple[str, ...], verb: str) -> dict[str, Any]:
    requisition = fetch(state, "requisitions", args["requisitionId"])
    require_status(requisition, allowed, verb)
    return requisition


def _view(state: State, requisition: dict[str, Any]) -> dict[str, Any]:
    return snapshot(requisition_view(state, requisition))


def _create_requisition(state: State, args: Args) -> dict[str, Any]:
    requester = active_user(state, str(args.get("requesterId", args["actorId"])), "requester")
    department = fetch(
        state, "departments", str(args.get("departmentId", requester["departmentId"]))
    )
    budget = budgets.budget_of(state, args["budgetId"])
    title, lines = non_blank(args["title"], "title"), product_lines(state, args["lines"])
    requisition = {
        "id": mint_id(state, "PR"),
        "title": title,
        "requesterId": requester["id"],
        "departmentId": department["id"],
        "budgetId": budget["id"],
        "status": "draft",
        "lines": lines,
        "neededBy": args.get("neededBy", add_days(today(state), 30)),
        "createdAt": state["now"],
        "submittedAt": None,
        "approverId": None,
        "decidedAt": None,
        "committedAmount": 0,
        "rfqId": None,
        "purchaseOrderId": None,
        "rejectionReason": None,
        "justification": args.get("justification", ""),
    }
    reprice(requisition, taxed=False, total_field="estimatedTotal")
    state["requisitions"][requisition["id"]] = requisition
    audit(state, args, "requisition.created", requisition)
    return _view(state, requisition)


def _update_requisition(state: State, args: Args) -> dict[str, Any]:
    requisition = _requisition(state, args, ("draft",), "edited")
    updates = changes(args, UPDATABLE)
    if "budgetId" in updates:
        budgets.budget_of(state, updates["budgetId"])
    if "lines" in updates:
        updates["lines"] = product_lines(state, updates["lines"])
    if "title" in updates:
        updates["title"] = non_blank(updates["title"], "title")
    before = requisition["estimatedTotal"]
    diff = apply_changes(requisition, updates)
    reprice(requisition, taxed=False, total_field="estimatedTotal")
    details = {key: value for key, value in diff.items() if key != "lines"}
    audit(state, args, "requisition.updated", requisition, {**details, "estimatedTotal": {
        "from": before, "to": requisition["estimatedTotal"]}})  # fmt: skip
    return _view(state, requisition)


def _submit_requisition(state: State, args: Args) -> dict[str, Any]:
    requisition = _requisition(state, args, ("draft",), "submitted")
    approver = active_user(state, args["approverId"], "approver")
    approval = approvals.request_approval(
        state, "requisition", requisition["id"], approver["id"],
        requisition["estimatedTotal"], args["actorId"],
    )  # fmt: skip
    requisition["status"] = "pending_approval"
    requisition["submittedAt"] = state["now"]
    requisition["approverId"] = approver["id"]
    audit(state, args, "requisition.submitted", requisition, {"approvalId": approval["id"]})
    return {
        **_view(state, requisition),
        "approvalId": approval["id"],
        "approverAuthorised": approvals.authorised(approver, requisition["estimatedTotal"]),
    }


def _check_requisition_budget(state: State, args: Args) -> dict[str, Any]:
    requisition = fetch(state, "requisitions", args["requisitionId"])
    budget = budgets.budget_of(state, requisition["budgetId"])
    needed = 0 if requisition["committedAmount"] else requisition["estimatedTotal"]
    return {
        "requisitionId": requisition["id"],
        "estimatedTotal": requisition["estimatedTotal"],
        "alreadyCommitted": requisition["committedAmount"],
        **budgets.availability(budget, needed),
    }


def _decide(state: State, args: Args, approve: bool) -> dict[str, Any]:
    requisition = _requisition(state, args, ("pending_approval",), "decided")
    decider = WRITES.actor_of(state, args)
    approval = approvals.pending_approval(state, "requisition", requisition["id"])
    if approval is None:
        raise ToolError(
            "invalid_state",
            f"{requisition['id']} has no pending approval; cancel it and raise a new one",
        )
    note = args.get("note", "") if approve else non_blank(args["reason"], "reason")
    approvals.check_decidable(state, approval, decider, approve)
    if approve:
        budgets.commit(state, requisition, requisition["estimatedTotal"])
    approvals.decide(state, approval, decider, approve=approve, note=note)
    requisition["status"] = "approved" if approve else "rejected"
    requisition["decidedAt"] = state["now"]
    if not approve:
        requisition["rejectionReason"] = note
    verb = "approved" if approve else "rejected"
    audit(state, args, f"requisition.{verb}", requisition, {"approvalId": approval["id"]})
    return {**_view(state, requisition), "approvalId": approval["id"]}


def _approve_requisition(state: State, args: Args) -> dict[str, Any]:
    return _decide(state, args, True)


def _reject_requisition(state: State, args: Args) -> dict[str, Any]:
    return _decide(state, args, False)


def _cancel_requisition(state: State, args: Args) -> dict[str, Any]:
    allowed = ("draft", "pending_approval", "approved")
    requisition = _requisition(state, args, allowed, "cancelled")
    text_reason = non_blank(args["reason"], "reason")
    released = budgets.release(state, requisition)
    cancelled = approvals.cancel_pending(
        state, "requisition", requisition["id"], args["actorId"], f"Cancelled: {text_reason}"
    )
    requisition["status"] = "cancelled"
    requisition["rejectionReason"] = text_reason
    details = {"reason": text_reason, "released": released, "approvalCancelled": cancelled}
    audit(state, args, "requisition.cancelled", requisition, details)
    return _view(state, requisition)


def _list_requisition_approvals(state: State, args: Args) -> dict[str, Any]:
    requisition = fetch(state, "requisitions", args["requisitionId"])
    rows = [
        approval
        for approval in APPROVALS_BY_ENTITY.rows(state, requisition["id"])
        if approval["entityType"] == "requisition"
    ]
    return page(sorted_by_id(rows), args)


def _convert_requisition_to_rfq(state: State, args: Args) -> dict[str, Any]:
    requisition = _requisition(state, args, ("approved",), "converted to an RFQ")
    vendor_ids = invitable_vendors(state, args["vendorIds"])
    lines = [
        {"productId": line["productId"], "quantity": line["quantity"]}
        for line in requisition["lines"]
    ]
    rfq = new_rfq(state, args, requisition["title"], lines, vendor_ids, requisition["id"])
    requisition["status"] = "converted"
    requisition["rfqId"] = rfq["id"]
    audit(state, args, "requisition.converted", requisition, {"rfqId": rfq["id"]})
    return {"requisition": _view(state, requisition), "rfq": snapshot(rfq)}


PR_ID = "Id of the requisition, e.g. PR-002."

TOOLS: list[Tool] = [
    list_tool(
        "list_requisitions",
        "List purchase requisitions, optionally by status, requester, department or budget.",
        "requisitions",
        {
            "status": {
                "type": "string",
                "enum": list(REQUISITION_STATUSES),
                "description": "Only this status.",
            },
            "requesterId": record_id("user", "Only requisitions raised for this user."),
            "departmentId": record_id("department", "Only this department, e.g. DEPT-FAC."),
            "budgetId": record_id("budget", "Only requisitions drawing on this budget."),
        },
        view=requisition_view,
    ),
    search_tool(
        "search_requisitions",
        "Find requisitions whose id, title, justification or line products contain the query.",
        "requisitions",
        lambda r: (
            r["id"],
            r["title"],
            r["justification"],
            *(line["productId"] for line in r["lines"]),
        ),
        view=requisition_view,
    ),
    get_tool(
        "get_requisition",
        "One requisition with its lines, estimated total, approver and committed amount.",
        "requisitions",
        "requisition",
        "requisitionId",
        view=requisition_view,
        example="PR-002",
    ),
    WRITES.tool(
        "create_requisition",
        "Raise a draft requisition. Lines without unitPrice use the product's standard cost; "
        "neededBy defaults to 30 days from today; requester defaults to the actor and "
        "department to the requester's.",
        obj(
            {
                "actorId": actor(),
                "title": text("What is being requested."),
                "budgetId": record_id("budget", "Budget to draw on, e.g. BUD-004."),
                "lines": line_schema("Products and quantities requested.", "default standard cost"),
                "requesterId": record_id("user", "User the goods are for (default: actor)."),
                "departmentId": record_id("department", "Requesting department, e.g. DEPT-OPS."),
                "neededBy": day("Date the goods are needed (YYYY-MM-DD)."),
                "justification": long_text("Why the goods are needed."),
            },
            ["actorId", "title", "budgetId", "lines"],
        ),
        _create_requisition,
    ),
    WRITES.tool(
        "update_requisition",
        "Change a draft requisition's title, justification, needed-by date, budget or lines "
        "(lines are replaced as a whole).",
        obj(
            {
                "actorId": actor(),
                "requisitionId": record_id("requisition", PR_ID),
                "title": text("New title."),
                "justification": long_text("New justification."),
                "neededBy": day("New needed-by date."),
                "budgetId": record_id("budget", "New budget."),
                "lines": line_schema("Replacement lines.", "default standard cost"),
            },
            ["actorId", "requisitionId"],
        ),
        _update_requisition,
    ),
    WRITES.tool(
        "submit_requisition",
        "Send a draft requisition for approval by a named approver (creates a pending "
        "approval). The approver's limit must cover the estimated total to approve it.",
        acting_on(
            "requisition",
            "requisitionId",
            PR_ID,
            approverId=record_id("user", "User who should approve it, e.g. USR-003."),
        ),  # fmt: skip
        _submit_requisition,
    ),
    define_tool(
        "check_requisition_budget",
        "Read-only: whether the requisition's budget has headroom for its estimated total, "
        "and the shortfall if not.",
        by_id("requisition", "requisitionId", PR_ID),
        _check_requisition_budget,
        read_only=True,
    ),
    WRITES.tool(
        "approve_requisition",
        "Approve a pending requisition as its named approver: needs an approval limit covering "
        "the estimated total and budget headroom, which is then committed.",
        obj(
            {
                "actorId": actor("The requisition's named approver."),
                "requisitionId": record_id("requisition", PR_ID),
                "note": long_text("Optional note kept on the approval."),
            },
            ["actorId", "requisitionId"],
        ),
        _approve_requisition,
    ),
    WRITES.tool(
        "reject_requisition",
        "Reject a pending requisition as its named approver; the reason is kept as the "
        "approval's note. Nothing is committed.",
        acting_on("requisition", "requisitionId", PR_ID, reason=reason("Why it is rejected.")),
        _reject_requisition,
    ),
    WRITES.tool(
        "cancel_requisition",
        "Cancel a draft, pending or approved requisition: releases any budget commitment and "
        "cancels a pending approval.",
        acting_on("requisition", "requisitionId", PR_ID, reason=reason("Why it is cancelled.")),
        _cancel_requisition,
    ),
    define_tool(
        "list_requisition_approvals",
        "Every approval request of a requisition, oldest first.",
        listing({"requisitionId": record_id("requisition", PR_ID)}, ["requisitionId"]),
        _list_requisition_approvals,
        read_only=True,
    ),
    WRITES.tool(
        "convert_requisition_to_rfq",
        "Turn an approved requisition into a draft RFQ to the given vendors (blocked or "
        "inactive vendors are refused); the requisition becomes converted.",
        obj(
            {
                "actorId": actor(),
                "requisitionId": record_id("requisition", PR_ID),
                "vendorIds": id_list("vendor", "Vendors to invite, e.g. [VEN-003, VEN-012]."),
                "responseDueDate": day("Date quotations are due (default 7 days from today)."),
            },
            ["actorId", "requisitionId", "vendorIds"],
        ),
        _convert_requisition_to_rfq,
    ),
]
